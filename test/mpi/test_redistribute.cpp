// MPI tests: every 1-D pair under mpirun, plan reuse, errors on every rank before data moves.
#include <cmath>
#include <random>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>
#include <boost/mpi/communicator.hpp>
#include <catch2/catch.hpp>

#include <redist/redist.hpp>

#include "../support/array_values.hpp"
#include "../support/mpi_check.hpp"
#include "../support/plan_count.hpp"
#include "../support/random_dists.hpp"

// This file's names, apart from the other files of its program: meson compiles them together
// (unity build).
namespace mpi_test_redistribute {

using namespace redist;
namespace mpi = boost::mpi;
namespace mp11 = boost::mp11;
using redist::test::all_ok;
using redist::test::fill;
using redist::test::holds;

using Dists1D = mp11::mp_list<Block, Cyclic<1>, Cyclic<3>, Cyclic<dynamic>, GenBlock>;
using Pairs1D = mp11::mp_product<mp11::mp_list, Dists1D, Dists1D>;

namespace {
double value_of(index_t g) { return 0.5 + 3.0 * static_cast<double>(g); }

}  // namespace

TEMPLATE_LIST_TEST_CASE("b = a is exact for every 1-D pair", "[mpi][1d]", Pairs1D) {
  using From = mp11::mp_first<TestType>;
  using To = mp11::mp_second<TestType>;
  mpi::communicator world;
  const int nprocs = world.size();
  std::mt19937_64 rng(99);  // same seed on every rank: same layouts everywhere
  std::vector<index_t> sizes{0, 1, 2, 3, 5, 17, 100, 1000, 4099};
  for (int t = 0; t < 3; ++t) sizes.push_back(static_cast<index_t>(rng() % 20000));
  for (index_t n : sizes) {
    const From df = redist::test::make_dist<From>(n, nprocs, rng);
    const To dt = redist::test::make_dist<To>(n, nprocs, rng);
    DistArray<double, From> a(world, n, df);
    DistArray<double, To> b(world, n, dt);
    fill(a, value_of);
    fill(b, [](index_t) { return -1.0; });
    b = a;
    INFO("n = " << n << ", P = " << nprocs);
    REQUIRE(all_ok(world, holds(b, value_of)));
    REQUIRE(all_ok(world, holds(a, value_of)));  // the source is untouched
  }
}

TEST_CASE("A repeated b = a between the same layouts does no planning", "[mpi][plan][cache]") {
  mpi::communicator world;
  DistArray<double, Cyclic<4>> a(world, 1000);
  DistArray<double, Cyclic<dynamic>> b(world, 1000, Cyclic<dynamic>(3));
  fill(a, value_of);
  const std::size_t first = redist::test::first_run_plans(a, b);
  const std::size_t before = plans_built();
  b = a;
  CHECK(plans_built() == before + first);
  // The second run is where automatic may time its candidates (each a plan built once; none on
  // one node with shared memory, where the node path runs the plan it has): after it, nothing.
  b = a;
  const std::size_t decided = plans_built();
  for (int i = 0; i < 5; ++i) b = a;
  CHECK(plans_built() == decided);
  REQUIRE(all_ok(world, holds(b, value_of)));
  redistribute(a, b);  // the function form shares the cache
  CHECK(plans_built() == decided);
  redistribute(a, b, schedule::all_at_once);  // another policy is another plan
  CHECK(plans_built() == decided + 1);
  redistribute(a, b, schedule::all_at_once);
  CHECK(plans_built() == decided + 1);
  b = a;  // the cache keeps one plan: automatic's is planned again (and decided on its second run)
  CHECK(plans_built() == decided + 1 + first);
  // Another source layout is planned once, then reused.
  DistArray<double, Block> c(world, 1000);
  fill(c, [](index_t g) { return 2.0 * static_cast<double>(g); });
  const std::size_t other = plans_built();
  b = c;
  b = c;
  const std::size_t other_decided = plans_built();
  CHECK(other_decided > other);
  b = c;
  CHECK(plans_built() == other_decided);
  REQUIRE(all_ok(world, holds(b, [](index_t g) { return 2.0 * static_cast<double>(g); })));
}

TEST_CASE("make_plan builds without communication and executes repeatedly", "[mpi][plan]") {
  mpi::communicator world;
  DistArray<int, Block> a(world, 777);
  DistArray<int, Cyclic<5>> b(world, 777);
  fill(a, [](index_t g) { return static_cast<int>(g * 3); });
  auto plan = make_plan(a, b);
  std::size_t allocations = 0;
  for (int rep = 0; rep < 7; ++rep) {
    fill(b, [](index_t) { return -1; });
    plan.execute(a, b);
    REQUIRE(all_ok(world, holds(b, [](index_t g) { return static_cast<int>(g * 3); })));
    // The first run allocates the scratch; the one that times the transports may grow it (a
    // collective packs every message; the messages alone, timed against the node's copies, pack
    // node peers' too): the second, or, where a node first tries its copy both ways (short pieces),
    // the fourth, at the latest the fifth; later runs reuse it.
    if (rep == 4) allocations = plan.scratch().allocations();
  }
  CHECK(allocations <= 3);
  CHECK(plan.scratch().allocations() == allocations);
  DistArray<int, Cyclic<5>> other(world, 778);
  CHECK_THROWS_AS(plan.execute(a, other), redist::error);
}

namespace {
struct Particle {
  double x, y, z;
  std::int32_t id;
  friend bool operator==(const Particle&, const Particle&) = default;
};
}  // namespace

TEST_CASE("Any trivially copyable T moves: a struct of 28 bytes and char", "[mpi][types]") {
  mpi::communicator world;
  auto particle = [](index_t g) { return Particle{1.0 * g, 2.0 * g, -1.0 * g, static_cast<std::int32_t>(g)}; };
  DistArray<Particle, Cyclic<2>> a(world, 501);
  std::mt19937_64 rng(5);
  DistArray<Particle, GenBlock> b(world, 501, GenBlock(redist::test::random_parts(501, world.size(), rng)));
  fill(a, particle);
  b = a;
  REQUIRE(all_ok(world, holds(b, particle)));
  DistArray<char, Block> c(world, 333);
  DistArray<char, Cyclic<1>> d(world, 333);
  fill(c, [](index_t g) { return static_cast<char>('a' + g % 26); });
  d = c;
  REQUIRE(all_ok(world, holds(d, [](index_t g) { return static_cast<char>('a' + g % 26); })));
}

TEST_CASE("Self-assignment and same-layout assignment keep the values", "[mpi][1d]") {
  mpi::communicator world;
  DistArray<double, Cyclic<3>> a(world, 100), b(world, 100);
  fill(a, value_of);
  auto& alias = a;
  a = alias;
  REQUIRE(all_ok(world, holds(a, value_of)));
  b = a;
  REQUIRE(all_ok(world, holds(b, value_of)));
}

TEST_CASE("Bad inputs throw redist::error on every rank before any data moves", "[mpi][errors]") {
  mpi::communicator world;
  const int nprocs = world.size();
  SECTION("GenBlock with a size count other than P") {
    std::vector<index_t> sizes(static_cast<std::size_t>(nprocs + 1), 1);
    CHECK_THROWS_WITH((DistArray<double, GenBlock>(world, nprocs + 1, GenBlock(sizes))),
                      Catch::Contains("one entry per process"));
  }
  SECTION("GenBlock sizes that do not sum to n") {
    std::vector<index_t> sizes(static_cast<std::size_t>(nprocs), 2);
    CHECK_THROWS_WITH((DistArray<double, GenBlock>(world, 2 * nprocs + 1, GenBlock(sizes))),
                      Catch::Contains("sum to n"));
  }
  SECTION("a negative GenBlock size") {
    std::vector<int> sizes(static_cast<std::size_t>(nprocs), 1);
    sizes[0] = -1;
    CHECK_THROWS_WITH(GenBlock(sizes), Catch::Contains("sizes[0] to be >= 0"));
  }
  SECTION("a dynamic block size <= 0") {
    CHECK_THROWS_AS(Cyclic<dynamic>(0), redist::error);
  }
  SECTION("different global sizes: nothing in b changes") {
    DistArray<double, Block> a(world, 100);
    DistArray<double, Cyclic<2>> b(world, 101);
    fill(a, value_of);
    fill(b, [](index_t) { return -7.0; });
    CHECK_THROWS_WITH(b = a, Catch::Contains("requires src.size() to equal dst.size() (100 vs 101)"));
    REQUIRE(all_ok(world, holds(b, [](index_t) { return -7.0; })));
  }
  SECTION("different communicators: nothing in b changes") {
    mpi::communicator self(MPI_COMM_SELF, mpi::comm_attach);
    DistArray<double, Block> a(world, 64);
    DistArray<double, Block> b(self, 64);  // every rank holds all of b
    fill(a, value_of);
    fill(b, [](index_t) { return -7.0; });
    if (nprocs > 1) {
      CHECK_THROWS_WITH(b = a, Catch::Contains("requires src and dst to be on the same communicator"));
      REQUIRE(all_ok(world, holds(b, [](index_t) { return -7.0; })));
    } else {
      b = a;  // a 1-process world and MPI_COMM_SELF are congruent: allowed
      REQUIRE(holds(b, value_of));
    }
  }
}

}  // namespace mpi_test_redistribute
