/// @file libredist-scalapack: ScaLAPACK's redistribution routines (P?GEMR2D, P?TRMR2D, P?TRAN*)
/// with ScaLAPACK's own names and argument lists, computed by redist. Linked before ScaLAPACK (or
/// preloaded), it replaces ScaLAPACK's routines in a program that changes no line. A call redist
/// cannot serve (a BLACS context it cannot express, or arguments ScaLAPACK would reject) goes to
/// ScaLAPACK's own routine, found with dlsym(RTLD_NEXT), on every process of the call alike, so
/// that errors are reported exactly as ScaLAPACK reports them.
#define OMPI_SKIP_MPICXX 1  // MPI's C++ bindings are not used (and warn under -Wextra)
#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <mpi.h>

#include <redist/interop/blacs.hpp>
#include <redist/redist.hpp>

#define REDIST_EXPORT extern "C" __attribute__((visibility("default")))

extern "C" {
void Cblacs_gridinfo(int icontxt, int* nprow, int* npcol, int* myrow, int* mycol);
}

namespace {

using redist::index_t;
using namespace redist::scalapack;

// ---------------------------------------------------------------------------------------------
// The communicator of a BLACS context.
//
// ScaLAPACK's redistribution routines are collective over a context (P?GEMR2D's ictxt, P?TRAN's
// context of A and C). The BLACS keep, for each context, the MPI communicator of all its
// processes (its "all" scope), numbered row-major on the context's grid. Its layout is that of
// BLACS/SRC/Bdef.h (unchanged since BLACS 1.1); `context_comm` checks it against
// Cblacs_gridinfo before using it, and declines (ScaLAPACK's routine serves) when it disagrees.
struct BlacsScope {
  MPI_Comm comm;
  int scp_id, max_id, min_id;
  int np, iam;
};
struct BlacsContext {
  BlacsScope rscp, cscp, ascp, pscp;
};
}  // namespace
extern "C" BlacsContext** BI_MyContxts;

namespace {

/// The attribute of a context's communicator holding redist's duplicate of it; freed with it.
int dup_keyval() {
  static const int key = [] {
    int k = MPI_KEYVAL_INVALID;
    auto free_dup = [](MPI_Comm, int, void* value, void*) -> int {
      auto* dup = static_cast<MPI_Comm*>(value);
      MPI_Comm_free(dup);
      delete dup;
      return MPI_SUCCESS;
    };
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_dup, &k, nullptr);
    return k;
  }();
  return key;
}

/// This process in context ctxt: its grid and position, from Cblacs_gridinfo.
struct InContext {
  int nprow = -1, npcol = -1, myrow = -1, mycol = -1;
  bool in() const { return myrow >= 0 && mycol >= 0 && nprow > 0 && npcol > 0; }
};
InContext info(int ctxt) {
  InContext c;
  if (ctxt >= 0) Cblacs_gridinfo(ctxt, &c.nprow, &c.npcol, &c.myrow, &c.mycol);
  return c;
}

/// redist's own communicator for context ctxt (a duplicate of the context's, made on its first
/// use and freed with it: redist's messages never meet the BLACS' or the caller's), or
/// MPI_COMM_NULL when this process is not in ctxt or the BLACS' context is not as expected.
/// Collective over the context on its first use.
MPI_Comm context_comm(int ctxt) {
  const InContext c = info(ctxt);
  if (!c.in() || BI_MyContxts == nullptr || BI_MyContxts[ctxt] == nullptr) return MPI_COMM_NULL;
  const BlacsScope& all = BI_MyContxts[ctxt]->ascp;
  int size = -1, rank = -1;
  if (all.comm == MPI_COMM_NULL || MPI_Comm_size(all.comm, &size) != MPI_SUCCESS || MPI_Comm_rank(all.comm, &rank) != MPI_SUCCESS)
    return MPI_COMM_NULL;
  if (size != c.nprow * c.npcol || rank != c.myrow * c.npcol + c.mycol || all.np != size || all.iam != rank)
    return MPI_COMM_NULL;
  void* value = nullptr;
  int found = 0;
  MPI_Comm_get_attr(all.comm, dup_keyval(), &value, &found);
  if (found) return *static_cast<MPI_Comm*>(value);
  auto* dup = new MPI_Comm;
  MPI_Comm_dup(all.comm, dup);
  MPI_Comm_set_attr(all.comm, dup_keyval(), dup);
  return *dup;
}

