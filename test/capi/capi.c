/* The C interface (redist/c.h) from C, at any number of processes: a 1-D GEN_BLOCK -> CYCLIC(4)
 * case, a 2-D case from (BLOCK, COLLAPSED) rows with a padded leading dimension to a ScaLAPACK
 * descriptor's layout, a grid placed by a rank map, CYCLIC(4) -> REPLICATED and back into BLOCK, partial sums
 * (REDIST_PARTIAL_SUM, plans of a given element type: doubles, int64 and complex) into BLOCK, REPLICATED and
 * back into partial sums, elements of 12 and 3 bytes (1-D and 2-D), scaled and transposed updates (doubles,
 * complex), layouts of 5 and 6 dimensions, and errors: each is checked element by
 * element against local -> global index formulas written here, independent of redist. Exits non-zero on any failure. */
#include <redist/c.h>

#include <complex.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;
static int rank = 0, nprocs = 1;

#define CHECK(cond, ...)                                   \
  do {                                                     \
    if (!(cond)) {                                         \
      fprintf(stderr, "rank %d: FAIL %s: ", rank, #cond);  \
      fprintf(stderr, __VA_ARGS__);                        \
      fprintf(stderr, "\n");                               \
      ++failures;                                          \
    }                                                      \
  } while (0)

#define OK(call) CHECK((call) == REDIST_SUCCESS, "%s", redist_error_message())

/* Global index of local element l of process p: CYCLIC(k) from process src of P. */
static int64_t cyclic_global(int64_t l, int64_t k, int p, int src, int P) {
  return ((l / k) * P + (p - src + P) % P) * k + l % k;
}

/* An element of 12 bytes (not a power of two): g, -g and 7 g + 1 of a value g. */
typedef struct {
  int32_t v[3];
} rec12;
static rec12 make_rec12(int64_t g) {
  rec12 r = {{(int32_t)g, (int32_t)-g, (int32_t)(7 * g + 1)}};
  return r;
}
static int is_rec12(rec12 r, int64_t g) { return r.v[0] == (int32_t)g && r.v[1] == (int32_t)-g && r.v[2] == (int32_t)(7 * g + 1); }

static void one_d(void) {
  /* GEN_BLOCK: process p holds 3 + 5p elements, process 1 none. */
  int64_t* sizes = malloc(sizeof(int64_t) * (size_t)nprocs);
  int64_t n = 0, first = 0;
  for (int p = 0; p < nprocs; ++p) {
    sizes[p] = p == 1 ? 0 : 3 + 5 * p;
    if (p < rank) first += sizes[p];
    n += sizes[p];
  }
  redist_dim gen = {REDIST_GEN_BLOCK, n, 0, sizes, nprocs, 0};
  redist_dim cyc = {REDIST_CYCLIC, n, 4, NULL, nprocs, 0};
  redist_layout from = NULL, to = NULL;
  OK(redist_layout_create(1, &gen, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, 0, &from));
  OK(redist_layout_create(1, &cyc, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, 0, &to));
  free(sizes); /* the layout keeps its own copy */
  int64_t ns = -1, nd = -1;
  OK(redist_layout_local_size(from, MPI_COMM_WORLD, &ns));
  OK(redist_layout_local_size(to, MPI_COMM_WORLD, &nd));
  CHECK(ns == (rank == 1 ? 0 : 3 + 5 * rank), "GEN_BLOCK local size %lld", (long long)ns);
  double* a = malloc(sizeof(double) * (size_t)(ns + 1));
  double* b = malloc(sizeof(double) * (size_t)(nd + 1));
  for (int64_t l = 0; l < ns; ++l) a[l] = (double)(first + l);
  redist_plan plan = NULL;
  OK(redist_plan_create(from, to, MPI_COMM_WORLD, sizeof(double), &plan));
  for (int rep = 0; rep < 2; ++rep) {
    for (int64_t l = 0; l < nd; ++l) b[l] = -1;
    OK(redist_plan_execute(plan, a, b));
    for (int64_t l = 0; l < nd; ++l)
      CHECK(b[l] == (double)cyclic_global(l, 4, rank, 0, nprocs), "1-D b[%lld] = %g", (long long)l, b[l]);
  }
  OK(redist_plan_free(&plan));
  CHECK(plan == NULL, "plan_free sets NULL");
  /* Elements of 12 bytes and of 3 (units of 4 and of 1). */
  rec12* ar = malloc(sizeof(rec12) * (size_t)(ns + 1));
  rec12* br = malloc(sizeof(rec12) * (size_t)(nd + 1));
  for (int64_t l = 0; l < ns; ++l) ar[l] = make_rec12(first + l);
  for (int64_t l = 0; l < nd; ++l) br[l] = make_rec12(-1);
  OK(redist_plan_create(from, to, MPI_COMM_WORLD, sizeof(rec12), &plan));
  OK(redist_plan_execute(plan, ar, br));
  for (int64_t l = 0; l < nd; ++l)
    CHECK(is_rec12(br[l], cyclic_global(l, 4, rank, 0, nprocs)), "12-byte 1-D b[%lld] = (%d, %d, %d)", (long long)l, br[l].v[0],
          br[l].v[1], br[l].v[2]);
  OK(redist_plan_free(&plan));
  char* a3 = malloc(3 * (size_t)(ns + 1));
  char* b3 = malloc(3 * (size_t)(nd + 1));
  for (int64_t l = 0; l < ns; ++l) snprintf(a3 + 3 * l, 4, "%03d", (int)((first + l) % 1000));
  memset(b3, '?', 3 * (size_t)(nd + 1));
  OK(redist_plan_create(from, to, MPI_COMM_WORLD, 3, &plan));
  OK(redist_plan_execute(plan, a3, b3));
  for (int64_t l = 0; l < nd; ++l) {
    char want[8];
    snprintf(want, sizeof want, "%03d", (int)(cyclic_global(l, 4, rank, 0, nprocs) % 1000));
    CHECK(memcmp(b3 + 3 * l, want, 3) == 0, "3-byte 1-D b[%lld] = %.3s, not %s", (long long)l, b3 + 3 * l, want);
  }
  CHECK(b3[3 * nd] == '?', "3-byte 1-D wrote past its %lld elements", (long long)nd);
  OK(redist_plan_free(&plan));
  free(ar);
  free(br);
  free(a3);
  free(b3);
  OK(redist_layout_free(&from));
  OK(redist_layout_free(&to));
  free(a);
  free(b);
}

static void replicated(void) {
  /* CYCLIC(4) -> REPLICATED: every rank receives all n elements; and back into BLOCK out of the
   * copies, where each rank reads its own copy. */
  const int64_t n = 53;
  redist_dim cyc = {REDIST_CYCLIC, n, 4, NULL, nprocs, 0};
  redist_dim rep = {REDIST_REPLICATED, n, 0, NULL, nprocs, 0};
  redist_dim blk = {REDIST_BLOCK, n, 0, NULL, nprocs, 0};
  redist_layout lc = NULL, lr = NULL, lb = NULL;
  OK(redist_layout_create(1, &cyc, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, 0, &lc));
  OK(redist_layout_create(1, &rep, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, 0, &lr));
  OK(redist_layout_create(1, &blk, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, 0, &lb));
  int64_t nc = -1, nr = -1, nb = -1;
  OK(redist_layout_local_size(lc, MPI_COMM_WORLD, &nc));
  OK(redist_layout_local_size(lr, MPI_COMM_WORLD, &nr));
  OK(redist_layout_local_size(lb, MPI_COMM_WORLD, &nb));
  CHECK(nr == n, "REPLICATED local size %lld", (long long)nr);
  double* a = malloc(sizeof(double) * (size_t)(nc + 1));
  double* all = malloc(sizeof(double) * (size_t)(nr + 1));
  double* b = malloc(sizeof(double) * (size_t)(nb + 1));
  for (int64_t l = 0; l < nc; ++l) a[l] = (double)cyclic_global(l, 4, rank, 0, nprocs);
  for (int64_t l = 0; l < nr; ++l) all[l] = -1;
  redist_plan to_all = NULL, to_block = NULL;
  OK(redist_plan_create(lc, lr, MPI_COMM_WORLD, sizeof(double), &to_all));
  OK(redist_plan_execute(to_all, a, all));
  for (int64_t l = 0; l < nr; ++l) CHECK(all[l] == (double)l, "replicated all[%lld] = %g", (long long)l, all[l]);
  OK(redist_plan_create(lr, lb, MPI_COMM_WORLD, sizeof(double), &to_block));
  OK(redist_plan_execute(to_block, all, b));
  const int64_t per = (n + nprocs - 1) / nprocs;
  for (int64_t l = 0; l < nb; ++l) CHECK(b[l] == (double)(rank * per + l), "from copies b[%lld] = %g", (long long)l, b[l]);
  OK(redist_plan_free(&to_all));
  OK(redist_plan_free(&to_block));
  OK(redist_layout_free(&lc));
  OK(redist_layout_free(&lr));
  OK(redist_layout_free(&lb));
  free(a);
  free(all);
  free(b);
}

static void partial_sums(void) {
  /* 1-D: rank r holds the partial value 1000 g + r of every element g; their sum, 1000 g P +
   * P (P - 1) / 2, folds into BLOCK (doubles) and REPLICATED (int64). */
  const int64_t n = 41;
  redist_dim part = {REDIST_PARTIAL_SUM, n, 0, NULL, nprocs, 0};
  redist_dim rep = {REDIST_REPLICATED, n, 0, NULL, nprocs, 0};
  redist_dim blk = {REDIST_BLOCK, n, 0, NULL, nprocs, 0};
  redist_layout lp = NULL, lr = NULL, lb = NULL;
  OK(redist_layout_create(1, &part, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, 0, &lp));
  OK(redist_layout_create(1, &rep, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, 0, &lr));
  OK(redist_layout_create(1, &blk, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, 0, &lb));
  int64_t np = -1, nb = -1;
  OK(redist_layout_local_size(lp, MPI_COMM_WORLD, &np));
  OK(redist_layout_local_size(lb, MPI_COMM_WORLD, &nb));
  CHECK(np == n, "PARTIAL_SUM local size %lld", (long long)np);
  double* a = malloc(sizeof(double) * (size_t)(np + 1));
  double* b = malloc(sizeof(double) * (size_t)(nb + 1));
  int64_t* ai = malloc(sizeof(int64_t) * (size_t)(np + 1));
  int64_t* all = malloc(sizeof(int64_t) * (size_t)(n + 1));
  for (int64_t g = 0; g < n; ++g) {
    a[g] = (double)(1000 * g + rank);
    ai[g] = 1000 * g + rank;
  }
  const int64_t P = nprocs, per = (n + nprocs - 1) / nprocs;
  redist_plan to_block = NULL, to_all = NULL, back = NULL;
  OK(redist_plan_create_typed(lp, lb, MPI_COMM_WORLD, REDIST_DOUBLE, &to_block));
  OK(redist_plan_create_typed(lp, lr, MPI_COMM_WORLD, REDIST_INT64, &to_all));
  for (int run = 0; run < 3; ++run) { /* the second run times the messages against the reductions */
    for (int64_t l = 0; l < nb; ++l) b[l] = -1;
    for (int64_t g = 0; g < n; ++g) all[g] = -1;
    OK(redist_plan_execute(to_block, a, b));
    OK(redist_plan_execute(to_all, ai, all));
    for (int64_t l = 0; l < nb; ++l) {
      const int64_t g = rank * per + l;
      CHECK(b[l] == (double)(1000 * g * P + P * (P - 1) / 2), "partial sums into BLOCK, run %d: b[%lld] = %g", run, (long long)l, b[l]);
    }
    for (int64_t g = 0; g < n; ++g)
      CHECK(all[g] == 1000 * g * P + P * (P - 1) / 2, "partial sums into REPLICATED, run %d: all[%lld] = %lld", run, (long long)g,
            (long long)all[g]);
  }
  /* Into partial sums (any element type: the others get zero bytes): rank 0 holds the elements. */
  OK(redist_plan_create(lb, lp, MPI_COMM_WORLD, sizeof(double), &back));
  for (int64_t g = 0; g < n; ++g) a[g] = 5;
  OK(redist_plan_execute(back, b, a));
  for (int64_t g = 0; g < n; ++g)
    CHECK(a[g] == (rank == 0 ? (double)(1000 * g * P + P * (P - 1) / 2) : 0.0), "into PARTIAL_SUM: a[%lld] = %g", (long long)g, a[g]);
  /* A source of partial sums needs the element type; an unknown one is refused. */
  redist_plan bad = NULL;
  CHECK(redist_plan_create(lp, lb, MPI_COMM_WORLD, sizeof(double), &bad) == REDIST_ERROR, "partial sums by bytes");
  CHECK(strstr(redist_error_message(), "redist_plan_create_typed") != NULL, "message: %s", redist_error_message());
  CHECK(redist_plan_create_typed(lp, lb, MPI_COMM_WORLD, 42, &bad) == REDIST_ERROR, "element_type 42");
  CHECK(strstr(redist_error_message(), "element_type must be") != NULL, "message: %s", redist_error_message());
  CHECK(bad == NULL, "no plan on error");
  OK(redist_plan_free(&to_block));
  OK(redist_plan_free(&to_all));
  OK(redist_plan_free(&back));
  free(a);
  free(b);
  free(ai);
  free(all);

  /* 2-D complex: (BLOCK, PARTIAL_SUM) on an r x c grid (c = 2 on an even number of processes),
   * grid column q holding (i + 100 j) + q i of element (i, j), into (BLOCK, BLOCK) on the same
   * grid, column-major: c (i + 100 j) + c (c - 1) / 2 i. */
  const int c = nprocs % 2 == 0 ? 2 : 1, r = nprocs / c;
  const int64_t m = 13, k = 7;
  redist_dim pd[2] = {{REDIST_BLOCK, m, 0, NULL, r, 0}, {REDIST_PARTIAL_SUM, k, 0, NULL, c, 0}};
  redist_dim bd[2] = {{REDIST_BLOCK, m, 0, NULL, r, 0}, {REDIST_BLOCK, k, 0, NULL, c, 0}};
  redist_layout lpd = NULL, lbd = NULL;
  OK(redist_layout_create(2, pd, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, 0, &lpd));
  OK(redist_layout_create(2, bd, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, 0, &lbd));
  int64_t pe[2], be[2];
  OK(redist_layout_local_shape(lpd, MPI_COMM_WORLD, pe, NULL));
  OK(redist_layout_local_shape(lbd, MPI_COMM_WORLD, be, NULL));
  const int row = rank / c, col = rank % c;
  const int64_t mper = (m + r - 1) / r, kper = (k + c - 1) / c;
  double _Complex* x = malloc(sizeof(double _Complex) * (size_t)(pe[0] * pe[1] + 1));
  double _Complex* y = malloc(sizeof(double _Complex) * (size_t)(be[0] * be[1] + 1));
  for (int64_t j = 0; j < pe[1]; ++j)
    for (int64_t i = 0; i < pe[0]; ++i) {
      const int64_t gi = row * mper + i, gj = j;
      x[i + j * pe[0]] = (double)(gi + 100 * gj) + (double)(col * gi) * I;
    }
  redist_plan fold = NULL;
  OK(redist_plan_create_typed(lpd, lbd, MPI_COMM_WORLD, REDIST_COMPLEX_DOUBLE, &fold));
  OK(redist_plan_execute(fold, x, y));
  for (int64_t j = 0; j < be[1]; ++j)
    for (int64_t i = 0; i < be[0]; ++i) {
      const int64_t gi = row * mper + i, gj = col * kper + j;
      const double _Complex v = y[i + j * be[0]];
      CHECK(creal(v) == (double)(c * (gi + 100 * gj)) && cimag(v) == (double)(c * (c - 1) / 2 * gi),
            "complex partial sums (%lld, %lld) = %g%+gi", (long long)gi, (long long)gj, creal(v), cimag(v));
    }
  OK(redist_plan_free(&fold));
  free(x);
  free(y);
  OK(redist_layout_free(&lpd));
  OK(redist_layout_free(&lbd));
  OK(redist_layout_free(&lp));
  OK(redist_layout_free(&lr));
  OK(redist_layout_free(&lb));
}

static void two_d(void) {
  /* m x n rows on P x 1 (BLOCK, COLLAPSED), column-major storage with leading dimension ld ->
   * a ScaLAPACK descriptor's layout: 3 x 2 blocks on a pr x pc grid, RSRC = 1 when pr > 1. */
  const int64_t m = 29, n = 13;
  const int64_t rows_per = (m + nprocs - 1) / nprocs;
  const int64_t my_rows = rank * rows_per >= m ? 0 : (m - rank * rows_per < rows_per ? m - rank * rows_per : rows_per);
  const int64_t ld = rows_per + 2;
  redist_dim rows[2] = {{REDIST_BLOCK, m, 0, NULL, nprocs, 0}, {REDIST_COLLAPSED, n, 0, NULL, 1, 0}};
  redist_layout from = NULL, to = NULL;
  OK(redist_layout_create(2, rows, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, ld, &from));
  const int pr = nprocs % 2 == 0 ? 2 : 1, pc = nprocs / pr;
  const int myrow = rank / pc, mycol = rank % pc; /* row-major grid */
  const int rsrc = pr > 1 ? 1 : 0;
  /* NUMROC by hand */
  int64_t locr = 0, locc = 0;
  for (int64_t i = 0; i < m; ++i) locr += ((i / 3) + rsrc) % pr == myrow;
  for (int64_t j = 0; j < n; ++j) locc += (j / 2) % pc == mycol;
  const int lld = (int)(locr > 0 ? locr : 1) + 1;
  const int desc[9] = {1, 0, (int)m, (int)n, 3, 2, rsrc, 0, lld};
  OK(redist_layout_from_descriptor(desc, pr, pc, REDIST_ROW_MAJOR, 0, &to));
  int64_t ns = -1, nd = -1;
  OK(redist_layout_local_size(from, MPI_COMM_WORLD, &ns));
  OK(redist_layout_local_size(to, MPI_COMM_WORLD, &nd));
  CHECK(ns == (my_rows > 0 ? ld * n : 0), "rows' local size %lld", (long long)ns);
  CHECK(nd == (locr > 0 && locc > 0 ? (int64_t)lld * locc : 0), "descriptor's local size %lld", (long long)nd);
  double* a = malloc(sizeof(double) * (size_t)(ns + 1));
  double* b = malloc(sizeof(double) * (size_t)(nd + 1));
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < my_rows; ++i) a[i + j * ld] = (double)((rank * rows_per + i) * 1000 + j);
  redist_plan plan = NULL;
  OK(redist_plan_create(from, to, MPI_COMM_WORLD, sizeof(double), &plan));
  for (int64_t k = 0; k < nd; ++k) b[k] = -1;
  OK(redist_plan_execute(plan, a, b));
  for (int64_t lj = 0; lj < locc; ++lj)
    for (int64_t li = 0; li < locr; ++li) {
      const int64_t gi = cyclic_global(li, 3, myrow, rsrc, pr), gj = cyclic_global(lj, 2, mycol, 0, pc);
      CHECK(b[li + lj * lld] == (double)(gi * 1000 + gj), "2-D b(%lld, %lld) = %g", (long long)gi, (long long)gj,
            b[li + lj * lld]);
    }
  for (int64_t lj = 0; lj < locc; ++lj) CHECK(b[locr + lj * lld] == -1, "padding written at column %lld", (long long)lj);
  OK(redist_plan_free(&plan));
  /* The same with elements of 12 bytes (moved as 3 units of 4: the leading dimensions and the
   * fastest dimension's blocks in units), the padding left alone. */
  rec12* ar = malloc(sizeof(rec12) * (size_t)(ns + 1));
  rec12* br = malloc(sizeof(rec12) * (size_t)(nd + 1));
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < my_rows; ++i) ar[i + j * ld] = make_rec12((rank * rows_per + i) * 1000 + j);
  for (int64_t k = 0; k < nd; ++k) br[k] = make_rec12(-1);
  CHECK(sizeof(rec12) == 12, "sizeof(rec12) %zu", sizeof(rec12));
  OK(redist_plan_create(from, to, MPI_COMM_WORLD, sizeof(rec12), &plan));
  OK(redist_plan_execute(plan, ar, br));
  for (int64_t lj = 0; lj < locc; ++lj)
    for (int64_t li = 0; li < locr + 1; ++li) {
      const int64_t g = li == locr ? -1 : cyclic_global(li, 3, myrow, rsrc, pr) * 1000 + cyclic_global(lj, 2, mycol, 0, pc);
      CHECK(is_rec12(br[li + lj * lld], g), "12-byte 2-D b[%lld, %lld] = (%d, %d, %d), not %lld", (long long)li, (long long)lj,
            br[li + lj * lld].v[0], br[li + lj * lld].v[1], br[li + lj * lld].v[2], (long long)g);
    }
  OK(redist_plan_free(&plan));
  OK(redist_layout_free(&from));
  OK(redist_layout_free(&to));
  free(a);
  free(b);
  free(ar);
  free(br);
}

