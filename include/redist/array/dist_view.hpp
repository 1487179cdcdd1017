/// @file Defines DistView<T, D>: a distributed array over the caller's memory, with the whole API of DistArray, redistributed in place.
#pragma once

#include <concepts>
#include <cstddef>
#include <ranges>
#include <span>
#include <type_traits>

#include <redist/array/access.hpp>
#include <redist/array/communicator.hpp>
#include <redist/array/dist_array_base.hpp>
#include <redist/array/shared_buffer.hpp>
#include <redist/dist/dist.hpp>
#include <redist/dist/grid.hpp>
#include <redist/runtime/node.hpp>

namespace redist {

namespace detail {
/// The caller's memory of a DistView on this rank: a pointer (its size unknown: the caller
/// vouches that it holds required_span_size() elements) or a contiguous range (a std::span, a
/// std::vector, ...: its size is checked against the layout on every rank before anything is
/// written).
template <class T>
struct caller_memory {
  T* data = nullptr;
  std::size_t size = unknown_size;

  caller_memory(T* p) noexcept : data{p} {}  // implicit on purpose: DistView v(ptr, comm, n)
  caller_memory(std::nullptr_t) noexcept {}
  template <std::ranges::contiguous_range R>
    requires std::ranges::sized_range<R> && std::convertible_to<std::ranges::range_value_t<R>*, T*> &&
             std::is_lvalue_reference_v<std::ranges::range_reference_t<R>>
  caller_memory(R&& r) noexcept : data{std::ranges::data(r)}, size{static_cast<std::size_t>(std::ranges::size(r))} {}
};
}  // namespace detail

/// A distributed array over memory the caller owns: the layouts, queries, assignment in both
/// directions, transpose, schedules and options of DistArray<T, D, G, X>, on this rank's
/// `data` (the caller's pointer first, as in std::mdspan). `b = a` with a view as b writes the
/// caller's memory in place; as a it reads it; neither allocates anything array-sized (a plan's
/// scratch for packed messages, kept between calls, is all). `data` must hold
/// required_span_size() elements on each rank (DistView<T, D>::required_span_size(comm, ...),
/// with the arguments of the constructor, says how many before allocating): given as a range
/// (std::span, std::vector, ...), its size is checked on every rank and a short one throws
/// redist::error on every rank; given as a pointer it cannot be checked. A rank outside the
/// grid (or whose part is empty) may pass nullptr. Storage{order, ld} describes padded caller
/// storage (ScaLAPACK's LLD, which may differ per rank); nothing outside the elements is ever
/// written. Copying a view copies the reference (both see the same memory), not the elements.
/// T may be const (a read-only source). Construction is collective, like DistArray's.
///
/// Memory from a SharedBuffer on the same communicator makes a view a source that node peers
/// read in place (options::shared_memory), as a DistArray is.
template <class T, class D, class G = void, class X = void>
class DistView : public detail::DistArrayBase<DistView<T, D, G, X>, T, D, G, X> {
  using base = detail::DistArrayBase<DistView<T, D, G, X>, T, D, G, X>;

 public:
  using typename base::coords_type;
  using typename base::dist_type;
  using typename base::extents_type;
  using typename base::grid_type;
  using base::has_static_extents;
  using base::one_dimensional;
  using base::operator=;
  static constexpr const char* class_name = "redist::DistView";
  static constexpr const char* memory_argument = "data, ";

  /// N-D: `extents` laid out by dist on grid, this rank's elements at data.
  template <std::size_t... E>
    requires(!base::one_dimensional)
  DistView(detail::caller_memory<T> data, Communicator comm, const extents_type& extents, const D& dist,
           const Grid<E...>& grid, const coords_type& offsets = {}, Storage storage = {})
      : base(data.size, comm.get(), extents, dist, grid, offsets, storage), data_{data.data} { attach(); }

