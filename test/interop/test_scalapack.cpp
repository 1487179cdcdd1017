// redist::gemr2d against ScaLAPACK's pdgemr2d/pzgemr2d, and the scaled updates b = alpha * op(a) + beta * b against PxGEADD/PxTRAN/PxTRANU/PxTRANC, on random descriptors, grids and process subsets (bit for bit), descriptor <-> layout round trips, plan caching, and errors on every rank.
#include <algorithm>
#include <array>
#include <complex>
#include <cstring>
#include <functional>
#include <map>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <cmath>
#include <limits>

#include <boost/mpi/collectives/all_reduce.hpp>
#include <boost/mpi/communicator.hpp>
#include <catch2/catch.hpp>

#include <redist/array/expression.hpp>
#include <redist/array/section.hpp>
#include <redist/interop/blacs.hpp>
#include <redist/interop/scalapack.hpp>

#include "../support/mpi_check.hpp"

// BLACS and ScaLAPACK (Debian's libscalapack-openmpi: 32-bit integers).
extern "C" {
void Cblacs_get(int icontxt, int what, int* val);
void Cblacs_gridmap(int* icontxt, int* usermap, int ldumap, int nprow, int npcol);
void Cblacs_gridinit(int* icontxt, const char* layout, int nprow, int npcol);
void pdgemr2d_(const int* m, const int* n, const double* a, const int* ia, const int* ja, const int* desca,
               double* b, const int* ib, const int* jb, const int* descb, const int* ictxt);
void pzgemr2d_(const int* m, const int* n, const void* a, const int* ia, const int* ja, const int* desca, void* b,
               const int* ib, const int* jb, const int* descb, const int* ictxt);
// sub(C) := beta * sub(C) + alpha * op(sub(A)): PxTRAN (op = transpose), PxTRANU/PxTRANC (complex:
// transpose / conjugate transpose), PxGEADD (op by TRANS). The trailing size_t is gfortran's
// hidden length of TRANS.
void pdtran_(const int* m, const int* n, const double* alpha, const double* a, const int* ia, const int* ja,
             const int* desca, const double* beta, double* c, const int* ic, const int* jc, const int* descc);
void pztranu_(const int* m, const int* n, const void* alpha, const void* a, const int* ia, const int* ja,
              const int* desca, const void* beta, void* c, const int* ic, const int* jc, const int* descc);
void pztranc_(const int* m, const int* n, const void* alpha, const void* a, const int* ia, const int* ja,
              const int* desca, const void* beta, void* c, const int* ic, const int* jc, const int* descc);
void pdgeadd_(const char* trans, const int* m, const int* n, const double* alpha, const double* a, const int* ia,
              const int* ja, const int* desca, const double* beta, double* c, const int* ic, const int* jc,
              const int* descc, std::size_t trans_len);
void pzgeadd_(const char* trans, const int* m, const int* n, const void* alpha, const void* a, const int* ia,
              const int* ja, const int* desca, const void* beta, void* c, const int* ic, const int* jc,
              const int* descc, std::size_t trans_len);
}

// The collectives that agree or synchronise, counted (the PMPI profiling interface) so that a
// test can show what a repeated gemr2d calls besides its exchange.
namespace {
long agreements = 0;
}
extern "C" {
int MPI_Allreduce(const void* in, void* out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  ++agreements;
  return PMPI_Allreduce(in, out, count, type, op, comm);
}
int MPI_Iallreduce(const void* in, void* out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request* r) {
  ++agreements;
  return PMPI_Iallreduce(in, out, count, type, op, comm, r);
}
int MPI_Barrier(MPI_Comm comm) {
  ++agreements;
  return PMPI_Barrier(comm);
}
int MPI_Ibarrier(MPI_Comm comm, MPI_Request* r) {
  ++agreements;
  return PMPI_Ibarrier(comm, r);
}
int MPI_Bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  ++agreements;
  return PMPI_Bcast(buf, count, type, root, comm);
}
}

using namespace redist;
using redist::scalapack::BlacsGrid;
using redist::scalapack::Descriptor;
namespace mpi = boost::mpi;
using redist::test::all_ok;

namespace {

/// BLACS contexts, made once per grid (Cblacs_gridmap is collective over MPI_COMM_WORLD): -1 on
/// processes outside the grid. global() is the 1 × P context pdgemr2d needs.
class Contexts {
 public:
  int get(const BlacsGrid& g) {
    const auto key = std::make_tuple(g.nprow, g.npcol, static_cast<int>(g.order), g.first, g.grid().rank_map_hash());
    if (auto it = made_.find(key); it != made_.end()) return it->second;
    std::vector<int> map(static_cast<std::size_t>(g.size()));  // column-major usermap
    for (int r = 0; r < g.nprow; ++r)
      for (int c = 0; c < g.npcol; ++c) map[static_cast<std::size_t>(r + c * g.nprow)] = g.grid().rank_of({r, c});
    int ctxt = 0;
    Cblacs_get(-1, 0, &ctxt);
    Cblacs_gridmap(&ctxt, map.data(), g.nprow, g.nprow, g.npcol);
    if (!g.grid().coords_of(mpi::communicator().rank())) ctxt = -1;
    made_[key] = ctxt;
    return ctxt;
  }
  int global() {
    if (global_ == -2) {
      const int p = mpi::communicator().size();
      Cblacs_get(-1, 0, &global_);
      Cblacs_gridinit(&global_, "R", 1, p);
    }
    return global_;
  }

