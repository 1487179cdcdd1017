/// @file Defines DistArray<T, D>: an array distributed over a communicator, 1-D (the rank-1 case) or N-D on a process grid.
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/mpi/communicator.hpp>

#include <redist/array/access.hpp>
#include <redist/array/dist_array_base.hpp>
#include <redist/array/communicator.hpp>
#include <redist/array/consistency.hpp>
#include <redist/array/local_storage.hpp>
#include <redist/array/options.hpp>
#include <redist/array/plan_cache.hpp>
#include <redist/array/redistribute.hpp>
#include <redist/array/transpose.hpp>
#include <redist/detail/hash.hpp>
#include <redist/dist/dist.hpp>
#include <redist/dist/distribution.hpp>
#include <redist/dist/extents.hpp>
#include <redist/dist/grid.hpp>
#include <redist/runtime/node.hpp>
#include <redist/schedule/schedule.hpp>

namespace redist {

/// An array of T distributed over the processes of a communicator, laid out by D.
///  - D = Dist<D_0, ..., D_{N-1}>: N-D, dimension d distributed by D_d over dimension d of a
///    process grid, from grid coordinate offsets[d] (ScaLAPACK RSRC/CSRC); local storage
///    column-major with leading dimension max(storage.ld, local rows) unless storage says
///    otherwise; ranks of the communicator outside the grid hold nothing.
///  - D a 1-D distribution (Block, Cyclic<X>, GenBlock, a user's): the rank-1 case, Dist<D> on a
///    rank-1 grid of every process of the communicator, with 1-D index queries
///    (global_index(l), owner(g), ...).
///  - G, when given, is the grid type: DistArray<T, Cyclic<8>, Grid<4>> states the process count
///    at compile time. The layout keeps it (mapping_type is Dist::basic_mapping<G, X>), and for a
///    1-D array it reaches the plan (StaticNprocs), where a Cyclic<S> -> Cyclic<T> pair takes its
///    basic-cycle templates from static tables. G = void (the default) is the grid of D's rank
///    with dynamic extents; a grid of static type passed to the constructor then gives its extents
///    at run time only.
///  - X, when given, is Extents<E...> of D's rank: the global extents in the type (each static or
///    `dynamic`). The extents passed to the constructor must equal the static ones (a redist::error
///    otherwise), and an array of fully static extents can omit them (DistArray<double, Cyclic<8>,
///    Grid<4>, Extents<1024>> a(world)). Assigning arrays whose static extents differ does not
///    compile; with static distributions and grid as well, message_table<A, B>() is a constant
///    expression.
/// `b = a` redistributes a's values into b's layout (collective) between any two layouts of
/// the same rank and extents, on any grids of one communicator; the plan is cached in b, so
/// repeating it does no index work. Construction is collective: every rank passes the same
/// arguments (storage.ld may differ, as ScaLAPACK's LLD); with default_options().check_consistency
/// one small all-reduce verifies that, and a bad parameter throws redist::error on every rank.
template <class T, class D, class G, class X>
class DistArray : private detail::OwnedStorage<T>, public detail::DistArrayBase<DistArray<T, D, G, X>, T, D, G, X> {
  using base = detail::DistArrayBase<DistArray<T, D, G, X>, T, D, G, X>;

 public:
  using typename base::coords_type;
  using typename base::dist_type;
  using typename base::extents_type;
  using typename base::grid_type;
  using base::has_static_extents;
  using base::one_dimensional;
  using base::operator=;
  static constexpr const char* class_name = "redist::DistArray";
  static constexpr const char* memory_argument = "";

  /// N-D: `extents` laid out by dist on grid (on ranks grid.first() ... of comm).
  template <std::size_t... E>
    requires(!base::one_dimensional)
  DistArray(Communicator comm, const extents_type& extents, const D& dist, const Grid<E...>& grid,
            const coords_type& offsets = {}, Storage storage = {})
      : base(detail::LocalMemory<T>(&this->storage_), comm.get(), extents, dist, grid, offsets, storage) {}