/* CYCLIC(3) on a grid placed by a rank map (process p of the grid on rank P - 1 - p, as a
 * Cblacs_gridmap grid may be) -> CYCLIC(4) on ranks in order. */
static void mapped(void) {
  const int64_t n = 50;
  redist_dim c3 = {REDIST_CYCLIC, n, 3, NULL, nprocs, 0};
  redist_dim c4 = {REDIST_CYCLIC, n, 4, NULL, nprocs, 0};
  redist_layout from = NULL, to = NULL;
  OK(redist_layout_create(1, &c3, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, 0, &from));
  OK(redist_layout_create(1, &c4, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, 0, &to));
  int* reversed = malloc(sizeof(int) * (size_t)nprocs);
  for (int p = 0; p < nprocs; ++p) reversed[p] = nprocs - 1 - p;
  OK(redist_layout_set_ranks(from, reversed));
  free(reversed); /* the layout keeps its own copy */
  const int me = nprocs - 1 - rank; /* this rank's process of the grid */
  int64_t ns = -1, nd = -1;
  OK(redist_layout_local_size(from, MPI_COMM_WORLD, &ns));
  OK(redist_layout_local_size(to, MPI_COMM_WORLD, &nd));
  double* a = malloc(sizeof(double) * (size_t)(ns + 1));
  double* b = malloc(sizeof(double) * (size_t)(nd + 1));
  for (int64_t l = 0; l < ns; ++l) a[l] = (double)cyclic_global(l, 3, me, 0, nprocs);
  for (int64_t l = 0; l < nd; ++l) b[l] = -1;
  redist_plan plan = NULL;
  OK(redist_plan_create(from, to, MPI_COMM_WORLD, sizeof(double), &plan));
  OK(redist_plan_execute(plan, a, b));
  for (int64_t l = 0; l < nd; ++l)
    CHECK(b[l] == (double)cyclic_global(l, 4, rank, 0, nprocs), "mapped b[%lld] = %g", (long long)l, b[l]);
  OK(redist_plan_free(&plan));
  /* Bad maps: a rank twice (named at once), a rank outside the communicator (every rank fails). */
  if (nprocs >= 2) {
    int* twice = calloc((size_t)nprocs, sizeof(int));
    CHECK(redist_layout_set_ranks(from, twice) == REDIST_ERROR, "a rank twice");
    CHECK(strstr(redist_error_message(), "rank 0 appears twice") != NULL, "message: %s", redist_error_message());
    free(twice);
  }
  int* outside = malloc(sizeof(int) * (size_t)nprocs);
  for (int p = 0; p < nprocs; ++p) outside[p] = p + 1;
  OK(redist_layout_set_ranks(from, outside));
  free(outside);
  CHECK(redist_plan_create(from, to, MPI_COMM_WORLD, sizeof(double), &plan) == REDIST_ERROR, "map outside comm");
  CHECK(strstr(redist_error_message(), "fit the communicator") != NULL, "message: %s", redist_error_message());
  OK(redist_layout_free(&from));
  OK(redist_layout_free(&to));
  free(a);
  free(b);
}