 private:
  std::map<std::tuple<int, int, int, int, std::uint64_t>, int> made_;
  int global_ = -2;
};
Contexts& contexts() {
  static Contexts c;
  return c;
}

/// A distributed matrix as ScaLAPACK holds it: descriptor, grid, and the local array (LLD × LOCc).
struct Matrix {
  Descriptor desc;
  BlacsGrid grid;
  std::vector<char> bytes;  // the local array (with the padding rows of LLD)
  template <class T>
  T* data() {
    return bytes.empty() ? nullptr : reinterpret_cast<T*>(bytes.data());
  }
};

index_t local_to_global(index_t l, index_t nb, int p, int src, int nprocs) {
  return ((l / nb) * nprocs + (p - src + nprocs) % nprocs) * nb + l % nb;
}

template <class T>
T value_at(index_t i, index_t j, int tag) {
  const double v = 0.25 + static_cast<double>(i) * 1000.0 + static_cast<double>(j) + 1e6 * tag;
  if constexpr (std::is_same_v<T, std::complex<double>>)
    return {v, -v};
  else
    return static_cast<T>(v);
}

/// A matrix of m × n on grid g (ctxt looked up) with random blocks and sources; LLD padded per
/// process by 0-3 rows (rank-dependent, as ScaLAPACK allows). Elements hold value_at(i, j, tag),
/// padding holds a per-rank pattern.
template <class T>
Matrix make_matrix_with(const mpi::communicator& comm, const BlacsGrid& g, int m, int n, int mb, int nb, int rsrc,
                        int csrc, int pad, int tag);

template <class T>
Matrix make_matrix(const mpi::communicator& comm, std::mt19937& rng, std::mt19937& local_rng, const BlacsGrid& g,
                   int m, int n, int tag) {
  const int mb = std::uniform_int_distribution<int>(1, 9)(rng);
  const int nb = std::uniform_int_distribution<int>(1, 9)(rng);
  const int rsrc = std::uniform_int_distribution<int>(0, g.nprow - 1)(rng);
  const int csrc = std::uniform_int_distribution<int>(0, g.npcol - 1)(rng);
  const int pad = std::uniform_int_distribution<int>(0, 3)(local_rng);
  return make_matrix_with<T>(comm, g, m, n, mb, nb, rsrc, csrc, pad, tag);
}

/// The same with the blocks, sources and this rank's LLD padding given.
template <class T>
Matrix make_matrix_with(const mpi::communicator& comm, const BlacsGrid& g, int m, int n, int mb, int nb, int rsrc,
                        int csrc, int pad, int tag) {
  Matrix a;
  a.grid = g;
  const int ctxt = contexts().get(g);
  if (ctxt == -1) {
    a.desc = Descriptor{1, -1, m, n, mb, nb, rsrc, csrc, 1};
    return a;
  }
  const auto c = *g.grid().coords_of(comm.rank());
  const index_t rows = scalapack::numroc(m, mb, c[0], rsrc, g.nprow);
  const index_t cols = scalapack::numroc(n, nb, c[1], csrc, g.npcol);
  const int lld = static_cast<int>(std::max<index_t>(1, rows) + pad);
  a.desc = Descriptor{1, ctxt, m, n, mb, nb, rsrc, csrc, lld};
  a.bytes.resize(static_cast<std::size_t>(lld * std::max<index_t>(cols, 1)) * sizeof(T));
  T* p = a.data<T>();
  for (index_t lj = 0; lj < std::max<index_t>(cols, 1); ++lj)
    for (index_t li = 0; li < lld; ++li) {
      if (li < rows && lj < cols)
        p[li + lj * lld] = value_at<T>(local_to_global(li, mb, c[0], rsrc, g.nprow),
                                       local_to_global(lj, nb, c[1], csrc, g.npcol), tag);
      else
        p[li + lj * lld] = value_at<T>(-1 - li, -1 - lj, 7 + comm.rank());
    }
  return a;
}

/// A random grid of at most nprocs processes: any shape, either order, starting at any rank; or,
/// one time in four, on any of the ranks in any order (a general Cblacs_gridmap map).
BlacsGrid random_grid(std::mt19937& rng, int nprocs) {
  const int size = std::uniform_int_distribution<int>(1, nprocs)(rng);
  std::vector<int> rows;
  for (int r = 1; r <= size; ++r)
    if (size % r == 0) rows.push_back(r);
  const int nprow = rows[std::uniform_int_distribution<std::size_t>(0, rows.size() - 1)(rng)];
  const Order order = std::uniform_int_distribution<int>(0, 1)(rng) == 0 ? Order::row_major : Order::column_major;
  const int first = std::uniform_int_distribution<int>(0, nprocs - size)(rng);
  if (nprocs > 1 && std::uniform_int_distribution<int>(0, 3)(rng) == 0) {
    std::vector<int> ranks(static_cast<std::size_t>(nprocs));
    std::iota(ranks.begin(), ranks.end(), 0);
    std::shuffle(ranks.begin(), ranks.end(), rng);
    ranks.resize(static_cast<std::size_t>(size));
    return BlacsGrid{nprow, size / nprow}.with_ranks(ranks);
  }
  return BlacsGrid{nprow, size / nprow, order, first};
}

/// How a grid is written in a failure message: "2x3@1R", "2x2@1C", "2x2 on 3,0,2,1".
std::string grid_name(const BlacsGrid& g) {
  std::string s = std::to_string(g.nprow) + "x" + std::to_string(g.npcol);
  if (g.map == nullptr) return s + "@" + std::to_string(g.first) + (g.order == Order::row_major ? "R" : "C");
  s += " on";
  for (int r : g.grid().rank_map()) s += (s.back() == 'n' ? " " : ",") + std::to_string(r);
  return s;
}

template <class T>
void scalapack_gemr2d(int m, int n, Matrix& a, int ia, int ja, Matrix& b, int ib, int jb) {
  const auto da = a.desc.to_array(), db = b.desc.to_array();
  T dummy{};
  const T* pa = a.data<T>() ? a.data<T>() : &dummy;
  T* pb = b.data<T>() ? b.data<T>() : &dummy;
  const int ictxt = contexts().global();
  if constexpr (std::is_same_v<T, double>)
    pdgemr2d_(&m, &n, pa, &ia, &ja, da.data(), pb, &ib, &jb, db.data(), &ictxt);
  else
    pzgemr2d_(&m, &n, pa, &ia, &ja, da.data(), pb, &ib, &jb, db.data(), &ictxt);
}

/// How many copied elements holds_copy has checked on this rank (so that a test can show it checked some).
long long& window_checked() {
  static long long count = 0;
  return count;
}

/// B's local elements (and padding) hold what the copy of A(ia.., ja..) to B(ib.., jb..) leaves.
template <class T>
bool holds_copy(const mpi::communicator& comm, Matrix& b, int m, int n, int ia, int ja, int ib, int jb) {
  if (!b.desc.in_context()) return true;
  const auto& d = b.desc;
  const auto c = *b.grid.grid().coords_of(comm.rank());
  const index_t rows = scalapack::numroc(d.m, d.mb, c[0], d.rsrc, b.grid.nprow);
  const index_t cols = scalapack::numroc(d.n, d.nb, c[1], d.csrc, b.grid.npcol);
  const T* p = b.data<T>();
  for (index_t lj = 0; lj < std::max<index_t>(cols, 1); ++lj)
    for (index_t li = 0; li < d.lld; ++li) {
      T want = value_at<T>(-1 - li, -1 - lj, 7 + comm.rank());
      if (li < rows && lj < cols) {
        const index_t i = local_to_global(li, d.mb, c[0], d.rsrc, b.grid.nprow);
        const index_t j = local_to_global(lj, d.nb, c[1], d.csrc, b.grid.npcol);
        want = value_at<T>(i, j, 2);
        if (i >= ib - 1 && i < ib - 1 + m && j >= jb - 1 && j < jb - 1 + n)
        {
          want = value_at<T>(i - (ib - 1) + (ia - 1), j - (jb - 1) + (ja - 1), 1);
          ++window_checked();
        }
      }
      if (std::memcmp(&p[li + lj * d.lld], &want, sizeof(T)) != 0) return false;
    }
  return true;
}

/// One random case: A and B with random layouts on random grids, a random m × n window.
template <class T>
bool random_case(const mpi::communicator& comm, std::mt19937& rng, std::mt19937& local_rng, bool drop_in,
                 std::string& what) {
  const int nprocs = comm.size();
  const int ma = std::uniform_int_distribution<int>(1, 60)(rng), na = std::uniform_int_distribution<int>(1, 60)(rng);
  const int mb = std::uniform_int_distribution<int>(1, 60)(rng), nb = std::uniform_int_distribution<int>(1, 60)(rng);
  const int m = std::uniform_int_distribution<int>(1, std::min(ma, mb))(rng);
  const int n = std::uniform_int_distribution<int>(1, std::min(na, nb))(rng);
  const int ia = std::uniform_int_distribution<int>(1, ma - m + 1)(rng);
  const int ja = std::uniform_int_distribution<int>(1, na - n + 1)(rng);
  const int ib = std::uniform_int_distribution<int>(1, mb - m + 1)(rng);
  const int jb = std::uniform_int_distribution<int>(1, nb - n + 1)(rng);
  const BlacsGrid ga = random_grid(rng, nprocs), gb = random_grid(rng, nprocs);
  Matrix a = make_matrix<T>(comm, rng, local_rng, ga, ma, na, 1);
  Matrix b_redist = make_matrix<T>(comm, rng, local_rng, gb, mb, nb, 2);
  Matrix b_scalapack = b_redist;
  what = "A " + std::to_string(ma) + "x" + std::to_string(na) + " blocks " + std::to_string(a.desc.mb) + "x" +
         std::to_string(a.desc.nb) + " src (" + std::to_string(a.desc.rsrc) + "," + std::to_string(a.desc.csrc) +
         ") grid " + grid_name(ga) + "; B " + std::to_string(mb) + "x" + std::to_string(nb) + " blocks " +
         std::to_string(b_redist.desc.mb) + "x" + std::to_string(b_redist.desc.nb) + " src (" +
         std::to_string(b_redist.desc.rsrc) + "," + std::to_string(b_redist.desc.csrc) + ") grid " + grid_name(gb) +
         "; m n = " + std::to_string(m) + " " + std::to_string(n) + ", ia ja = " + std::to_string(ia) + " " +
         std::to_string(ja) + ", ib jb = " + std::to_string(ib) + " " + std::to_string(jb);

  scalapack_gemr2d<T>(m, n, a, ia, ja, b_scalapack, ib, jb);
  if (drop_in) {
    const auto da = a.desc.to_array(), db = b_redist.desc.to_array();
    redist::gemr2d(m, n, a.data<T>(), ia, ja, da.data(), b_redist.data<T>(), ib, jb, db.data(), comm);
  } else {
    redist::gemr2d(m, n, a.data<T>(), ia, ja, a.desc, ga, b_redist.data<T>(), ib, jb, b_redist.desc, gb, comm);
  }
  // Bit for bit, padding included; and against the oracle, so that a disagreement says who is wrong.
  const bool same = b_redist.bytes == b_scalapack.bytes;
  const bool right = holds_copy<T>(comm, b_redist, m, n, ia, ja, ib, jb);
  if (!same) what += " [differs from ScaLAPACK]";
  if (!right) what += " [differs from the oracle]";
  return same && right;
}

template <class T>
void run_random_cases(int cases, unsigned seed, bool drop_in) {
  mpi::communicator world;
  std::mt19937 rng(seed), local_rng(seed + 1000u * static_cast<unsigned>(world.rank() + 1));
  int failures = 0;
  std::string first_failure;
  const long long checked_before = window_checked();
  for (int k = 0; k < cases; ++k) {
    std::string what;
    const bool ok = all_ok(world, random_case<T>(world, rng, local_rng, drop_in, what));
    if (!ok && failures++ == 0) first_failure = what;
  }
  INFO("first failing case: " << first_failure);
  REQUIRE(failures == 0);
  // The comparison is not vacuous: the copied windows hold many elements (each m, n >= 1).
  const long long checked = mpi::all_reduce(world, window_checked() - checked_before, std::plus<long long>());
  REQUIRE(checked >= 10LL * cases);
}

// ---- Scaled and transposed updates (issue 16) against PxGEADD, PxTRAN, PxTRANU, PxTRANC ----------

enum class op_kind { none, transpose, conj_transpose };

/// x and y equal to rounding (both NaN counts as equal: padding and beta = 0 inputs hold NaNs).
template <class T>
bool close(const T& x, const T& y) {
  auto near = [](double a, double b) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
    return std::abs(a - b) <= 1e-12 * std::max(1.0, std::abs(a));
  };
  if constexpr (std::is_same_v<T, std::complex<double>>) return near(x.real(), y.real()) && near(x.imag(), y.imag());
  else return near(x, y);
}

