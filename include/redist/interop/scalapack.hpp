/// @file Defines the ScaLAPACK bridge: Descriptor, BlacsGrid, their conversions to and from N-D layouts, and gemr2d (PDGEMR2D without ScaLAPACK).
#pragma once

#include <algorithm>
#include <array>
#include <climits>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <mpi.h>

#include <boost/mpi/communicator.hpp>

#include <redist/array/communicator.hpp>
#include <redist/array/consistency.hpp>
#include <redist/array/dist_array.hpp>
#include <redist/array/dist_view.hpp>
#include <redist/array/plan_cache.hpp>
#include <redist/dist/block.hpp>
#include <redist/dist/block_cyclic.hpp>
#include <redist/dist/collapsed.hpp>
#include <redist/dist/cyclic.hpp>
#include <redist/dist/dist.hpp>
#include <redist/dist/grid.hpp>

namespace redist::scalapack {

/// ScaLAPACK's array descriptor for a dense matrix (DTYPE_ = 1): the 9 integers
/// DTYPE, CTXT, M, N, MB, NB, RSRC, CSRC, LLD, in that order. A process outside the BLACS
/// context passes ctxt = -1; then nothing else is read.
struct Descriptor {
  int dtype = 1;
  int ctxt = -1;
  int m = 0;
  int n = 0;
  int mb = 1;
  int nb = 1;
  int rsrc = 0;
  int csrc = 0;
  int lld = 1;

  constexpr Descriptor() = default;
  constexpr Descriptor(int dtype_, int ctxt_, int m_, int n_, int mb_, int nb_, int rsrc_, int csrc_, int lld_)
      : dtype{dtype_}, ctxt{ctxt_}, m{m_}, n{n_}, mb{mb_}, nb{nb_}, rsrc{rsrc_}, csrc{csrc_}, lld{lld_} {
    check_dtype();
  }
  /// From ScaLAPACK's `int desc[9]`. Throws redist::error unless desc[0] (DTYPE_) is 1 or desc[1] (CTXT_) is -1.
  explicit Descriptor(const int* desc)
      : Descriptor(desc == nullptr ? nullptr_desc() : desc, 0) {}

  /// In the context: ctxt != -1.
  constexpr bool in_context() const noexcept { return ctxt != -1; }
  /// The 9 integers, as ScaLAPACK's `int desc[9]`.
  constexpr std::array<int, 9> to_array() const noexcept { return {dtype, ctxt, m, n, mb, nb, rsrc, csrc, lld}; }
  friend constexpr bool operator==(const Descriptor&, const Descriptor&) = default;

 private:
  Descriptor(const int* d, int) : Descriptor(d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8]) {}
  [[noreturn]] static const int* nullptr_desc() {
    detail::report_error("redist::scalapack::Descriptor(desc) requires desc to point to 9 integers (got nullptr)");
  }
  constexpr void check_dtype() const {
    if (ctxt != -1 && dtype != 1)
      detail::report_error("redist::scalapack::Descriptor(desc) requires desc[0] (DTYPE_) to be 1, a dense matrix (got " +
                           std::to_string(dtype) + ")");
  }
};

/// A BLACS process grid as redist sees it: nprow × npcol processes on ranks
/// [first, first + nprow*npcol) of the communicator, numbered row-major (BLACS "Row", the
/// default of Cblacs_gridinit) or column-major ("Col"); or, for a grid made by Cblacs_gridmap
/// with any other map, `with_ranks(ranks)`: process (i, j) on rank ranks[i * npcol + j].
/// redist/interop/blacs.hpp reads it from a BLACS context.
struct BlacsGrid {
  int nprow = 1;
  int npcol = 1;
  Order order = Order::row_major;
  int first = 0;
  /// The rank map of a general grid (interned; set by with_ranks), positions numbered in order;
  /// nullptr for consecutive ranks.
  const redist::detail::RankTable* map = nullptr;

