/* redist from C (redist/c.h, libredist-c; doc/c-api.md): a load balancer's GEN_BLOCK layout,
 * process p holding 100 + 50 p elements, moved to CYCLIC(4) and back, and to CYCLIC(4) on a grid
 * placed on the ranks in reverse (redist_layout_set_ranks), and a histogram every rank counts
 * whole (REDIST_PARTIAL_SUM) summed into CYCLIC(4) bins, and a matrix of rows updated into
 * columns by c = 2 r^T + c (redist_plan_create_op: ScaLAPACK's PDTRAN on any layouts), with every
 * value checked.
 * Errors come back as return codes with a message that names the parameter. */
#include <redist/c.h>

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define TRY(call)                                                               \
  do {                                                                          \
    if ((call) != REDIST_SUCCESS) {                                             \
      fprintf(stderr, "%s\n", redist_error_message());                          \
      MPI_Abort(MPI_COMM_WORLD, 1);                                             \
    }                                                                           \
  } while (0)

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, nprocs;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

  int64_t* sizes = malloc(sizeof(int64_t) * (size_t)nprocs);
  int64_t n = 0, first = 0;
  for (int p = 0; p < nprocs; ++p) {
    sizes[p] = 100 + 50 * p;
    if (p < rank) first += sizes[p];
    n += sizes[p];
  }
  const redist_dim balanced = {REDIST_GEN_BLOCK, n, 0, sizes, nprocs, 0};
  const redist_dim dealt = {REDIST_CYCLIC, n, 4, NULL, nprocs, 0};
  redist_layout gen, cyc;
  TRY(redist_layout_create(1, &balanced, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, 0, &gen));
  TRY(redist_layout_create(1, &dealt, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, 0, &cyc));
  int64_t na, nb;
  TRY(redist_layout_local_size(gen, MPI_COMM_WORLD, &na));
  TRY(redist_layout_local_size(cyc, MPI_COMM_WORLD, &nb));
  double* a = malloc(sizeof(double) * (size_t)na);
  double* b = malloc(sizeof(double) * (size_t)nb);
  for (int64_t l = 0; l < na; ++l) a[l] = (double)(first + l); /* a(g) = g */

  redist_plan there, back;
  TRY(redist_plan_create(gen, cyc, MPI_COMM_WORLD, sizeof(double), &there));
  TRY(redist_plan_create(cyc, gen, MPI_COMM_WORLD, sizeof(double), &back));
  TRY(redist_plan_execute(there, a, b));
  int wrong = 0;
  /* Which global elements this rank holds, without the CYCLIC(4) formula: b[l] is element g[l]. */
  int64_t* g = malloc(sizeof(int64_t) * (size_t)(nb + 1));
  TRY(redist_layout_global_indices(cyc, MPI_COMM_WORLD, 0, g));
  for (int64_t l = 0; l < nb; ++l) wrong += b[l] != (double)g[l];
  for (int64_t l = 0; l < nb; ++l) /* CYCLIC(4): local l of rank r is global (l/4)*4P + 4r + l%4 */
    wrong += g[l] != (l / 4) * 4 * nprocs + 4 * rank + l % 4;
  free(g);
  for (int64_t l = 0; l < na; ++l) a[l] = -1;
  TRY(redist_plan_execute(back, b, a));
  for (int64_t l = 0; l < na; ++l) wrong += a[l] != (double)(first + l);

  /* The same CYCLIC(4) layout on a grid placed on the ranks in reverse (process p of the grid on
   * rank P - 1 - p, as a Cblacs_gridmap grid may place it): rank r then holds process P - 1 - r's
   * elements. */
  int* reversed = malloc(sizeof(int) * (size_t)nprocs);
  for (int p = 0; p < nprocs; ++p) reversed[p] = nprocs - 1 - p;
  redist_layout placed;
  TRY(redist_layout_create(1, &dealt, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, 0, &placed));
  TRY(redist_layout_set_ranks(placed, reversed));
  int64_t nc;
  TRY(redist_layout_local_size(placed, MPI_COMM_WORLD, &nc));
  double* c = malloc(sizeof(double) * (size_t)(nc + 1));
  redist_plan to_placed;
  TRY(redist_plan_create(cyc, placed, MPI_COMM_WORLD, sizeof(double), &to_placed));
  TRY(redist_plan_execute(to_placed, b, c));
  const int me = nprocs - 1 - rank;
  for (int64_t l = 0; l < nc; ++l) wrong += c[l] != (double)((l / 4) * 4 * nprocs + 4 * me + l % 4);
  redist_plan_free(&to_placed);
  redist_layout_free(&placed);
  free(reversed);
  free(c);

  /* Partial sums: every rank counts its own elements into a histogram of 16 bins, held whole
   * (REDIST_PARTIAL_SUM); folded into CYCLIC(4) bins, each the sum of the ranks' counts. Adding
   * needs the element type: redist_plan_create_typed. */
  const int64_t bins = 16;
  const redist_dim counts = {REDIST_PARTIAL_SUM, bins, 0, NULL, nprocs, 0};
  const redist_dim dealt_bins = {REDIST_CYCLIC, bins, 4, NULL, nprocs, 0};
  redist_layout lcounts, lbins;
  TRY(redist_layout_create(1, &counts, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, 0, &lcounts));
  TRY(redist_layout_create(1, &dealt_bins, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, 0, &lbins));
  int64_t mine[16] = {0}, nbins, summed[16];
  for (int64_t l = 0; l < sizes[rank]; ++l) ++mine[(first + l) % bins];  /* element g goes to bin g mod 16 */
  TRY(redist_layout_local_size(lbins, MPI_COMM_WORLD, &nbins));
  redist_plan add;
  TRY(redist_plan_create_typed(lcounts, lbins, MPI_COMM_WORLD, REDIST_INT64, &add));
  TRY(redist_plan_execute(add, mine, summed));
  for (int64_t l = 0; l < nbins; ++l) {
    const int64_t bin = (l / 4) * 4 * nprocs + 4 * rank + l % 4;
    wrong += summed[l] != n / bins + (bin < n % bins ? 1 : 0);  /* every element counted once */
  }
  redist_plan_free(&add);
  redist_layout_free(&lcounts);
  redist_layout_free(&lbins);

  /* c = 2 r^T + c: r is m x k in (BLOCK, COLLAPSED) rows, c its k x m transpose in (COLLAPSED,
   * CYCLIC(2)) columns, both column-major; r(i, j) = 10 i + j, c(j, i) = i before. */
  const int64_t m = 3 * nprocs + 1, k = 5, per = (m + nprocs - 1) / nprocs;
  const int64_t myrows = rank * per >= m ? 0 : (m - rank * per < per ? m - rank * per : per);
  const redist_dim rdims[2] = {{REDIST_BLOCK, m, 0, NULL, nprocs, 0}, {REDIST_COLLAPSED, k, 0, NULL, 1, 0}};
  const redist_dim cdims[2] = {{REDIST_COLLAPSED, k, 0, NULL, 1, 0}, {REDIST_CYCLIC, m, 2, NULL, nprocs, 0}};
  redist_layout lr, lc;
  TRY(redist_layout_create(2, rdims, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, 0, &lr));
  TRY(redist_layout_create(2, cdims, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, 0, &lc));
  int64_t ncol = 0;
  TRY(redist_layout_local_size(lc, MPI_COMM_WORLD, &ncol));
  double* r = malloc(sizeof(double) * (size_t)(myrows * k + 1));
  double* ct = malloc(sizeof(double) * (size_t)(ncol + 1));
  int64_t* ci = malloc(sizeof(int64_t) * (size_t)(ncol / k + 1));
  TRY(redist_layout_global_indices(lc, MPI_COMM_WORLD, 1, ci)); /* the global i of each local column */
  for (int64_t j = 0; j < k; ++j)
    for (int64_t i = 0; i < myrows; ++i) r[i + j * myrows] = (double)(10 * (rank * per + i) + j);
  for (int64_t l = 0; l < ncol / k; ++l)
    for (int64_t j = 0; j < k; ++j) ct[j + l * k] = (double)ci[l];
  redist_plan tr;
  const double alpha = 2.0, beta = 1.0;
  TRY(redist_plan_create_op(lr, lc, MPI_COMM_WORLD, REDIST_DOUBLE, REDIST_OP_TRANSPOSE, &tr));
  TRY(redist_plan_execute_scaled(tr, &alpha, r, &beta, ct));
  for (int64_t l = 0; l < ncol / k; ++l)
    for (int64_t j = 0; j < k; ++j) wrong += ct[j + l * k] != 2.0 * (double)(10 * ci[l] + j) + (double)ci[l];
  redist_plan_free(&tr);
  redist_layout_free(&lr);
  redist_layout_free(&lc);
  free(r);
  free(ct);
  free(ci);

  /* A bad argument: a message, no exit. */
  const redist_dim bad = {REDIST_CYCLIC, n, 0, NULL, nprocs, 0};
  redist_layout none;
  if (redist_layout_create(1, &bad, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, 0, &none) == REDIST_ERROR && rank == 0)
    printf("as expected: %s\n", redist_error_message());

  int total = 0;
  MPI_Allreduce(&wrong, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("redist %s: GEN_BLOCK -> CYCLIC(4) -> GEN_BLOCK of %lld elements, partial histograms summed, c = 2 r^T + c on %d processes: %s\n",
                        redist_version(), (long long)n, nprocs, total == 0 ? "every value right" : "WRONG VALUES");
  redist_plan_free(&there);
  redist_plan_free(&back);
  redist_layout_free(&gen);
  redist_layout_free(&cyc);
  free(sizes);
  free(a);
  free(b);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