/* INDIRECT layouts: a 1-D halo, rank r holding its BLOCK part [lo, hi) of n and 1 + r % 3 ghosts on
 * the left, 1 + (r + 1) % 3 on the right (inside [0, n)), listed as its block, then the left ghosts
 * from the nearest down, then the right ones; and a scattered list, rank r holding the g with
 * (7 g + 3) % P == r, from the largest down. */
static void block_range(int r, int64_t n, int64_t* lo, int64_t* hi) {
  const int64_t per = (n + nprocs - 1) / nprocs;
  *lo = r * per < n ? r * per : n;
  *hi = *lo + per < n ? *lo + per : n;
}

static int halo_holds(int r, int64_t n, int64_t g) {
  int64_t lo, hi;
  block_range(r, n, &lo, &hi);
  return g >= lo - (1 + r % 3) && g < hi + (1 + (r + 1) % 3) && g >= 0 && g < n;
}

/* Rank r's halo list (returns its length; list holds at least n values). */
static int64_t halo_list(int r, int64_t n, int64_t* list) {
  int64_t lo, hi, k = 0;
  block_range(r, n, &lo, &hi);
  for (int64_t g = lo; g < hi; ++g) list[k++] = g;
  for (int64_t g = lo - 1; g >= lo - (1 + r % 3) && g >= 0; --g) list[k++] = g;
  for (int64_t g = hi; g < hi + (1 + (r + 1) % 3) && g < n; ++g) list[k++] = g;
  return k;
}

static int halo_holders(int64_t n, int64_t g) {
  int h = 0;
  for (int r = 0; r < nprocs; ++r) h += halo_holds(r, n, g);
  return h;
}

static int halo_first(int64_t n, int64_t g) {
  for (int r = 0; r < nprocs; ++r)
    if (halo_holds(r, n, g)) return r;
  return -1;
}

static int64_t scattered_list(int r, int64_t n, int64_t* list) {
  int64_t k = 0;
  for (int64_t g = n - 1; g >= 0; --g)
    if ((7 * g + 3) % nprocs == r) list[k++] = g;
  return k;
}

static double value_of(int64_t g) { return 0.5 + 3.0 * (double)g; }

