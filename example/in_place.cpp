// Adopting redist in an existing code: the application owns its matrix (a std::vector in
// ScaLAPACK's block-cyclic layout, LLD padded, as a ScaLAPACK routine would leave it) and its own
// row-block buffer for a row-wise phase. redist wraps both in DistViews and moves the matrix into
// the row blocks and back, in place, with the application's MPI_Comm: no copy in, no copy out.
#include <array>
#include <cstdio>
#include <vector>

#include <mpi.h>

#include <redist/interop/scalapack.hpp>
#include <redist/redist.hpp>

namespace scalapack = redist::scalapack;
using redist::index_t;

int main(int argc, char* argv[]) {
  MPI_Init(&argc, &argv);  // the application's own MPI set-up: no Boost.MPI in sight
  int rank = 0, p = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  {
    const index_t m = 300, n = 200;
    // The application's ScaLAPACK matrix: 32 x 32 blocks on a 1 x P grid, LLD = local rows + 3.
    const scalapack::BlacsGrid grid{1, p};
    using Scalapack = redist::Dist<redist::Cyclic<>, redist::Cyclic<>>;
    const Scalapack blocks{redist::Cyclic<>{32}, redist::Cyclic<>{32}};
    const index_t lld = m + 3;
    const redist::Storage storage{redist::column_major, lld};
    std::vector<double> a(static_cast<std::size_t>(
        redist::DistView<double, Scalapack>::required_span_size(MPI_COMM_WORLD, {m, n}, blocks, grid.grid(), {0, 0}, storage)));
    redist::DistView<double, Scalapack> a_view(a, MPI_COMM_WORLD, {m, n}, blocks, grid.grid(), {0, 0}, storage);
    // Or from the ScaLAPACK descriptor the application already has:
    const scalapack::Descriptor desc = scalapack::descriptor(a_view, /*ctxt=*/0);
    auto same_view = scalapack::make_dist_view(a.data(), MPI_COMM_WORLD, desc, grid);
    const auto e = a_view.local_extents();
    for (index_t j = 0; j < e[1]; ++j)
      for (index_t i = 0; i < e[0]; ++i) {
        const auto g = a_view.global_index({i, j});
        a[static_cast<std::size_t>(i + j * lld)] = static_cast<double>(g[0]) * 1000.0 + static_cast<double>(g[1]);
      }

    // The application's row-block buffer for its row-wise phase (row-major, rows contiguous).
    using Rows = redist::Dist<redist::Block, redist::Collapsed>;
    const redist::Storage row_major{redist::row_major, 0};
    std::vector<double> rows(static_cast<std::size_t>(
        redist::DistView<double, Rows>::required_span_size(MPI_COMM_WORLD, {m, n}, redist::Grid{p, 1}, {0, 0}, row_major)));
    redist::DistView<double, Rows> rows_view(rows, MPI_COMM_WORLD, {m, n}, redist::Grid{p, 1}, {0, 0}, row_major);

    rows_view = same_view;           // ScaLAPACK layout -> row blocks, written into `rows` in place
    for (double& x : rows) x += 0.5;  // the row-wise phase
    a_view = rows_view;              // and back into the ScaLAPACK matrix, in place

    bool ok = true;
    for (index_t j = 0; j < e[1]; ++j)
      for (index_t i = 0; i < e[0]; ++i) {
        const auto g = a_view.global_index({i, j});
        ok = ok && a[static_cast<std::size_t>(i + j * lld)] == static_cast<double>(g[0]) * 1000.0 + static_cast<double>(g[1]) + 0.5;
      }
    int all = ok ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0)
      std::printf("%s: %lld x %lld ScaLAPACK matrix (LLD %lld) to row blocks and back in the application's memory\n",
                  all ? "ok" : "FAILED", static_cast<long long>(m), static_cast<long long>(n), static_cast<long long>(lld));
    if (!all) MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
}