/// One random case on one random grid (ScaLAPACK's routines want A and C in one context): C (mc ×
/// nc) and A (its op's shape) with random blocks, sources and padding, a random window
/// C(ic.., jc..) of m × n and A(ia.., ja..) of op's shape; alpha, beta in {0, 1, other}; with
/// beta = 0 C's elements are NaN. sub(C) := beta sub(C) + alpha op(sub(A)) by ScaLAPACK and by
/// `section(c, ...) = alpha * op(section(a, ...)) + beta * section(c, ...)` over the same
/// memory (DistViews); the two local arrays must agree to rounding, padding included.
template <class T, op_kind K>
bool update_case(const mpi::communicator& comm, std::mt19937& rng, std::mt19937& local_rng, std::string& what) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const int mc = pick(1, 40), nc = pick(1, 40);
  const int m = pick(1, mc), n = pick(1, nc), ic = pick(1, mc - m + 1), jc = pick(1, nc - n + 1);
  const int wa = K == op_kind::none ? m : n, ha = K == op_kind::none ? n : m;  // op(sub(A)) is m x n
  const int ma = wa + pick(0, 5), na = ha + pick(0, 5), ia = pick(1, ma - wa + 1), ja = pick(1, na - ha + 1);
  const BlacsGrid g = random_grid(rng, comm.size());
  Matrix a = make_matrix<T>(comm, rng, local_rng, g, ma, na, 1);
  Matrix c_redist = make_matrix<T>(comm, rng, local_rng, g, mc, nc, 2);
  const T scalars[] = {T{0}, T{1}, value_at<T>(0, 0, 0) * T{-3}};
  const T alpha = scalars[pick(0, 2)], beta = scalars[pick(0, 2)];
  if (beta == T{0} && c_redist.desc.in_context()) {  // NaNs in C must not propagate
    const auto& d = c_redist.desc;
    const auto at = *g.grid().coords_of(comm.rank());
    const index_t rows = scalapack::numroc(d.m, d.mb, at[0], d.rsrc, g.nprow);
    const index_t cols = scalapack::numroc(d.n, d.nb, at[1], d.csrc, g.npcol);
    for (index_t lj = 0; lj < cols; ++lj)
      for (index_t li = 0; li < rows; ++li) c_redist.data<T>()[li + lj * d.lld] = T{std::numeric_limits<double>::quiet_NaN()};
  }
  Matrix c_scalapack = c_redist;
  what = std::string(K == op_kind::none ? "geadd" : K == op_kind::transpose ? "tran" : "tranc") + " m n " +
         std::to_string(m) + " " + std::to_string(n) + " A " + std::to_string(ma) + "x" + std::to_string(na) + " at " +
         std::to_string(ia) + "," + std::to_string(ja) + " C " + std::to_string(mc) + "x" + std::to_string(nc) + " at " +
         std::to_string(ic) + "," + std::to_string(jc) + " grid " + grid_name(g);

  if (a.desc.in_context()) {
    const auto da = a.desc.to_array(), dc = c_scalapack.desc.to_array();
    const T* pa = a.data<T>();
    T* pc = c_scalapack.data<T>();
    T dummy{};
    if (pa == nullptr) pa = &dummy;
    if (pc == nullptr) pc = &dummy;
    const char trans = 'N';
    if constexpr (std::is_same_v<T, double>) {
      if (K == op_kind::none) pdgeadd_(&trans, &m, &n, &alpha, pa, &ia, &ja, da.data(), &beta, pc, &ic, &jc, dc.data(), 1);
      else pdtran_(&m, &n, &alpha, pa, &ia, &ja, da.data(), &beta, pc, &ic, &jc, dc.data());
    } else {
      if (K == op_kind::none) pzgeadd_(&trans, &m, &n, &alpha, pa, &ia, &ja, da.data(), &beta, pc, &ic, &jc, dc.data(), 1);
      else if (K == op_kind::transpose) pztranu_(&m, &n, &alpha, pa, &ia, &ja, da.data(), &beta, pc, &ic, &jc, dc.data());
      else pztranc_(&m, &n, &alpha, pa, &ia, &ja, da.data(), &beta, pc, &ic, &jc, dc.data());
    }
  }
  auto va = scalapack::make_dist_view<T>(a.data<T>(), comm, a.desc, g);
  auto vc = scalapack::make_dist_view<T>(c_redist.data<T>(), comm, c_redist.desc, g);
  auto sa = section(va, std::pair{ia - 1, ia - 1 + wa}, std::pair{ja - 1, ja - 1 + ha});
  auto sc = section(vc, std::pair{ic - 1, ic - 1 + m}, std::pair{jc - 1, jc - 1 + n});
  if constexpr (K == op_kind::none) sc = alpha * sa + beta * sc;
  else if constexpr (K == op_kind::transpose) sc = alpha * transpose(sa) + beta * sc;
  else sc = alpha * conj_transpose(sa) + beta * sc;

  const std::size_t count = c_redist.bytes.size() / sizeof(T);
  for (std::size_t k = 0; k < count; ++k)
    if (!close(c_redist.data<T>()[k], c_scalapack.data<T>()[k])) {
      std::ostringstream o;
      o << " alpha " << alpha << " beta " << beta << " [differs from ScaLAPACK at local element " << k << ": "
        << c_redist.data<T>()[k] << " vs " << c_scalapack.data<T>()[k] << "]";
      what += o.str();
      return false;
    }
  return true;
}