static void indirect(void) {
  const int64_t n = 7 * nprocs + 2;
  int64_t* halo = malloc(sizeof(int64_t) * (size_t)n);
  int64_t* scat = malloc(sizeof(int64_t) * (size_t)n);
  const int64_t nh = halo_list(rank, n, halo), nsc = scattered_list(rank, n, scat);
  redist_dim blk = {REDIST_BLOCK, n, 0, NULL, nprocs, 0};
  redist_dim rep = {REDIST_REPLICATED, n, 0, NULL, nprocs, 0};
  redist_dim part = {REDIST_PARTIAL_SUM, n, 0, NULL, nprocs, 0};
  redist_layout lb = NULL, lr = NULL, lp = NULL, lh = NULL, lhs = NULL, ls = NULL, lss = NULL;
  OK(redist_layout_create(1, &blk, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, 0, &lb));
  OK(redist_layout_create(1, &rep, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, 0, &lr));
  OK(redist_layout_create(1, &part, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, 0, &lp));
  OK(redist_layout_create_indirect(n, halo, nh, REDIST_INDIRECT, &lh));
  OK(redist_layout_create_indirect(n, halo, nh, REDIST_INDIRECT_SUM, &lhs));
  OK(redist_layout_create_indirect(n, scat, nsc, REDIST_INDIRECT, &ls));
  OK(redist_layout_create_indirect(n, scat, nsc, REDIST_INDIRECT_SUM, &lss));
  int64_t lo, hi;
  block_range(rank, n, &lo, &hi);
  const int64_t nb = hi - lo;

  /* The queries: its count, a contiguous 1-D part, its list (nothing written past it). */
  int64_t size = -1, ext = -1, stride = -1;
  int64_t* g = malloc(sizeof(int64_t) * (size_t)(n + 1));
  OK(redist_layout_local_size(lh, MPI_COMM_WORLD, &size));
  OK(redist_layout_local_shape(lh, MPI_COMM_WORLD, &ext, &stride));
  CHECK(size == nh && ext == nh && stride == 1, "indirect local size %lld, shape %lld, stride %lld (count %lld)", (long long)size,
        (long long)ext, (long long)stride, (long long)nh);
  for (int64_t i = 0; i <= n; ++i) g[i] = -7;
  OK(redist_layout_global_indices(lh, MPI_COMM_WORLD, 0, g));
  for (int64_t i = 0; i < nh; ++i) CHECK(g[i] == halo[i], "indirect global_indices[%lld] = %lld", (long long)i, (long long)g[i]);
  CHECK(g[nh] == -7, "indirect global_indices wrote past its count");
  CHECK(redist_layout_global_indices(lh, MPI_COMM_WORLD, 1, g) == REDIST_ERROR, "indirect dim 1");
  CHECK(strstr(redist_error_message(), "dim must be in [0, 1) (got 1)") != NULL, "message: %s", redist_error_message());

  double* a = malloc(sizeof(double) * (size_t)(n + 1));   /* BLOCK part */
  double* u = malloc(sizeof(double) * (size_t)(n + 1));   /* halo part */
  double* w = malloc(sizeof(double) * (size_t)(n + 1));   /* scattered or whole */
  int64_t* ia = malloc(sizeof(int64_t) * (size_t)(n + 1));
  int64_t* iu = malloc(sizeof(int64_t) * (size_t)(n + 1));
  for (int64_t l = 0; l < nb; ++l) a[l] = value_of(lo + l);

  /* BLOCK -> INDIRECT: every holder, ghosts too, receives its elements; twice. */
  redist_plan plan = NULL;
  OK(redist_plan_create(lb, lh, MPI_COMM_WORLD, sizeof(double), &plan));
  for (int rep_ = 0; rep_ < 2; ++rep_) {
    for (int64_t l = 0; l < nh; ++l) u[l] = -1;
    OK(redist_plan_execute(plan, a, u));
    for (int64_t l = 0; l < nh; ++l)
      CHECK(u[l] == value_of(halo[l]), "BLOCK -> INDIRECT run %d: u[%lld] (global %lld) = %g", rep_, (long long)l,
            (long long)halo[l], u[l]);
  }
  OK(redist_plan_free(&plan));

  /* The ghosts updated in place: the owned part at the head of u as the source (src = u, dst = u),
   * each owned element written onto itself, the ghosts received; twice (the second run is past the
   * first run's agreement). And back: u's sums (INDIRECT_SUM) added into the owned part at its
   * head (src = u, dst = u: PETSc's VecGhostUpdate ADD_VALUES, SCATTER_REVERSE), the ghosts left
   * as they were; three runs (the second is the one a fold's decision may time). The same with
   * the owned part one element into u is refused on its first run, on every rank, u untouched. */
  OK(redist_plan_create(lb, lh, MPI_COMM_WORLD, sizeof(double), &plan));
  for (int rep_ = 0; rep_ < 2; ++rep_) {
    for (int64_t l = 0; l < nh; ++l) u[l] = l < nb ? value_of(halo[l]) : -1;
    OK(redist_plan_execute(plan, u, u));
    for (int64_t l = 0; l < nh; ++l)
      CHECK(u[l] == value_of(halo[l]), "ghosts in place, run %d: u[%lld] (global %lld) = %g", rep_, (long long)l,
            (long long)halo[l], u[l]);
  }
  OK(redist_plan_free(&plan));
  OK(redist_plan_create_typed(lhs, lb, MPI_COMM_WORLD, REDIST_DOUBLE, &plan));
  for (int64_t l = 0; l <= nh; ++l) u[l] = 2.0 + (double)l;
  CHECK(redist_plan_execute(plan, u, u + 1) == REDIST_ERROR, "INDIRECT_SUM -> BLOCK one element into its source is refused");
  CHECK(strstr(redist_error_message(), "src and dst must not overlap") != NULL, "message: %s", redist_error_message());
  for (int64_t l = 0; l <= nh; ++l) CHECK(u[l] == 2.0 + (double)l, "refused sums: u[%lld] = %g", (long long)l, u[l]);
  for (int run = 0; run < 3; ++run) {
    for (int64_t l = 0; l < nh; ++l) u[l] = 1000.0 * (rank + 1) + (double)halo[l];
    OK(redist_plan_execute(plan, u, u));
    for (int64_t l = 0; l < nh; ++l) {
      double want = 1000.0 * (rank + 1) + (double)halo[l];
      if (l < nb) {
        want = 0;
        for (int r = 0; r < nprocs; ++r)
          if (halo_holds(r, n, halo[l])) want += 1000.0 * (r + 1) + (double)halo[l];
      }
      CHECK(u[l] == want, "sums in place, run %d: u[%lld] (global %lld) = %g, not %g", run, (long long)l, (long long)halo[l], u[l], want);
    }
  }
  OK(redist_plan_free(&plan));

  /* INDIRECT_SUM -> BLOCK: every holder holds 1 (int64), or 1000 (r + 1) + g (double): each element
   * is the number of its holders, or the sum of theirs; three runs (the second times them). */
  for (int64_t l = 0; l < nh; ++l) {
    iu[l] = 1;
    u[l] = 1000.0 * (rank + 1) + (double)halo[l];
  }
  redist_plan counts = NULL, sums = NULL;
  OK(redist_plan_create_typed(lhs, lb, MPI_COMM_WORLD, REDIST_INT64, &counts));
  OK(redist_plan_create_typed(lhs, lb, MPI_COMM_WORLD, REDIST_DOUBLE, &sums));
  for (int run = 0; run < 3; ++run) {
    for (int64_t l = 0; l < nb; ++l) {
      ia[l] = -1;
      a[l] = -1;
    }
    OK(redist_plan_execute(counts, iu, ia));
    OK(redist_plan_execute(sums, u, a));
    for (int64_t l = 0; l < nb; ++l) {
      const int64_t x = lo + l;
      double want = 0;
      for (int r = 0; r < nprocs; ++r)
        if (halo_holds(r, n, x)) want += 1000.0 * (r + 1) + (double)x;
      CHECK(ia[l] == halo_holders(n, x), "INDIRECT_SUM -> BLOCK run %d: counts[%lld] = %lld, holders %d", run, (long long)x,
            (long long)ia[l], halo_holders(n, x));
      CHECK(a[l] == want, "INDIRECT_SUM -> BLOCK run %d: sums[%lld] = %g, not %g", run, (long long)x, a[l], want);
    }
  }
  OK(redist_plan_free(&counts));
  OK(redist_plan_free(&sums));

  /* INDIRECT -> INDIRECT: halo copies -> the scattered list -> halo copies again. */
  for (int64_t l = 0; l < nh; ++l) u[l] = value_of(halo[l]);
  redist_plan there = NULL, back = NULL;
  OK(redist_plan_create(lh, ls, MPI_COMM_WORLD, sizeof(double), &there));
  OK(redist_plan_create(ls, lh, MPI_COMM_WORLD, sizeof(double), &back));
  for (int64_t l = 0; l < nsc; ++l) w[l] = -1;
  OK(redist_plan_execute(there, u, w));
  for (int64_t l = 0; l < nsc; ++l)
    CHECK(w[l] == value_of(scat[l]), "INDIRECT -> INDIRECT: w[%lld] (global %lld) = %g", (long long)l, (long long)scat[l], w[l]);
  for (int64_t l = 0; l < nh; ++l) u[l] = -1;
  OK(redist_plan_execute(back, w, u));
  for (int64_t l = 0; l < nh; ++l)
    CHECK(u[l] == value_of(halo[l]), "INDIRECT -> INDIRECT back: u[%lld] (global %lld) = %g", (long long)l, (long long)halo[l], u[l]);
  OK(redist_plan_free(&there));
  OK(redist_plan_free(&back));

  /* INDIRECT -> INDIRECT_SUM by bytes: the lowest-ranked holder of each index receives it, the
   * others hold zero. */
  for (int64_t l = 0; l < nh; ++l) u[l] = value_of(halo[l]);
  OK(redist_plan_create(lh, lhs, MPI_COMM_WORLD, sizeof(double), &plan));
  for (int64_t l = 0; l < nh; ++l) w[l] = -1;
  OK(redist_plan_execute(plan, u, w));
  for (int64_t l = 0; l < nh; ++l)
    CHECK(w[l] == (halo_first(n, halo[l]) == rank ? value_of(halo[l]) : 0.0), "INDIRECT -> INDIRECT_SUM: w[%lld] (global %lld) = %g",
          (long long)l, (long long)halo[l], w[l]);
  OK(redist_plan_free(&plan));
  /* INDIRECT_SUM (halo, 1 each) -> INDIRECT_SUM (scattered: one holder each) and -> INDIRECT_SUM
   * (halo: the count at the lowest-ranked holder, 0 at the others). */
  for (int64_t l = 0; l < nh; ++l) iu[l] = 1;
  OK(redist_plan_create_typed(lhs, lss, MPI_COMM_WORLD, REDIST_INT64, &plan));
  for (int64_t l = 0; l < nsc; ++l) ia[l] = -1;
  OK(redist_plan_execute(plan, iu, ia));
  for (int64_t l = 0; l < nsc; ++l)
    CHECK(ia[l] == halo_holders(n, scat[l]), "INDIRECT_SUM -> INDIRECT_SUM (scattered): [%lld] (global %lld) = %lld", (long long)l,
          (long long)scat[l], (long long)ia[l]);
  OK(redist_plan_free(&plan));
  OK(redist_plan_create_typed(lhs, lhs, MPI_COMM_WORLD, REDIST_INT64, &plan));
  for (int run = 0; run < 2; ++run) {
    for (int64_t l = 0; l < nh; ++l) ia[l] = -1;
    OK(redist_plan_execute(plan, iu, ia));
    for (int64_t l = 0; l < nh; ++l)
      CHECK(ia[l] == (halo_first(n, halo[l]) == rank ? halo_holders(n, halo[l]) : 0),
            "INDIRECT_SUM -> INDIRECT_SUM (halo) run %d: [%lld] (global %lld) = %lld", run, (long long)l, (long long)halo[l],
            (long long)ia[l]);
  }
  OK(redist_plan_free(&plan));

  /* With the placements: PARTIAL_SUM (rank r holds 1000 g + r of every g) -> INDIRECT halo copies,
   * every holder the sum; INDIRECT -> REPLICATED, every rank all of it; INDIRECT_SUM -> REPLICATED. */
  const int64_t P = nprocs;
  for (int64_t x = 0; x < n; ++x) w[x] = (double)(1000 * x + rank);
  OK(redist_plan_create_typed(lp, lh, MPI_COMM_WORLD, REDIST_DOUBLE, &plan));
  for (int run = 0; run < 3; ++run) {
    for (int64_t l = 0; l < nh; ++l) u[l] = -1;
    OK(redist_plan_execute(plan, w, u));
    for (int64_t l = 0; l < nh; ++l)
      CHECK(u[l] == (double)(1000 * halo[l] * P + P * (P - 1) / 2), "PARTIAL_SUM -> INDIRECT run %d: u[%lld] (global %lld) = %g",
            run, (long long)l, (long long)halo[l], u[l]);
  }
  OK(redist_plan_free(&plan));
  /* INDIRECT_SUM (1 each) -> PARTIAL_SUM: rank 0 holds the counts, the others 0; BLOCK -> INDIRECT_SUM
   * (typed): the lowest-ranked holder of each index receives it, the others 0. */
  for (int64_t l = 0; l < nh; ++l) iu[l] = 1;
  OK(redist_plan_create_typed(lhs, lp, MPI_COMM_WORLD, REDIST_INT64, &plan));
  int64_t* parts = malloc(sizeof(int64_t) * (size_t)(n + 1));
  for (int64_t x = 0; x < n; ++x) parts[x] = -1;
  OK(redist_plan_execute(plan, iu, parts));
  for (int64_t x = 0; x < n; ++x)
    CHECK(parts[x] == (rank == 0 ? halo_holders(n, x) : 0), "INDIRECT_SUM -> PARTIAL_SUM: [%lld] = %lld", (long long)x,
          (long long)parts[x]);
  OK(redist_plan_free(&plan));
  free(parts);
  for (int64_t l = 0; l < nb; ++l) a[l] = value_of(lo + l);
  OK(redist_plan_create_typed(lb, lhs, MPI_COMM_WORLD, REDIST_DOUBLE, &plan));
  for (int run = 0; run < 2; ++run) {
    for (int64_t l = 0; l < nh; ++l) u[l] = -1;
    OK(redist_plan_execute(plan, a, u));
    for (int64_t l = 0; l < nh; ++l)
      CHECK(u[l] == (halo_first(n, halo[l]) == rank ? value_of(halo[l]) : 0.0), "BLOCK -> INDIRECT_SUM run %d: u[%lld] (global %lld) = %g",
            run, (long long)l, (long long)halo[l], u[l]);
  }
  OK(redist_plan_free(&plan));
  for (int64_t l = 0; l < nh; ++l) u[l] = value_of(halo[l]);
  OK(redist_plan_create(lh, lr, MPI_COMM_WORLD, sizeof(double), &plan));
  for (int64_t x = 0; x < n; ++x) w[x] = -1;
  OK(redist_plan_execute(plan, u, w));
  for (int64_t x = 0; x < n; ++x) CHECK(w[x] == value_of(x), "INDIRECT -> REPLICATED: w[%lld] = %g", (long long)x, w[x]);
  OK(redist_plan_free(&plan));
  for (int64_t l = 0; l < nh; ++l) iu[l] = 1;
  OK(redist_plan_create_typed(lhs, lr, MPI_COMM_WORLD, REDIST_INT64, &plan));
  int64_t* all = malloc(sizeof(int64_t) * (size_t)(n + 1));
  for (int64_t x = 0; x < n; ++x) all[x] = -1;
  OK(redist_plan_execute(plan, iu, all));
  for (int64_t x = 0; x < n; ++x)
    CHECK(all[x] == halo_holders(n, x), "INDIRECT_SUM -> REPLICATED: all[%lld] = %lld", (long long)x, (long long)all[x]);
  OK(redist_plan_free(&plan));
  free(all);

  /* Nothing to hold: extent 0, every list empty (NULL), to and from BLOCK. */
  redist_layout none = NULL, zero = NULL;
  redist_dim blk0 = {REDIST_BLOCK, 0, 0, NULL, nprocs, 0};
  OK(redist_layout_create_indirect(0, NULL, 0, REDIST_INDIRECT_SUM, &none));
  OK(redist_layout_create(1, &blk0, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, 0, &zero));
  OK(redist_plan_create_typed(none, zero, MPI_COMM_WORLD, REDIST_DOUBLE, &plan));
  OK(redist_plan_execute(plan, u, a));
  OK(redist_plan_free(&plan));
  OK(redist_plan_create(zero, none, MPI_COMM_WORLD, 4, &plan));
  OK(redist_plan_execute(plan, a, u));
  OK(redist_plan_free(&plan));
  OK(redist_layout_free(&none));
  OK(redist_layout_free(&zero));

  /* Errors. An index no rank lists (every rank its block but n / 2): refused by the plan on every
   * rank, naming the index, on either side. */
  const int64_t hole = n / 2;
  int64_t k = 0;
  for (int64_t x = lo; x < hi; ++x)
    if (x != hole) g[k++] = x;
  redist_layout holed = NULL;
  OK(redist_layout_create_indirect(n, g, k, REDIST_INDIRECT, &holed));
  char expect[128];
  snprintf(expect, sizeof expect, "no rank holds %lld)", (long long)hole);
  int rc = redist_plan_create(lb, holed, MPI_COMM_WORLD, sizeof(double), &plan);
  CHECK(rc == REDIST_ERROR_ARGUMENT, "an unheld index: %d (%s)", rc, redist_error_message());
  CHECK(strstr(redist_error_message(), expect) != NULL && strstr(redist_error_message(), "to is an INDIRECT layout") != NULL,
        "message: %s", redist_error_message());
  CHECK(plan == NULL, "no plan on error");
  rc = redist_plan_create_typed(holed, lh, MPI_COMM_WORLD, REDIST_DOUBLE, &plan);
  CHECK(rc == REDIST_ERROR_ARGUMENT, "an unheld index in from: %d (%s)", rc, redist_error_message());
  CHECK(strstr(redist_error_message(), expect) != NULL && strstr(redist_error_message(), "from is an INDIRECT layout") != NULL,
        "message: %s", redist_error_message());
  OK(redist_layout_free(&holed));
  /* This rank's own list: an index outside [0, n), one listed twice, a bad kind, count, NULL. */
  redist_layout bad = NULL;
  const int64_t outside[3] = {0, n, 1}, twice[4] = {3, 1, 2, 1};
  CHECK(redist_layout_create_indirect(n, outside, 3, REDIST_INDIRECT, &bad) == REDIST_ERROR, "index n");
  snprintf(expect, sizeof expect, "indices[1] must be in [0, extent) (got %lld, extent %lld)", (long long)n, (long long)n);
  CHECK(strstr(redist_error_message(), expect) != NULL, "message: %s", redist_error_message());
  CHECK(redist_layout_create_indirect(n, twice, 4, REDIST_INDIRECT_SUM, &bad) == REDIST_ERROR, "index twice");
  CHECK(strstr(redist_error_message(), "indices[3] = 1 repeats indices[1]") != NULL, "message: %s", redist_error_message());
  CHECK(redist_layout_create_indirect(n, twice, 2, REDIST_PARTIAL_SUM, &bad) == REDIST_ERROR, "kind");
  CHECK(strstr(redist_error_message(), "kind must be REDIST_INDIRECT or REDIST_INDIRECT_SUM (got 5)") != NULL, "message: %s",
        redist_error_message());
  CHECK(redist_layout_create_indirect(n, twice, -1, REDIST_INDIRECT, &bad) == REDIST_ERROR, "count -1");
  CHECK(strstr(redist_error_message(), "count must be >= 0") != NULL, "message: %s", redist_error_message());
  CHECK(redist_layout_create_indirect(n, NULL, 2, REDIST_INDIRECT, &bad) == REDIST_ERROR, "NULL indices");
  CHECK(strstr(redist_error_message(), "indices must not be NULL") != NULL, "message: %s", redist_error_message());
  CHECK(bad == NULL, "no layout on error");
  redist_dim as_dim = {REDIST_INDIRECT, n, 0, NULL, nprocs, 0};
  CHECK(redist_layout_create(1, &as_dim, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, 0, &bad) == REDIST_ERROR, "INDIRECT dim");
  CHECK(strstr(redist_error_message(), "dims[0].kind") != NULL && strstr(redist_error_message(), "redist_layout_create_indirect") != NULL,
        "message: %s", redist_error_message());
  CHECK(redist_layout_set_ranks(lh, (const int[]){0, 1, 2, 3}) == REDIST_ERROR, "set_ranks of INDIRECT");
  /* Pairs refused on every rank: a partial source by bytes, a 2-D layout, another extent, a BLOCK
   * layout off the communicator's ranks in order. */
  CHECK(redist_plan_create(lhs, lb, MPI_COMM_WORLD, sizeof(double), &plan) == REDIST_ERROR, "INDIRECT_SUM by bytes");
  CHECK(strstr(redist_error_message(), "from is REDIST_INDIRECT_SUM") != NULL && strstr(redist_error_message(), "redist_plan_create_typed") != NULL,
        "message: %s", redist_error_message());
  redist_dim two[2] = {{REDIST_BLOCK, n, 0, NULL, nprocs, 0}, {REDIST_COLLAPSED, 1, 0, NULL, 1, 0}};
  redist_layout l2 = NULL, longer = NULL, off = NULL;
  OK(redist_layout_create(2, two, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, 0, &l2));
  CHECK(redist_plan_create(l2, lh, MPI_COMM_WORLD, 8, &plan) == REDIST_ERROR, "2-D and INDIRECT");
  CHECK(strstr(redist_error_message(), "same number of dimensions") != NULL, "message: %s", redist_error_message());
  redist_dim blk1 = {REDIST_BLOCK, n + 1, 0, NULL, nprocs, 0};
  OK(redist_layout_create(1, &blk1, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, 0, &longer));
  CHECK(redist_plan_create(longer, lh, MPI_COMM_WORLD, 8, &plan) == REDIST_ERROR, "extents n + 1 and n");
  CHECK(strstr(redist_error_message(), "same extents") != NULL, "message: %s", redist_error_message());
  if (nprocs > 1) {
    redist_dim fewer = {REDIST_BLOCK, n, 0, NULL, nprocs - 1, 0};
    OK(redist_layout_create(1, &fewer, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, 0, &off));
    CHECK(redist_plan_create(off, lh, MPI_COMM_WORLD, 8, &plan) == REDIST_ERROR, "BLOCK on fewer ranks");
    CHECK(strstr(redist_error_message(), "from must span the communicator") != NULL, "message: %s", redist_error_message());
    OK(redist_layout_free(&off));
    redist_dim shifted = {REDIST_BLOCK, n, 0, NULL, nprocs, 1};
    OK(redist_layout_create(1, &shifted, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, 0, &off));
    CHECK(redist_plan_create(lh, off, MPI_COMM_WORLD, 8, &plan) == REDIST_ERROR, "BLOCK from offset 1");
    CHECK(strstr(redist_error_message(), "to must lie on the communicator's ranks in order") != NULL, "message: %s",
          redist_error_message());
    OK(redist_layout_free(&off));
    /* Ranks that disagree on the kind of `to` (rank 0 INDIRECT, the others BLOCK), or on the
     * extent of an INDIRECT pair: REDIST_ERROR_MISMATCH on every rank, before any directory. */
    rc = redist_plan_create(lb, rank == 0 ? lh : lb, MPI_COMM_WORLD, 8, &plan);
    CHECK(rc == REDIST_ERROR_MISMATCH, "kinds that differ: %d (%s)", rc, redist_error_message());
    CHECK(strstr(redist_error_message(), "kind of to") != NULL, "message: %s", redist_error_message());
    redist_layout mine = NULL, theirs = NULL;
    const int64_t m = rank == 0 ? n + 1 : n;
    redist_dim b2 = {REDIST_BLOCK, m, 0, NULL, nprocs, 0};
    int64_t* every = malloc(sizeof(int64_t) * (size_t)(m + 1));
    for (int64_t x = 0; x < m; ++x) every[x] = x;
    OK(redist_layout_create(1, &b2, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, 0, &mine));
    OK(redist_layout_create_indirect(m, every, m, REDIST_INDIRECT, &theirs));
    rc = redist_plan_create(mine, theirs, MPI_COMM_WORLD, 8, &plan);
    CHECK(rc == REDIST_ERROR_MISMATCH, "INDIRECT extents that differ: %d (%s)", rc, redist_error_message());
    CHECK(strstr(redist_error_message(), "extent of a plan with an INDIRECT layout") != NULL, "message: %s", redist_error_message());
    free(every);
    OK(redist_layout_free(&mine));
    OK(redist_layout_free(&theirs));
  } else {
    OK(redist_layout_create(1, &blk, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, n + 3, &off)); /* padded */
    CHECK(redist_plan_create(off, lh, MPI_COMM_WORLD, 8, &plan) == REDIST_ERROR, "BLOCK with a leading dimension");
    CHECK(strstr(redist_error_message(), "from must lie on the communicator's ranks in order") != NULL, "message: %s",
          redist_error_message());
    OK(redist_layout_free(&off));
  }
  CHECK(plan == NULL, "no plan on error");
  OK(redist_layout_free(&l2));
  OK(redist_layout_free(&longer));

  OK(redist_layout_free(&lb));
  OK(redist_layout_free(&lr));
  OK(redist_layout_free(&lp));
  OK(redist_layout_free(&lh));
  OK(redist_layout_free(&lhs));
  OK(redist_layout_free(&ls));
  OK(redist_layout_free(&lss));
  free(halo);
  free(scat);
  free(g);
  free(a);
  free(u);
  free(w);
  free(ia);
  free(iu);
}