  constexpr int size() const noexcept { return nprow * npcol; }
  /// The redist grid: Grid{nprow, npcol}.with_order(order).with_first(first), placed by the
  /// rank map when there is one.
  DynamicGrid<2> grid() const {
    return DynamicGrid<2>(nprow, npcol).with_order(order).with_first(first).with_rank_table(map);
  }
  /// This grid with process (i, j) on rank ranks[i * npcol + j] (row-major positions, whatever
  /// order says): ranks holds size() distinct ranks >= 0. Consecutive row- or column-major ranks
  /// give the plain grid (no map).
  BlacsGrid with_ranks(std::span<const int> ranks) const {
    const DynamicGrid<2> g = DynamicGrid<2>(nprow, npcol).with_ranks(ranks);
    BlacsGrid b{nprow, npcol, Order::row_major, g.first(), g.rank_table()};
    if (b.map != nullptr && nprow > 1 && npcol > 1) {  // column-major consecutive ranks?
      bool col = true;
      for (int i = 0; i < nprow && col; ++i)
        for (int j = 0; j < npcol && col; ++j)
          col = ranks[static_cast<std::size_t>(i * npcol + j)] == ranks[0] + i + j * nprow;
      if (col) b = BlacsGrid{nprow, npcol, Order::column_major, ranks[0]};
    }
    return b;
  }
  friend constexpr bool operator==(const BlacsGrid&, const BlacsGrid&) = default;
};

/// The BlacsGrid of a 2-D redist grid.
template <std::size_t... E>
  requires(sizeof...(E) == 2)
constexpr BlacsGrid blacs_grid(const Grid<E...>& g) noexcept {
  return BlacsGrid{g.extent(0), g.extent(1), g.order(), g.first(), g.rank_table()};
}

/// ScaLAPACK's NUMROC: how many of n rows (or columns), in blocks of nb dealt from process isrc
/// on, process iproc of nprocs holds.
constexpr index_t numroc(index_t n, index_t nb, int iproc, int isrc, int nprocs) noexcept {
  const index_t v = redist::detail::floor_mod(iproc - isrc, nprocs);
  const index_t period = nb * nprocs;
  const index_t cycles = n / period;
  return cycles * nb + std::clamp<index_t>(n - cycles * period - v * nb, 0, nb);
}

namespace detail {
using redist::detail::report_error;
using redist::detail::report_mismatch;
using scalapack::numroc;
}  // namespace detail

/// DESCINIT's descriptor for an m × n matrix in mb × nb blocks on grid g from grid coordinates
/// (rsrc, csrc), as seen by rank `rank` of the communicator: ctxt = -1 outside the grid, and
/// LLD = lld or, when lld is 0, max(1, local rows) (tight).
inline Descriptor make_descriptor(int m, int n, int mb, int nb, int rsrc, int csrc, int ctxt, const BlacsGrid& g,
                                  int rank, int lld = 0) {
  const auto c = g.grid().coords_of(rank);
  if (!c) return Descriptor{1, -1, m, n, mb, nb, rsrc, csrc, 1};
  if (mb <= 0 || nb <= 0)
    redist::detail::report_error("redist::scalapack::make_descriptor(m, n, mb, nb, ...) requires mb and nb to be > 0");
  const auto rows = static_cast<int>(numroc(m, mb, (*c)[0], rsrc, g.nprow));
  return Descriptor{1, ctxt, m, n, mb, nb, rsrc, csrc, lld != 0 ? lld : std::max(1, rows)};
}

/// The layout a Descriptor on a BlacsGrid describes, as redist types: a column-major
/// Dist<Cyclic<>, Cyclic<>> of M × N elements in MB × NB blocks on the grid, the first block
/// on grid coordinates {RSRC, CSRC}, with leading dimension LLD.
struct Layout {
  Dist<Cyclic<>, Cyclic<>> dist;
  std::array<index_t, 2> extents;
  DynamicGrid<2> grid;
  std::array<int, 2> offsets;
  Storage storage;

  /// The bound layout on a communicator of nprocs ranks.
  Dist<Cyclic<>, Cyclic<>>::mapping mapping(int nprocs) const { return {dist, extents, grid, offsets, storage, nprocs}; }
};

/// Descriptor + BlacsGrid -> redist layout. Requires desc to be in its context (desc.ctxt != -1)
/// and valid: M, N >= 0, MB, NB > 0, RSRC, CSRC on the grid. LLD goes into Storage as is (it may
/// differ per process, as in ScaLAPACK).
inline Layout layout(const Descriptor& desc, const BlacsGrid& g) {
  const char* call = "redist::scalapack::layout(desc, grid)";
  auto require = [&](bool ok, const std::string& what) {
    if (!ok) detail::report_error(std::string(call) + " requires " + what);
  };
  require(desc.in_context(), "desc.ctxt to be a context (not -1)");
  require(desc.dtype == 1, "desc.dtype to be 1 (got " + std::to_string(desc.dtype) + ")");
  require(g.nprow > 0 && g.npcol > 0, "grid.nprow and grid.npcol to be > 0");
  require(desc.m >= 0 && desc.n >= 0, "desc.m and desc.n to be >= 0");
  require(desc.mb > 0 && desc.nb > 0, "desc.mb and desc.nb to be > 0");
  require(desc.rsrc >= 0 && desc.rsrc < g.nprow, "desc.rsrc to be in [0, nprow)");
  require(desc.csrc >= 0 && desc.csrc < g.npcol, "desc.csrc to be in [0, npcol)");
  require(desc.lld >= 1, "desc.lld to be >= 1");
  return Layout{Dist{Cyclic<>{desc.mb}, Cyclic<>{desc.nb}},
                {desc.m, desc.n},
                g.grid(),
                {desc.rsrc, desc.csrc},
                Storage{Order::column_major, desc.lld}};
}