template <class T, op_kind K>
void run_update_cases(int cases, unsigned seed) {
  mpi::communicator world;
  std::mt19937 rng(seed), local_rng(seed + 1000u * static_cast<unsigned>(world.rank() + 1));
  int failures = 0;
  std::string first_failure;
  for (int k = 0; k < cases; ++k) {
    std::string what;
    const bool ok = all_ok(world, update_case<T, K>(world, rng, local_rng, what));
    if (!ok && failures++ == 0) first_failure = what;
  }
  INFO("first failing case: " << first_failure);
  REQUIRE(failures == 0);
}

}  // namespace

TEST_CASE("b = alpha * a + beta * b equals PDGEADD and PZGEADD on random descriptors and windows",
          "[mpi][scalapack][expression]") {
  run_update_cases<double, op_kind::none>(120, 21);
  run_update_cases<std::complex<double>, op_kind::none>(60, 22);
}

TEST_CASE("b = alpha * transpose(a) + beta * b equals PDTRAN and PZTRANU on random descriptors and windows",
          "[mpi][scalapack][expression]") {
  run_update_cases<double, op_kind::transpose>(120, 23);
  run_update_cases<std::complex<double>, op_kind::transpose>(60, 24);
}

TEST_CASE("b = alpha * conj_transpose(a) + beta * b equals PZTRANC on random descriptors and windows",
          "[mpi][scalapack][expression]") {
  run_update_cases<std::complex<double>, op_kind::conj_transpose>(120, 25);
}

