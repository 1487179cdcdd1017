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

namespace detail {
/// The N-D distribution of an array declared with D: D itself, or Dist<D> for a 1-D D.
template <class D>
struct as_dist {
  // An error "no type named 'type'" here means D is not a redist distribution.
};
template <class D>
  requires enable_distribution<D>
struct as_dist<D> {
  using type = Dist<D>;
};
template <class... D>
struct as_dist<Dist<D...>> {
  using type = Dist<D...>;
};
}  // namespace detail

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
class DistArray {
  static_assert(detail::is_dist<D> || enable_distribution<D>,
                "redist::DistArray<T, D> requires D to be a redist distribution (Block, Cyclic<X>, GenBlock, Dist<...>, "
                "or a type declaring `using distribution_concept = redist::distribution_tag;`)");
  static_assert(std::is_trivially_copyable_v<T>, "redist::DistArray<T, D> requires T to be trivially copyable");

 public:
  using value_type = T;
  /// D as declared.
  using distribution_type = D;
  /// Its N-D form: D, or Dist<D> for a 1-D D.
  using dist_type = typename detail::as_dist<D>::type;
  static constexpr std::size_t rank() noexcept { return dist_type::rank(); }
  /// The grid type: G, or the grid of rank() with dynamic extents.
  using grid_type = std::conditional_t<std::is_void_v<G>, DynamicGrid<dist_type::rank()>, G>;
  static_assert(grid_type::rank() == rank(), "redist::DistArray<T, D, G> requires a grid type of the same rank as D");
  static_assert([] {
    if constexpr (std::is_void_v<X>) return true;
    else return X::rank() == rank();
  }(), "redist::DistArray<T, D, G, X> requires X to be redist::Extents<E...> of the same rank as D");
  /// The layout: dist_type bound to a grid_type and the extents X, which stay in its type.
  using mapping_type = typename dist_type::template basic_mapping<grid_type, X>;
  using extents_type = typename mapping_type::extents_type;
  using coords_type = typename mapping_type::coords_type;
  /// True when D is a 1-D distribution (the array was declared 1-D).
  static constexpr bool one_dimensional = !detail::is_dist<D>;
  /// Extent d as the type states it (X's), or `dynamic`.
  static constexpr std::size_t static_extent(std::size_t d) noexcept { return mapping_type::static_extent(d); }
  /// True when every extent is in the type.
  static constexpr bool has_static_extents() noexcept {
    if constexpr (std::is_void_v<X>) return false;
    else return X::is_static();
  }

  /// N-D: `extents` laid out by dist on grid (on ranks grid.first() ... of comm).
  template <std::size_t... E>
    requires(!one_dimensional)
  DistArray(Communicator comm, const extents_type& extents, const D& dist, const Grid<E...>& grid,
            const coords_type& offsets = {}, Storage storage = {})
      : comm_{comm.get()}, mapping_{bind(comm_, extents, dist, grid, offsets, storage)}, dist_{dist},
        data_(static_cast<std::size_t>(mapping_.local_size(comm_.rank())), storage_node(comm_)) {}

  template <std::size_t... E>
    requires(!one_dimensional && std::default_initializable<D>)
  DistArray(Communicator comm, const extents_type& extents, const Grid<E...>& grid, const coords_type& offsets = {},
            Storage storage = {})
      : DistArray(comm, extents, D{}, grid, offsets, storage) {}

  /// 1-D: n elements laid out by dist on every process of comm; grid, when given, is the rank-1
  /// grid of those processes (its extent must be G's, when G is static; a static extent of the
  /// argument alone stays a run-time value, since an argument cannot change the array's type).
  template <std::size_t P>
    requires one_dimensional
  DistArray(Communicator comm, index_t n, const D& dist, const Grid<P>& grid)
      : comm_{comm.get()}, mapping_{bind(comm_, {n}, dist_type(dist), grid, {}, {})}, dist_{dist},
        data_(static_cast<std::size_t>(mapping_.local_size(comm_.rank())), storage_node(comm_)) {}

  DistArray(Communicator comm, index_t n, const D& dist)
    requires(one_dimensional && grid_type::rank_dynamic() == 1)
      : DistArray(comm, n, dist, Grid<dynamic>(comm.get().size())) {}
  DistArray(Communicator comm, index_t n, const D& dist)
    requires(one_dimensional && grid_type::rank_dynamic() == 0)
      : DistArray(comm, n, dist, grid_type{}) {}

  template <std::size_t P>
    requires(one_dimensional && std::default_initializable<D>)
  DistArray(Communicator comm, index_t n, const Grid<P>& grid) : DistArray(comm, n, D{}, grid) {}

  DistArray(Communicator comm, index_t n)
    requires(one_dimensional && std::default_initializable<D>)
      : DistArray(comm, n, D{}) {}

