// MPI tests of N-D arrays: every small grid pair of 1-4 processes, different source and target process counts, transpose, errors on every rank.
#include <array>
#include <random>
#include <vector>

#include <boost/mpi/communicator.hpp>
#include <catch2/catch.hpp>

#include <redist/redist.hpp>

#include "../support/array_values_nd.hpp"
#include "../support/mpi_check.hpp"

// This file's names, apart from the other files of its program: meson compiles them together
// (unity build).
namespace mpi_test_grid {

using namespace redist;
namespace mpi = boost::mpi;
using redist::test::all_ok;
using redist::test::fill_nd;
using redist::test::holds_nd;

namespace {
double value_of(const std::array<index_t, 2>& g) { return 0.25 + static_cast<double>(g[0]) * 1000.0 + static_cast<double>(g[1]); }
double value_of3(const std::array<index_t, 3>& g) {
  return static_cast<double>(g[0]) + 100.0 * static_cast<double>(g[1]) + 10000.0 * static_cast<double>(g[2]);
}

/// Every grid shape of at most nprocs processes, among the 1x1, 2x1, 1x2, 2x2, 1x3, 3x1, 4x1, 1x4 of the issue.
std::vector<std::array<int, 2>> grids_up_to(int nprocs) {
  std::vector<std::array<int, 2>> all{{1, 1}, {2, 1}, {1, 2}, {2, 2}, {1, 3}, {3, 1}, {4, 1}, {1, 4}}, fit;
  for (auto g : all)
    if (g[0] * g[1] <= nprocs) fit.push_back(g);
  return fit;
}
}  // namespace

TEST_CASE("b = a between block-cyclic matrices on every pair of small grids", "[mpi][grid][2d]") {
  mpi::communicator world;
  using A = Dist<Cyclic<>, Cyclic<>>;
  using B = Dist<Cyclic<>, Block>;
  std::mt19937_64 rng(7);
  bool ok = true;
  for (auto ga : grids_up_to(world.size()))
    for (auto gb : grids_up_to(world.size())) {
      const std::array<index_t, 2> ext{static_cast<index_t>(1 + rng() % 37), static_cast<index_t>(1 + rng() % 29)};
      const A da{Cyclic<>{1 + rng() % 5}, Cyclic<>{1 + rng() % 7}};
      const B db{Cyclic<>{1 + rng() % 9}, Block{}};
      const std::array<int, 2> off{static_cast<int>(rng() % ga[0]), static_cast<int>(rng() % ga[1])};
      const Grid grid_a = Grid{ga[0], ga[1]}.with_order(rng() % 2 ? row_major : column_major);
      const Grid grid_b = Grid{gb[0], gb[1]}.with_first(static_cast<int>(rng() % (world.size() - gb[0] * gb[1] + 1)));
      DistArray<double, A> a(world, ext, da, grid_a, off);
      DistArray<double, B> b(world, ext, db, grid_b, {0, 0}, Storage{rng() % 2 ? row_major : column_major, 0});
      fill_nd(a, value_of);
      b = a;
      ok = ok && holds_nd(b, value_of);
      // And back, into the first layout.
      fill_nd(a, [](const auto&) { return -1.0; });
      a = b;
      ok = ok && holds_nd(a, value_of);
    }
  CHECK(all_ok(world, ok));
}

TEST_CASE("balanced_grid: every process, extents as even as they factor, non-increasing", "[mpi][grid][balanced]") {
  mpi::communicator world;
  const int p = world.size();
  // MPI_Dims_create's balanced factorizations of 1-8 processes.
  const std::array<std::array<int, 2>, 8> two{{{1, 1}, {2, 1}, {3, 1}, {2, 2}, {5, 1}, {3, 2}, {7, 1}, {4, 2}}};
  const std::array<std::array<int, 3>, 8> three{{{1, 1, 1}, {2, 1, 1}, {3, 1, 1}, {2, 2, 1}, {5, 1, 1}, {3, 2, 1}, {7, 1, 1}, {2, 2, 2}}};
  const auto g2 = balanced_grid<2>(world);
  const auto g3 = balanced_grid<3>(MPI_COMM_WORLD);
  const auto g1 = balanced_grid<1>(world);
  CHECK(g1.extent(0) == p);
  CHECK(g2.extent(0) * g2.extent(1) == p);
  CHECK(g2.extent(0) >= g2.extent(1));
  CHECK(g3.extent(0) * g3.extent(1) * g3.extent(2) == p);
  if (p <= 8) {
    const auto k = static_cast<std::size_t>(p - 1);
    CHECK(std::array<int, 2>{g2.extent(0), g2.extent(1)} == two[k]);
    CHECK(std::array<int, 3>{g3.extent(0), g3.extent(1), g3.extent(2)} == three[k]);
  }
  // A grid to declare arrays on, as any other.
  DistArray<double, Dist<Block, Cyclic<2>>> a(world, {9, 7}, g2);
  CHECK(all_ok(world, a.coords().has_value()));
}

TEST_CASE("for_each_local visits every local element once, in storage order, with its global index",
          "[mpi][grid][for_each_local]") {
  mpi::communicator world;
  const int p = world.size();
  // Writes value_of(g) through for_each_local, checks it by the array's own index functions, and
  // counts the visits: each local element once, and (without copies) every global element on one rank.
  auto check = [&](auto& a, index_t global_elements) {
    index_t visits = 0, out_of_order = 0;
    std::ptrdiff_t last = -1;
    const auto* base = a.local().data();
    for_each_local(a, [&](const auto& g, double& x) {
      ++visits;
      if (&x - base < last) ++out_of_order;
      last = &x - base;
      x = value_of(g);
    });
    index_t local = 1;
    for (index_t e : a.local_extents()) local *= e;
    if (!a.coords()) local = 0;
    bool ok = visits == local && out_of_order == 0 && holds_nd(a, value_of);
    // A const array: read-only elements, the same indices.
    const auto& c = a;
    for_each_local(c, [&](const std::array<index_t, 2>& g, const double& x) { ok = ok && x == value_of(g); });
    index_t all = 0;
    boost::mpi::all_reduce(world, visits, all, std::plus<>());
    return ok && (global_elements < 0 || all == global_elements);
  };
  const Grid g = p % 2 == 0 ? Grid{p / 2, 2} : Grid{p, 1};
  DistArray<double, Dist<Block, Cyclic<>>> cm(world, {23, 17}, Dist{Block{}, Cyclic<>{3}}, g);
  CHECK(all_ok(world, check(cm, 23 * 17)));
  DistArray<double, Dist<Cyclic<>, Block>> rm(world, {9, 31}, Dist{Cyclic<>{2}, Block{}}, g, {0, 0}, Storage{row_major, 40});
  CHECK(all_ok(world, check(rm, 9 * 31)));
  DistArray<double, Dist<Block, Replicated>> rows(world, {13, 5}, g);  // copies: every rank visits its own
  CHECK(all_ok(world, check(rows, -1)));
  DistArray<double, Dist<Block, Block>> part(world, {7, 6}, Grid{1, 1}.with_first(p - 1));  // ranks outside hold nothing
  CHECK(all_ok(world, check(part, 7 * 6)));
  // A view over padded caller memory, column-major, leading dimension 11.
  std::vector<double> memory(static_cast<std::size_t>(DistView<double, Dist<Block, Block>>::required_span_size(world, {10, 4}, g, {}, Storage{column_major, 11})), -1.0);
  DistView<double, Dist<Block, Block>> v(memory, world, {10, 4}, g, {}, Storage{column_major, 11});
  CHECK(all_ok(world, check(v, 10 * 4)));
  // 1-D, by an index_t; 3-D, by a multi-index.
  DistArray<double, Cyclic<3>> line(world, 100);
  for_each_local(line, [](index_t i, double& x) { x = 2.0 * static_cast<double>(i); });
  bool ok = true;
  for (index_t l = 0; l < line.local_size(); ++l) ok = ok && line.local()[static_cast<std::size_t>(l)] == 2.0 * static_cast<double>(line.global_index(l));
  CHECK(all_ok(world, ok));
  DistArray<double, Dist<Block, Cyclic<>, Block>> cube(world, {5, 6, 7}, Dist{Block{}, Cyclic<>{2}, Block{}}, Grid{p, 1, 1},
                                                        {0, 0, 0}, Storage{row_major, 0});
  for_each_local(cube, [](const std::array<index_t, 3>& i, double& x) { x = value_of3(i); });
  CHECK(all_ok(world, holds_nd(cube, value_of3)));
}

TEST_CASE("A repeated b = a reuses its plan", "[mpi][grid][plan]") {
  mpi::communicator world;
  using A = Dist<Cyclic<4>, Cyclic<4>>;
  using B = Dist<Block, Collapsed>;
  DistArray<double, A> a(world, {50, 30}, Grid{1, world.size()});
  DistArray<double, B> b(world, {50, 30}, Grid{world.size(), 1});
  fill_nd(a, value_of);
  b = a;
  const std::size_t built = plans_built();
  for (int i = 0; i < 3; ++i) b = a;
  CHECK(plans_built() == built);
  CHECK(all_ok(world, holds_nd(b, value_of)));
}

TEST_CASE("Different source and target process counts, ranks outside a grid hold nothing", "[mpi][grid][subset]") {
  mpi::communicator world;
  using D = Dist<Cyclic<3>, Cyclic<2>>;
  // Source on the first process only, target on all, and back; then the last process alone.
  DistArray<double, D> one(world, {23, 17}, Grid{1, 1});
  DistArray<double, D> all(world, {23, 17}, Grid{world.size(), 1}, {world.size() - 1, 0});
  DistArray<double, D> last(world, {23, 17}, Grid{1, 1}.with_first(world.size() - 1), {}, Storage{column_major, 40});
  CHECK((world.rank() == 0 || one.local().empty()));
  fill_nd(one, value_of);
  all = one;
  bool ok = holds_nd(all, value_of);
  last = all;
  ok = ok && holds_nd(last, value_of);
  if (world.rank() == world.size() - 1) CHECK(last.leading_dimension() == 40);
  CHECK(all_ok(world, ok));
}

TEST_CASE("b = transpose(a) is the corner turn, fused with the redistribution", "[mpi][grid][transpose]") {
  mpi::communicator world;
  using Rows = Dist<Block, Collapsed>;
  using Cols = Dist<Collapsed, Block>;
  const index_t m = 13, n = 21;
  DistArray<double, Rows> a(world, {m, n}, Grid{world.size(), 1});
  DistArray<double, Cols> at(world, {n, m}, Grid{1, world.size()});
  DistArray<double, Dist<Cyclic<2>, Cyclic<3>>> ac(world, {n, m}, Grid{1, world.size()}, {0, 0}, Storage{row_major, 0});
  fill_nd(a, value_of);
  auto transposed = [](const std::array<index_t, 2>& g) { return value_of({g[1], g[0]}); };
  at = transpose(a);
  bool ok = holds_nd(at, transposed);
  redistribute(transpose(a), ac);
  ok = ok && holds_nd(ac, transposed);
  CHECK(all_ok(world, ok));
  CHECK_THROWS_AS(a = transpose(a), redist::error);  // extents do not match (13 x 21 vs 21 x 13)
}

TEST_CASE("3-D arrays on 3-D grids", "[mpi][grid][3d]") {
  mpi::communicator world;
  const int p = world.size();
  using A = Dist<Block, Cyclic<2>, Collapsed>;
  using B = Dist<Cyclic<3>, Collapsed, Block>;
  DistArray<double, A> a(world, {9, 10, 7}, Grid{1, p, 1});
  DistArray<double, B> b(world, {9, 10, 7}, Grid{p, 1, 1}.with_order(column_major), {0, 0, 0}, Storage{row_major, 0});
  fill_nd(a, value_of3);
  b = a;
  CHECK(all_ok(world, holds_nd(b, value_of3)));
}

TEST_CASE("5-D arrays on 5-D grids: no rank limit", "[mpi][grid][5d]") {
  mpi::communicator world;
  const int p = world.size();
  using A = Dist<Block, Cyclic<2>, Collapsed, Cyclic<1>, Block>;
  using B = Dist<Cyclic<3>, Collapsed, Block, Block, Cyclic<2>>;
  const std::array<index_t, 5> e{5, 4, 3, 6, 4};
  auto value_of5 = [&](const std::array<index_t, 5>& g) {
    return static_cast<double>((((g[4] * e[3] + g[3]) * e[2] + g[2]) * e[1] + g[1]) * e[0] + g[0]);
  };
  DistArray<double, A> a(world, e, Grid{1, p, 1, 1, 1});
  DistArray<double, B> b(world, e, Grid{1, 1, 1, 1, p}.with_order(column_major), {0, 0, 0, 0, p - 1},
                         Storage{row_major, 0});
  DistArray<double, A> c(world, e, Grid{1, 1, 1, p, 1}, {0, 0, 0, p / 2, 0});
  fill_nd(a, value_of5);
  b = a;
  CHECK(all_ok(world, holds_nd(b, value_of5)));
  c = b;
  CHECK(all_ok(world, holds_nd(c, value_of5)));
}

TEST_CASE("Bad N-D arguments throw redist::error on every rank before data moves", "[mpi][grid][errors]") {
  mpi::communicator world;
  using D = Dist<Cyclic<2>, Cyclic<2>>;
  using Catch::Matchers::Contains;
  CHECK_THROWS_WITH((DistArray<double, D>(world, {8, 8}, Grid{world.size() + 1, 1})), Contains("requires the grid to fit the communicator"));
  CHECK_THROWS_WITH((DistArray<double, D>(world, {8, 8}, Grid{1, 1}, {1, 0})), Contains("offsets[0]"));
  CHECK_THROWS_WITH((DistArray<double, Dist<Block, Collapsed>>(world, {8, 8}, Grid{1, 2})),
                    Contains("redist::Collapsed (HPF's '*': the dimension is not split) requires a grid extent of 1 along "
                             "its dimension (got 2)"));
  // Negative extents, named as the caller wrote them.
  CHECK_THROWS_WITH((DistArray<double, D>(world, {8, -3}, Grid{1, 1})),
                    Contains("redist::DistArray(comm, extents, grid) requires extents[1] to be >= 0 (got -3)"));
  CHECK_THROWS_WITH((DistArray<double, Block>(world, -1)), Contains("redist::DistArray(comm, n, ...) requires n to be >= 0 (got -1)"));
  // Ranks that disagree on the extents.
  if (world.size() > 1)
    CHECK_THROWS_WITH((DistArray<double, D>(world, {8, world.rank() == 0 ? index_t{8} : index_t{9}}, Grid{1, 1})),
                      Contains("same extents"));
  DistArray<double, D> a(world, {8, 8}, Grid{world.size(), 1});
  DistArray<double, D> b(world, {8, 9}, Grid{world.size(), 1});
  fill_nd(b, value_of);
  CHECK_THROWS_WITH(b = a, Contains("same extents"));
  CHECK(all_ok(world, holds_nd(b, value_of)));  // b is untouched
  CHECK_THROWS_WITH((DistArray<double, D>(world, {8, 8}, Grid{1, 1}, {0, 0}, Storage{column_major, 3})),
                    Contains("storage.ld"));
}

TEST_CASE("N-D redistribution under every schedule, and pipelined under a scratch budget", "[mpi][grid][schedule]") {
  mpi::communicator world;
  using A = Dist<Cyclic<3>, Cyclic<2>>;
  using B = Dist<Cyclic<5>, Block>;
  const int p = world.size();
  DistArray<double, A> a(world, {41, 23}, Grid{p, 1});
  DistArray<double, B> b(world, {41, 23}, Grid{1, p}.with_order(column_major), {0, p - 1});
  fill_nd(a, value_of);
  bool ok = true;
  auto check = [&](auto policy, const options& opts) {
    fill_nd(b, [](const auto&) { return -1.0; });
    redistribute(a, b, policy, opts);
    ok = ok && holds_nd(b, value_of);
  };
  check(schedule::all_at_once, default_options());
  check(schedule::caterpillar, default_options());
  check(schedule::relative_group, default_options());
  options tight = default_options();
  tight.max_scratch_bytes = 24 * sizeof(double);  // pieces of a few elements per message
  check(schedule::automatic, tight);
  check(schedule::relative_group, tight);
  CHECK(all_ok(world, ok));
}

}  // namespace mpi_test_grid
