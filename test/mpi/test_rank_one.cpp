// MPI tests of the 1-D array as the rank-1 case of Dist: one DistArray for 1-D and N-D, static
// rank-1 grids, raw MPI_Comm communicators, assignments between 1-D and Dist<D> arrays.
#include <array>
#include <string>

#include <boost/mpi/communicator.hpp>
#include <catch2/catch.hpp>

#include <redist/redist.hpp>

#include "../support/array_values.hpp"
#include "../support/array_values_nd.hpp"
#include "../support/mpi_check.hpp"

// This file's names, apart from the other files of its program: meson compiles them together
// (unity build).
namespace mpi_test_rank_one {

using namespace redist;
namespace mpi = boost::mpi;
using redist::test::all_ok;
using redist::test::throws_with;

namespace {
double value_of(index_t g) { return 0.25 + 2.0 * static_cast<double>(g); }
double value_nd(const std::array<index_t, 1>& g) { return value_of(g[0]); }
}  // namespace

TEST_CASE("A 1-D array is the rank-1 case of Dist: one array type, the same layout", "[mpi][rank1]") {
  mpi::communicator world;
  DistArray<double, Cyclic<3>> a_cyc3(world, 101);
  static_assert(std::is_same_v<DistArray<double, Cyclic<3>>::mapping_type, Dist<Cyclic<3>>::mapping>);
  static_assert(DistArray<double, Cyclic<3>>::rank() == 1);
  REQUIRE(a_cyc3.extents() == std::array<index_t, 1>{101});
  REQUIRE(a_cyc3.mapping().is_linear());
  // The 1-D queries are those of the rank-1 layout.
  for (index_t l = 0; l < a_cyc3.local_size(); ++l) {
    REQUIRE(a_cyc3.global_index(l) == a_cyc3.global_index(std::array<index_t, 1>{l})[0]);
    REQUIRE(a_cyc3.owner(a_cyc3.global_index(l)) == world.rank());
    REQUIRE(a_cyc3.local_index(a_cyc3.global_index(l)) == l);
  }
}

TEST_CASE("1-D and Dist<D> arrays assign both ways, on the whole communicator and on part of it", "[mpi][rank1]") {
  mpi::communicator world;
  const int p = world.size();
  DistArray<double, Cyclic<4>> a_cyc4(world, 203);
  redist::test::fill(a_cyc4, value_of);
  // Dist<GenBlock> on the whole communicator, Dist<Block> on its last rank only, Dist<Cyclic<2>> from grid offset 1.
  std::vector<index_t> sizes(static_cast<std::size_t>(p), 203 / p);
  sizes.back() += 203 % p;
  DistArray<double, Dist<GenBlock>> b_gen(world, {203}, Dist<GenBlock>{GenBlock(sizes)}, Grid{p});
  DistArray<double, Dist<Block>> c_last(world, {203}, Grid{1}.with_first(p - 1));
  DistArray<double, Dist<Cyclic<2>>> d_off(world, {203}, Grid{p}, {p > 1 ? 1 : 0});
  DistArray<double, Block> e_block(world, 203);
  b_gen = a_cyc4;
  REQUIRE(all_ok(world, redist::test::holds_nd(b_gen, value_nd)));
  c_last = b_gen;
  REQUIRE(all_ok(world, redist::test::holds_nd(c_last, value_nd)));
  REQUIRE(all_ok(world, c_last.local_size() == (world.rank() == p - 1 ? 203 : 0)));
  d_off = c_last;
  REQUIRE(all_ok(world, redist::test::holds_nd(d_off, value_nd)));
  e_block = d_off;
  REQUIRE(all_ok(world, redist::test::holds(e_block, value_of)));
}

TEST_CASE("A 1-D array takes its process count at compile time, Grid<P>{}", "[mpi][rank1][static]") {
  mpi::communicator world;
  auto run = [&]<std::size_t P>(Grid<P> grid) {
    // P in the array type: b = a runs on BasicCyclePlan<8, 5, P>'s static tables, no table work.
    if constexpr (P != dynamic) {
      DistArray<double, Cyclic<8>, Grid<P>> s8(world, 1000);
      DistArray s5(world, 1000, Cyclic<5>{}, grid);  // deduces DistArray<double, Cyclic<5>, Grid<P>>
      static_assert(decltype(s5)::static_nprocs() == P);
      redist::test::fill(s8, value_of);
      const std::size_t tables = tables_built(), plans = plans_built();
      s5 = s8;
      REQUIRE(all_ok(world, redist::test::holds(s5, value_of)));
      REQUIRE(all_ok(world, tables_built() == tables && plans_built() == plans + 1));
      auto p = make_plan(s5, s8, schedule::bcc);
      std::fill(s8.local().begin(), s8.local().end(), -1.0);
      p.execute(s5, s8);
      REQUIRE(all_ok(world, redist::test::holds(s8, value_of) && tables_built() == tables));
    }
    // P given at run time (the grid's value, not its type): the same result, templates computed at plan time.
    DistArray<double, Cyclic<8>> d8(world, 1000, grid);
    DistArray<double, Cyclic<5>> d5(world, 1000);
    redist::test::fill(d8, value_of);
    const std::size_t tables = tables_built();
    d5 = d8;
    REQUIRE(all_ok(world, redist::test::holds(d5, value_of)));
    REQUIRE(all_ok(world, tables_built() > tables));
  };
  switch (world.size()) {
    case 1: run(Grid<1>{}); break;
    case 2: run(Grid<2>{}); break;
    case 3: run(Grid<3>{}); break;
    case 4: run(Grid<4>{}); break;
    default: run(Grid{world.size()});
  }
  // A static grid of another size than the communicator: every rank throws, naming the grid.
  const auto wrong = [&](auto grid) {
    return throws_with([&] { DistArray<double, Cyclic<8>> bad(world, 10, grid); },
                       "requires the grid to hold every process of the communicator");
  };
  REQUIRE(all_ok(world, world.size() == 7 ? wrong(Grid<6>{}) : wrong(Grid<7>{})));
}

TEST_CASE("Arrays take a raw MPI_Comm wherever they take a communicator", "[mpi][rank1][comm]") {
  mpi::communicator world;
  DistArray<double, Block> a_block(MPI_COMM_WORLD, 77);
  DistArray<double, Cyclic<>> b_cyc(MPI_COMM_WORLD, 77, Cyclic<>(2));
  DistArray<double, Dist<Block, Collapsed>> m(MPI_COMM_WORLD, {world.size() * 3, 2}, Grid{world.size(), 1});
  REQUIRE(a_block.comm().size() == world.size());
  redist::test::fill(a_block, value_of);
  b_cyc = a_block;
  REQUIRE(all_ok(world, redist::test::holds(b_cyc, value_of)));
  REQUIRE(all_ok(world, m.local_extents() == std::array<index_t, 2>{3, 2}));
  // A communicator of the caller's own (a split): redist attaches to it and never frees it.
  MPI_Comm half = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, world.rank() % 2, world.rank(), &half);
  {
    DistArray<double, Block> h_block(half, 40);
    DistArray<double, Cyclic<3>> h_cyc(half, 40);
    redist::test::fill(h_block, value_of);
    h_cyc = h_block;
    REQUIRE(all_ok(world, redist::test::holds(h_cyc, value_of)));
  }
  MPI_Comm_free(&half);
}