  /// Extents, distribution and (N-D) grid all from the type: DistArray<double, Cyclic<8>,
  /// Grid<4>, Extents<1024>> a(world), DistArray<double, Dist<Block, Block>, Grid<2, 2>,
  /// Extents<64, 64>> m(world).
  explicit DistArray(Communicator comm)
    requires(has_static_extents() && std::default_initializable<D> && (one_dimensional || grid_type::rank_dynamic() == 0))
      : DistArray(from_type{}, comm, static_extents()) {}

  DistArray(const DistArray&) = default;
  DistArray(DistArray&&) noexcept = default;
  DistArray& operator=(DistArray&&) noexcept = default;

  /// Redistributes src's values into this array's layout (which does not change).
  DistArray& operator=(const DistArray& src) {
    if (this != &src) redistribute(src, *this, schedule::automatic);
    return *this;
  }
  template <class U, class E, class H, class Y>
  DistArray& operator=(const DistArray<U, E, H, Y>& src) {
    static_assert(std::is_same_v<U, T>,
                  "redist::DistArray assignment b = a requires a and b to have the same element type");
    redistribute(src, *this, schedule::automatic);
    return *this;
  }
  /// b = transpose(a): b(i, j) = a(j, i), in one redistribution (no intermediate copy).
  template <class A>
  DistArray& operator=(const TransposeView<A>& src) {
    static_assert(std::is_same_v<typename A::value_type, T>,
                  "redist::DistArray assignment b = transpose(a) requires a and b to have the same element type");
    redistribute(src, *this, schedule::automatic);
    return *this;
  }

  /// Number of elements of the global array.
  index_t size() const noexcept { return mapping_.size(); }
  const extents_type& extents() const noexcept { return mapping_.extents(); }
  index_t extent(std::size_t d) const noexcept { return mapping_.extent(d); }
  /// This rank's elements in local storage order (with the padding of the leading dimension).
  std::span<T> local() noexcept { return data_.span(); }
  std::span<const T> local() const noexcept { return data_.span(); }
  /// Elements of local() (padding included).
  index_t local_size() const noexcept { return static_cast<index_t>(data_.size()); }
  /// True when local() lives in a shared-memory window of this rank's node
  /// (options::shared_memory), where `b = a` reads it in place from the other ranks of the node.
  /// A copy of an array is always in ordinary memory.
  bool in_shared_memory() const noexcept { return data_.segment() != nullptr; }
  /// This rank's local extents (all zero outside the grid).
  extents_type local_extents() const { return mapping_.local_extents(comm_.rank()); }
  /// The stride of the second-fastest dimension of local storage (ScaLAPACK's LLD).
  index_t leading_dimension() const { return mapping_.leading_dimension(comm_.rank()); }
  /// Element strides of local storage, per dimension.
  extents_type local_strides() const { return mapping_.strides(comm_.rank()); }
  /// Offset in local() of the local element at local multi-index l.
  index_t local_offset(const extents_type& l) const {
    const extents_type s = local_strides();
    index_t off = 0;
    for (std::size_t d = 0; d < rank(); ++d) off += l[d] * s[d];
    return off;
  }
  /// This rank's grid coordinates, or nothing outside the grid.
  std::optional<coords_type> coords() const noexcept { return mapping_.coords_of(comm_.rank()); }
  /// Global multi-index of this rank's local element at local multi-index l.
  extents_type global_index(const extents_type& l) const { return mapping_.global_index(comm_.rank(), l); }
  /// Rank (in the communicator) that owns the element at global multi-index g.
  int owner(const extents_type& g) const { return mapping_.owner(g); }
  /// Offset of global element g in its owner's local(), as the owner stores it.
  index_t local_index(const extents_type& g) const { return mapping_.local_offset(g); }

  /// 1-D: global index of this rank's local element l.
  index_t global_index(index_t l) const noexcept
    requires one_dimensional
  {
    return mapping_.linear().global_index(comm_.rank(), l);
  }
  /// 1-D: rank that owns global element g.
  int owner(index_t g) const noexcept
    requires one_dimensional
  {
    return mapping_.linear().owner(g);
  }
  /// 1-D: local index of global element g on its owner.
  index_t local_index(index_t g) const noexcept
    requires one_dimensional
  {
    return mapping_.linear().local_index(g);
  }

  const boost::mpi::communicator& comm() const noexcept { return comm_; }
  /// The distribution as declared (D).
  const D& distribution() const noexcept { return dist_; }
  /// The layout: dist_type bound to the extents, the grid, the offsets and the storage.
  const mapping_type& mapping() const noexcept { return mapping_; }
  const typename mapping_type::grid_type& grid() const noexcept { return mapping_.grid(); }
  /// 1-D with a static grid type: the compile-time process count, else dynamic.
  static constexpr std::size_t static_nprocs() noexcept {
    if constexpr (one_dimensional) return grid_type::static_extent(0);
    else return dynamic;
  }

