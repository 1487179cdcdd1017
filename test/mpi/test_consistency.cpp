// MPI tests of the collective consistency check: a parameter that differs on one rank, or a rank that cannot
// allocate its part, makes every rank throw, no hang.
#include <algorithm>
#include <string>
#include <vector>

#include <boost/mpi/communicator.hpp>
#include <catch2/catch.hpp>

#include <redist/redist.hpp>

#include "../support/mpi_check.hpp"

// This file's names, apart from the other files of its program: meson compiles them together
// (unity build).
namespace mpi_test_consistency {

using namespace redist;
namespace mpi = boost::mpi;
using redist::test::all_ok;
using redist::test::throws_with;

namespace {
/// Sets options::shared_memory for one scope.
struct SharedMemory {
  explicit SharedMemory(bool on) : before{default_options().shared_memory} { default_options().shared_memory = on; }
  ~SharedMemory() { default_options().shared_memory = before; }
  bool before;
};
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
    // The message names the first rank that differs from rank 0, and both values.
    const std::string which = "rank 0 passed 100, rank " + std::to_string(world.size() - 1) + " passed 101)";
    REQUIRE(all_ok(world, throws_with([&] { DistArray<double, Block> a(world, odd_one ? 101 : 100); }, which)));
    const std::string both = "rank 0 passed {30, 20}, rank " + std::to_string(world.size() - 1) + " passed {30, 21})";
    REQUIRE(all_ok(world, throws_with([&] { DistArray<double, Dist<Block, Block>> a(world, {30, odd_one ? 21 : 20}, Grid{world.size(), 1}); },
                                      both)));
    // Its class: redist::mismatch_error (a redist::error), on every rank.
    int kind = 0;  // 2: mismatch_error, 1: another redist::error
    try {
      DistArray<double, Block> a(world, odd_one ? 101 : 100);
    } catch (const redist::mismatch_error&) {
      kind = 2;
    } catch (const redist::error&) {
      kind = 1;
    }
    REQUIRE(all_ok(world, kind == 2));
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
    // A bad argument on one rank, not a disagreement: redist::error, not mismatch_error.
    int kind = 0;
    try {
      DistArray<double, GenBlock> a(world, 10 * world.size(), GenBlock(sizes));
    } catch (const redist::mismatch_error&) {
      kind = 2;
    } catch (const redist::error&) {
      kind = 1;
    }
    REQUIRE(all_ok(world, kind == 1));
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
    // A layout is compared by its fingerprint: the message names the rank, not the values.
    REQUIRE(all_ok(world, throws_with([&] { b = a; }, "rank " + std::to_string(world.size() - 1) + "'s differs from rank 0's")));
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
                              "requires every rank to pass the same element size (it differs between ranks: "
                              "rank 0 passed 8, rank " + std::to_string(world.size() - 1) + " passed 4)")));
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

TEST_CASE("A rank that cannot hold its part makes every rank throw, naming the rank and the bytes",
          "[mpi][consistency][memory]") {
#if defined(__SANITIZE_ADDRESS__)
  // AddressSanitizer's operator new ends the process on an impossible request instead of throwing
  // std::bad_alloc, so the sanitized build cannot run this test; the plain suite does.
  return;
#endif
  mpi::communicator world;
  const int p = world.size();
  // An array made before, to show that nothing else changes and nothing hangs afterwards.
  DistArray<double, Cyclic<3>> keep(world, 40);
  for (std::size_t l = 0; l < keep.local().size(); ++l) keep.local()[l] = 1.5 * static_cast<double>(l);
  const auto intact = [&] {
    bool ok = true;
    for (std::size_t l = 0; l < keep.local().size(); ++l) ok = ok && keep.local()[l] == 1.5 * static_cast<double>(l);
    DistArray<double, Block> b(world, 40);
    b = keep;  // the communicator still works: every rank is at the same collective call
    return ok;
  };
  for (const bool shared : {false, true}) {
    const SharedMemory scope(shared);
    INFO("shared memory " << shared);
    // GenBlock giving 2^42 doubles (32 TiB) to the last rank: far more than this machine has.
    std::vector<index_t> sizes(static_cast<std::size_t>(p), 10);
    sizes.back() = index_t{1} << 42;
    const index_t n = 10 * (p - 1) + (index_t{1} << 42);
    const std::string want = "could not allocate this rank's part (4398046511104 elements of 8 bytes, 35184372088832 "
                             "bytes, on rank " + std::to_string(p - 1) + ")";
    REQUIRE(all_ok(world, throws_with([&] { DistArray<double, GenBlock> a(world, n, GenBlock(sizes)); }, want)));
    REQUIRE(all_ok(world, intact()));
    // The issue's case, 2^62 chars in blocks of 2^61: a redist::error (not std::bad_alloc) on
    // every rank (at 4 ranks, the period 2^61 * 4 overflowing already); and in 4 blocks of 2^60,
    // each rank with blocks asked for 2^60 bytes a block: its own message, or the lowest failing
    // rank's (rank 0's) on a rank without blocks.
    const auto issue = [&] { DistArray<char, Cyclic<dynamic>> c(world, index_t{1} << 62, Cyclic<dynamic>(index_t{1} << 61)); };
    REQUIRE(all_ok(world, throws_with(issue, "redist")));
    // From 8 ranks on, 2^60 * P overflows the period itself: that error, on every rank.
    const auto blocks = [&](int r) { return r < 4 ? index_t{(4 - r + p - 1) / p} : index_t{0}; };
    const index_t part = (blocks(world.rank()) > 0 ? blocks(world.rank()) : blocks(0)) << 60;
    const auto big = [&] { DistArray<char, Cyclic<dynamic>> c(world, index_t{1} << 62, Cyclic<dynamic>(index_t{1} << 60)); };
    REQUIRE(all_ok(world, throws_with(big, p >= 8 ? std::string("k*P overflows a 64-bit index")
                                                  : std::to_string(part) + " elements of 1 byte, " + std::to_string(part) +
                                                        " bytes, on rank")));
    REQUIRE(all_ok(world, intact()));
    // 2^62 doubles on rank 0 alone: 2^65 bytes cannot even be counted; nothing is allocated.
    const auto huge = [&] { DistArray<double, Dist<Block>> h(world, {index_t{1} << 62}, Grid{1}); };
    REQUIRE(all_ok(world, throws_with(huge, "requires this rank's part to fit in memory (4611686018427387904 elements "
                                            "of 8 bytes on rank 0: the bytes overflow)")));
    REQUIRE(all_ok(world, intact()));
  }
}

}  // namespace mpi_test_consistency
