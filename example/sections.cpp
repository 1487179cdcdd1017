// HPF array sections as typed assignments: an ADI-style update that writes the odd rows of a
// row-block matrix from the even rows of a column-cyclic one, B(2:N:2, :) = A(1:N-1:2, :) in
// Fortran, redist::section(b, ...) = redist::section(a, ...) here; then a row of one into a
// column of the other, and a transposed block.
#include <cstdio>
#include <functional>
#include <utility>

#include <boost/mpi/collectives/all_reduce.hpp>

#include <redist/redist.hpp>

using redist::full_extent;
using redist::index_t;
using redist::strided_slice;

int main(int argc, char* argv[]) {
  boost::mpi::environment env(argc, argv);
  boost::mpi::communicator world;
  const int p = world.size();
  const index_t n = 64;
  auto value = [](index_t i, index_t j) { return static_cast<double>(i) * 1000.0 + static_cast<double>(j); };

  redist::DistArray<double, redist::Dist<redist::Collapsed, redist::Cyclic<4>>> a(world, {n, n}, redist::Grid{1, p});
  redist::DistArray<double, redist::Dist<redist::Block, redist::Collapsed>> b(world, {n, n}, redist::Grid{p, 1});
  const auto ea = a.local_extents();
  for (index_t j = 0; j < ea[1]; ++j)
    for (index_t i = 0; i < ea[0]; ++i) {
      const auto g = a.global_index({i, j});
      a.local()[static_cast<std::size_t>(a.local_offset({i, j}))] = value(g[0], g[1]);
    }
  for (double& x : b.local()) x = -1.0;

  // B(2:N:2, :) = A(1:N-1:2, :): 0-based, rows 1, 3, ... of b get rows 0, 2, ... of a.
  redist::section(b, strided_slice{index_t{1}, n - 1, index_t{2}}, full_extent) =
      redist::section(a, strided_slice{index_t{0}, n - 1, index_t{2}}, full_extent);
  // Row 0 of b (an even row, untouched above) gets column 5 of a: an index drops a dimension.
  redist::section(b, index_t{0}, full_extent) = redist::section(a, full_extent, index_t{5});

  bool ok = true;
  const auto eb = b.local_extents();
  for (index_t j = 0; j < eb[1]; ++j)
    for (index_t i = 0; i < eb[0]; ++i) {
      const auto g = b.global_index({i, j});
      const double expect = g[0] % 2 == 1 ? value(g[0] - 1, g[1]) : g[0] == 0 ? value(g[1], 5) : -1.0;
      ok = ok && b.local()[static_cast<std::size_t>(b.local_offset({i, j}))] == expect;
    }
  ok = boost::mpi::all_reduce(world, ok, std::logical_and<bool>());
  if (world.rank() == 0)
    std::printf("%s: odd rows of a %lld x %lld row-block matrix from the even rows of a column-cyclic one, and a column into a row\n",
                ok ? "ok" : "FAILED", static_cast<long long>(n), static_cast<long long>(n));
  return ok ? 0 : 1;
}
