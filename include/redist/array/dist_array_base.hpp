/// @file Defines detail::DistArrayBase, what DistArray (owning) and DistView (over the caller's memory) share: the layout, the communicator, the queries, assignment and the plan cache.
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include <boost/mpi/communicator.hpp>

#include <redist/array/access.hpp>
#include <redist/array/communicator.hpp>
#include <redist/array/consistency.hpp>
#include <redist/array/expression.hpp>
#include <redist/array/indirect.hpp>
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
#include <redist/schedule/schedule.hpp>

namespace redist {

namespace detail {
/// What the constructors of DistArray and DistView that take one number for an N-D array's
/// extents delegate to: refuse_one_extent's static_assert is the compiler's message.
struct one_extent_refused {};
template <class... Rest>
constexpr one_extent_refused refuse_one_extent() {
  static_assert(sizeof...(Rest) > 1000,
                "redist::DistArray and redist::DistView of rank N > 1 take their extents as {e0, e1, ...}, one per "
                "dimension (a braced list or a std::array<redist::index_t, N>), not one number");
  return {};
}

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

/// No size given with the local storage: the caller vouches for it (a DistView over a raw
/// pointer), or redist allocates it (DistArray).
inline constexpr std::size_t unknown_size = std::numeric_limits<std::size_t>::max();

/// The local memory an array's construction deals with: the elements of the caller's memory
/// (DistView: `given`, unknown_size when not given), or the storage redist allocates (DistArray:
/// `store`), which construction allocates before the ranks agree, so that a rank that cannot
/// hold its part makes every rank throw.
template <class T>
struct LocalMemory {
  std::size_t given = unknown_size;
  LocalStorage<T>* store = nullptr;
  LocalMemory(std::size_t g) noexcept : given{g} {}  // implicit: a DistView passes its size
  explicit LocalMemory(LocalStorage<T>* s) noexcept : store{s} {}
};

/// The layout, communicator, queries, assignment and plan cache of a distributed array, shared
/// by DistArray (which owns its local elements) and DistView (which works on the caller's):
/// Derived gives local() and the storage. See DistArray for the meaning of D, G and X.
/// Construction is collective: every rank passes the same arguments (storage.ld may differ), and
/// with default_options().check_consistency one small all-reduce verifies that, together with
/// each rank's own checks (the size of the caller's memory, when given); a bad argument throws
/// redist::error on every rank.
template <class Derived, class T, class D, class G, class X>
class DistArrayBase {
  static_assert(is_dist<D> || enable_distribution<D>,
                "redist::DistArray<T, D> requires D to be a redist distribution, as does redist::DistView<T, D> (Block, "
                "Cyclic<X>, GenBlock, Dist<...>, or a type declaring `using distribution_concept = redist::distribution_tag;`)");
  static_assert(std::is_trivially_copyable_v<T>,
                "redist::DistArray<T, D> requires T to be trivially copyable, as does redist::DistView<T, D>");

 public:
  /// The element type without const (a DistView<const T, D> has element_type const T).
  using value_type = std::remove_cv_t<T>;
  using element_type = T;
  /// D as declared.
  using distribution_type = D;
  /// Its N-D form: D, or Dist<D> for a 1-D D.
  using dist_type = typename as_dist<D>::type;
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
  static constexpr bool one_dimensional = !is_dist<D>;
  /// Extent d as the type states it (X's), or `dynamic`.
  static constexpr std::size_t static_extent(std::size_t d) noexcept { return mapping_type::static_extent(d); }
  /// True when every extent is in the type.
  static constexpr bool has_static_extents() noexcept {
    if constexpr (std::is_void_v<X>) return false;
    else return X::is_static();
  }
  /// 1-D with a static grid type: the compile-time process count, else dynamic.
  static constexpr std::size_t static_nprocs() noexcept {
    if constexpr (one_dimensional) return grid_type::static_extent(0);
    else return dynamic;
  }

  /// Redistributes src's values into this array's layout (which does not change): src is any
  /// distributed array of the same element type, rank and extents — a DistArray, a DistView, a
  /// section — on the same communicator. Collective; the plan is cached in this array.
  template <DistributedArray A>
  Derived& operator=(const A& src) {
    static_assert(std::is_same_v<typename A::value_type, value_type>,
                  "redist::DistArray assignment b = a requires a and b to have the same element type");
    static_assert(!std::is_const_v<T>, "redist::DistView<const T, D> is read-only: it cannot be assigned to");
    redistribute(src, self(), schedule::automatic);
    return self();
  }
  /// b = transpose(a): b(i, j) = a(j, i), in one redistribution (no intermediate copy).
  template <class A>
  Derived& operator=(const TransposeView<A>& src) {
    static_assert(std::is_same_v<typename A::value_type, value_type>,
                  "redist::DistArray assignment b = transpose(a) requires a and b to have the same element type");
    static_assert(!std::is_const_v<T>, "redist::DistView<const T, D> is read-only: it cannot be assigned to");
    redistribute(src, self(), schedule::automatic);
    return self();
  }