/// A DistArray with the layout of desc on grid g (allocated by redist, LLD * LOCc(N) elements
/// per process of the grid). Collective over comm; on a rank outside the grid desc may be any
/// descriptor with the same global values (ctxt is not read).
template <class T>
DistArray<T, Dist<Cyclic<>, Cyclic<>>> make_dist_array(Communicator comm, Descriptor desc, const BlacsGrid& g) {
  if (!desc.in_context()) desc.ctxt = 0;
  const Layout l = layout(desc, g);
  return DistArray<T, Dist<Cyclic<>, Cyclic<>>>(comm, l.extents, l.dist, l.grid, l.offsets, l.storage);
}

/// A DistView over the caller's ScaLAPACK local matrix `a` (LLD x LOCc(N) elements, as desc
/// says) with the layout of desc on grid g: `b = view` and `view = b` read and write the
/// matrix ScaLAPACK works on, in place, with no copy. Collective over comm; on a rank outside
/// the grid desc may be any descriptor with the same global values and a may be nullptr.
template <class T>
DistView<T, Dist<Cyclic<>, Cyclic<>>> make_dist_view(T* a, Communicator comm, Descriptor desc, const BlacsGrid& g) {
  if (!desc.in_context()) desc.ctxt = 0;
  const Layout l = layout(desc, g);
  return DistView<T, Dist<Cyclic<>, Cyclic<>>>(a, comm, l.extents, l.dist, l.grid, l.offsets, l.storage);
}

namespace detail {
/// The ScaLAPACK block size of dimension d of a 2-D layout: Cyclic<X> -> X, Block -> ceil(n/P),
/// Collapsed -> n (on a grid extent of 1).
template <class D, class M>
index_t block_size_of(const D& d, const M& m, std::size_t dim) {
  const index_t n = m.extent(dim);
  const int p = m.grid().extent(dim);
  if constexpr (requires { d.first_block_size(); }) {
    static_assert(!sizeof(D*), "redist::scalapack::descriptor(a, ctxt) requires a Cyclic, Block or Collapsed dimension");
  } else if constexpr (requires { d.block_size(); }) {
    return d.block_size();
  } else if constexpr (std::is_same_v<D, Block>) {
    return std::max<index_t>(1, redist::detail::ceil_div(n, p));
  } else if constexpr (std::is_same_v<D, Collapsed>) {
    return std::max<index_t>(1, n);
  } else {
    static_assert(!sizeof(D*), "redist::scalapack::descriptor(a, ctxt) requires a Cyclic, Block or Collapsed dimension");
  }
}
inline int to_int(index_t v, const char* what) {
  if (v < 0 || v > INT_MAX)
    report_error(std::string("redist::scalapack::descriptor(a, ctxt) requires ") + what +
                 " to fit ScaLAPACK's int (got " + std::to_string(v) + ")");
  return static_cast<int>(v);
}
}  // namespace detail

/// The descriptor of a 2-D column-major DistArray (or DistView) laid out by Cyclic<X>/Cyclic<>, Block or
/// Collapsed per dimension, for the BLACS context ctxt of its grid (see blacs_grid(a.mapping().grid())).
/// On a rank outside the grid the descriptor has ctxt = -1. LLD = max(1, a.leading_dimension()).
/// local() is then the local matrix ScaLAPACK expects.
template <template <class, class, class, class> class Array, class T, class D0, class D1>
  requires std::same_as<Array<T, Dist<D0, D1>, void, void>, DistArray<T, Dist<D0, D1>>> ||
           std::same_as<Array<T, Dist<D0, D1>, void, void>, DistView<T, Dist<D0, D1>, void, void>>
