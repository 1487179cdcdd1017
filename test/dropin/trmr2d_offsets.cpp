// PDTRMR2D's documented semantics (ScaLAPACK's header of PDTRMR2D): B(IB+i, JB+j) = A(IA+i, JA+j)
// for the elements of the m x n trapezoid of the window (upper: i <= j, lower: i >= j; 0-based
// within the window; a unit diagonal not referenced), every other element of B unchanged (the
// padding of its local matrix too). This program calls `pdtrmr2d_` as linked on fixed and random
// cases (windows at different offsets, m != n, block shapes, B on another BLACS grid) and prints,
// per case, the elements of B outside the trapezoid it changed and the trapezoid elements that do
// not hold A's value. Built twice (test/dropin/meson.build): against ScaLAPACK alone, and with
// libredist-scalapack first; trmr2d_compare.sh runs both and shows them side by side.
#include <mpi.h>

#include <cstdio>
#include <vector>

extern "C" {
void Cblacs_get(int context, int what, int* value);
void Cblacs_gridinit(int* context, const char* order, int rows, int cols);
void Cblacs_gridinfo(int context, int* rows, int* cols, int* row, int* col);
void Cblacs_gridexit(int context);
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrcproc, const int* nprocs);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb, const int* irsrc, const int* icsrc,
               const int* ictxt, const int* lld, int* info);
void pdtrmr2d_(const char* uplo, const char* diag, const int* m, const int* n, const double* a, const int* ia,
               const int* ja, const int* desca, double* b, const int* ib, const int* jb, const int* descb,
               const int* ictxt);
}