 private:
  friend struct detail::array_access;

  struct from_type {};
  DistArray(from_type, Communicator comm, const extents_type& e)
    requires(one_dimensional)
      : DistArray(comm, e[0], D{}) {}
  DistArray(from_type, Communicator comm, const extents_type& e)
    requires(!one_dimensional)
      : DistArray(comm, e, D{}, grid_type{}) {}
  /// The node whose shared memory holds a new array's storage, or nullptr for ordinary memory.
  static std::shared_ptr<const runtime::Node> storage_node(const boost::mpi::communicator& comm) {
    if (!default_options().shared_memory || comm.size() == 1) return nullptr;
    return runtime::node_of(static_cast<MPI_Comm>(comm), default_options().node_size);
  }
  static constexpr extents_type static_extents() noexcept {
    extents_type e{};
    for (std::size_t d = 0; d < rank(); ++d) e[d] = static_cast<index_t>(static_extent(d));
    return e;
  }

  template <std::size_t... E>
  static mapping_type bind(const boost::mpi::communicator& comm, const extents_type& extents, const dist_type& dist,
                           const Grid<E...>& grid, const coords_type& offsets, Storage storage) {
    static_assert(sizeof...(E) == rank(),
                  "redist::DistArray<T, Dist<D...>>(comm, extents, grid) requires a grid of the same rank as Dist<D...>");
    for (std::size_t d = 0; d < rank(); ++d)
      if (grid_type::static_extent(d) != dynamic && static_cast<index_t>(grid_type::static_extent(d)) != grid.extent(d))
        detail::report_error("redist::DistArray<T, D, G>(comm, ..., grid) requires the grid's extent " + std::to_string(d) +
                             " to be G's static extent " + std::to_string(grid_type::static_extent(d)) + " (got " +
                             std::to_string(grid.extent(d)) + ")");
    const char* call = one_dimensional ? "redist::DistArray(comm, n, dist)" : "redist::DistArray(comm, extents, grid)";
    std::optional<mapping_type> m;
    std::optional<std::string> failure;
    try {
      for (std::size_t d = 0; d < rank(); ++d)
        if (static_extent(d) != dynamic && static_cast<index_t>(static_extent(d)) != extents[d])
          detail::report_error(std::string(one_dimensional ? "redist::DistArray<T, D, G, X>(comm, n) requires n"
                                                           : "redist::DistArray<T, D, G, X>(comm, extents, grid) requires extent " +
                                                                 std::to_string(d)) +
                               " to be X's static extent " + std::to_string(static_extent(d)) + " (got " +
                               std::to_string(extents[d]) + ")");
      if constexpr (one_dimensional) {
        if (grid.size() != comm.size() || grid.first() != 0)
          detail::report_error("redist::DistArray(comm, n, grid) requires the grid to hold every process of the "
                               "communicator from rank 0 (a grid of " + std::to_string(grid.size()) + " from rank " +
                               std::to_string(grid.first()) + ", communicator of " + std::to_string(comm.size()) +
                               "); declare a Dist<D> array for a grid on some of them");
      }
      m.emplace(dist, extents, grid, offsets, storage, comm.size());
      const auto e = m->local_extents(comm.rank());
      const std::size_t fast = m->fastest();
      if (storage.ld != 0 && storage.ld < e[fast])
        detail::report_error("redist::DistArray(comm, extents, grid, offsets, storage) requires storage.ld to be at least "
                             "the local extent of the fastest dimension (" + std::to_string(storage.ld) + " < " +
                             std::to_string(e[fast]) + " on rank " + std::to_string(comm.rank()) + ")");
    } catch (const error& e) {
      failure = e.what();
    }
    if (default_options().check_consistency) {
      std::uint64_t shape = detail::hash_seed;
      for (index_t e : extents) shape = detail::hash_mix(shape, static_cast<std::uint64_t>(e));
      const detail::Parameter params[] = {
          {one_dimensional ? "n" : "extents", shape},
          {one_dimensional ? "distribution" : "distribution, grid and offsets", m ? m->fingerprint() : 0}};
      detail::agree(comm, call, params, failure);
    } else if (failure) {
      detail::report_error(*failure);
    }
    return std::move(*m);
  }

  boost::mpi::communicator comm_;
  mapping_type mapping_;
  D dist_;
  detail::LocalStorage<T> data_;
  detail::PlanCache cache_;
};

template <class D>
  requires enable_distribution<D>
DistArray(Communicator, index_t, D) -> DistArray<double, D>;
/// DistArray a(comm, n, Cyclic<8>{}, Grid<4>{}) keeps the static process count in its type.
template <class D, std::size_t P>
  requires enable_distribution<D>
DistArray(Communicator, index_t, D, Grid<P>) -> DistArray<double, D, std::conditional_t<P == dynamic, void, Grid<P>>>;

}  // namespace redist