TEST_CASE("gemr2d equals pdgemr2d bit for bit on random descriptors, grids and sub-matrices", "[mpi][scalapack]") {
  run_random_cases<double>(500, 1, false);
}

TEST_CASE("the PDGEMR2D-shaped gemr2d on int desc[9] reads the grids from BLACS and equals pdgemr2d",
          "[mpi][scalapack][blacs]") {
  run_random_cases<double>(150, 2, true);
}

TEST_CASE("gemr2d on complex<double> equals pzgemr2d bit for bit", "[mpi][scalapack][complex]") {
  run_random_cases<std::complex<double>>(150, 3, false);
}

TEST_CASE("a repeated gemr2d plans nothing", "[mpi][scalapack][cache]") {
  mpi::communicator world;
  const BlacsGrid ga{1, world.size(), Order::row_major, 0};
  const BlacsGrid gb{world.size(), 1, Order::column_major, 0};
  std::mt19937 rng(9), local_rng(99u + static_cast<unsigned>(world.rank()));
  Matrix a = make_matrix<double>(world, rng, local_rng, ga, 37, 41, 1);
  Matrix b = make_matrix<double>(world, rng, local_rng, gb, 30, 45, 2);
  redist::gemr2d(20, 30, a.data<double>(), 3, 5, a.desc, ga, b.data<double>(), 2, 7, b.desc, gb, world);
  const std::size_t planned = redist::plans_built();
  for (int k = 0; k < 3; ++k) {
    // Other local arrays with the same layouts (the same seeds): the cached plan serves them.
    std::mt19937 again(9), local_again(99u + static_cast<unsigned>(world.rank()));
    Matrix a2 = make_matrix<double>(world, again, local_again, ga, 37, 41, 1);
    Matrix b2 = make_matrix<double>(world, again, local_again, gb, 30, 45, 2);
    REQUIRE(a2.desc == a.desc);
    redist::gemr2d(20, 30, a2.data<double>(), 3, 5, a2.desc, ga, b2.data<double>(), 2, 7, b2.desc, gb, world);
    REQUIRE(all_ok(world, holds_copy<double>(world, b2, 20, 30, 3, 5, 2, 7)));
  }
  REQUIRE(redist::plans_built() == planned);
  // Another window is another plan.
  redist::gemr2d(10, 30, a.data<double>(), 3, 5, a.desc, ga, b.data<double>(), 2, 7, b.desc, gb, world);
  REQUIRE(redist::plans_built() > planned);
}