  /// b = alpha * op(a) [+ beta * b], op(a) = a, transpose(a) or conj_transpose(a), and b =
  /// conj_transpose(a): the redistribution with the update computed in the unpack
  /// (doc/expressions.md). Collective.
  template <class E, class S>
  Derived& operator=(const Scaled<E, S>& x) {
    static_assert(!std::is_const_v<T>, "redist::DistView<const T, D> is read-only: it cannot be assigned to");
    detail::assign_expression(self(), x);
    return self();
  }
  template <class E, class B, class S>
  Derived& operator=(const Update<E, B, S>& x) {
    static_assert(!std::is_const_v<T>, "redist::DistView<const T, D> is read-only: it cannot be assigned to");
    detail::assign_expression(self(), x);
    return self();
  }
  template <class A>
  Derived& operator=(const ConjTransposeView<A>& x) {
    static_assert(!std::is_const_v<T>, "redist::DistView<const T, D> is read-only: it cannot be assigned to");
    detail::assign_expression(self(), x);
    return self();
  }

  /// Number of elements of the global array.
  index_t size() const noexcept { return mapping_.size(); }
  const extents_type& extents() const noexcept { return mapping_.extents(); }
  index_t extent(std::size_t d) const noexcept { return mapping_.extent(d); }
  /// Elements of local() (the padding of a leading dimension included): what the layout needs
  /// on this rank.
  index_t local_size() const noexcept { return local_size_; }
  /// This rank's local extents (all zero outside the grid).
  extents_type local_extents() const { return mapping_.local_extents(rank_); }
  /// The stride of the second-fastest dimension of local storage (ScaLAPACK's LLD).
  index_t leading_dimension() const { return mapping_.leading_dimension(rank_); }
  /// Element strides of local storage, per dimension.
  extents_type local_strides() const { return mapping_.strides(rank_); }
  /// Offset in local() of the local element at local multi-index l.
  index_t local_offset(const extents_type& l) const {
    const extents_type s = local_strides();
    index_t off = 0;
    for (std::size_t d = 0; d < rank(); ++d) off += l[d] * s[d];
    return off;
  }
  /// This rank's grid coordinates, or nothing outside the grid.
  std::optional<coords_type> coords() const noexcept { return mapping_.coords_of(rank_); }
  /// Global multi-index of this rank's local element at local multi-index l.
  extents_type global_index(const extents_type& l) const { return mapping_.global_index(rank_, l); }
  /// Rank (in the communicator) that owns the element at global multi-index g.
  int owner(const extents_type& g) const { return mapping_.owner(g); }
  /// Offset of global element g in its owner's local(), as the owner stores it.
  index_t local_index(const extents_type& g) const { return mapping_.local_offset(g); }

  /// 1-D: global index of this rank's local element l.
  index_t global_index(index_t l) const noexcept
    requires one_dimensional
  {
    return mapping_.linear().global_index(rank_, l);
  }
  /// 1-D: rank that owns global element g.
  int owner(index_t g) const noexcept
    requires one_dimensional
  {
    static_assert(!indirect_layout<mapping_type>,
                  "redist: an Indirect array's owner(g) and local_index(g) are in its directory, on another rank: "
                  "not offered (global_index(l) is)");
    return mapping_.linear().owner(g);
  }
  /// 1-D: local index of global element g on its owner.
  index_t local_index(index_t g) const noexcept
    requires one_dimensional
  {
    static_assert(!indirect_layout<mapping_type>,
                  "redist: an Indirect array's owner(g) and local_index(g) are in its directory, on another rank: "
                  "not offered (global_index(l) is)");
    return mapping_.linear().local_index(g);
  }

  const boost::mpi::communicator& comm() const noexcept { return comm_; }
  /// The distribution as declared (D).
  const D& distribution() const noexcept { return dist_; }
  /// The layout: dist_type bound to the extents, the grid, the offsets and the storage.
  const mapping_type& mapping() const noexcept { return mapping_; }
  const typename mapping_type::grid_type& grid() const noexcept { return mapping_.grid(); }

