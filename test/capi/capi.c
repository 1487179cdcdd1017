/* The C interface (redist/c.h) from C, at any number of processes: a 1-D GEN_BLOCK -> CYCLIC(4)
 * case, a 2-D case from (BLOCK, COLLAPSED) rows with a padded leading dimension to a ScaLAPACK
 * descriptor's layout, a grid placed by a rank map, CYCLIC(4) -> REPLICATED and back into BLOCK, partial sums
 * (REDIST_PARTIAL_SUM, plans of a given element type: doubles, int64 and complex) into BLOCK, REPLICATED and
 * back into partial sums, and errors: each is checked element by
 * element against local -> global index formulas written here, independent of redist. Exits non-zero on any failure. */
#include <redist/c.h>

#include <complex.h>
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
  OK(redist_layout_free(&from));
  OK(redist_layout_free(&to));
  free(a);
  free(b);
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

static void errors(void) {
  redist_layout l = NULL, good = NULL;
  redist_dim bad = {7, 10, 0, NULL, nprocs, 0};
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
  const size_t size = rank == nprocs - 1 ? 3 : 8;
  CHECK(redist_plan_create(good, good, MPI_COMM_WORLD, size, &plan) == REDIST_ERROR, "element_size 3 on one rank");
  CHECK(strstr(redist_error_message(), "element_size") != NULL, "message: %s", redist_error_message());
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
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("capi: %s (%d failures, %d processes)\n", all == 0 ? "ok" : "FAILED", all, nprocs);
  MPI_Finalize();
  return all == 0 ? 0 : 1;
}