  template <std::size_t... E>
    requires(!base::one_dimensional && std::default_initializable<D>)
  DistView(detail::caller_memory<T> data, Communicator comm, const extents_type& extents, const Grid<E...>& grid,
           const coords_type& offsets = {}, Storage storage = {})
      : DistView(data, comm, extents, D{}, grid, offsets, storage) {}

  /// An N-D view given one number where its extents go: refused at compile time with a sentence.
  template <class... Rest>
    requires(!base::one_dimensional && (base::rank() > 1))
  DistView(detail::caller_memory<T>, Communicator, index_t, Rest&&...) : DistView(detail::refuse_one_extent<Rest...>()) {}

  /// 1-D: n elements laid out by dist on every process of comm.
  template <std::size_t P>
    requires base::one_dimensional
  DistView(detail::caller_memory<T> data, Communicator comm, index_t n, const D& dist, const Grid<P>& grid)
      : base(data.size, comm.get(), extents_type{n}, dist_type(dist), grid, coords_type{}, Storage{}), data_{data.data} {
    attach();
  }

  DistView(detail::caller_memory<T> data, Communicator comm, index_t n, const D& dist)
    requires base::one_dimensional
      : base(data.size, comm.get(), n, dist), data_{data.data} { attach(); }

  template <std::size_t P>
    requires(base::one_dimensional && std::default_initializable<D>)
  DistView(detail::caller_memory<T> data, Communicator comm, index_t n, const Grid<P>& grid)
      : DistView(data, comm, n, D{}, grid) {}

  DistView(detail::caller_memory<T> data, Communicator comm, index_t n)
    requires(base::one_dimensional && std::default_initializable<D>)
      : DistView(data, comm, n, D{}) {}

  /// Extents, distribution and (N-D) grid from the type.
  DistView(detail::caller_memory<T> data, Communicator comm)
    requires(base::has_static_extents() && std::default_initializable<D> && (base::one_dimensional || grid_type::rank_dynamic() == 0))
      : base(data.size, comm.get()), data_{data.data} { attach(); }

  DistView(const DistView&) = default;
  DistView(DistView&&) noexcept = default;
  /// Redistributes src's values into the caller's memory of this view (collective).
  DistView& operator=(const DistView& src) {
    static_assert(!std::is_const_v<T>, "redist::DistView<const T, D> is read-only: it cannot be assigned to");
    if (this != &src) redistribute(src, *this, schedule::automatic);
    return *this;
  }

  /// This rank's elements in the caller's memory, in local storage order (padding included).
  std::span<T> local() const noexcept {
    return {data_, data_ == nullptr ? 0 : static_cast<std::size_t>(local_elems_)};
  }
  /// The caller's pointer on this rank.
  T* data() const noexcept { return data_; }
  /// True when data() is the start of a SharedBuffer in a shared window of this rank's node.
  bool in_shared_memory() const noexcept { return segment_ != nullptr; }

 private:
  friend struct detail::array_access;
  explicit DistView(detail::one_extent_refused);  // never defined: named only by the refusal above

  void attach() {
    local_elems_ = this->local_size();
    if (data_ != nullptr && local_elems_ > 0)
      segment_ = detail::shared_registry::instance().find(data_, static_cast<std::size_t>(local_elems_) * sizeof(T));
  }
  T* data_ = nullptr;
  index_t local_elems_ = 0;
  const runtime::SharedSegment* segment_ = nullptr;
};

/// DistView v(ptr, comm, n, Cyclic<3>{}) is a DistView<T, Cyclic<3>> over ptr's element type.
template <class T, class D>
  requires enable_distribution<D>
DistView(T*, Communicator, index_t, D) -> DistView<T, D>;
template <class T, class D, std::size_t P>
  requires enable_distribution<D>
DistView(T*, Communicator, index_t, D, Grid<P>) -> DistView<T, D, std::conditional_t<P == dynamic, void, Grid<P>>>;

}  // namespace redist