/* Local extent of n elements in BLOCK over P on process p, and CYCLIC(k) from process 0. */
static int64_t block_local(int64_t n, int P, int p) {
  const int64_t b = (n + P - 1) / P, lo = p * b;
  return lo >= n ? 0 : (n - lo < b ? n - lo : b);
}
static int64_t cyclic_local(int64_t n, int64_t k, int P, int p) {
  int64_t c = 0;
  for (int64_t g = 0; g < n; ++g) c += (g / k) % P == p;
  return c;
}

/* dst = alpha * op(src) + beta * dst (redist_plan_create_op, redist_plan_execute_scaled): an m x n
 * matrix a(i, j) = 100 i + j in (CYCLIC(3), CYCLIC(2)) on a pr x pc grid, column-major with a padded
 * leading dimension, into (CYCLIC(2), BLOCK) on pc x pr (n x m for transposes); b's values before
 * b0(i, j) = -3 i + 0.5 j; against the formulas, the padding untouched. Doubles and complex doubles
 * (conj_transpose with a complex alpha); alpha = 0 and beta = NULL; and the errors. */
static double b0_of(int64_t i, int64_t j) { return -3.0 * (double)i + 0.5 * (double)j; }
static void scaled_ops(void) {
  const int64_t m = 23, n = 17;
  const int pr = nprocs % 2 == 0 ? 2 : 1, pc = nprocs / pr;
  const int arow = rank / pc, acol = rank % pc; /* row-major grid pr x pc */
  const int64_t alr = cyclic_local(m, 3, pr, arow), alc = cyclic_local(n, 2, pc, acol), ald = alr + 1;
  redist_dim ad[2] = {{REDIST_CYCLIC, m, 3, NULL, pr, 0}, {REDIST_CYCLIC, n, 2, NULL, pc, 0}};
  redist_layout la = NULL, same = NULL, tr = NULL;
  OK(redist_layout_create(2, ad, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, ald, &la));
  /* b as a: an m x n (CYCLIC(2), BLOCK) on pc x pr; bt: n x m the same way. Tight column-major. */
  const int brow = rank / pr, bcol = rank % pr; /* row-major grid pc x pr */
  redist_dim sd[2] = {{REDIST_CYCLIC, m, 2, NULL, pc, 0}, {REDIST_BLOCK, n, 0, NULL, pr, 0}};
  redist_dim td[2] = {{REDIST_CYCLIC, n, 2, NULL, pc, 0}, {REDIST_BLOCK, m, 0, NULL, pr, 0}};
  OK(redist_layout_create(2, sd, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, 0, &same));
  OK(redist_layout_create(2, td, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, 0, &tr));
  const int64_t na = ald * alc;
  double* a = malloc(sizeof(double) * (size_t)(na + 1));
  double _Complex* za = malloc(sizeof(double _Complex) * (size_t)(na + 1));
  for (int64_t k = 0; k <= na; ++k) a[k] = za[k] = -999; /* the padding */
  for (int64_t lj = 0; lj < alc; ++lj)
    for (int64_t li = 0; li < alr; ++li) {
      const int64_t i = cyclic_global(li, 3, arow, 0, pr), j = cyclic_global(lj, 2, acol, 0, pc);
      a[li + lj * ald] = (double)(100 * i + j);
      za[li + lj * ald] = (double)(100 * i + j) + (double)(i - j) * I;
    }
  for (int t = 0; t < 2; ++t) { /* t = 0: b = op(a) as a; t = 1: transposed */
    const int64_t rows = t == 0 ? m : n, cols = t == 0 ? n : m;
    const int64_t blr = cyclic_local(rows, 2, pc, brow), blc = block_local(cols, pr, bcol), nb = blr * blc;
    const int64_t col0 = bcol * ((cols + pr - 1) / pr);
    double* b = malloc(sizeof(double) * (size_t)(nb + 1));
    double _Complex* zb = malloc(sizeof(double _Complex) * (size_t)(nb + 1));
    redist_plan plan = NULL, zplan = NULL;
    OK(redist_plan_create_op(la, t == 0 ? same : tr, MPI_COMM_WORLD, REDIST_DOUBLE, t == 0 ? REDIST_OP_NONE : REDIST_OP_TRANSPOSE,
                             &plan));
    OK(redist_plan_create_op(la, t == 0 ? same : tr, MPI_COMM_WORLD, REDIST_COMPLEX_DOUBLE,
                             t == 0 ? REDIST_OP_NONE : REDIST_OP_CONJ_TRANSPOSE, &zplan));
    /* (alpha, beta): (2, 0.5); (3, NULL) over NaNs; (0, 2) with NaNs in a; the plain execute (1, 0). */
    for (int c = 0; c < 4; ++c) {
      const double alpha = c == 0 ? 2.0 : c == 1 ? 3.0 : c == 2 ? 0.0 : 1.0, beta = c == 0 ? 0.5 : c == 2 ? 2.0 : 0.0;
      for (int64_t lj = 0; lj < blc; ++lj)
        for (int64_t li = 0; li < blr; ++li)
          b[li + lj * blr] = c == 1 || c == 3 ? NAN : b0_of(cyclic_global(li, 2, brow, 0, pc), col0 + lj);
      b[nb] = -5;
      double* src = a;
      double* nans = NULL;
      if (c == 2) { /* alpha = 0: a is not read */
        nans = malloc(sizeof(double) * (size_t)(na + 1));
        for (int64_t k = 0; k <= na; ++k) nans[k] = NAN;
        src = nans;
      }
      if (c == 3) OK(redist_plan_execute(plan, src, b));
      else OK(redist_plan_execute_scaled(plan, &alpha, src, c == 1 ? NULL : &beta, b));
      for (int64_t lj = 0; lj < blc; ++lj)
        for (int64_t li = 0; li < blr; ++li) {
          const int64_t r = cyclic_global(li, 2, brow, 0, pc), q = col0 + lj; /* b's (r, q) */
          const int64_t i = t == 0 ? r : q, j = t == 0 ? q : r;                 /* a's element */
          const double want = alpha * (double)(100 * i + j) + beta * b0_of(r, q);
          CHECK(b[li + lj * blr] == want, "op %d case %d: b(%lld, %lld) = %g, not %g", t, c, (long long)r, (long long)q,
                b[li + lj * blr], want);
        }
      CHECK(b[nb] == -5, "op %d case %d wrote past b", t, c);
      free(nans);
    }
    /* Complex: alpha = 1 + 2i, beta = -1: b = alpha * conj(a)^T - b0 (a as it is for t = 0). */
    const double _Complex alpha = 1.0 + 2.0 * I, beta = -1.0;
    for (int64_t lj = 0; lj < blc; ++lj)
      for (int64_t li = 0; li < blr; ++li) zb[li + lj * blr] = b0_of(cyclic_global(li, 2, brow, 0, pc), col0 + lj);
    OK(redist_plan_execute_scaled(zplan, &alpha, za, &beta, zb));
    for (int64_t lj = 0; lj < blc; ++lj)
      for (int64_t li = 0; li < blr; ++li) {
        const int64_t r = cyclic_global(li, 2, brow, 0, pc), q = col0 + lj;
        const int64_t i = t == 0 ? r : q, j = t == 0 ? q : r;
        double _Complex x = (double)(100 * i + j) + (double)(i - j) * I;
        if (t == 1) x = conj(x);
        const double _Complex want = alpha * x + beta * b0_of(r, q);
        CHECK(zb[li + lj * blr] == want, "complex op %d: b(%lld, %lld) = %g%+gi, not %g%+gi", t, (long long)r, (long long)q,
              creal(zb[li + lj * blr]), cimag(zb[li + lj * blr]), creal(want), cimag(want));
      }
    for (int64_t k = alr; k < na; k += ald) CHECK(a[k] == -999 && za[k] == -999, "a's padding written at %lld", (long long)k);
    OK(redist_plan_free(&plan));
    OK(redist_plan_free(&zplan));
    free(b);
    free(zb);
  }
  /* Errors, on every rank alike. */
  redist_plan plan = NULL;
  const double one = 1.0;
  OK(redist_plan_create(la, same, MPI_COMM_WORLD, sizeof(double), &plan));
  CHECK(redist_plan_execute_scaled(plan, &one, a, NULL, a) == REDIST_ERROR, "scaled with a plan of redist_plan_create");
  CHECK(strstr(redist_error_message(), "plan must be made by redist_plan_create_op") != NULL, "message: %s", redist_error_message());
  OK(redist_plan_free(&plan));
  CHECK(redist_plan_create_op(la, same, MPI_COMM_WORLD, REDIST_INT64, REDIST_OP_NONE, &plan) == REDIST_ERROR, "int64 op");
  CHECK(strstr(redist_error_message(), "element_type must be REDIST_FLOAT, REDIST_DOUBLE, REDIST_COMPLEX_FLOAT or "
                                       "REDIST_COMPLEX_DOUBLE") != NULL, "message: %s", redist_error_message());
  CHECK(redist_plan_create_op(la, same, MPI_COMM_WORLD, REDIST_DOUBLE, REDIST_OP_TRANSPOSE, &plan) == REDIST_ERROR,
        "transpose of unswapped extents");
  CHECK(strstr(redist_error_message(), "to's extents must be from's swapped for a transpose (23 x 17 -> 23 x 17)") != NULL,
        "message: %s", redist_error_message());
  CHECK(redist_plan_create_op(la, tr, MPI_COMM_WORLD, REDIST_DOUBLE, 7, &plan) == REDIST_ERROR, "op 7");
  CHECK(strstr(redist_error_message(), "op must be REDIST_OP_NONE, REDIST_OP_TRANSPOSE or REDIST_OP_CONJ_TRANSPOSE (got 7)") != NULL,
        "message: %s", redist_error_message());
  OK(redist_plan_create_op_f(la, tr, MPI_Comm_c2f(MPI_COMM_WORLD), REDIST_FLOAT, REDIST_OP_TRANSPOSE, &plan));
  CHECK(redist_plan_execute_scaled(plan, NULL, a, NULL, a) == REDIST_ERROR, "alpha NULL");
  CHECK(strstr(redist_error_message(), "alpha must not be NULL") != NULL, "message: %s", redist_error_message());
  OK(redist_plan_free(&plan));
  OK(redist_layout_free(&la));
  OK(redist_layout_free(&same));
  OK(redist_layout_free(&tr));
  free(a);
  free(za);
}