// ---------------------------------------------------------------------------------------------
// Which calls redist served (REDIST_SCALAPACK_LOG=file: one line per call, appended).

void log_call(const char* routine, bool by_redist, const std::string& why = {}) {
  // Served calls are "redist" (a cached plan) or "redist: new plan"; declined ones say why.
  static const char* path = std::getenv("REDIST_SCALAPACK_LOG");
  if (path == nullptr || *path == '\0') return;
  if (std::FILE* f = std::fopen(path, "a")) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::fprintf(f, "%d %s %s%s%s\n", rank, routine, by_redist ? "redist" : "scalapack", why.empty() ? "" : ": ",
                 why.c_str());
    std::fclose(f);
  }
}

/// True when REDIST_SCALAPACK_DECLINE names routine `name` (a comma-separated list of names as
/// the log writes them, e.g. "pdtrmr2d_,Cpdgemr2d", or "all"): such calls go to ScaLAPACK's own
/// routine. The variable must be the same on every process (mpirun -x).
bool declined_by_choice(const char* name) {
  static const std::string list = [] {
    const char* v = std::getenv("REDIST_SCALAPACK_DECLINE");
    return v == nullptr ? std::string() : "," + std::string(v) + ",";
  }();
  return !list.empty() && (list == ",all," || list.find("," + std::string(name) + ",") != std::string::npos);
}

/// True while ScaLAPACK's own routine runs for a call redist declined: ScaLAPACK's Fortran
/// routines call its C ones (pdgemr2d_ calls Cpdgemr2d), which then go straight to ScaLAPACK too.
thread_local bool in_scalapack = false;