TEST_CASE("repeated gemr2d calls communicate only their exchange", "[mpi][scalapack][cache]") {
  mpi::communicator world;
  const int p = world.size();
  const BlacsGrid ga{1, p, Order::row_major, 0};
  const BlacsGrid gb{p, 1, Order::column_major, 0};
  std::mt19937 rng(19), local_rng(7u + static_cast<unsigned>(world.rank()));
  Matrix a = make_matrix<double>(world, rng, local_rng, ga, 33, 29, 1);
  Matrix b = make_matrix<double>(world, rng, local_rng, gb, 31, 40, 2);
  Matrix c = b;  // the same layout in other memory
  auto call = [&](Matrix& to, int m) {
    redist::gemr2d(m, 20, a.data<double>(), 2, 4, a.desc, ga, to.data<double>(), 3, 6, to.desc, gb, world);
  };
  // The plan is made, run, and (second run) its wire timed, which agrees; later runs decide nothing.
  for (int k = 0; k < 3; ++k) call(b, 25);
  agreements = 0;
  for (int k = 0; k < 3; ++k) call(b, 25);
  CHECK(agreements == 0);
  REQUIRE(all_ok(world, holds_copy<double>(world, b, 25, 20, 2, 4, 3, 6)));
  // Other pointers, the same arguments: the same plan, nothing to agree.
  agreements = 0;
  call(c, 25);
  CHECK(agreements == 0);
  REQUIRE(all_ok(world, holds_copy<double>(world, c, 25, 20, 2, 4, 3, 6)));
  // Another call agrees (and plans); going back to the first is no repeat of the previous call,
  // so it agrees again, on the plan the cache kept; repeated, it agrees no more.
  agreements = 0;
  call(b, 21);
  CHECK(agreements >= 1);
  const std::size_t planned = redist::plans_built();
  agreements = 0;
  call(b, 25);
  CHECK(agreements >= 1);
  CHECK(redist::plans_built() == planned);
  agreements = 0;
  call(b, 25);
  CHECK(agreements == 0);
  REQUIRE(all_ok(world, holds_copy<double>(world, b, 25, 20, 2, 4, 3, 6)));
  // Grids of a subset of the ranks: a rank outside a context cannot tell a repeat, so every call agrees.
  if (p > 1) {
    const BlacsGrid gs{1, p - 1, Order::row_major, 0};
    std::mt19937 rng2(23), local_rng2(5u + static_cast<unsigned>(world.rank()));
    Matrix s = make_matrix<double>(world, rng2, local_rng2, gs, 33, 29, 1);
    auto sub = [&] {
      redist::gemr2d(25, 20, s.data<double>(), 2, 4, s.desc, gs, b.data<double>(), 3, 6, b.desc, gb, world);
    };
    for (int k = 0; k < 3; ++k) sub();
    agreements = 0;
    sub();
    CHECK(agreements >= 1);
    REQUIRE(all_ok(world, holds_copy<double>(world, b, 25, 20, 2, 4, 3, 6)));
  }
}

TEST_CASE("Descriptor <-> Dist<Cyclic<>, Cyclic<>> and Grid round trip", "[mpi][scalapack][layout]") {
  mpi::communicator world;
  std::mt19937 rng(4), local_rng(40u + static_cast<unsigned>(world.rank()));
  for (int k = 0; k < 20; ++k) {
    const BlacsGrid g = random_grid(rng, world.size());
    Matrix a = make_matrix<double>(world, rng, local_rng, g, std::uniform_int_distribution<int>(1, 50)(rng),
                                   std::uniform_int_distribution<int>(1, 50)(rng), 1);
    // Grid <-> BlacsGrid.
    REQUIRE(scalapack::blacs_grid(g.grid()) == g);
    // The layout places every element where ScaLAPACK does.
    Descriptor d = a.desc;
    if (!d.in_context()) d.ctxt = 0;
    const scalapack::Layout l = scalapack::layout(d, g);
    const auto map = l.mapping(world.size());
    bool ok = true;
    if (a.desc.in_context()) {
      const auto c = *g.grid().coords_of(world.rank());
      const auto e = map.local_extents(world.rank());
      REQUIRE(map.leading_dimension(world.rank()) == a.desc.lld);
      for (index_t lj = 0; lj < e[1]; ++lj)
        for (index_t li = 0; li < e[0]; ++li) {
          const auto gi = map.global_index(world.rank(), {li, lj});
          ok = ok && gi[0] == local_to_global(li, d.mb, c[0], d.rsrc, g.nprow) &&
               gi[1] == local_to_global(lj, d.nb, c[1], d.csrc, g.npcol) &&
               map.local_offset(gi) == li + lj * a.desc.lld;
        }
    }
    REQUIRE(all_ok(world, ok));
    // A DistArray built from the descriptor gives the descriptor back, and holds ScaLAPACK's local matrix.
    auto arr = scalapack::make_dist_array<double>(world, a.desc, g);
    REQUIRE(scalapack::descriptor(arr, a.desc.ctxt) == a.desc);
    index_t expect = 0;
    if (a.desc.in_context()) {
      const auto c = *g.grid().coords_of(world.rank());
      const index_t rows = scalapack::numroc(a.desc.m, a.desc.mb, c[0], a.desc.rsrc, g.nprow);
      const index_t cols = scalapack::numroc(a.desc.n, a.desc.nb, c[1], a.desc.csrc, g.npcol);
      if (rows > 0) expect = a.desc.lld * cols;  // redist allocates nothing for a process without rows
    }
    REQUIRE(static_cast<index_t>(arr.local().size()) == expect);
  }
}

