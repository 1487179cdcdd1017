// The ScaLAPACK bridge: a 500 × 300 matrix moved between two ScaLAPACK layouts (64 × 64 blocks on
// a 2 × 2 grid, 100 × 100 blocks on a 4 × 1 grid) both ways, with redist::gemr2d on descriptors
// and with DistArrays built from the descriptors. Pure redist: no BLACS or ScaLAPACK is linked.
// Runs on any number of processes (with fewer than 4, the grids are 1 × P and P × 1).
#include <array>
#include <cstdio>
#include <functional>

#include <boost/mpi/collectives/all_reduce.hpp>

#include <redist/interop/scalapack.hpp>
#include <redist/redist.hpp>

namespace scalapack = redist::scalapack;
using redist::index_t;

namespace {
double value_of(index_t i, index_t j) { return static_cast<double>(i) * 1000.0 + static_cast<double>(j); }

/// Every local element of a holds value_of(global (i, j) + shift), for the rows and columns of [lo, hi).
template <class A>
bool holds(const A& a, std::array<index_t, 2> lo, std::array<index_t, 2> hi, std::array<index_t, 2> shift) {
  const auto e = a.local_extents();
  for (index_t lj = 0; lj < e[1]; ++lj)
    for (index_t li = 0; li < e[0]; ++li) {
      const auto g = a.global_index({li, lj});
      if (g[0] < lo[0] || g[0] >= hi[0] || g[1] < lo[1] || g[1] >= hi[1]) continue;
      if (a.local()[static_cast<std::size_t>(li + lj * a.leading_dimension())] != value_of(g[0] + shift[0], g[1] + shift[1]))
        return false;
    }
  return true;
}
}  // namespace

int main(int argc, char* argv[]) {
  boost::mpi::environment env(argc, argv);
  boost::mpi::communicator world;
  const int p = world.size();
  const int m = 500, n = 300;

  // Two BLACS grids, as ScaLAPACK would have them (BlacsGrid: nprow, npcol, order, first rank).
  const scalapack::BlacsGrid square = p >= 4 ? scalapack::BlacsGrid{2, 2} : scalapack::BlacsGrid{1, p};
  const scalapack::BlacsGrid column{p >= 4 ? 4 : p, 1};

  // Matrices with ScaLAPACK's layouts, allocated by redist; descriptor() gives their DESC arrays
  // (the context number is the caller's: any value but -1 on the processes of the grid).
  redist::DistArray<double, redist::Dist<redist::Cyclic<>, redist::Cyclic<>>> a_64(
      world, {m, n}, redist::Dist{redist::Cyclic<>{64}, redist::Cyclic<>{64}}, square.grid());
  const scalapack::Descriptor desc_64 = scalapack::descriptor(a_64, /*ctxt=*/0);
  // Or the other way round: DESCINIT's descriptor, then the array it describes.
  const scalapack::Descriptor desc_100 = scalapack::make_descriptor(m, n, 100, 100, 0, 0, /*ctxt=*/1, column, world.rank());
  auto b_100 = scalapack::make_dist_array<double>(world, desc_100, column);

  const auto e = a_64.local_extents();
  for (index_t lj = 0; lj < e[1]; ++lj)
    for (index_t li = 0; li < e[0]; ++li) {
      const auto g = a_64.global_index({li, lj});
      a_64.local()[static_cast<std::size_t>(li + lj * a_64.leading_dimension())] = value_of(g[0], g[1]);
    }

  // PDGEMR2D's call: B = A, the whole matrix (1-based ia, ja, ib, jb).
  redist::gemr2d(m, n, a_64.local().data(), 1, 1, desc_64, square, b_100.local().data(), 1, 1, desc_100, column, world);
  bool ok = holds(b_100, {0, 0}, {m, n}, {0, 0});

  // And a sub-matrix back: A(11:210, 21:120) = B(1:200, 1:100).
  redist::gemr2d(index_t{200}, index_t{100}, b_100.local().data(), 1, 1, desc_100, column, a_64.local().data(), 11, 21,
                 desc_64, square, world);
  ok = ok && holds(a_64, {10, 20}, {210, 120}, {-10, -20}) && holds(a_64, {210, 0}, {m, n}, {0, 0});

  // The same moves with DistArrays built from the descriptors: `=` redistributes.
  auto c_64 = scalapack::make_dist_array<double>(world, desc_64, square);
  c_64 = a_64;
  b_100 = c_64;
  ok = ok && holds(b_100, {10, 20}, {210, 120}, {-10, -20}) && holds(b_100, {210, 0}, {m, n}, {0, 0});

  ok = boost::mpi::all_reduce(world, ok, std::logical_and<bool>());
  if (world.rank() == 0)
    std::printf("%s: %lld x %lld between %d x %d grid (64 x 64 blocks) and %d x %d grid (100 x 100 blocks), both ways\n",
                ok ? "ok" : "FAILED", static_cast<long long>(m), static_cast<long long>(n), square.nprow, square.npcol,
                column.nprow, column.npcol);
  return ok ? 0 : 1;
}
