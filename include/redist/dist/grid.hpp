/// @file Defines Grid<E...>, a process grid with static or dynamic extents, its rank order, and Order.
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include <redist/config.hpp>
#include <redist/fwd.hpp>

namespace redist {

/// The order in which a grid numbers its processes, or a local array stores its elements.
/// row_major: the last coordinate varies fastest (C); column_major: the first (Fortran, BLACS 'C').
enum class Order { row_major, column_major };
inline constexpr Order row_major = Order::row_major;
inline constexpr Order column_major = Order::column_major;

/// A process grid of rank sizeof...(E), each extent static or `dynamic` (as std::extents). Grid
/// coordinate c is process first() + (c's position in order()) of the communicator; the grid may
/// use a subset of the communicator, and ranks outside it hold nothing. `Grid{2, 2}` is a
/// dynamic 2 × 2 grid, `Grid<2, 2>{}` a static one; both number ranks row-major unless
/// `.with_order(redist::column_major)` says otherwise (BLACS's "Col" order).
namespace detail {
template <std::size_t... E>
constexpr std::size_t count_dynamic() noexcept {
  return (0 + ... + (E == dynamic ? 1 : 0));
}
}  // namespace detail

template <std::size_t... E>
class Grid {
  static_assert(sizeof...(E) >= 1, "redist::Grid<E...> requires at least one extent");
  static_assert(((E == dynamic || (E > 0 && E <= 1u << 30)) && ...),
                "redist::Grid<E...> requires every static extent to be > 0");

 public:
  static constexpr std::size_t rank() noexcept { return sizeof...(E); }
  static constexpr std::size_t rank_dynamic() noexcept { return detail::count_dynamic<E...>(); }
  static constexpr std::size_t static_extent(std::size_t d) noexcept { return statics_[d]; }

  constexpr Grid() noexcept requires(rank_dynamic() == 0) { fill({}); }

  /// The dynamic extents only, or all rank() extents (static ones must then match).
  template <std::integral... I>
    requires(sizeof...(I) > 0 && (sizeof...(I) == detail::count_dynamic<E...>() || sizeof...(I) == sizeof...(E)))
  constexpr explicit(sizeof...(I) != rank()) Grid(I... extents) {
    const std::array<index_t, sizeof...(I)> given{static_cast<index_t>(extents)...};
    for (index_t e : given)
      if (e <= 0 || e > (index_t{1} << 30))
        detail::report_error("redist::Grid(extents...) requires every extent to be > 0 (got " + std::to_string(e) + ")");
    if constexpr (sizeof...(I) == rank()) {
      for (std::size_t d = 0; d < rank(); ++d)
        if (statics_[d] != dynamic && static_cast<index_t>(statics_[d]) != given[d])
          detail::report_error("redist::Grid<E...>(extents...) requires extent " + std::to_string(d) +
                               " to equal its static value " + std::to_string(statics_[d]));
      for (std::size_t d = 0; d < rank(); ++d) extents_[d] = static_cast<int>(given[d]);
    } else {
      std::array<int, rank()> dyn{};
      for (std::size_t i = 0; i < given.size(); ++i) dyn[i] = static_cast<int>(given[i]);
      fill(dyn);
    }
  }

  constexpr int extent(std::size_t d) const noexcept { return extents_[d]; }
  constexpr const std::array<int, rank()>& extents() const noexcept { return extents_; }
  /// Number of processes in the grid.
  constexpr int size() const noexcept {
    int s = 1;
    for (int e : extents_) s *= e;
    return s;
  }
  constexpr Order order() const noexcept { return order_; }
  /// Rank (in the communicator) of grid coordinate (0, ..., 0)'s position 0.
  constexpr int first() const noexcept { return first_; }

  /// This grid with its processes numbered in order o.
  constexpr Grid with_order(Order o) const noexcept {
    Grid g = *this;
    g.order_ = o;
    return g;
  }
  /// This grid placed on ranks [r, r + size()) of the communicator.
  constexpr Grid with_first(int r) const {
    if (r < 0) detail::report_error("redist::Grid::with_first(r) requires r to be >= 0 (got " + std::to_string(r) + ")");
    Grid g = *this;
    g.first_ = r;
    return g;
  }

  /// The communicator rank of grid coordinates c.
  constexpr int rank_of(const std::array<int, rank()>& c) const noexcept {
    int pos = 0;
    if (order_ == Order::row_major)
      for (std::size_t d = 0; d < rank(); ++d) pos = pos * extents_[d] + c[d];
    else
      for (std::size_t d = rank(); d-- > 0;) pos = pos * extents_[d] + c[d];
    return first_ + pos;
  }
  /// The grid coordinates of communicator rank r, or nothing when r is outside the grid.
  constexpr std::optional<std::array<int, rank()>> coords_of(int r) const noexcept {
    int pos = r - first_;
    if (pos < 0 || pos >= size()) return std::nullopt;
    std::array<int, rank()> c{};
    if (order_ == Order::row_major)
      for (std::size_t d = rank(); d-- > 0;) c[d] = pos % extents_[d], pos /= extents_[d];
    else
      for (std::size_t d = 0; d < rank(); ++d) c[d] = pos % extents_[d], pos /= extents_[d];
    return c;
  }

  /// The same grid with every extent dynamic.
  constexpr auto to_dynamic() const;

  friend constexpr bool operator==(const Grid&, const Grid&) = default;

 private:
  static constexpr std::array<std::size_t, rank()> statics_{E...};

  constexpr void fill(const std::array<int, rank()>& dyn) noexcept {
    std::size_t k = 0;
    for (std::size_t d = 0; d < rank(); ++d)
      extents_[d] = statics_[d] == dynamic ? dyn[k++] : static_cast<int>(statics_[d]);
  }

  std::array<int, rank()> extents_{};
  Order order_ = Order::row_major;
  int first_ = 0;
};

namespace detail {
template <class>
inline constexpr std::size_t dynamic_for = dynamic;
}
template <std::integral... I>
Grid(I...) -> Grid<detail::dynamic_for<I>...>;

namespace detail {
template <class Seq>
struct dynamic_grid_of;
template <std::size_t... I>
struct dynamic_grid_of<std::index_sequence<I...>> {
  using type = Grid<(void(I), dynamic)...>;
};
}  // namespace detail

/// The grid type of rank N with every extent dynamic (what a bound layout stores).
template <std::size_t N>
using DynamicGrid = typename detail::dynamic_grid_of<std::make_index_sequence<N>>::type;

template <std::size_t... E>
constexpr auto Grid<E...>::to_dynamic() const {
  DynamicGrid<rank()> g = std::apply([](auto... e) { return DynamicGrid<rank()>(e...); }, extents_);
  return g.with_order(order_).with_first(first_);
}

/// The local storage of an N-D array: the order of its elements and the leading dimension (the
/// stride of the second-fastest dimension: ScaLAPACK's LLD for column_major). ld = 0 means
/// tight (the local extent of the fastest dimension); otherwise ld must be at least that extent.
struct Storage {
  Order order = Order::column_major;
  index_t ld = 0;
  friend constexpr bool operator==(const Storage&, const Storage&) = default;
};

}  // namespace redist
