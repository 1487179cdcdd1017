// Replicated placements: a panel of a block-cyclic matrix replicated along the grid's columns
// (Elemental's [MC,*], DTensor's (Shard(0), Replicate())), every column of the grid then reading its
// own copy, and a vector every rank holds whole. `b = a` moves into and out of copies like any
// other layout; what a rank already holds as a copy does not move (explain: no message). Partial
// sums along the grid's columns (DTensor's Partial(), what a product with its inner dimension split
// leaves) fold into the copies: the pattern of an all-reduce, which the second assignment times
// against messages (explain names the wire it kept); then a scaled update of the partial sums in
// one fused exchange with another assignment. Last, a grid of higher rank than the array
// (DTensor's 3-D mesh for a 2-D tensor): the extra axis is an array dimension of extent 1, and the
// 2-D tensor the section that drops it.
#include <cstdio>
#include <functional>
#include <string>

#include <boost/mpi/collectives/all_reduce.hpp>

#include <redist/redist.hpp>

using redist::index_t;

int main(int argc, char* argv[]) {
  boost::mpi::environment env(argc, argv);
  boost::mpi::communicator world;
  const auto grid = redist::balanced_grid<2>(world);  // 2 x 2 on 4 ranks, P x 1 on a prime P
  const index_t m = 96, n = 40;
  auto value = [](index_t i, index_t j) { return static_cast<double>(i) * 1000.0 + static_cast<double>(j); };

  // The matrix, 8 x 8 blocks cyclically on the grid, ScaLAPACK's layout.
  using BlockCyclic = redist::Dist<redist::Cyclic<8>, redist::Cyclic<8>>;
  redist::DistArray<double, BlockCyclic> a(world, {m, n}, grid);
  auto fill = [&](auto& x, auto&& f) {
    const auto e = x.local_extents();
    for (index_t j = 0; j < e[1]; ++j)
      for (index_t i = 0; i < e[0]; ++i) {
        const auto g = x.global_index({i, j});
        x.local()[static_cast<std::size_t>(x.local_offset({i, j}))] = f(g[0], g[1]);
      }
  };
  auto holds = [&](const auto& x, auto&& f) {
    bool ok = true;
    const auto e = x.local_extents();
    for (index_t j = 0; j < e[1]; ++j)
      for (index_t i = 0; i < e[0]; ++i) {
        const auto g = x.global_index({i, j});
        ok = ok && x.local()[static_cast<std::size_t>(x.local_offset({i, j}))] == f(g[0], g[1]);
      }
    return boost::mpi::all_reduce(world, ok, std::logical_and<bool>());
  };
  fill(a, value);

  // Rows in blocks over the grid's rows, every grid column a copy of them: [MC,*].
  using Rows = redist::Dist<redist::Block, redist::Replicated>;
  redist::DistArray<double, Rows> rows(world, {m, n}, grid);
  rows = a;
  bool ok = holds(rows, value);

  // Out of the copies into (Block, Block) on the same grid: each rank extracts its block.
  redist::DistArray<double, redist::Dist<redist::Block, redist::Block>> b(world, {m, n}, grid);
  const auto plan = redist::explain(rows, b);
  b = rows;
  ok = ok && holds(b, value);
  const bool none = boost::mpi::all_reduce(world, plan.messages == 0, std::logical_and<bool>());

  // A vector every rank holds whole: column 7 of the matrix, gathered from the copies.
  redist::DistArray<double, redist::Replicated> x(world, m);
  redist::section(x, redist::full_extent) = redist::section(rows, redist::full_extent, index_t{7});
  bool whole = x.local_size() == m;
  for (index_t i = 0; i < x.local_size(); ++i) whole = whole && x.local()[static_cast<std::size_t>(i)] == value(i, 7);
  ok = ok && boost::mpi::all_reduce(world, whole, std::logical_and<bool>());

  // Partial sums: grid column c holds its share of each element (column 0 the value less the
  // others' 1.0 each); assigned into the copies, every copy holds the sum. Three times: the second
  // times the messages against one MPI_Allreduce per grid row and keeps the faster.
  using Sums = redist::Dist<redist::Block, redist::Partial<>>;
  redist::DistArray<double, Sums> partial(world, {m, n}, grid);
  const int col = partial.coords() ? (*partial.coords())[1] : 0;
  const int shares = grid.extent(1);
  fill(partial, [&](index_t i, index_t j) { return col == 0 ? value(i, j) - (shares - 1) : 1.0; });
  for (int k = 0; k < 3; ++k) {
    rows = partial;
    ok = ok && holds(rows, value);
  }
  const std::string wire = redist::explain(partial, rows).transport;

  // A scaled update of partial sums, in one exchange with another assignment: b = 2 * partial - b
  // (each contribution times 2 added to -b where it arrives) and the copies into a's layout.
  fill(b, value);
  redist::assign(b <<= 2.0 * partial + -1.0 * b, a <<= rows);
  ok = ok && holds(b, value) && holds(a, value);

  // (Shard(0), Replicate(), Partial()) on a 3-D mesh: rows in blocks over its first axis, copies
  // along the second (of extent 1 here), partial values along the third, whose array dimension has
  // extent 1. The 2-D tensor is the section that drops that dimension: assigned from it, the sums.
  const redist::Grid mesh{grid.extent(0), 1, grid.extent(1)};
  redist::DistArray<double, redist::Dist<redist::Block, redist::Replicated, redist::Partial<>>> t(world, {m, n, 1}, mesh);
  const int k = t.coords() ? (*t.coords())[2] : 0;
  const auto e = t.local_extents();
  for (index_t j = 0; j < e[1]; ++j)
    for (index_t i = 0; i < e[0]; ++i) {
      const auto g = t.global_index({i, j, 0});
      t.local()[static_cast<std::size_t>(t.local_offset({i, j, 0}))] = k == 0 ? value(g[0], g[1]) - (shares - 1) : 1.0;
    }
  b = redist::section(t, redist::full_extent, redist::full_extent, index_t{0});
  ok = ok && holds(b, value);

  if (world.rank() == 0)
    std::printf("%s: a %lld x %lld block-cyclic matrix replicated along the grid's columns, (Block, Block) read out of "
                "the copies with %s, a column held whole by every rank, partial sums folded into the copies (%s) and, "
                "scaled, into a matrix in one exchange with another; partial sums on a 3-D mesh summed into the "
                "matrix\n",
                ok && none ? "ok" : "FAILED", static_cast<long long>(m), static_cast<long long>(n),
                none ? "no message" : "messages (unexpected)", wire.c_str());
  return ok && none ? 0 : 1;
}