/// ScaLAPACK's own routine `name`: the next definition after this library's.
template <class F>
F* next_routine(const char* name) {
  void* f = dlsym(RTLD_NEXT, name);
  if (f == nullptr) {
    std::fprintf(stderr, "libredist-scalapack: %s: redist cannot serve this call and ScaLAPACK's %s is not linked\n",
                 name, name);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return reinterpret_cast<F*>(f);
}

/// Runs f, which must not throw across the C boundary: an exception other than redist::error
/// (which the callers turn into a declined call) is a failure of this process, reported and
/// ended with MPI_Abort, as ScaLAPACK ends on its own errors.
template <class F>
void at_c_boundary(const char* name, F&& f) noexcept {
  try {
    f();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "libredist-scalapack: %s: %s\n", name, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

/// ScaLAPACK's routine serves the call (logged, unless it is ScaLAPACK's own inner call).
void decline(const char* name, const std::string& why, auto&& fallback) {
  if (in_scalapack) {
    fallback();
    return;
  }
  log_call(name, false, why);
  in_scalapack = true;
  try {
    fallback();
  } catch (...) {
    in_scalapack = false;
    throw;
  }
  in_scalapack = false;
}

// ---------------------------------------------------------------------------------------------
// P?GEMR2D and P?TRMR2D.

/// The elements of this process's part of B's m x n window at (ib, jb) (1-based) that P?TRMR2D
/// leaves alone: outside the trapezoid uplo/diag of the window. f(local offset) for each, in
/// local order. Rows and columns are CYCLIC(MB) and CYCLIC(NB) from RSRC and CSRC (Cyclic's own
/// mapping, at the grid coordinate relative to the source); the window's rows are found once.
template <class F>
void outside_trapezoid(char uplo, char diag, int m, int n, int ib, int jb, const Descriptor& d, const InContext& c,
                       F&& f) {
  const bool upper = uplo == 'U' || uplo == 'u', unit = diag == 'U' || diag == 'u';
  const redist::Cyclic<>::mapping rows(redist::Cyclic<>{d.mb}, d.m, c.nprow), cols(redist::Cyclic<>{d.nb}, d.n, c.npcol);
  const int prow = (c.myrow - d.rsrc + c.nprow) % c.nprow, pcol = (c.mycol - d.csrc + c.npcol) % c.npcol;
  static thread_local std::vector<std::pair<index_t, index_t>> window_rows;  // (local row, row in the window)
  window_rows.clear();
  for (index_t li = 0; li < rows.local_size(prow); ++li)
    if (const index_t i = rows.global_index(prow, li) - (ib - 1); i >= 0 && i < m) window_rows.emplace_back(li, i);
  for (index_t lj = 0; lj < cols.local_size(pcol); ++lj) {
    const index_t j = cols.global_index(pcol, lj) - (jb - 1);
    if (j < 0 || j >= n) continue;
    for (const auto& [li, i] : window_rows) {
      const index_t k = upper ? j - i : i - j;  // distance into the trapezoid from its diagonal
      if (k < 0 || (unit && k == 0)) f(li + lj * static_cast<index_t>(d.lld));
    }
  }
}

/// B(ib.., jb..) = A(ia.., ja..) (m x n) by redist over ictxt's communicator; for P?TRMR2D
/// (uplo != 0) the elements of B's window outside the trapezoid keep their values. Returns false,
/// on every process of ictxt alike, when redist cannot serve the call (why says why).
template <class T>
bool redist_mr2d(char uplo, char diag, int m, int n, const T* a, int ia, int ja, const int* desca, T* b, int ib,
                 int jb, const int* descb, int ictxt, std::string& why) {
  const MPI_Comm comm = context_comm(ictxt);
  // Every process of ictxt reaches the same verdict: the layout check is the same code on every
  // process, and the rest is agreed by gemr2d's own all-gather and all-reduce.
  int usable = comm != MPI_COMM_NULL ? 1 : 0;
  if (!usable) {
    why = "the BLACS context " + std::to_string(ictxt) + " is not as redist expects";
    return false;
  }
  // P?TRMR2D: keep the elements of B's window outside the trapezoid. Only from a descriptor that
  // describes B's local matrix (gemr2d rejects the others on every rank, and then writes nothing).
  static thread_local std::vector<T> kept;
  kept.clear();
  const InContext cb = info(descb != nullptr ? descb[1] : -1);
  bool keep = false;
  if (uplo != 0 && cb.in() && m > 0 && n > 0 && b != nullptr && descb[0] == 1) {
    const Descriptor d(descb);
    keep = d.mb > 0 && d.nb > 0 && d.m >= 0 && d.n >= 0 && d.rsrc >= 0 && d.rsrc < cb.nprow && d.csrc >= 0 &&
           d.csrc < cb.npcol && d.lld >= std::max<index_t>(1, numroc(d.m, d.mb, cb.myrow, d.rsrc, cb.nprow));
    if (keep) outside_trapezoid(uplo, diag, m, n, ib, jb, d, cb, [&](index_t k) { kept.push_back(b[k]); });
  }
  try {
    redist::scalapack::gemr2d<T>(m, n, a, ia, ja, desca, b, ib, jb, descb, comm);
  } catch (const redist::error& e) {
    why = e.what();
    return false;
  }
  if (keep) {
    std::size_t at = 0;
    outside_trapezoid(uplo, diag, m, n, ib, jb, Descriptor(descb), cb, [&](index_t k) { b[k] = kept[at++]; });
  }
  return true;
}

template <class T>
using gemr2d_f = void(const int*, const int*, const T*, const int*, const int*, const int*, T*, const int*,
                      const int*, const int*, const int*);
template <class T>
using trmr2d_f = void(const char*, const char*, const int*, const int*, const T*, const int*, const int*, const int*,
                      T*, const int*, const int*, const int*, const int*);
template <class T>
using cgemr2d_f = void(int, int, T*, int, int, int*, T*, int, int, int*, int);
template <class T>
using ctrmr2d_f = void(char*, char*, int, int, T*, int, int, int*, T*, int, int, int*, int);

template <class T>
void gemr2d(const char* name, int m, int n, const T* a, int ia, int ja, const int* desca, T* b, int ib, int jb,
            const int* descb, int ictxt, auto&& fallback) {
  at_c_boundary(name, [&] {
    std::string why = "REDIST_SCALAPACK_DECLINE";
    const std::size_t plans = redist::plans_built();
    if (!in_scalapack && !declined_by_choice(name) &&
        redist_mr2d<T>(0, 0, m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt, why)) {
      log_call(name, true, redist::plans_built() != plans ? "new plan" : "");
      return;
    }
    decline(name, why, fallback);
  });
}

template <class T>
void trmr2d(const char* name, char uplo, char diag, int m, int n, const T* a, int ia, int ja, const int* desca, T* b,
            int ib, int jb, const int* descb, int ictxt, auto&& fallback) {
  at_c_boundary(name, [&] {
    std::string why;
    const bool upper = uplo == 'U' || uplo == 'u', lower = uplo == 'L' || uplo == 'l';
    const bool unit = diag == 'U' || diag == 'u', nonunit = diag == 'N' || diag == 'n';
    if (declined_by_choice(name)) why = "REDIST_SCALAPACK_DECLINE";
    else if (!((upper || lower) && (unit || nonunit))) why = "uplo or diag is not one of ScaLAPACK's";
    const std::size_t plans = redist::plans_built();
    if (!in_scalapack && why.empty() &&
        redist_mr2d<T>(upper ? 'U' : 'L', unit ? 'U' : 'N', m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt, why)) {
      log_call(name, true, redist::plans_built() != plans ? "new plan" : "");
      return;
    }
    decline(name, why, fallback);
  });
}

// ---------------------------------------------------------------------------------------------
// P?TRAN, P?TRANU, P?TRANC: sub(C) := beta * sub(C) + alpha * op(sub(A)), A and C in one context.

/// The views of one P?TRAN call's A and C, kept for the next call with the same arguments and
/// the same local arrays: the plan of the update is cached in C's view, so a repeated call plans
/// nothing. Four per routine, most recent first.
template <class T>
struct TranViews {
  using View = redist::DistView<T, redist::Dist<redist::Cyclic<>, redist::Cyclic<>>>;
  std::array<int, 24> key{};  // m, n, ia, ja, ic, jc, desca, descc
  const T* a = nullptr;
  T* c = nullptr;
  MPI_Comm comm = MPI_COMM_NULL;
  redist::DistView<const T, redist::Dist<redist::Cyclic<>, redist::Cyclic<>>> va;
  View vc;
};
inline constexpr std::size_t tran_cache_capacity = 4;

template <class T, bool Conj>
bool redist_tran(int m, int n, T alpha, const T* a, int ia, int ja, const int* desca, T beta, T* c, int ic, int jc,
                 const int* descc, std::string& why) {
  const int ctxt = desca != nullptr ? desca[1] : -1;
  const InContext in = info(ctxt);
  if (!in.in()) {  // PBLAS: a process outside the context does nothing
    why = "not in the context";
    return false;
  }
  const MPI_Comm comm = context_comm(ctxt);
  if (comm == MPI_COMM_NULL) {
    why = "the BLACS context " + std::to_string(ctxt) + " is not as redist expects";
    return false;
  }
  // Checks a process makes alone (ScaLAPACK requires the same values on every process), agreed
  // (detail::agree, one all-reduce) so that every process of the context declines alike.
  const Descriptor da = desca[0] == 1 ? Descriptor(desca) : Descriptor{};
  const Descriptor dc = descc != nullptr && descc[0] == 1 ? Descriptor(descc) : Descriptor{};
  std::optional<std::string> local;
  if (desca[0] != 1 || dc.ctxt != ctxt) local = "desca and descc must be dense descriptors of one context";
  else if (m < 0 || n < 0 || ia < 1 || ja < 1 || ic < 1 || jc < 1 || ia - 1 + n > da.m || ja - 1 + m > da.n ||
           ic - 1 + m > dc.m || jc - 1 + n > dc.n)
    local = "the windows must fit their matrices";
  // The views of an earlier call with these arguments and arrays, if every process has them.
  thread_local std::vector<std::unique_ptr<TranViews<T>>> cache;  // each thread's, as gemr2d's plans
  std::array<int, 24> key{m, n, ia, ja, ic, jc};
  if (!local) {
    std::copy(desca, desca + 9, key.begin() + 6);
    std::copy(descc, descc + 9, key.begin() + 15);
  }
  auto hit = std::find_if(cache.begin(), cache.end(), [&](const auto& e) {
    return !local && e->key == key && e->a == a && e->c == c && e->comm == comm;
  });
  try {
    const boost::mpi::communicator world(comm, boost::mpi::comm_attach);
    redist::detail::agree(world, "p?tran", {}, local);
    if (m == 0 || n == 0) return true;
    int all_hit = hit != cache.end() ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &all_hit, 1, MPI_INT, MPI_MIN, comm);
    if (!all_hit) {
      if (hit != cache.end()) cache.erase(hit);
      // The context's communicator numbers its processes row-major on its grid.
      const BlacsGrid g{in.nprow, in.npcol, redist::Order::row_major, 0};
      auto e = std::unique_ptr<TranViews<T>>(new TranViews<T>{key, a, c, comm, make_dist_view<const T>(a, comm, da, g),
                                                              make_dist_view<T>(c, comm, dc, g)});
      if (cache.size() == tran_cache_capacity) cache.pop_back();
      cache.insert(cache.begin(), std::move(e));
      hit = cache.begin();
    } else {
      std::rotate(cache.begin(), hit, hit + 1);  // most recent first
      hit = cache.begin();
    }
    auto sa = redist::section((*hit)->va, std::pair{ia - 1, ia - 1 + n}, std::pair{ja - 1, ja - 1 + m});
    auto sc = redist::section((*hit)->vc, std::pair{ic - 1, ic - 1 + m}, std::pair{jc - 1, jc - 1 + n});
    if constexpr (Conj) sc = alpha * redist::conj_transpose(sa) + beta * sc;
    else sc = alpha * redist::transpose(sa) + beta * sc;
  } catch (const redist::error& e) {
    why = e.what();
    return false;
  }
  return true;
}

template <class T, bool Conj>
void tran(const char* name, int m, int n, T alpha, const T* a, int ia, int ja, const int* desca, T beta, T* c, int ic,
          int jc, const int* descc, auto&& fallback) {
  at_c_boundary(name, [&] {
    std::string why = "REDIST_SCALAPACK_DECLINE";
    const std::size_t plans = redist::plans_built();
    if (!in_scalapack && !declined_by_choice(name) &&
        redist_tran<T, Conj>(m, n, alpha, a, ia, ja, desca, beta, c, ic, jc, descc, why)) {
      log_call(name, true, redist::plans_built() != plans ? "new plan" : "");
      return;
    }
    decline(name, why, fallback);
  });
}

template <class T>
using tran_f = void(const int*, const int*, const T*, const T*, const int*, const int*, const int*, const T*, T*,
                    const int*, const int*, const int*);

}  // namespace

// ---------------------------------------------------------------------------------------------
// The exported routines: Fortran names (arguments by reference) and ScaLAPACK's C names.

#define REDIST_MR2D(p, T)                                                                                               \
  REDIST_EXPORT void p##gemr2d_(const int* m, const int* n, const T* a, const int* ia, const int* ja,                   \
                                const int* desca, T* b, const int* ib, const int* jb, const int* descb,                 \
                                const int* ictxt) {                                                                     \
    gemr2d<T>(#p "gemr2d_", *m, *n, a, *ia, *ja, desca, b, *ib, *jb, descb, *ictxt, [&] {                               \
      next_routine<gemr2d_f<T>>(#p "gemr2d_")(m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt);                         \
    });                                                                                                                 \
  }                                                                                                                     \
  REDIST_EXPORT void p##trmr2d_(const char* uplo, const char* diag, const int* m, const int* n, const T* a,             \
                                const int* ia, const int* ja, const int* desca, T* b, const int* ib, const int* jb,     \
                                const int* descb, const int* ictxt) {                                                   \
    trmr2d<T>(#p "trmr2d_", *uplo, *diag, *m, *n, a, *ia, *ja, desca, b, *ib, *jb, descb, *ictxt, [&] {                 \
      next_routine<trmr2d_f<T>>(#p "trmr2d_")(uplo, diag, m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt);             \
    });                                                                                                                 \
  }                                                                                                                     \
  REDIST_EXPORT void C##p##gemr2d(int m, int n, T* a, int ia, int ja, int* desca, T* b, int ib, int jb, int* descb,     \
                                  int gcontext) {                                                                       \
    gemr2d<T>("C" #p "gemr2d", m, n, a, ia, ja, desca, b, ib, jb, descb, gcontext, [&] {                                \
      next_routine<cgemr2d_f<T>>("C" #p "gemr2d")(m, n, a, ia, ja, desca, b, ib, jb, descb, gcontext);                  \
    });                                                                                                                 \
  }                                                                                                                     \
  REDIST_EXPORT void C##p##trmr2d(char* uplo, char* diag, int m, int n, T* a, int ia, int ja, int* desca, T* b,         \
                                  int ib, int jb, int* descb, int gcontext) {                                           \
    trmr2d<T>("C" #p "trmr2d", *uplo, *diag, m, n, a, ia, ja, desca, b, ib, jb, descb, gcontext, [&] {                  \
      next_routine<ctrmr2d_f<T>>("C" #p "trmr2d")(uplo, diag, m, n, a, ia, ja, desca, b, ib, jb, descb, gcontext);      \
    });                                                                                                                 \
  }

REDIST_MR2D(ps, float)
REDIST_MR2D(pd, double)
REDIST_MR2D(pc, std::complex<float>)
REDIST_MR2D(pz, std::complex<double>)
REDIST_MR2D(pi, int)

#define REDIST_TRAN(name, T, Conj)                                                                                      \
  REDIST_EXPORT void name##_(const int* m, const int* n, const T* alpha, const T* a, const int* ia, const int* ja,     \
                             const int* desca, const T* beta, T* c, const int* ic, const int* jc, const int* descc) {   \
    tran<T, Conj>(#name "_", *m, *n, *alpha, a, *ia, *ja, desca, *beta, c, *ic, *jc, descc, [&] {                       \
      next_routine<tran_f<T>>(#name "_")(m, n, alpha, a, ia, ja, desca, beta, c, ic, jc, descc);                        \
    });                                                                                                                 \
  }

REDIST_TRAN(pstran, float, false)
REDIST_TRAN(pdtran, double, false)
REDIST_TRAN(pctranu, std::complex<float>, false)
REDIST_TRAN(pztranu, std::complex<double>, false)
REDIST_TRAN(pctranc, std::complex<float>, true)
REDIST_TRAN(pztranc, std::complex<double>, true)