Descriptor descriptor(const Array<T, Dist<D0, D1>, void, void>& a, int ctxt) {
  const auto& m = a.mapping();
  if (m.storage().order != Order::column_major)
    detail::report_error("redist::scalapack::descriptor(a, ctxt) requires a to be stored column-major");
  Descriptor d;
  d.ctxt = m.coords_of(a.comm().rank()) ? ctxt : -1;
  d.m = detail::to_int(m.extent(0), "the row count");
  d.n = detail::to_int(m.extent(1), "the column count");
  d.mb = detail::to_int(detail::block_size_of(a.distribution().template get<0>(), m, 0), "the row block size");
  d.nb = detail::to_int(detail::block_size_of(a.distribution().template get<1>(), m, 1), "the column block size");
  d.rsrc = m.offsets()[0];
  d.csrc = m.offsets()[1];
  d.lld = detail::to_int(std::max<index_t>(1, a.leading_dimension()), "the leading dimension");
  return d;
}

namespace detail {
/// gemr2d's layout: the m × n sub-matrix at 0-based (i, j) of a block-cyclic matrix.
using SubDist = Dist<BlockCyclic, BlockCyclic>;
using SubMapping = SubDist::mapping;

/// What a rank passed to gemr2d (the local key of the plan cache). Outside a context, only
/// ctxt = -1 is kept, so that values ScaLAPACK does not read there cannot cause a miss.
struct CallKey {
  std::array<index_t, 7> args{};  // m, n, ia, ja, ib, jb, sizeof(T)
  Descriptor a, b;
  BlacsGrid ga, gb;
  MPI_Comm comm = MPI_COMM_NULL;
  int size = 0;
  int rank = 0;
  friend bool operator==(const CallKey&, const CallKey&) = default;
};

/// A column of a matrix on a P × 1 grid of every rank as the 1-D layout it is: Cyclic<>{MB}.
using LineMapping = Cyclic<>::mapping;

/// A gemr2d plan, found by the call's arguments, with the local windows it runs on: between the
/// two sub-matrices, or, when both windows are one column that is a 1-D Cyclic layout of the
/// whole communicator (line_window), between those 1-D layouts, whose plans are the 1-D ones
/// (the basic-cycle calculation for two block sizes) that a 1-D DistArray gets.
struct CacheEntry : redist::detail::PlanCache::entry_base {
  using Plan = std::variant<Redistribution<SubMapping, SubMapping>, Redistribution<LineMapping, LineMapping>>;
  /// The entry with plan alternative I made in place from args (the layouts and the rank).
  template <std::size_t I, class... Args>
  CacheEntry(const CallKey& k, std::uint64_t h, index_t as, index_t an, index_t bs, index_t bn,
             std::in_place_index_t<I> which, Args&&... args)
      : key{k}, agreed{h}, r{which, std::forward<Args>(args)...}, a_start{as}, a_size{an}, b_start{bs}, b_size{bn} {}
  template <class T>
  void run(const boost::mpi::communicator& comm, const T* a, T* b) {
    std::visit([&](auto& plan) {
      plan.run(comm, std::span<const T>(a + a_start, static_cast<std::size_t>(a_size)),
               std::span<T>(b + b_start, static_cast<std::size_t>(b_size)));
    }, r);
  }
  CallKey key;
  std::uint64_t agreed = 0;  // hash of the values all ranks agreed on
  Plan r;
  index_t a_start = 0, a_size = 0, b_start = 0, b_size = 0;
};

inline constexpr std::size_t gemr2d_cache_capacity = 8;
/// The gemr2d plans of this thread: the arrays' PlanCache, holding eight. Eviction is per
/// process and thread; a miss on any rank makes every rank rebuild (see gemr2d), so ranks never
/// run different plans.
inline redist::detail::PlanCache& gemr2d_cache() {
  thread_local redist::detail::PlanCache cache{gemr2d_cache_capacity};  // each thread's (doc/threads.md)
  return cache;
}

/// The values of one matrix every rank in its context must agree on (11), then the call's (7).
/// The last is a hash of the grid's rank map (0 without one); the map itself is agreed when a
/// plan is made (one all-reduce per map, in gemr2d_impl).
enum : std::size_t { n_matrix = 11, n_args = 7 };
inline std::array<index_t, n_matrix> matrix_values(const Descriptor& d, const BlacsGrid& g) {
  return {d.m,     d.n,     d.mb, d.nb, d.rsrc, d.csrc, g.nprow, g.npcol, static_cast<index_t>(g.order), g.first,
          static_cast<index_t>(g.grid().rank_map_hash())};
}
inline constexpr const char* matrix_names[n_matrix] = {
    "m (DESC(M_))",       "n (DESC(N_))", "mb (DESC(MB_))", "nb (DESC(NB_))",  "rsrc (DESC(RSRC_))",
    "csrc (DESC(CSRC_))", "grid nprow",   "grid npcol",     "grid order",      "grid first rank",
    "grid rank map"};
inline constexpr const char* arg_names[n_args] = {"m", "n", "ia", "ja", "ib", "jb", "element type size"};

/// The checks of one matrix a rank in its context can make alone.
inline std::optional<std::string> check_local(const char* call, const char* name, const Descriptor& d,
                                              const BlacsGrid& g, int rank, int nprocs) {
  auto fail = [&](const std::string& what) { return std::string(call) + " requires " + name + what; };
  if (d.dtype != 1) return fail(".dtype (DTYPE_) to be 1 (got " + std::to_string(d.dtype) + ")");
  if (g.nprow <= 0 || g.npcol <= 0) return fail("'s grid to have nprow, npcol > 0");
  if (g.first < 0 || (g.map == nullptr ? index_t{g.first} + index_t{g.nprow} * g.npcol : g.map->end) > nprocs)
    return fail("'s grid to fit the communicator (" + std::to_string(g.nprow) + " x " + std::to_string(g.npcol) +
                (g.map == nullptr ? " from rank " + std::to_string(g.first)
                                  : " up to rank " + std::to_string(g.map->end - 1)) +
                ", communicator of " + std::to_string(nprocs) + ")");
  if (!g.grid().coords_of(rank))
    return fail("'s grid to contain every rank in its context (rank " + std::to_string(rank) +
                " has ctxt != -1 but is not in the grid)");
  if (d.m < 0 || d.n < 0) return fail(".m and .n (M_, N_) to be >= 0");
  if (d.mb <= 0 || d.nb <= 0) return fail(".mb and .nb (MB_, NB_) to be > 0");
  if (d.rsrc < 0 || d.rsrc >= g.nprow) return fail(".rsrc (RSRC_) to be in [0, nprow)");
  if (d.csrc < 0 || d.csrc >= g.npcol) return fail(".csrc (CSRC_) to be in [0, npcol)");
  const auto c = *g.grid().coords_of(rank);
  const index_t rows = numroc(d.m, d.mb, c[0], d.rsrc, g.nprow);
  if (d.lld < std::max<index_t>(1, rows))
    return fail(".lld (LLD_) to be >= max(1, local rows) = " + std::to_string(std::max<index_t>(1, rows)) +
                " on rank " + std::to_string(rank) + " (got " + std::to_string(d.lld) + ")");
  return std::nullopt;
}

/// The sub-matrix layout of m × n elements at 0-based (i, j) of the matrix d on grid g, with this
/// rank's local start offset and extent (0 outside the grid).
struct SubLayout {
  SubMapping mapping;
  index_t start = 0;
  index_t size = 0;
};
inline SubLayout sub_layout(const std::array<index_t, n_matrix>& v, const redist::detail::RankTable* rank_map,
                            index_t lld, index_t m, index_t n, index_t i, index_t j, int rank, int nprocs) {
  const index_t mb = v[2], nb = v[3];
  const BlacsGrid g{static_cast<int>(v[6]), static_cast<int>(v[7]), static_cast<Order>(v[8]), static_cast<int>(v[9]),
                    rank_map};
  const int rsrc = static_cast<int>(v[4]), csrc = static_cast<int>(v[5]);
  // Row i is on grid row (RSRC + i / MB) mod nprow, in a block of which MB - i % MB rows remain.
  const std::array<int, 2> offsets{static_cast<int>((rsrc + i / mb) % g.nprow),
                                   static_cast<int>((csrc + j / nb) % g.npcol)};
  SubMapping map(SubDist{BlockCyclic::from_offset(mb, i), BlockCyclic::from_offset(nb, j)}, {m, n}, g.grid(), offsets,
                 Storage{Order::column_major, std::max<index_t>(lld, 0)}, nprocs);
  SubLayout s{std::move(map)};
  if (const auto c = g.grid().coords_of(rank)) {
    // The sub-matrix's first local element: the rows and columns before it that this rank holds.
    s.start = numroc(i, mb, (*c)[0], rsrc, g.nprow) + numroc(j, nb, (*c)[1], csrc, g.npcol) * lld;
    const auto e = s.mapping.local_extents(rank);
    if (e[0] > 0 && e[1] > 0) s.size = (e[1] - 1) * lld + e[0];
    else s.start = 0;  // nothing local: do not point past the local array
  }
  return s;
}

/// True when the window of n columns from 0-based row i of the matrix with agreed values v is
/// the 1-D layout Cyclic<>{MB} of the window's rows on ranks 0 ... nprocs - 1 in order: one
/// column (n = 1), a grid of nprocs × 1 from rank 0 without a rank map, and the window's first
/// row at the start of a block on grid row 0. Its local elements are then consecutive.
inline bool line_window(const std::array<index_t, n_matrix>& v, index_t i, index_t n, int nprocs) {
  const index_t mb = v[2], rsrc = v[4], nprow = v[6], npcol = v[7], first = v[9], map = v[10];
  return n == 1 && npcol == 1 && nprow == nprocs && first == 0 && map == 0 && i % mb == 0 &&
         (rsrc + i / mb) % nprow == 0;
}

inline std::uint64_t hash_values(std::span<const index_t> v) {
  std::uint64_t h = redist::detail::hash_seed;
  for (index_t x : v) h = redist::detail::hash_mix(h, static_cast<std::uint64_t>(x));
  return h;
}

/// gemr2d for every element type (T's bytes are moved, never interpreted).
template <class T>
void gemr2d_impl(index_t m, index_t n, const T* a, index_t ia, index_t ja, const Descriptor& desca,
                 const BlacsGrid& grida, T* b, index_t ib, index_t jb, const Descriptor& descb, const BlacsGrid& gridb,
                 const boost::mpi::communicator& comm, std::optional<std::string> pre_error) {
  static_assert(std::is_trivially_copyable_v<T>, "redist::scalapack::gemr2d requires a trivially copyable T");
  const char* call = "redist::scalapack::gemr2d(m, n, a, ia, ja, desca, b, ib, jb, descb, comm)";
  const int rank = comm.rank(), nprocs = comm.size();
  const bool in_a = desca.in_context(), in_b = descb.in_context();

  // This rank's arguments; what it cannot know outside a context is left out.
  CallKey key;
  key.args = {m, n, ia, ja, ib, jb, static_cast<index_t>(sizeof(T))};
  if (in_a) key.a = desca, key.ga = grida;
  if (in_b) key.b = descb, key.gb = gridb;
  key.comm = static_cast<MPI_Comm>(comm);
  key.size = nprocs;
  key.rank = rank;
  if (!pre_error && in_a) pre_error = check_local(call, "desca", desca, grida, rank, nprocs);
  if (!pre_error && in_b) pre_error = check_local(call, "descb", descb, gridb, rank, nprocs);

  redist::detail::PlanCache& cache = gemr2d_cache();
  CacheEntry* hit = pre_error ? nullptr : cache.find<CacheEntry>([&](const CacheEntry& e) { return e.key == key; });

  // A repeat of this rank's previous call (the same arguments: the most recent plan) was agreed
  // when it was made: every rank repeats its own, as every rank repeats a b = a, so nothing
  // collective is needed beyond the exchange. Only when both grids hold every rank of comm: a
  // rank outside a context does not know that matrix's descriptor, so it cannot tell a repeat
  // from another call, and must agree. Pointers are not compared: they are no argument the ranks
  // agree on (nor alike between ranks).
  if (hit != nullptr && cache.most_recent(hit) && in_a && in_b && grida.size() == nprocs && gridb.size() == nprocs) {
    hit->run(comm, a, b);
    return;
  }

  // One all-reduce (max) agrees on everything: whether any rank failed or missed its cache,
  // and each value as the pair (v, ~v), so that max(~v) = ~min(v) shows whether ranks differ.
  // A rank outside a context contributes INT64_MIN to both halves of that matrix's values.
  constexpr index_t none = std::numeric_limits<index_t>::min();
  constexpr std::size_t n_values = n_args + 2 * n_matrix + 1;
  std::vector<index_t> mine(2 + 2 * n_values, none), all(mine.size());
  mine[0] = pre_error ? 1 : 0;
  mine[1] = hit == nullptr ? 1 : 0;
  auto put = [&](std::size_t k, index_t v) {
    mine[2 + 2 * k] = v;
    mine[3 + 2 * k] = ~v;
  };
  for (std::size_t k = 0; k < n_args; ++k) put(k, key.args[k]);
  if (in_a) {
    const auto v = matrix_values(desca, grida);
    for (std::size_t k = 0; k < n_matrix; ++k) put(n_args + k, v[k]);
  }
  if (in_b) {
    const auto v = matrix_values(descb, gridb);
    for (std::size_t k = 0; k < n_matrix; ++k) put(n_args + n_matrix + k, v[k]);
  }
  if (hit != nullptr) put(n_values - 1, static_cast<index_t>(hit->agreed));
  MPI_Allreduce(mine.data(), all.data(), static_cast<int>(mine.size()), MPI_INT64_T, MPI_MAX,
                static_cast<MPI_Comm>(comm));
  auto given = [&](std::size_t k) { return !(all[2 + 2 * k] == none && all[3 + 2 * k] == none); };
  auto same = [&](std::size_t k) { return all[2 + 2 * k] == ~all[3 + 2 * k]; };
  auto value = [&](std::size_t k) { return all[2 + 2 * k]; };

  // Fast path: every rank has a plan for its arguments, all made under the same agreed values.
  if (all[0] == 0 && all[1] == 0 && same(n_values - 1)) {
    cache.touch(hit);
    hit->run(comm, a, b);
    return;
  }

  // Some rank failed a local check: all throw, with the message of the lowest such rank.
  if (all[0] != 0) redist::detail::agree(comm, call, {}, pre_error);
  // The checks below use agreed values only, so every rank reaches the same verdict.
  for (std::size_t k = 0; k < n_args; ++k)
    if (!same(k)) report_mismatch(std::string(call) + " requires every rank to pass the same " + arg_names[k]);
  std::array<std::array<index_t, n_matrix>, 2> mat{};
  for (int x = 0; x < 2; ++x) {
    const char* name = x == 0 ? "desca" : "descb";
    for (std::size_t k = 0; k < n_matrix; ++k) {
      const std::size_t at = n_args + x * n_matrix + k;
      if (given(at) && !same(at))
        report_mismatch(std::string(call) + " requires every rank in " + name + "'s context to pass the same " +
                        matrix_names[k] + " (it differs between ranks)");
      mat[x][k] = value(at);
    }
  }
  if (m < 0 || n < 0) report_error(std::string(call) + " requires m and n to be >= 0");
  if (m == 0 || n == 0) return;
  for (int x = 0; x < 2; ++x)
    if (!given(n_args + x * n_matrix))
      report_error(std::string(call) + " requires some rank to be in " + (x == 0 ? "desca" : "descb") +
                   "'s context (ctxt != -1)");
  auto range = [&](index_t i, index_t j, const std::array<index_t, n_matrix>& v, const char* which, const char* ni,
                   const char* nj) {
    if (i < 1 || i + m - 1 > v[0])
      report_error(std::string(call) + " requires " + ni + " to be in [1, " + which + ".m - m + 1] (got " + ni +
                   " = " + std::to_string(i) + ", m = " + std::to_string(m) + ", " + which +
                   ".m = " + std::to_string(v[0]) + ")");
    if (j < 1 || j + n - 1 > v[1])
      report_error(std::string(call) + " requires " + nj + " to be in [1, " + which + ".n - n + 1] (got " + nj +
                   " = " + std::to_string(j) + ", n = " + std::to_string(n) + ", " + which +
                   ".n = " + std::to_string(v[1]) + ")");
  };
  range(ia, ja, mat[0], "desca", "ia", "ja");
  range(ib, jb, mat[1], "descb", "ib", "jb");

  // The rank maps of general grids, agreed (their hashes are): the ranks in a context know it,
  // the others learn it, by one all-reduce per map.
  std::array<const redist::detail::RankTable*, 2> maps{};
  for (int x = 0; x < 2; ++x) {
    if (mat[x][10] == 0) continue;
    const BlacsGrid& own = x == 0 ? grida : gridb;
    std::vector<int> ranks(static_cast<std::size_t>(mat[x][6] * mat[x][7]), -1), agreed_ranks(ranks.size());
    if ((x == 0 ? in_a : in_b) && own.map != nullptr) ranks = own.map->rank;
    MPI_Allreduce(ranks.data(), agreed_ranks.data(), static_cast<int>(ranks.size()), MPI_INT, MPI_MAX,
                  static_cast<MPI_Comm>(comm));
    maps[x] = DynamicGrid<2>(static_cast<int>(mat[x][6]), static_cast<int>(mat[x][7]))
                  .with_order(static_cast<Order>(mat[x][8]))
                  .with_ranks(agreed_ranks)
                  .rank_table();
  }

  // A rank inside an agreed grid must be in that context: a check only it can make.
  std::optional<std::string> post_error;
  for (int x = 0; x < 2 && !post_error; ++x) {
    const auto& v = mat[x];
    const BlacsGrid g{static_cast<int>(v[6]), static_cast<int>(v[7]), static_cast<Order>(v[8]),
                      static_cast<int>(v[9]), maps[x]};
    if (g.grid().coords_of(rank) && !(x == 0 ? in_a : in_b))
      post_error = std::string(call) + " requires every rank of " + (x == 0 ? "desca" : "descb") +
                   "'s grid to be in its context (rank " + std::to_string(rank) + " passed ctxt = -1)";
  }
  redist::detail::agree(comm, call, {}, post_error);

  // Plan: the two sub-matrices as layouts of their own (see BlockCyclic), over the local buffers.
  if (hit != nullptr) cache.erase(hit);  // every rank rebuilds, so that all run a new plan's first run
  const SubLayout sa = sub_layout(mat[0], maps[0], in_a ? desca.lld : 0, m, n, ia - 1, ja - 1, rank, nprocs);
  const SubLayout sb = sub_layout(mat[1], maps[1], in_b ? descb.lld : 0, m, n, ib - 1, jb - 1, rank, nprocs);
  std::array<index_t, n_args + 2 * n_matrix> agreed{};
  std::copy(key.args.begin(), key.args.end(), agreed.begin());
  std::copy(mat[0].begin(), mat[0].end(), agreed.begin() + n_args);
  std::copy(mat[1].begin(), mat[1].end(), agreed.begin() + n_args + n_matrix);
  const std::uint64_t h = hash_values(agreed);
  CacheEntry* e = nullptr;
  // The 1-D plan of two block sizes is the basic-cycle calculation, whose planning grows with the
  // basic cycle lcm(s, t) / gcd(s, t) (a block of n/P rows to CYCLIC(1): n/P); beyond a few
  // thousand the sub-matrices' plan, O(P) families, is the cheaper one.
  const index_t s_a = mat[0][2], s_b = mat[1][2];
  if (line_window(mat[0], ia - 1, n, nprocs) && line_window(mat[1], ib - 1, n, nprocs) &&
      std::lcm(s_a, s_b) / std::gcd(s_a, s_b) <= 4096)
    e = &cache.emplace<CacheEntry>(key, h, sa.start, sa.size, sb.start, sb.size, std::in_place_index<1>,
                                   LineMapping(Cyclic<>{s_a}, m, nprocs), LineMapping(Cyclic<>{s_b}, m, nprocs), rank);
  else
    e = &cache.emplace<CacheEntry>(key, h, sa.start, sa.size, sb.start, sb.size, std::in_place_index<0>, sa.mapping,
                                   sb.mapping, rank);
  e->run(comm, a, b);
}
}  // namespace detail