  /// The number of elements this rank's local storage needs for the layout given by the same
  /// arguments as the constructor's (after the communicator): what a caller allocates before
  /// wrapping its memory in a DistView (LLD × local columns for a ScaLAPACK layout; 0 outside
  /// the grid). Not collective; a bad argument throws redist::error on this rank.
  template <std::size_t... E>
    requires(!one_dimensional)
  static index_t required_span_size(Communicator comm, const extents_type& extents, const D& dist, const Grid<E...>& grid,
                                    const coords_type& offsets = {}, Storage storage = {}) {
    return required(comm.get(), extents, dist, grid, offsets, storage);
  }
  template <std::size_t... E>
    requires(!one_dimensional && std::default_initializable<D>)
  static index_t required_span_size(Communicator comm, const extents_type& extents, const Grid<E...>& grid,
                                    const coords_type& offsets = {}, Storage storage = {}) {
    return required(comm.get(), extents, D{}, grid, offsets, storage);
  }
  template <std::size_t P>
    requires one_dimensional
  static index_t required_span_size(Communicator comm, index_t n, const D& dist, const Grid<P>& grid) {
    return required(comm.get(), {n}, dist_type(dist), grid, {}, {});
  }
  static index_t required_span_size(Communicator comm, index_t n, const D& dist)
    requires one_dimensional
  {
    return required(comm.get(), {n}, dist_type(dist), default_grid(comm.get()), {}, {});
  }
  template <std::size_t P>
    requires(one_dimensional && std::default_initializable<D>)
  static index_t required_span_size(Communicator comm, index_t n, const Grid<P>& grid) {
    return required(comm.get(), {n}, dist_type(D{}), grid, {}, {});
  }
  static index_t required_span_size(Communicator comm, index_t n)
    requires(one_dimensional && std::default_initializable<D>)
  {
    return required(comm.get(), {n}, dist_type(D{}), default_grid(comm.get()), {}, {});
  }
  static index_t required_span_size(Communicator comm)
    requires(has_static_extents() && std::default_initializable<D> && (one_dimensional || grid_type::rank_dynamic() == 0))
  {
    if constexpr (one_dimensional) return required_span_size(comm, static_extents()[0]);
    else return required(comm.get(), static_extents(), dist_type(D{}), grid_type{}, {}, {});
  }

 protected:
  friend struct array_access;

  /// N-D. `memory`: the elements of the caller's memory on this rank, or the storage to allocate.
  template <std::size_t... E>
  DistArrayBase(LocalMemory<value_type> memory, const boost::mpi::communicator& comm, const extents_type& extents,
                const dist_type& dist, const Grid<E...>& grid, const coords_type& offsets, Storage storage)
      : comm_{comm},
        rank_{comm_.rank()},
        mapping_{bind(memory, comm_, extents, dist, grid, offsets, storage)},
        local_size_{mapping_.local_size(rank_)},
        dist_{as_declared(dist)} {}
  /// 1-D on every process of comm.
  DistArrayBase(LocalMemory<value_type> memory, const boost::mpi::communicator& comm, index_t n, const D& dist)
    requires one_dimensional
      : DistArrayBase(memory, comm, extents_type{n}, dist_type(dist), default_grid(comm), coords_type{}, Storage{}) {}
  /// Extents and distribution from the type.
  DistArrayBase(LocalMemory<value_type> memory, const boost::mpi::communicator& comm)
      : DistArrayBase(memory, comm, static_extents(), dist_type(D{}), static_grid(comm), coords_type{}, Storage{}) {}

  DistArrayBase(const DistArrayBase&) = default;
  DistArrayBase(DistArrayBase&&) noexcept = default;
  DistArrayBase& operator=(const DistArrayBase&) = delete;
  DistArrayBase& operator=(DistArrayBase&&) noexcept = default;
  ~DistArrayBase() = default;

  Derived& self() noexcept { return static_cast<Derived&>(*this); }

  /// The grid of a 1-D array declared without one: every process, or G's static extent.
  static auto default_grid(const boost::mpi::communicator& comm) {
    if constexpr (one_dimensional && grid_type::rank_dynamic() == 0) return grid_type{};
    else return Grid<dynamic>(comm.size());
  }
  static auto static_grid(const boost::mpi::communicator& comm) {
    if constexpr (one_dimensional) return default_grid(comm);
    else return grid_type{};
  }
  static constexpr extents_type static_extents() noexcept {
    extents_type e{};
    for (std::size_t d = 0; d < rank(); ++d) e[d] = static_cast<index_t>(static_extent(d));
    return e;
  }