TEST_CASE("Arrays with their extents in the type: constructed from the type, checked against it", "[mpi][rank1][static]") {
  mpi::communicator world;
  const int p = world.size();
  // 1-D: n from the type; the process count stays a run-time value here.
  DistArray<double, Cyclic<3>, void, Extents<101>> a_cyc3(world);
  DistArray<double, Block, void, Extents<101>> b_block(world, 101);
  static_assert(decltype(a_cyc3)::static_extent(0) == 101 && decltype(a_cyc3)::has_static_extents());
  REQUIRE(a_cyc3.size() == 101);
  redist::test::fill(a_cyc3, value_of);
  b_block = a_cyc3;
  REQUIRE(all_ok(world, redist::test::holds(b_block, value_of)));
  // An array without static extents assigns to and from one with them.
  DistArray<double, Cyclic<2>> c_cyc2(world, 101);
  c_cyc2 = b_block;
  REQUIRE(all_ok(world, redist::test::holds(c_cyc2, value_of)));
  // N-D: one static extent, one dynamic; the dynamic one is given, the static one checked.
  DistArray<double, Dist<Block, Cyclic<2>>, void, Extents<12, dynamic>> m1(world, {12, 3 * p}, Grid{p, 1});
  DistArray<double, Dist<Cyclic<1>, Block>, void, Extents<12, dynamic>> m2(world, {12, 3 * p}, Grid{1, p});
  redist::test::fill_nd(m1, [](const std::array<index_t, 2>& g) { return static_cast<double>(g[0] * 1000 + g[1]); });
  m2 = m1;
  REQUIRE(all_ok(world, redist::test::holds_nd(m2, [](const std::array<index_t, 2>& g) {
    return static_cast<double>(g[0] * 1000 + g[1]);
  })));
  // A grid type with a static extent: the layout keeps it (a Grid<dynamic, 1>), and assignments
  // to and from layouts of dynamic grids work as before.
  DistArray<double, Dist<Block, Cyclic<2>>, Grid<dynamic, 1>, Extents<12, dynamic>> m3(world, {12, 3 * p}, Grid{p, 1});
  static_assert(std::is_same_v<decltype(m3)::mapping_type::grid_type, Grid<dynamic, 1>>);
  m3 = m2;
  REQUIRE(all_ok(world, redist::test::holds_nd(m3, [](const std::array<index_t, 2>& g) {
    return static_cast<double>(g[0] * 1000 + g[1]);
  })));
  // Extents that contradict the type: every rank throws, naming the parameter, before any data moves.
  REQUIRE(all_ok(world, throws_with([&] { DistArray<double, Block, void, Extents<101>> bad(world, 100); },
                                    "requires n to be X's static extent 101 (got 100)")));
  REQUIRE(all_ok(world, throws_with(
                            [&] {
                              DistArray<double, Dist<Block, Block>, void, Extents<12, dynamic>> bad(world, {13, 2},
                                                                                                   Grid{p, 1});
                            },
                            "requires extent 0 to be X's static extent 12 (got 13)")));
}

}  // namespace mpi_test_rank_one