/* More than 4 dimensions: a 6-D array e = (2, 3, 7, 2, 5, 3), column-major, value
 * sum of g_d * w_d, from (dimension 2 BLOCK over nprocs, the rest whole) with a padded leading
 * dimension into (dimension 4 CYCLIC(1) over nprocs, dimension 1 REPLICATED over 1 process, not padded);
 * a row-major 5-D pair; the local shapes and global indices of the 6-D layouts; and a pair
 * with 5 dimensions split over processes, refused. */
static const int64_t six[6] = {2, 3, 7, 2, 5, 3};
static int64_t six_value(const int64_t g[6]) { return g[0] + 10 * g[1] + 100 * g[2] + 1000 * g[3] + 10000 * g[4] + 100000 * g[5]; }
static void many_dims(void) {
  const int P = nprocs;
  redist_dim fd[6], td[6];
  for (int d = 0; d < 6; ++d) {
    fd[d] = (redist_dim){REDIST_COLLAPSED, six[d], 0, NULL, 1, 0};
    td[d] = fd[d];
  }
  fd[2] = (redist_dim){REDIST_BLOCK, six[2], 0, NULL, P, 0};
  td[4] = (redist_dim){REDIST_CYCLIC, six[4], 1, NULL, P, 0};
  for (int padded = 0; padded < 2; ++padded) {
    /* Padded: dimension 0 does not fold (the leading dimension is dimension 1's stride), and then at
     * most 2 others may be split with the whole slow end (dimension 5) kept. */
    const int64_t ld = padded ? six[0] + 3 : 0; /* the stride of dimension 1 */
    td[1] = (redist_dim){padded ? REDIST_COLLAPSED : REDIST_REPLICATED, six[1], 0, NULL, 1, 0};
    redist_layout from = NULL, to = NULL;
    OK(redist_layout_create(6, fd, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, ld, &from));
    OK(redist_layout_create(6, td, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, 0, &to));
    int64_t fe[6], fs[6], te[6], ts[6];
    OK(redist_layout_local_shape(from, MPI_COMM_WORLD, fe, fs));
    OK(redist_layout_local_shape(to, MPI_COMM_WORLD, te, ts));
    const int64_t b2 = (six[2] + P - 1) / P, lo2 = rank * b2;
    int64_t want_fs = 1;
    for (int d = 0; d < 6; ++d) {
      const int64_t wfe = d == 2 ? block_local(six[2], P, rank) : six[d];
      const int64_t wte = d == 4 ? cyclic_local(six[4], 1, P, rank) : six[d];
      CHECK(fe[d] == wfe && te[d] == wte, "6-D local extents of dim %d: %lld and %lld", d, (long long)fe[d], (long long)te[d]);
      if (fe[2] > 0) CHECK(fs[d] == want_fs, "6-D stride of dim %d: %lld, not %lld", d, (long long)fs[d], (long long)want_fs);
      want_fs *= d == 0 && padded ? ld : wfe;
    }
    int64_t ns = 0, nd = 0;
    OK(redist_layout_local_size(from, MPI_COMM_WORLD, &ns));
    OK(redist_layout_local_size(to, MPI_COMM_WORLD, &nd));
    int64_t* g = malloc(sizeof(int64_t) * 8);
    OK(redist_layout_global_indices(to, MPI_COMM_WORLD, 4, g));
    for (int64_t l = 0; l < te[4]; ++l) CHECK(g[l] == l * P + rank, "6-D global index %lld of dim 4: %lld", (long long)l, (long long)g[l]);
    free(g);
    double* a = malloc(sizeof(double) * (size_t)(ns + 1));
    double* b = malloc(sizeof(double) * (size_t)(nd + 1));
    for (int64_t k = 0; k <= ns; ++k) a[k] = -1;
    int64_t gi[6];
    for (int64_t k = 0; k < (fe[2] > 0 ? six[0] * six[1] * fe[2] * six[3] * six[4] * six[5] : 0); ++k) {
      int64_t r = k, off = 0;
      for (int d = 0; d < 6; ++d) {
        const int64_t l = r % fe[d];
        r /= fe[d];
        gi[d] = d == 2 ? lo2 + l : l;
        off += l * fs[d];
      }
      a[off] = (double)six_value(gi);
    }
    for (int64_t k = 0; k <= nd; ++k) b[k] = -2;
    redist_plan plan = NULL;
    OK(redist_plan_create(from, to, MPI_COMM_WORLD, sizeof(double), &plan));
    OK(redist_plan_execute(plan, a, b));
    for (int64_t k = 0; k < nd; ++k) {
      int64_t r = k;
      for (int d = 0; d < 6; ++d) {
        const int64_t l = r % te[d];
        r /= te[d];
        gi[d] = d == 4 ? l * P + rank : l;
      }
      CHECK(b[k] == (double)six_value(gi), "6-D b[%lld] = %g, not %lld (padded %d)", (long long)k, b[k], (long long)six_value(gi),
            padded);
    }
    CHECK(b[nd] == -2, "6-D wrote past b");
    OK(redist_plan_free(&plan));
    /* Typed, and scaled (REDIST_OP_NONE): b = 2 a + b. */
    const double two = 2.0, one = 1.0;
    OK(redist_plan_create_op(from, to, MPI_COMM_WORLD, REDIST_DOUBLE, REDIST_OP_NONE, &plan));
    OK(redist_plan_execute_scaled(plan, &two, a, &one, b));
    for (int64_t k = 0; k < nd; ++k) {
      int64_t r = k;
      for (int d = 0; d < 6; ++d) {
        const int64_t l = r % te[d];
        r /= te[d];
        gi[d] = d == 4 ? l * P + rank : l;
      }
      CHECK(b[k] == 3.0 * (double)six_value(gi), "6-D scaled b[%lld] = %g", (long long)k, b[k]);
    }
    OK(redist_plan_free(&plan));
    free(a);
    free(b);
    OK(redist_layout_free(&from));
    OK(redist_layout_free(&to));
  }
  /* Row-major, 5-D (3, P + 1, 2, 4, 3): BLOCK on dimension 1 -> CYCLIC(2) on dimension 3, of 3-byte
   * elements (the fastest dimension, 3, whole: folded and then in units). */
  {
    const int64_t e[5] = {3, P + 1, 2, 4, 3};
    redist_dim f5[5], t5[5];
    for (int d = 0; d < 5; ++d) f5[d] = t5[d] = (redist_dim){REDIST_COLLAPSED, e[d], 0, NULL, 1, 0};
    f5[1] = (redist_dim){REDIST_BLOCK, e[1], 0, NULL, P, 0};
    t5[3] = (redist_dim){REDIST_CYCLIC, e[3], 2, NULL, P, 0};
    redist_layout from = NULL, to = NULL;
    OK(redist_layout_create(5, f5, REDIST_ROW_MAJOR, 0, REDIST_ROW_MAJOR, 0, &from));
    OK(redist_layout_create(5, t5, REDIST_ROW_MAJOR, 0, REDIST_ROW_MAJOR, 0, &to));
    int64_t fe[5], te[5], ns = 0, nd = 0;
    OK(redist_layout_local_shape(from, MPI_COMM_WORLD, fe, NULL));
    OK(redist_layout_local_shape(to, MPI_COMM_WORLD, te, NULL));
    OK(redist_layout_local_size(from, MPI_COMM_WORLD, &ns));
    OK(redist_layout_local_size(to, MPI_COMM_WORLD, &nd));
    const int64_t lo1 = rank * ((e[1] + P - 1) / P);
    char* a = malloc(3 * (size_t)(ns + 1));
    char* b = malloc(3 * (size_t)(nd + 1));
    for (int64_t k = 0; k < ns; ++k) { /* row-major: the last index fastest */
      int64_t r = k, v = 0, w = 1;
      for (int d = 4; d >= 0; --d) {
        const int64_t l = r % fe[d];
        r /= fe[d];
        v += (d == 1 ? lo1 + l : l) * w;
        w *= e[d];
      }
      char t[16];
      snprintf(t, sizeof t, "%03d", (int)(v % 1000));
      memcpy(a + 3 * k, t, 3);
    }
    memset(b, '?', 3 * (size_t)(nd + 1));
    redist_plan plan = NULL;
    OK(redist_plan_create(from, to, MPI_COMM_WORLD, 3, &plan));
    OK(redist_plan_execute(plan, a, b));
    for (int64_t k = 0; k < nd; ++k) {
      int64_t r = k, v = 0, w = 1;
      for (int d = 4; d >= 0; --d) {
        const int64_t l = r % te[d];
        r /= te[d];
        v += (d == 3 ? cyclic_global(l, 2, rank, 0, P) : l) * w;
        w *= e[d];
      }
      char want[8];
      snprintf(want, sizeof want, "%03d", (int)(v % 1000));
      CHECK(memcmp(b + 3 * k, want, 3) == 0, "5-D row-major b[%lld] = %.3s, not %s", (long long)k, b + 3 * k, want);
    }
    CHECK(b[3 * nd] == '?', "5-D wrote past b");
    OK(redist_plan_free(&plan));
    free(a);
    free(b);
    OK(redist_layout_free(&from));
    OK(redist_layout_free(&to));
  }
  /* Five dimensions that are not whole (REPLICATED over one process is not) and a whole one: refused, naming them. */
  redist_dim r6[6];
  for (int d = 0; d < 6; ++d) r6[d] = (redist_dim){d == 5 ? REDIST_COLLAPSED : REDIST_REPLICATED, 2, 0, NULL, 1, 0};
  redist_layout l6 = NULL;
  OK(redist_layout_create(6, r6, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, 0, &l6));
  redist_plan plan = NULL;
  CHECK(redist_plan_create(l6, l6, MPI_COMM_WORLD, 8, &plan) == REDIST_ERROR, "5 split dimensions");
  CHECK(strstr(redist_error_message(), "6 remain (not whole: dimensions 0, 1, 2, 3, 4)") != NULL, "message: %s",
        redist_error_message());
  OK(redist_layout_free(&l6));
  redist_dim nine[9];
  for (int d = 0; d < 9; ++d) nine[d] = (redist_dim){REDIST_COLLAPSED, 1, 0, NULL, 1, 0};
  CHECK(redist_layout_create(9, nine, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, 0, &l6) == REDIST_ERROR, "ndims 9");
  CHECK(strstr(redist_error_message(), "ndims must be in [1, 8] (got 9)") != NULL, "message: %s", redist_error_message());
}