  boost::mpi::communicator comm_;
  // This rank in comm_ and its local size, kept: the queries above run in users' element loops
  // (`for (l = 0; l < a.local_size(); ++l) ... a.global_index(l)`), where MPI_Comm_rank and the
  // grid's coordinates per call cost more than the loop's body.
  int rank_;
  mapping_type mapping_;
  index_t local_size_;
  D dist_;
  // Plans are not the array's value: make_plan leaves one in a const destination's cache.
  mutable PlanCache cache_;

 private:
  static D as_declared(const dist_type& d) {
    if constexpr (one_dimensional) return d.template get<0>();
    else return d;
  }
  static std::string call_name() {
    return std::string(Derived::class_name) + "(" + Derived::memory_argument +
           (one_dimensional ? "comm, n, dist)" : "comm, extents, grid)");
  }

  /// The mapping, or the first error this rank finds (not collective).
  template <std::size_t... E>
  static std::optional<mapping_type> try_mapping(const boost::mpi::communicator& comm, const extents_type& extents,
                                                 const dist_type& dist, const Grid<E...>& grid, const coords_type& offsets,
                                                 Storage storage, std::size_t given, std::optional<std::string>& failure) {
    static_assert(sizeof...(E) == rank(),
                  "redist::DistArray<T, Dist<D...>>(comm, extents, grid) requires a grid of the same rank as Dist<D...>");
    const std::string name = Derived::class_name;
    try {
      for (std::size_t d = 0; d < rank(); ++d)
        if (grid_type::static_extent(d) != dynamic && static_cast<index_t>(grid_type::static_extent(d)) != grid.extent(d))
          report_error(name + "<T, D, G>(" + Derived::memory_argument + "comm, ..., grid) requires the grid's extent " +
                       std::to_string(d) + " to be G's static extent " + std::to_string(grid_type::static_extent(d)) +
                       " (got " + std::to_string(grid.extent(d)) + ")");
      for (std::size_t d = 0; d < rank(); ++d)
        if (static_extent(d) != dynamic && static_cast<index_t>(static_extent(d)) != extents[d])
          report_error(name + "<T, D, G, X>(" + Derived::memory_argument +
                       (one_dimensional ? std::string("comm, n) requires n")
                                        : "comm, extents, grid) requires extent " + std::to_string(d)) +
                       " to be X's static extent " + std::to_string(static_extent(d)) + " (got " +
                       std::to_string(extents[d]) + ")");
      if constexpr (one_dimensional) {
        if (grid.size() != comm.size() || grid.first() != 0 || !grid.rank_map().empty())
          report_error(name + "(" + Derived::memory_argument +
                       "comm, n, grid) requires the grid to hold every process of the communicator from rank 0 (a grid of " +
                       std::to_string(grid.size()) + " from rank " + std::to_string(grid.first()) +
                       ", communicator of " + std::to_string(comm.size()) + "); declare a Dist<D> array for a grid on some of them");
      }
      for (std::size_t d = 0; d < rank(); ++d)
        if (extents[d] < 0)
          report_error(name + "(" + Derived::memory_argument +
                       (one_dimensional ? std::string("comm, n, ...) requires n")
                                        : "comm, extents, grid) requires extents[" + std::to_string(d) + "]") +
                       " to be >= 0 (got " + std::to_string(extents[d]) + ")");
      std::optional<mapping_type> m;
      m.emplace(dist, extents, grid, offsets, storage, comm.size());
      const auto e = m->local_extents(comm.rank());
      const std::size_t fast = m->fastest();
      if (storage.ld != 0 && storage.ld < e[fast])
        report_error(name + "(" + Derived::memory_argument +
                     "comm, extents, grid, offsets, storage) requires storage.ld to be at least the local extent of the "
                     "fastest dimension (" + std::to_string(storage.ld) + " < " + std::to_string(e[fast]) + " on rank " +
                     std::to_string(comm.rank()) + ")");
      const index_t need = m->local_size(comm.rank());
      if (given != unknown_size && static_cast<std::size_t>(need) > given)
        report_error(name + "(data, comm, ...) requires data to hold the " + std::to_string(need) +
                     " elements the layout places on rank " + std::to_string(comm.rank()) + " (got " +
                     std::to_string(given) + ")");
      return m;
    } catch (const error& e) {
      failure = e.what();
      return std::nullopt;
    }
  }