TEST_CASE("descriptor(a, ctxt) of Block and Cyclic<X> arrays is what pdgemr2d reads", "[mpi][scalapack][layout]") {
  mpi::communicator world;
  const BlacsGrid g{world.size() >= 2 ? 2 : 1, world.size() >= 2 ? world.size() / 2 : 1, Order::column_major, 0};
  const int ctxt = contexts().get(g);
  DistArray<double, Dist<Block, Cyclic<4>>> a(world, {29, 23}, g.grid(), {0, g.npcol - 1});
  const auto& map = a.mapping();
  if (map.coords_of(world.rank())) {
    const auto e = a.local_extents();
    for (index_t lj = 0; lj < e[1]; ++lj)
      for (index_t li = 0; li < e[0]; ++li) {
        const auto gi = a.global_index({li, lj});
        a.local()[static_cast<std::size_t>(li + lj * a.leading_dimension())] = value_at<double>(gi[0], gi[1], 1);
      }
  }
  const Descriptor da = scalapack::descriptor(a, ctxt);
  REQUIRE(da.mb == (29 + g.nprow - 1) / g.nprow);
  REQUIRE(da.nb == 4);
  // Copy it with ScaLAPACK into a 1 × P Cyclic<3> matrix and check the values there.
  const BlacsGrid gb{1, world.size(), Order::row_major, 0};
  std::mt19937 rng(1), local_rng(2);
  Matrix b = make_matrix<double>(world, rng, local_rng, gb, 29, 23, 2);
  Matrix am;
  am.desc = da;
  am.grid = g;
  am.bytes.resize(a.local().size() * sizeof(double));
  if (!am.bytes.empty()) std::memcpy(am.bytes.data(), a.local().data(), am.bytes.size());
  scalapack_gemr2d<double>(29, 23, am, 1, 1, b, 1, 1);
  REQUIRE(all_ok(world, holds_copy<double>(world, b, 29, 23, 1, 1, 1, 1)));
}

TEST_CASE("gemr2d of one column on a P x 1 grid plans it as the 1-D layout it is, bit for bit as pdgemr2d",
          "[mpi][scalapack][line]") {
  mpi::communicator world;
  const int p = world.size();
  const BlacsGrid g{p, 1, Order::row_major, 0};
  const int rows = 6000;
  struct Case {
    int mba, mbb, ia, ib;
    bool line;
  };
  // Whole columns, block sizes as seed 000's pairs; then windows that start inside a block, and a
  // basic cycle of more than 4096 (a block of 5000 rows to CYCLIC(1)), which stay sub-matrices.
  const Case cases[] = {{8, 5, 1, 1, true},  {100, 3, 1, 1, true},  {4, 28, 1, 1, true},
                        {8, 5, 3, 1, false}, {8, 5, 1, 2, false}, {5000, 1, 1, 1, false}};
  for (const Case& c : cases) {
    const int m = rows - std::max(c.ia, c.ib) + 1;
    // A is rows x 3 (the window in column 2), B rows x 4 (the window in column 3); LLDs padded.
    Matrix a = make_matrix_with<double>(world, g, rows, 3, c.mba, 2, 0, 0, world.rank() % 2, 1);
    Matrix b = make_matrix_with<double>(world, g, rows, 4, c.mbb, 3, 0, 0, 1, 2);
    Matrix b_scalapack = b;
    scalapack_gemr2d<double>(m, 1, a, c.ia, 2, b_scalapack, c.ib, 3);
    const auto da = a.desc.to_array(), db = b.desc.to_array();
    redist::gemr2d(m, 1, a.data<double>(), c.ia, 2, da.data(), b.data<double>(), c.ib, 3, db.data(), world);
    INFO("MB " << c.mba << " -> " << c.mbb << ", ia " << c.ia << ", ib " << c.ib);
    REQUIRE(all_ok(world, b.bytes == b_scalapack.bytes));
    REQUIRE(all_ok(world, holds_copy<double>(world, b, m, 1, c.ia, 2, c.ib, 3)));
    const std::array<index_t, 7> args{m, 1, c.ia, 2, c.ib, 3, 8};
    const auto* e = scalapack::detail::gemr2d_cache().find<scalapack::detail::CacheEntry>(
        [&](const scalapack::detail::CacheEntry& x) { return x.key.args == args; });
    REQUIRE(e != nullptr);
    CHECK(e->r.index() == (c.line ? 1u : 0u));
  }
}

TEST_CASE("blacs_grid(ctxt, comm) reads row- and column-major grids on process subsets", "[mpi][scalapack][blacs]") {
  mpi::communicator world;
  REQUIRE_THROWS_WITH(scalapack::blacs_grid(-1, world), Catch::Contains("requires some rank of comm to be in the context"));
  if (world.size() >= 2) {
    // A grid that maps (0, 0) to rank 1 and (0, 1) to rank 0: read with its rank map.
    int ctxt = 0, map[2] = {1, 0};
    Cblacs_get(-1, 0, &ctxt);
    Cblacs_gridmap(&ctxt, map, 1, 1, 2);
    if (world.rank() > 1) ctxt = -1;
    const BlacsGrid got = scalapack::blacs_grid(ctxt, world);
    const bool ok = got.nprow == 1 && got.npcol == 2 && got.map != nullptr && got.grid().rank_of({0, 0}) == 1 &&
                    got.grid().rank_of({0, 1}) == 0;
    REQUIRE(all_ok(world, ok));
  }
  if (world.size() >= 4) {
    // A 2 x 2 grid on ranks 3, 2 (row 0) and 0, 1 (row 1), as Cblacs_gridmap's column-major usermap says.
    int ctxt = 0, map[4] = {3, 0, 2, 1};
    Cblacs_get(-1, 0, &ctxt);
    Cblacs_gridmap(&ctxt, map, 2, 2, 2);
    if (world.rank() > 3) ctxt = -1;
    const BlacsGrid got = scalapack::blacs_grid(ctxt, world);
    const std::array<int, 4> want{3, 2, 0, 1};
    REQUIRE(all_ok(world, got == BlacsGrid{2, 2}.with_ranks(want)));
  }
  for (Order o : {Order::row_major, Order::column_major})
    for (int first = 0; first < world.size(); ++first) {
      const int size = world.size() - first;
      const BlacsGrid g{size >= 2 ? 2 : 1, size >= 2 ? size / 2 : 1, o, first};
      const int ctxt = contexts().get(g);
      // Collective: ranks outside pass -1 and learn the grid too. A grid of one row or column
      // numbers ranks the same in both orders; blacs_grid says row_major.
      const BlacsGrid got = scalapack::blacs_grid(ctxt, world);
      const BlacsGrid want = g.nprow == 1 || g.npcol == 1 ? BlacsGrid{g.nprow, g.npcol, Order::row_major, first} : g;
      const bool ok = got == want;
      REQUIRE(all_ok(world, ok));
    }
}

