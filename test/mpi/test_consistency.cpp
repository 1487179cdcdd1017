// MPI tests of the collective consistency check: a parameter that differs on one rank makes every rank throw, no hang.
#include <algorithm>

#include <boost/mpi/communicator.hpp>
#include <catch2/catch.hpp>

#include <redist/redist.hpp>

#include "../support/mpi_check.hpp"

using namespace redist;
namespace mpi = boost::mpi;
using redist::test::all_ok;
using redist::test::throws_with;

namespace {
/// Turns the construction-time check off for one scope, to reach the plan-time check.
struct UncheckedConstruction {
  UncheckedConstruction() { default_options().check_consistency = false; }
  ~UncheckedConstruction() { default_options().check_consistency = true; }
};
}  // namespace

TEST_CASE("A parameter that differs on one rank makes every rank throw", "[mpi][consistency]") {
  mpi::communicator world;
  if (world.size() < 2) return;  // nothing can differ on one process
  const bool odd_one = world.rank() == world.size() - 1;

  SECTION("n at construction") {
    REQUIRE(all_ok(world, throws_with([&] { DistArray<double, Block> a(world, odd_one ? 101 : 100); },
                                      "requires every rank to pass the same n")));
  }
  SECTION("the block size at construction") {
    REQUIRE(all_ok(world, throws_with([&] { DistArray<double, Cyclic<>> a(world, 100, Cyclic<>(odd_one ? 3 : 4)); },
                                      "requires every rank to pass the same distribution")));
  }
  SECTION("GenBlock sizes that are wrong on one rank only: all ranks get its message") {
    std::vector<index_t> sizes(static_cast<std::size_t>(world.size()), 10);
    if (odd_one) sizes.push_back(0);
    REQUIRE(all_ok(world, throws_with([&] { DistArray<double, GenBlock> a(world, 10 * world.size(), GenBlock(sizes)); },
                                      "one entry per process")));
  }
  SECTION("the source layout at plan time") {
    auto make = [&] {
      UncheckedConstruction off;
      return DistArray<double, Cyclic<>>(world, 100, Cyclic<>(odd_one ? 3 : 4));
    };
    auto a = make();
    DistArray<double, Block> b(world, 100);
    std::fill(b.local().begin(), b.local().end(), -1.0);
    REQUIRE(all_ok(world, throws_with([&] { b = a; }, "requires every rank to pass the same source layout")));
    bool unchanged = true;
    for (double v : b.local()) unchanged = unchanged && v == -1.0;
    REQUIRE(all_ok(world, unchanged));
  }
  SECTION("the element size at plan time") {
    REQUIRE(all_ok(world, throws_with(
                              [&] {
                                if (odd_one) {
                                  DistArray<float, Block> a(world, 50), b(world, 50);
                                  b = a;
                                } else {
                                  DistArray<double, Block> a(world, 50), b(world, 50);
                                  b = a;
                                }
                              },
                              "requires every rank to pass the same element size")));
  }
  SECTION("the schedule policy at plan time") {
    DistArray<double, Cyclic<2>> a(world, 60);
    DistArray<double, Block> b(world, 60);
    REQUIRE(all_ok(world, throws_with(
                              [&] {
                                if (odd_one) redistribute(a, b, schedule::all_at_once);
                                else redistribute(a, b, schedule::automatic);
                              },
                              "requires every rank to pass the same schedule policy")));
  }
  SECTION("a policy's parameters at plan time: a GEN_BLOCK lmr_ratio, a hybrid degree") {
    std::vector<index_t> even(static_cast<std::size_t>(world.size()), 10), uneven = even;
    uneven.front() += 5;
    uneven.back() -= 5;
    DistArray<double, GenBlock> g1(world, 10 * world.size(), GenBlock(even));
    DistArray<double, GenBlock> g2(world, 10 * world.size(), GenBlock(uneven));
    std::fill(g2.local().begin(), g2.local().end(), -1.0);
    REQUIRE(all_ok(world, throws_with([&] { redistribute(g1, g2, schedule::tpdr_t{odd_one ? 2.0 : 1.0}); },
                                      "requires every rank to pass the same schedule policy and its parameters")));
    REQUIRE(all_ok(world, std::all_of(g2.local().begin(), g2.local().end(), [](double v) { return v == -1.0; })));
    DistArray<double, Cyclic<2>> c2(world, 96);
    DistArray<double, Cyclic<8>> c8(world, 96);
    REQUIRE(all_ok(world, throws_with([&] { redistribute(c2, c8, schedule::hybrid(odd_one ? 2 : 1)); },
                                      "requires every rank to pass the same schedule policy and its parameters")));
  }
  SECTION("the options at plan time") {
    DistArray<double, Cyclic<2>> a(world, 60);
    DistArray<double, Block> b(world, 60);
    options o;
    o.max_message_bytes = odd_one ? 64 : 128;
    REQUIRE(all_ok(world, throws_with([&] { redistribute(a, b, o); }, "requires every rank to pass the same options")));
  }
  SECTION("with the check off, consistent calls still work") {
    options o;
    o.check_consistency = false;
    DistArray<double, Cyclic<2>> a(world, 60);
    DistArray<double, Block> b(world, 60);
    for (index_t l = 0; l < a.local_size(); ++l) a.local()[l] = static_cast<double>(a.global_index(l));
    redistribute(a, b, o);
    bool ok = true;
    for (index_t l = 0; l < b.local_size(); ++l) ok = ok && b.local()[l] == static_cast<double>(b.global_index(l));
    REQUIRE(all_ok(world, ok));
  }
}