  template <std::size_t... E>
  static index_t required(const boost::mpi::communicator& comm, const extents_type& extents, const dist_type& dist,
                          const Grid<E...>& grid, const coords_type& offsets, Storage storage) {
    std::optional<std::string> failure;
    const auto m = try_mapping(comm, extents, dist, grid, offsets, storage, unknown_size, failure);
    if (failure) report_error(*failure);
    return m->local_size(comm.rank());
  }

  /// This rank's local storage for m, or why it cannot have it: the bytes overflow, or the
  /// memory is not there. In ordinary memory it is allocated here; for a shared window (made
  /// later, collectively over the node) only tried: as many bytes allocated and freed.
  static std::optional<std::string> allocate_local(const mapping_type& m, int rank, bool shared,
                                                   LocalStorage<value_type>& store) {
    const index_t n = m.local_size(rank);
    const std::string part = std::to_string(n) + " elements of " + std::to_string(sizeof(value_type)) +
                             (sizeof(value_type) == 1 ? " byte" : " bytes");
    if (static_cast<std::uint64_t>(n) > std::numeric_limits<std::size_t>::max() / sizeof(value_type) ||
        static_cast<std::uint64_t>(n) * sizeof(value_type) > static_cast<std::uint64_t>(std::numeric_limits<std::ptrdiff_t>::max()))
      return call_name() + " requires this rank's part to fit in memory (" + part + " on rank " +
             std::to_string(rank) + ": the bytes overflow)";
    const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(value_type);
    bool allocated = true;
    try {
      if (shared) ::operator delete(::operator new(bytes));
      else store = LocalStorage<value_type>(static_cast<std::size_t>(n), nullptr);
    } catch (const std::bad_alloc&) {
      allocated = false;
    } catch (const std::length_error&) {  // more than the vector's max_size()
      allocated = false;
    }
    if (allocated) return std::nullopt;
    return call_name() + " could not allocate this rank's part (" + part + ", " + std::to_string(bytes) +
           " bytes, on rank " + std::to_string(rank) + ")";
  }

  /// The mapping, agreed by every rank (collective). A DistArray's storage is allocated before
  /// the agreement (or, for a node's shared window, tried before and made after it, collectively
  /// over the node), so that a rank short of memory fails on every rank, before any data moves.
  template <std::size_t... E>
  static mapping_type bind(LocalMemory<value_type> memory, const boost::mpi::communicator& comm,
                           const extents_type& extents, const dist_type& dist, const Grid<E...>& grid,
                           const coords_type& offsets, Storage storage) {
    std::optional<std::string> failure;
    std::optional<mapping_type> m = try_mapping(comm, extents, dist, grid, offsets, storage, memory.given, failure);
    const bool shared = memory.store != nullptr && default_options().shared_memory && comm.size() > 1;
    if (m && !failure && memory.store != nullptr) failure = allocate_local(*m, comm.rank(), shared, *memory.store);
    if (default_options().check_consistency) {
      std::uint64_t shape = hash_seed;
      for (index_t e : extents) shape = hash_mix(shape, static_cast<std::uint64_t>(e));
      const Parameter params[] = {
          {one_dimensional ? "n" : "extents", shape, false, std::span<const index_t>(extents)},
          {one_dimensional ? "distribution" : "distribution, grid and offsets", m ? m->fingerprint() : 0}};
      agree(comm, call_name(), params, failure);
    } else if constexpr (indirect_layout<mapping_type>) {
      agree(comm, call_name(), {}, failure);  // every rank, before the collective directory
    } else if (failure) {
      report_error(*failure);
    }
    // An Indirect layout: its directory, made and checked by every rank (collective).
    if constexpr (indirect_layout<mapping_type>) m->linear().attach(make_indirect_directory(comm, m->linear()));
    // A layout in copies: its readers choose a copy on their node (detail::serves), by the nodes
    // learnt here (collective, as making an array is), so that plans need not communicate.
    if (!shared && m && comm.size() > 1 && reads_copies(*m)) (void)runtime::node_of(static_cast<MPI_Comm>(comm), default_options().node_size);
    if (shared) {
      const auto node = runtime::node_of(static_cast<MPI_Comm>(comm), default_options().node_size);
      *memory.store = LocalStorage<value_type>(static_cast<std::size_t>(m->local_size(comm.rank())), node);
    }
    return std::move(*m);
  }
};
}  // namespace detail

}  // namespace redist