/// PDGEMR2D without ScaLAPACK: B(ib:ib+m-1, jb:jb+n-1) = A(ia:ia+m-1, ja:ja+n-1) (1-based), A
/// laid out by desca on grida and B by descb on gridb; the two grids may cover different ranks
/// of comm. Collective over comm: every rank calls it with the same m, n, ia, ja, ib, jb; a rank
/// outside A's context passes desca.ctxt = -1 (then desca's other values, grida and a are not
/// read; a may be nullptr), likewise for B. Every error throws redist::error on every rank
/// before any data moves. The plan is cached: repeating a call plans nothing and costs one
/// small all-reduce besides the exchange; a call that repeats this rank's previous one, on grids
/// of every rank of comm, costs the exchange alone (nothing to agree again: doc/scalapack.md).
template <class T>
void gemr2d(index_t m, index_t n, const T* a, index_t ia, index_t ja, const Descriptor& desca, const BlacsGrid& grida,
            T* b, index_t ib, index_t jb, const Descriptor& descb, const BlacsGrid& gridb,
            Communicator comm) {
  detail::gemr2d_impl(m, n, a, ia, ja, desca, grida, b, ib, jb, descb, gridb, comm.get(), std::nullopt);
}

/// Drops every cached gemr2d plan of the calling thread (the next call on every rank plans again).
inline void clear_gemr2d_cache() { detail::gemr2d_cache().clear(); }

}  // namespace redist::scalapack

namespace redist {
using scalapack::gemr2d;
}  // namespace redist