  template <std::size_t... E>
    requires(!base::one_dimensional && std::default_initializable<D>)
  DistArray(Communicator comm, const extents_type& extents, const Grid<E...>& grid, const coords_type& offsets = {},
            Storage storage = {})
      : DistArray(comm, extents, D{}, grid, offsets, storage) {}

  /// An N-D array given one number where its extents go: refused at compile time with a sentence
  /// (instead of a list of every constructor that did not match).
  template <class... Rest>
    requires(!base::one_dimensional && (base::rank() > 1))
  DistArray(Communicator, index_t, Rest&&...) : DistArray(detail::refuse_one_extent<Rest...>()) {}

  /// 1-D: n elements laid out by dist on every process of comm; grid, when given, is the rank-1
  /// grid of those processes (its extent must be G's, when G is static; a static extent of the
  /// argument alone stays a run-time value, since an argument cannot change the array's type).
  template <std::size_t P>
    requires base::one_dimensional
  DistArray(Communicator comm, index_t n, const D& dist, const Grid<P>& grid)
      : base(detail::LocalMemory<T>(&this->storage_), comm.get(), extents_type{n}, dist_type(dist), grid, coords_type{},
             Storage{}) {}

  DistArray(Communicator comm, index_t n, const D& dist)
    requires base::one_dimensional
      : base(detail::LocalMemory<T>(&this->storage_), comm.get(), n, dist) {}

  template <std::size_t P>
    requires(base::one_dimensional && std::default_initializable<D>)
  DistArray(Communicator comm, index_t n, const Grid<P>& grid) : DistArray(comm, n, D{}, grid) {}

  DistArray(Communicator comm, index_t n)
    requires(base::one_dimensional && std::default_initializable<D>)
      : DistArray(comm, n, D{}) {}

  /// Extents, distribution and (N-D) grid all from the type: DistArray<double, Cyclic<8>,
  /// Grid<4>, Extents<1024>> a(world), DistArray<double, Dist<Block, Block>, Grid<2, 2>,
  /// Extents<64, 64>> m(world).
  explicit DistArray(Communicator comm)
    requires(base::has_static_extents() && std::default_initializable<D> && (base::one_dimensional || grid_type::rank_dynamic() == 0))
      : base(detail::LocalMemory<T>(&this->storage_), comm.get()) {}

  DistArray(const DistArray&) = default;
  DistArray(DistArray&&) noexcept = default;
  DistArray& operator=(DistArray&&) noexcept = default;
  /// Redistributes src's values into this array's layout (which does not change).
  DistArray& operator=(const DistArray& src) {
    if (this != &src) redistribute(src, *this, schedule::automatic);
    return *this;
  }

  /// This rank's elements in local storage order (with the padding of the leading dimension).
  std::span<T> local() noexcept { return this->storage_.span(); }
  std::span<const T> local() const noexcept { return this->storage_.span(); }
  /// True when local() lives in a shared-memory window of this rank's node
  /// (options::shared_memory), where `b = a` reads it in place from the other ranks of the node.
  /// A copy of an array is always in ordinary memory.
  bool in_shared_memory() const noexcept { return this->storage_.segment() != nullptr; }

 private:
  explicit DistArray(detail::one_extent_refused);  // never defined: named only by the refusal above
  friend struct detail::array_access;
};

template <class D>
  requires enable_distribution<D>
DistArray(Communicator, index_t, D) -> DistArray<double, D>;
/// DistArray a(comm, n, Cyclic<8>{}, Grid<4>{}) keeps the static process count in its type.
template <class D, std::size_t P>
  requires enable_distribution<D>
DistArray(Communicator, index_t, D, Grid<P>) -> DistArray<double, D, std::conditional_t<P == dynamic, void, Grid<P>>>;

}  // namespace redist