static void errors(void) {
  redist_layout l = NULL, good = NULL;
  redist_dim bad = {42, 10, 0, NULL, nprocs, 0};
  CHECK(redist_layout_create(1, &bad, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, 0, &l) == REDIST_ERROR, "bad kind");
  CHECK(strstr(redist_error_message(), "dims[0].kind") != NULL, "message: %s", redist_error_message());
  CHECK(l == NULL, "no layout on error");
  redist_dim zero = {REDIST_CYCLIC, 10, 0, NULL, nprocs, 0};
  CHECK(redist_layout_create(1, &zero, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, 0, &l) == REDIST_ERROR, "block 0");
  CHECK(strstr(redist_error_message(), "dims[0].block must be > 0") != NULL, "message: %s", redist_error_message());
  int64_t two[2] = {3, 4};
  redist_dim sum = {REDIST_GEN_BLOCK, 10, 0, two, 2, 0};
  CHECK(redist_layout_create(1, &sum, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, 0, &l) == REDIST_ERROR, "sizes sum");
  CHECK(strstr(redist_error_message(), "sum to extent") != NULL, "message: %s", redist_error_message());
  /* A plan with an element size that one rank gets wrong: every rank fails, naming it. */
  redist_dim ok = {REDIST_BLOCK, 100, 0, NULL, nprocs, 0};
  OK(redist_layout_create(1, &ok, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, 0, &good));
  redist_plan plan = NULL;
  const size_t size = rank == nprocs - 1 ? 0 : 8;
  CHECK(redist_plan_create(good, good, MPI_COMM_WORLD, size, &plan) == REDIST_ERROR, "element_size 0 on one rank");
  CHECK(strstr(redist_error_message(), "element_size must be >= 1 (got 0)") != NULL, "message: %s", redist_error_message());
  CHECK(plan == NULL, "no plan on error");
  /* A grid larger than the communicator: every rank fails before any data moves. */
  redist_dim big = {REDIST_BLOCK, 100, 0, NULL, nprocs + 1, 0};
  redist_layout wide = NULL;
  OK(redist_layout_create(1, &big, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, 0, &wide));
  CHECK(redist_plan_create(good, wide, MPI_COMM_WORLD, 8, &plan) == REDIST_ERROR, "grid larger than comm");
  CHECK(strstr(redist_error_message(), "grid") != NULL, "message: %s", redist_error_message());
  CHECK(redist_plan_execute(NULL, NULL, NULL) == REDIST_ERROR, "NULL plan");
  /* Error classes: ranks that disagree get REDIST_ERROR_MISMATCH on every rank, naming what differs
   * - valid element sizes that differ (at redist_plan_create), and layouts of different extents (at
   * the first redist_plan_execute, which agrees on the plan); argument errors REDIST_ERROR_ARGUMENT. */
  CHECK(REDIST_ERROR_ARGUMENT == REDIST_ERROR, "REDIST_ERROR is the argument class");
  if (nprocs > 1) {
    int rc = redist_plan_create(good, good, MPI_COMM_WORLD, rank == 0 ? 4 : 8, &plan);
    CHECK(rc == REDIST_ERROR_MISMATCH, "element sizes 4 and 8: %d (%s)", rc, redist_error_message());
    CHECK(strstr(redist_error_message(), "element_size") != NULL && strstr(redist_error_message(), "differs between ranks") != NULL,
          "message: %s", redist_error_message());
    redist_dim longer = {REDIST_BLOCK, rank == 0 ? 101 : 100, 0, NULL, nprocs, 0};
    redist_layout other = NULL;
    OK(redist_layout_create(1, &longer, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, 0, &other));
    OK(redist_plan_create(other, other, MPI_COMM_WORLD, 8, &plan));
    double buf[101], out[101];
    for (int i = 0; i < 101; ++i) buf[i] = out[i] = 0.0;
    rc = redist_plan_execute(plan, buf, out);
    CHECK(rc == REDIST_ERROR_MISMATCH, "extents 101 and 100: %d (%s)", rc, redist_error_message());
    CHECK(strstr(redist_error_message(), "differs between ranks") != NULL, "message: %s", redist_error_message());
    OK(redist_plan_free(&plan));
    OK(redist_layout_free(&other));
  }
  OK(redist_layout_free(&good));
  OK(redist_layout_free(&wide));
  OK(redist_layout_free(NULL));
}