namespace {
struct Matrix {
  int rows, cols, mb, nb, lld = 1;
  int desc[9]{};
  std::vector<double> local;
  int my_row = 0, my_col = 0, prow = 1, pcol = 1;
  Matrix(int ctxt, int m, int n, int rb, int block) : rows{m}, cols{n}, mb{rb}, nb{block} {
    Cblacs_gridinfo(ctxt, &prow, &pcol, &my_row, &my_col);
    const int zero = 0;
    const int lr = numroc_(&rows, &mb, &my_row, &zero, &prow), lc = numroc_(&cols, &nb, &my_col, &zero, &pcol);
    lld = (lr > 1 ? lr : 1) + 3;
    int info = 0;
    descinit_(desc, &rows, &cols, &mb, &nb, &zero, &zero, &ctxt, &lld, &info);
    local.assign(static_cast<std::size_t>(lld) * static_cast<std::size_t>(lc > 0 ? lc : 1), -1.0);
  }
  // f(global i, global j, element) for every local element (0-based global indices).
  template <class F>
  void each(F&& f) {
    const int zero = 0;
    const int lr = numroc_(&rows, &mb, &my_row, &zero, &prow), lc = numroc_(&cols, &nb, &my_col, &zero, &pcol);
    for (int lj = 0; lj < lc; ++lj)
      for (int li = 0; li < lr; ++li) {
        const int gi = (li / mb * prow + my_row) * mb + li % mb, gj = (lj / nb * pcol + my_col) * nb + lj % nb;
        f(gi, gj, local[static_cast<std::size_t>(li + lj * lld)]);
      }
  }
};

struct Outcome {
  long outside = 0;  // elements of B outside the trapezoid that changed
  long wrong = 0;    // elements of the trapezoid that do not hold A's value
};

// One call of pdtrmr2d_ on a fresh B (A with am x an blocks on ctxt, B with bm x bn blocks on
// ctxt2): what differs from the documented result, summed over the ranks.
Outcome run(int ctxt, int ctxt2, int am, int an, int bm, int bn, char uplo, char diag, int m, int n, int ia, int ja,
            int ib, int jb) {
  Matrix a(ctxt, 12, 12, am, an), b(ctxt2, 12, 12, bm, bn);
  auto value = [](int i, int j) { return 1.0 + i + 100.0 * j; };
  a.each([&](int i, int j, double& x) { x = value(i, j); });
  b.each([](int, int, double& x) { x = -1.0; });
  pdtrmr2d_(&uplo, &diag, &m, &n, a.local.data(), &ia, &ja, a.desc, b.local.data(), &ib, &jb, b.desc, &ctxt);
  Outcome o;
  b.each([&](int i, int j, double x) {
    const int wi = i - (ib - 1), wj = j - (jb - 1);  // 0-based within B's window
    const bool in_window = wi >= 0 && wi < m && wj >= 0 && wj < n;
    const bool in_trapezoid = in_window && (uplo == 'U' ? wi <= wj : wi >= wj);
    // A unit diagonal is not referenced: those elements keep B's values (ScaLAPACK's header).
    const bool unit_diagonal = diag == 'U' && wi == wj;
    if (in_trapezoid && !unit_diagonal) {
      if (x != value(ia - 1 + wi, ja - 1 + wj)) ++o.wrong;
    } else if (x != -1.0) {
      ++o.outside;
    }
  });
  {
    const int zero = 0;
    const int lr = numroc_(&b.rows, &b.mb, &b.my_row, &zero, &b.prow);
    for (std::size_t k = 0; k < b.local.size(); ++k)
      if (static_cast<int>(k % static_cast<std::size_t>(b.lld)) >= lr && b.local[k] != -1.0) ++o.outside;
  }
  long sums[2] = {o.outside, o.wrong}, all[2] = {0, 0};
  MPI_Allreduce(sums, all, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  return {all[0], all[1]};
}
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int ctxt = 0, ctxt2 = 0;
  Cblacs_get(0, 0, &ctxt);
  const int prow = size % 2 == 0 ? 2 : 1;
  Cblacs_gridinit(&ctxt, "Row", prow, size / prow);
  Cblacs_get(0, 0, &ctxt2);
  Cblacs_gridinit(&ctxt2, "Col", size, 1);
  struct Case {
    char uplo, diag;
    int m, n, ia, ja, ib, jb, am, an, bm, bn, other_grid;
  };
  // Fixed cases (the same windows, offsets, m != n), then random ones (fixed seed).
  std::vector<Case> cases{{'U', 'N', 6, 8, 1, 1, 1, 1, 2, 2, 3, 3, 0}, {'U', 'N', 6, 8, 1, 1, 4, 2, 2, 2, 3, 3, 0},
                          {'L', 'N', 8, 5, 2, 3, 1, 1, 2, 2, 3, 3, 0}, {'U', 'N', 8, 2, 3, 7, 2, 8, 1, 1, 1, 1, 0},
                          {'L', 'N', 5, 8, 6, 4, 7, 2, 2, 2, 4, 3, 0}, {'L', 'U', 7, 7, 3, 1, 2, 4, 2, 3, 1, 2, 1}};
  unsigned seed = 7;
  auto rnd = [&](int k) {
    seed = seed * 1103515245u + 12345u;
    return static_cast<int>((seed >> 16) % static_cast<unsigned>(k));
  };
  for (int t = 0; t < 42; ++t) {
    Case c{rnd(2) ? 'U' : 'L', rnd(2) ? 'U' : 'N', 1 + rnd(8), 1 + rnd(8), 1, 1, 1, 1, 1 + rnd(4), 1 + rnd(4), 1 + rnd(4),
           1 + rnd(4), rnd(2)};
    c.ia = 1 + rnd(12 - c.m + 1);
    c.ja = 1 + rnd(12 - c.n + 1);
    c.ib = 1 + rnd(12 - c.m + 1);
    c.jb = 1 + rnd(12 - c.n + 1);
    cases.push_back(c);
  }
  for (const Case& c : cases) {
    const Outcome o = run(ctxt, c.other_grid ? ctxt2 : ctxt, c.am, c.an, c.bm, c.bn, c.uplo, c.diag, c.m, c.n, c.ia, c.ja,
                          c.ib, c.jb);
    if (rank == 0)
      std::printf("%c %c m=%d n=%d A(%d,%d) %dx%d B(%d,%d) %dx%d%s: %ld outside, %ld wrong\n", c.uplo, c.diag, c.m, c.n,
                  c.ia, c.ja, c.am, c.an, c.ib, c.jb, c.bm, c.bn, c.other_grid ? " other grid" : "", o.outside, o.wrong);
  }
  Cblacs_gridexit(ctxt);
  Cblacs_gridexit(ctxt2);
  MPI_Finalize();
  return 0;
}
