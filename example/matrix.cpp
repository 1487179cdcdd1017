// N-D arrays on process grids: a matrix in ScaLAPACK layouts (block-cyclic, source offsets,
// leading dimension), a change of grid and block size, the corner turn rows -> columns, a fused
// transpose, a 3-D array, the stepwise schedules, and a grid placed on any ranks. Runs on any
// number of processes.
#include <array>
#include <cstdio>
#include <functional>
#include <vector>

#include <boost/mpi/collectives/all_reduce.hpp>
#include <redist/redist.hpp>

namespace mpi = boost::mpi;
using redist::index_t;

namespace {
double f(const std::array<index_t, 2>& g) { return static_cast<double>(g[0]) * 10000.0 + static_cast<double>(g[1]); }

/// Whether every local element of the 2-D array a holds value(global index).
template <class A, class F>
bool holds(const A& a, F&& value) {
  const auto e = a.local_extents();
  for (index_t j = 0; j < e[1]; ++j)
    for (index_t i = 0; i < e[0]; ++i)
      if (a.local()[a.local_offset({i, j})] != value(a.global_index({i, j}))) return false;
  return true;
}
}  // namespace

int main(int argc, char* argv[]) {
  mpi::environment env(argc, argv);
  mpi::communicator world;
  const int p = world.size();
  const int rows = p % 2 == 0 ? 2 : 1;  // a 2 x (p/2) grid when p is even, 1 x p otherwise
  const index_t m = 500, n = 300;

  // A ScaLAPACK-style matrix: 64 x 64 blocks on a rows x cols grid numbered column-major (as a
  // BLACS "Col" grid), first block on grid row 1 (RSRC = 1), column-major local storage with a
  // padded leading dimension (LLD).
  using BlockCyclic64 = redist::Dist<redist::Cyclic<64>, redist::Cyclic<64>>;
  const auto grid = redist::Grid{rows, p / rows}.with_order(redist::column_major);
  redist::DistArray<double, BlockCyclic64> a(world, {m, n}, grid, {rows > 1 ? 1 : 0, 0},
                                             redist::Storage{redist::column_major, m + 4});
  // Every local element with its global index, in storage order (the padding left out).
  redist::for_each_local(a, [](const std::array<index_t, 2>& g, double& x) { x = f(g); });

  // Another block size on another grid shape: 100 x 100 blocks on p x 1.
  redist::DistArray<double, redist::Dist<redist::Cyclic<100>, redist::Cyclic<100>>> b(world, {m, n}, redist::Grid{p, 1});
  b = a;

  // The corner turn: whole rows per process -> whole columns per process (Collapsed = HPF '*').
  redist::DistArray<double, redist::Dist<redist::Block, redist::Collapsed>> by_rows(world, {m, n}, redist::Grid{p, 1});
  redist::DistArray<double, redist::Dist<redist::Collapsed, redist::Block>> by_cols(world, {m, n}, redist::Grid{1, p});
  by_rows = b;
  by_cols = by_rows;

  // The transpose, fused with a redistribution: at(i, j) = a(j, i), no intermediate copy.
  redist::DistArray<double, redist::Dist<redist::Block, redist::Collapsed>> at(world, {n, m}, redist::Grid{p, 1});
  at = redist::transpose(a);

  // A stepwise schedule instead of all messages at once: contention-free, max-degree steps.
  redist::DistArray<double, BlockCyclic64> back(world, {m, n}, grid, {rows > 1 ? 1 : 0, 0});
  redist::redistribute(by_cols, back, redist::schedule::relative_group);

  // A grid that uses only some of the processes: the last process alone holds everything.
  redist::DistArray<double, redist::Dist<redist::Block, redist::Block>> one(world, {m, n},
                                                                           redist::Grid{1, 1}.with_first(p - 1));
  one = back;

  // A grid placed on any ranks (as BLACS's Cblacs_gridmap makes): process k of a p x 1 grid on
  // rank p - 1 - k.
  std::vector<int> reversed(static_cast<std::size_t>(p));
  for (int k = 0; k < p; ++k) reversed[static_cast<std::size_t>(k)] = p - 1 - k;
  redist::DistArray<double, redist::Dist<redist::Cyclic<7>, redist::Block>> placed(
      world, {m, n}, redist::Grid{p, 1}.with_ranks(reversed));
  placed = one;

  bool ok = holds(b, f) && holds(by_cols, f) && holds(back, f) && holds(one, f) && holds(placed, f) &&
            holds(at, [](const std::array<index_t, 2>& g) { return f({g[1], g[0]}); });
  ok = boost::mpi::all_reduce(world, ok, std::logical_and<bool>());
  if (world.rank() == 0) {
    std::printf("element (499, 299): owner %d in a, %d in b, %d in by_cols; %s\n", a.owner({499, 299}),
                b.owner({499, 299}), by_cols.owner({499, 299}), ok ? "all values verified" : "WRONG VALUES");
  }
  return ok ? 0 : 1;
}