TEST_CASE("gemr2d rejects bad arguments on every rank before moving data", "[mpi][scalapack][error]") {
  mpi::communicator world;
  const int p = world.size();
  const BlacsGrid g{1, p, Order::row_major, 0};
  std::mt19937 rng(3), local_rng(30u + static_cast<unsigned>(world.rank()));
  Matrix a = make_matrix<double>(world, rng, local_rng, g, 20, 20, 1);
  Matrix b = make_matrix<double>(world, rng, local_rng, g, 20, 20, 2);
  const Matrix b0 = b;
  auto call = [&](int m, int n, int ia, int ja, Descriptor da, Descriptor db, int ib = 1, int jb = 1) {
    redist::gemr2d(m, n, a.data<double>(), ia, ja, da, g, b.data<double>(), ib, jb, db, g, world);
  };
  using Catch::Contains;

  REQUIRE_THROWS_WITH((Descriptor{2, 0, 4, 4, 1, 1, 0, 0, 4}),
                      Contains("redist::scalapack::Descriptor(desc) requires desc[0] (DTYPE_) to be 1"));
  const int bad[9] = {3, 0, 4, 4, 1, 1, 0, 0, 4};
  REQUIRE_THROWS_WITH(Descriptor(bad), Contains("DTYPE_"));
  const int outside[9] = {3, -1, 0, 0, 0, 0, 0, 0, 0};
  REQUIRE_NOTHROW(Descriptor(outside));

  REQUIRE_THROWS_WITH(call(10, 10, 12, 1, a.desc, b.desc), Contains("requires ia to be in [1, desca.m - m + 1]"));
  REQUIRE_THROWS_WITH(call(10, 10, 1, 0, a.desc, b.desc), Contains("requires ja to be in"));
  REQUIRE_THROWS_WITH(call(10, 10, 1, 1, a.desc, b.desc, 1, 15), Contains("requires jb to be in"));
  REQUIRE_THROWS_WITH(call(-1, 10, 1, 1, a.desc, b.desc), Contains("requires m and n to be >= 0"));
  {
    Descriptor d = a.desc;
    d.rsrc = 1;  // a 1 × P grid has one row
    REQUIRE_THROWS_WITH(call(10, 10, 1, 1, d, b.desc), Contains("requires desca.rsrc (RSRC_) to be in [0, nprow)"));
  }
  {
    // LLD too small on the last rank only: every rank throws.
    Descriptor d = b.desc;
    if (world.rank() == p - 1) d.lld = 0;
    REQUIRE_THROWS_WITH(call(10, 10, 1, 1, a.desc, d), Contains("requires descb.lld (LLD_) to be >= max(1, local rows)"));
  }
  {
    // m differs between ranks.
    const int m = world.rank() == 0 ? 10 : 11;
    if (p > 1) REQUIRE_THROWS_WITH(call(m, 10, 1, 1, a.desc, b.desc), Contains("requires every rank to pass the same m"));
  }
  {
    // No rank in A's context.
    Descriptor d = a.desc;
    d.ctxt = -1;
    REQUIRE_THROWS_WITH(call(10, 10, 1, 1, d, b.desc), Contains("requires some rank to be in desca's context"));
  }
  {
    // A rank in the grid that says it is not in the context.
    Descriptor d = a.desc;
    if (world.rank() == 0) d.ctxt = -1;
    if (p > 1)
      REQUIRE_THROWS_WITH(call(10, 10, 1, 1, d, b.desc), Contains("requires every rank of desca's grid to be in its context"));
  }
  {
    // A grid larger than the communicator.
    const BlacsGrid big{2, p, Order::row_major, 0};
    REQUIRE_THROWS_WITH(redist::gemr2d(10, 10, a.data<double>(), 1, 1, a.desc, big, b.data<double>(), 1, 1, b.desc, g,
                                       world),
                        Contains("requires desca's grid to fit the communicator"));
  }
  {
    // The drop-in: a bad DTYPE on one rank.
    auto da = a.desc.to_array();
    const auto db = b.desc.to_array();
    if (world.rank() == 0) da[0] = 5;
    REQUIRE_THROWS_WITH(redist::gemr2d(10, 10, a.data<double>(), 1, 1, da.data(), b.data<double>(), 1, 1, db.data(), world),
                        Contains("DTYPE_"));
  }
  REQUIRE(b.bytes == b0.bytes);  // no data moved
  // And a good call still works after the errors.
  call(10, 10, 2, 3, a.desc, b.desc, 4, 5);
  REQUIRE(all_ok(world, holds_copy<double>(world, b, 10, 10, 2, 3, 4, 5)));
}