/* The version, and the global indices per dimension of (CYCLIC(3) from process 1, REPLICATED,
 * GEN_BLOCK) on an nprocs x 1 x 1 grid (with a rank outside the grid when there are 3 or more
 * processes: the grid then has nprocs - 1) against the formulas; errors name dim. */
static void queries(void) {
  CHECK(strcmp(redist_version(), REDIST_VERSION) == 0, "redist_version() %s, header %s", redist_version(), REDIST_VERSION);
  char expect[32];
  snprintf(expect, sizeof expect, "%d.%d.%d", REDIST_VERSION_MAJOR, REDIST_VERSION_MINOR, REDIST_VERSION_PATCH);
  CHECK(strcmp(REDIST_VERSION, expect) == 0, "REDIST_VERSION %s against its parts %s", REDIST_VERSION, expect);

  const int P = nprocs >= 3 ? nprocs - 1 : nprocs;
  const int64_t n0 = 29, n1 = 5, one = 4;
  int64_t* sizes = malloc(sizeof(int64_t));
  sizes[0] = one;
  redist_dim d[3] = {{REDIST_CYCLIC, n0, 3, NULL, P, P > 1 ? 1 : 0},
                     {REDIST_REPLICATED, n1, 0, NULL, 1, 0},
                     {REDIST_GEN_BLOCK, one, 0, sizes, 1, 0}};
  redist_layout l = NULL;
  OK(redist_layout_create(3, d, REDIST_ROW_MAJOR, 0, REDIST_ROW_MAJOR, 0, &l));
  int64_t e[3];
  OK(redist_layout_local_shape(l, MPI_COMM_WORLD, e, NULL));
  int64_t* g = malloc(sizeof(int64_t) * (size_t)(n0 + 1));
  for (int dim = 0; dim < 3; ++dim) {
    for (int64_t i = 0; i <= n0; ++i) g[i] = -7;
    OK(redist_layout_global_indices(l, MPI_COMM_WORLD, dim, g));
    for (int64_t i = 0; i < e[dim]; ++i) {
      const int64_t want = dim == 0 ? cyclic_global(i, 3, rank, P > 1 ? 1 : 0, P) : i;
      CHECK(g[i] == want, "global_indices dim %d [%lld] = %lld, not %lld", dim, (long long)i, (long long)g[i], (long long)want);
    }
    CHECK(g[e[dim]] == -7, "global_indices dim %d wrote past the local extent %lld", dim, (long long)e[dim]);
  }
  if (rank >= P) CHECK(e[0] == 0 && g[0] == -7, "outside the grid: extent %lld, nothing written", (long long)e[0]);
  /* The local extents along dim 0 add up to n0 over the grid, each index once (a rank outside holds none). */
  int64_t held = e[0], total = 0;
  MPI_Allreduce(&held, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  CHECK(total == n0, "dim 0 extents sum to %lld, not %lld", (long long)total, (long long)n0);
  CHECK(redist_layout_global_indices(l, MPI_COMM_WORLD, 3, g) == REDIST_ERROR, "dim 3");
  CHECK(strstr(redist_error_message(), "dim must be in [0, 3) (got 3)") != NULL, "message: %s", redist_error_message());
  CHECK(redist_layout_global_indices(l, MPI_COMM_WORLD, -1, g) == REDIST_ERROR, "dim -1");
  if (e[0] > 0) {
    CHECK(redist_layout_global_indices(l, MPI_COMM_WORLD, 0, NULL) == REDIST_ERROR, "NULL indices");
    CHECK(strstr(redist_error_message(), "indices must not be NULL") != NULL, "message: %s", redist_error_message());
  }
  OK(redist_layout_global_indices_f(l, MPI_Comm_c2f(MPI_COMM_WORLD), 1, g));
  OK(redist_layout_free(&l));
  free(g);
  free(sizes);
}

/* src and dst sharing bytes: 3 rows a rank (BLOCK, COLLAPSED) of 7 columns stored column-major ->
 * the same rows stored row-major, a local transposition that writes over almost every element. */
static double rc_value(int64_t gi, int64_t j) { return (double)(gi * 100 + j) + 0.25; }

static void overlap(void) {
  const int64_t rows = 3, m = rows * nprocs, n = 7, size = rows * n;
  redist_dim d[2] = {{REDIST_BLOCK, m, 0, NULL, nprocs, 0}, {REDIST_COLLAPSED, n, 0, NULL, 1, 0}};
  redist_layout cm = NULL, rm = NULL;
  OK(redist_layout_create(2, d, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, 0, &cm));
  OK(redist_layout_create(2, d, REDIST_ROW_MAJOR, 0, REDIST_ROW_MAJOR, 0, &rm));
  double* buf = malloc(sizeof(double) * (size_t)(size + 1)); /* + 1: buf + 1 is a source below */
  double* other = malloc(sizeof(double) * (size_t)size);
  double* back = malloc(sizeof(double) * (size_t)size);
  const int64_t g0 = rank * rows;
#define FILL_COLUMN_MAJOR(p) \
  for (int64_t j = 0; j < n; ++j)  \
    for (int64_t i = 0; i < rows; ++i) (p)[i + j * rows] = rc_value(g0 + i, j)
  redist_plan plan = NULL, scaled = NULL;
  OK(redist_plan_create(cm, rm, MPI_COMM_WORLD, sizeof(double), &plan));
  OK(redist_plan_create_op(cm, rm, MPI_COMM_WORLD, REDIST_DOUBLE, REDIST_OP_NONE, &scaled));

  /* The first run refuses an overlap on one rank (the last), on every rank, nothing moved. */
  FILL_COLUMN_MAJOR(buf);
  for (int64_t k = 0; k < size; ++k) other[k] = -1;
  const int last = rank == nprocs - 1;
  CHECK(redist_plan_execute(plan, buf, last ? buf : other) == REDIST_ERROR, "an overlap on rank %d is refused", nprocs - 1);
  CHECK(strstr(redist_error_message(), "src and dst must not overlap (on rank") != NULL, "message: %s", redist_error_message());
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < rows; ++i) CHECK(buf[i + j * rows] == rc_value(g0 + i, j), "refused: buf(%lld, %lld) = %g", (long long)i, (long long)j, buf[i + j * rows]);
  for (int64_t k = 0; k < size; ++k) CHECK(other[k] == -1, "refused: other[%lld] written", (long long)k);
  /* ... as does the scaled plan's (dst = 2 src + dst reads dst), and a source one element into dst. */
  const double two = 2, one = 1;
  CHECK(redist_plan_execute_scaled(scaled, &two, buf, &one, buf) == REDIST_ERROR, "a scaled overlap is refused");
  CHECK(strstr(redist_error_message(), "src and dst must not overlap") != NULL, "message: %s", redist_error_message());
  CHECK(redist_plan_execute(plan, buf + 1, buf) == REDIST_ERROR, "a source one element into dst is refused");

  /* After a first run on separate buffers, an overlap is read from a private copy: right values. */
  for (int rep_ = 0; rep_ < 3; ++rep_) {
    FILL_COLUMN_MAJOR(buf);
    if (rep_ == 0) OK(redist_plan_execute(plan, buf, other));
    else OK(redist_plan_execute(plan, buf, buf));
    const double* b = rep_ == 0 ? other : buf;
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < n; ++j)
        CHECK(b[i * n + j] == rc_value(g0 + i, j), "run %d, b(%lld, %lld) = %g", rep_, (long long)i, (long long)j, b[i * n + j]);
  }
  for (int rep_ = 0; rep_ < 2; ++rep_) {
    FILL_COLUMN_MAJOR(buf);
    for (int64_t k = 0; k < size; ++k) back[k] = 1;
    if (rep_ == 0) OK(redist_plan_execute_scaled(scaled, &two, buf, &one, back));
    else OK(redist_plan_execute_scaled(scaled, &two, buf, NULL, buf));
    const double* b = rep_ == 0 ? back : buf;
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < n; ++j) {
        const double want = 2 * rc_value(g0 + i, j) + (rep_ == 0 ? 1 : 0);
        CHECK(b[i * n + j] == want, "scaled run %d, b(%lld, %lld) = %g, not %g", rep_, (long long)i, (long long)j, b[i * n + j], want);
      }
  }
#undef FILL_COLUMN_MAJOR
  OK(redist_plan_free(&plan));
  OK(redist_plan_free(&scaled));
  OK(redist_layout_free(&cm));
  OK(redist_layout_free(&rm));
  free(buf);
  free(other);
  free(back);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  one_d();
  replicated();
  partial_sums();
  two_d();
  mapped();
  errors();
  queries();
  indirect();
  scaled_ops();
  many_dims();
  overlap();
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("capi: %s (%d failures, %d processes)\n", all == 0 ? "ok" : "FAILED", all, nprocs);
  MPI_Finalize();
  return all == 0 ? 0 : 1;
}
