/// @file Defines Grid<E...>, a process grid with static or dynamic extents, its rank order, and Order.
#pragma once

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <redist/config.hpp>
#include <redist/detail/hash.hpp>
#include <redist/fwd.hpp>

namespace redist {

/// The order in which a grid numbers its processes, or a local array stores its elements.
/// row_major: the last coordinate varies fastest (C); column_major: the first (Fortran, BLACS 'C').
enum class Order { row_major, column_major };
inline constexpr Order row_major = Order::row_major;
inline constexpr Order column_major = Order::column_major;

namespace detail {
/// A grid's rank map (Grid::with_ranks): the rank of each grid position, and its inverse.
/// Tables are interned (one per distinct content, for the life of the process), so that grids
/// compare and copy as plain values: equal maps are the same pointer.
struct RankTable {
  std::vector<int> rank;      ///< rank[k]: the rank of grid position k
  std::vector<int> position;  ///< position[r]: the grid position of rank r, -1 for none
  std::uint64_t hash = 0;     ///< of rank's content, for fingerprints and agreement
  int end = 0;                ///< one past the greatest rank
};

/// The interned table of `ranks` (distinct, >= 0; the caller checks). Thread-safe.
inline const RankTable* intern_rank_table(std::span<const int> ranks) {
  static std::mutex lock;
  static std::map<std::vector<int>, RankTable> tables;
  std::vector<int> key(ranks.begin(), ranks.end());
  const std::scoped_lock guard(lock);
  auto [it, added] = tables.try_emplace(key);
  RankTable& t = it->second;
  if (added) {
    t.rank = std::move(key);
    t.hash = hash_seed;
    for (int r : t.rank) {
      t.end = std::max(t.end, r + 1);
      t.hash = hash_mix(t.hash, static_cast<std::uint64_t>(r));
    }
    t.position.assign(static_cast<std::size_t>(t.end), -1);
    for (std::size_t k = 0; k < t.rank.size(); ++k)
      t.position[static_cast<std::size_t>(t.rank[k])] = static_cast<int>(k);
  }
  return &t;
}
}  // namespace detail

/// A process grid of rank sizeof...(E), each extent static or `dynamic` (as std::extents). Grid
/// coordinate c is process first() + (c's position in order()) of the communicator; the grid may
/// use a subset of the communicator, and ranks outside it hold nothing. `Grid{2, 2}` is a
/// dynamic 2 × 2 grid, `Grid<2, 2>{}` a static one; both number ranks row-major unless
/// `.with_order(redist::column_major)` says otherwise (BLACS's "Col" order). `.with_ranks(r)`
/// places position k (in order()) on any rank r[k] instead (a general `Cblacs_gridmap`).
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
  /// Rank (in the communicator) of grid position 0 (of coordinates (0, ..., 0)).
  constexpr int first() const noexcept { return map_ != nullptr ? map_->rank[0] : first_; }
  /// One past the greatest rank the grid uses: the communicator must have at least this many.
  constexpr int end_rank() const noexcept { return map_ != nullptr ? map_->end : first_ + size(); }
  /// The grid's rank map: rank_map()[k] is the rank of position k (in order()); empty when the
  /// grid places position k on rank first() + k.
  std::span<const int> rank_map() const noexcept {
    return map_ != nullptr ? std::span<const int>(map_->rank) : std::span<const int>{};
  }
  /// A hash of the rank map (0 when there is none).
  constexpr std::uint64_t rank_map_hash() const noexcept { return map_ != nullptr ? map_->hash : 0; }
  /// The interned rank map itself (nullptr when there is none), for interop types that carry a
  /// placement (scalapack::BlacsGrid); with_rank_table(t) places a grid by it.
  constexpr const detail::RankTable* rank_table() const noexcept { return map_; }
  constexpr Grid with_rank_table(const detail::RankTable* t) const noexcept {
    Grid g = *this;
    g.map_ = t;
    if (t != nullptr) g.first_ = 0;
    return g;
  }

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
    g.map_ = nullptr;
    return g;
  }
  /// This grid with position k (numbered in order()) on rank ranks[k]: any placement of the
  /// grid's processes on the communicator, as BLACS's Cblacs_gridmap makes. ranks must hold
  /// size() distinct ranks >= 0 (the array checks them against its communicator). A map of
  /// consecutive ranks is the same grid as with_first(ranks[0]).
  Grid with_ranks(std::span<const int> ranks) const {
    if (ranks.size() != static_cast<std::size_t>(size()))
      detail::report_error("redist::Grid::with_ranks(ranks) requires one rank per grid process (" +
                           std::to_string(size()) + ", got " + std::to_string(ranks.size()) + ")");
    bool consecutive = true;
    for (std::size_t k = 0; k < ranks.size(); ++k) {
      if (ranks[k] < 0)
        detail::report_error("redist::Grid::with_ranks(ranks) requires every rank to be >= 0 (ranks[" +
                             std::to_string(k) + "] = " + std::to_string(ranks[k]) + ")");
      consecutive = consecutive && ranks[k] == ranks[0] + static_cast<int>(k);
    }
    if (consecutive) return with_first(ranks[0]);
    std::vector<int> sorted(ranks.begin(), ranks.end());
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
      detail::report_error("redist::Grid::with_ranks(ranks) requires the ranks to be distinct (rank " +
                           std::to_string(*std::adjacent_find(sorted.begin(), sorted.end())) + " appears twice)");
    const detail::RankTable* t = detail::intern_rank_table(ranks);
    Grid g = *this;
    g.first_ = 0;
    g.map_ = t;
    return g;
  }

  /// The communicator rank of grid coordinates c.
  constexpr int rank_of(const std::array<int, rank()>& c) const noexcept {
    int pos = 0;
    if (order_ == Order::row_major)
      for (std::size_t d = 0; d < rank(); ++d) pos = pos * extents_[d] + c[d];
    else
      for (std::size_t d = rank(); d-- > 0;) pos = pos * extents_[d] + c[d];
    return map_ != nullptr ? map_->rank[static_cast<std::size_t>(pos)] : first_ + pos;
  }
  /// The grid coordinates of communicator rank r, or nothing when r is outside the grid.
  constexpr std::optional<std::array<int, rank()>> coords_of(int r) const noexcept {
    int pos = r - first_;
    if (map_ != nullptr) pos = r >= 0 && r < map_->end ? map_->position[static_cast<std::size_t>(r)] : -1;
    if (pos < 0 || pos >= size()) return std::nullopt;
    std::array<int, rank()> c{};
    if (order_ == Order::row_major)
      for (std::size_t d = rank(); d-- > 0;) c[d] = pos % extents_[d], pos /= extents_[d];
    else
      for (std::size_t d = 0; d < rank(); ++d) c[d] = pos % extents_[d], pos /= extents_[d];
    return c;
  }

  /// This grid's extents, numbered and placed on ranks as o's are (its order, first rank and
  /// rank map).
  template <std::size_t... F>
  constexpr Grid placed_as(const Grid<F...>& o) const noexcept {
    Grid g = *this;
    g.order_ = o.order_;
    g.first_ = o.first_;
    g.map_ = o.map_;
    return g;
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
  const detail::RankTable* map_ = nullptr;  // interned; nullptr: position k on rank first_ + k

  template <std::size_t...>
  friend class Grid;
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
  return g.placed_as(*this);
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
