// MPI tests of the scratch budget (messages in pieces, in rounds) and of messages split into several MPI messages.
#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <catch2/catch.hpp>

#include <redist/redist.hpp>

#include "../support/array_values.hpp"
#include "../support/mpi_check.hpp"

// This file's names, apart from the other files of its program: meson compiles them together
// (unity build).
namespace mpi_test_budget {

using namespace redist;
namespace mpi = boost::mpi;
using redist::test::all_ok;

namespace {
/// The global index itself, as the array's element type.
template <class A>
void fill_index(A& a) {
  redist::test::fill(a, [](index_t g) { return static_cast<typename A::value_type>(g); });
}
template <class A>
bool holds_index(const A& a) {
  return redist::test::holds(a, [](index_t g) { return static_cast<typename A::value_type>(g); });
}
}  // namespace

TEST_CASE("A scratch budget is kept: messages move in pieces, values stay exact", "[mpi][budget]") {
  mpi::communicator world;
  const index_t n = 20011;
  DistArray<double, Cyclic<3>> a(world, n);
  DistArray<double, Cyclic<7>> b(world, n);
  fill_index(a);
  for (std::size_t budget : {std::size_t{4096}, std::size_t{800}, std::size_t{64}}) {
    options o;
    o.max_scratch_bytes = budget;
    auto plan = make_plan(a, b, schedule::automatic, o);
    std::fill(b.local().begin(), b.local().end(), -1.0);
    plan.execute(a, b);
    INFO("budget " << budget);
    REQUIRE(all_ok(world, holds_index(b)));
    CHECK(plan.scratch_high_water() <= budget);
    CHECK(plan.scratch().capacity() <= budget);
    if (world.size() > 1) CHECK(mpi::all_reduce(world, plan.plan().piece > 0, std::logical_or<bool>()));
  }
}

TEST_CASE("By default scratch stays within this rank's larger local array, or 1 MiB for small ones", "[mpi][budget]") {
  mpi::communicator world;
  // Small arrays, whose packed messages fit the floor in one round, and one whose local arrays
  // exceed it at 1-3 ranks (there the local array is the bound).
  for (index_t n : {index_t{1000}, index_t{65537}, index_t{1} << 19}) {
    DistArray<double, Cyclic<2>> a(world, n);
    DistArray<double, Cyclic<5>> b(world, n);
    fill_index(a);
    auto plan = make_plan(a, b);
    plan.execute(a, b);
    REQUIRE(all_ok(world, holds_index(b)));
    const std::size_t local = std::max(static_cast<std::size_t>(std::max(a.local_size(), b.local_size())) * sizeof(double),
                                       default_scratch_floor_bytes);
    CHECK(plan.scratch_high_water() <= local);
    // Where every rank's packed sends and receives fit the floor, one round: no piece.
    const std::size_t most = mpi::all_reduce(world, static_cast<std::size_t>(a.local_size() + b.local_size()) * sizeof(double),
                                             mpi::maximum<std::size_t>());
    if (most <= default_scratch_floor_bytes) CHECK(plan.plan().piece == 0);
    plan.execute(a, b);  // the second run may time the candidates and switch (a workspace of its own)
    REQUIRE(all_ok(world, holds_index(b)));
    CHECK(plan.scratch_high_water() <= local);
    const std::size_t allocations = plan.scratch().allocations();
    CHECK(allocations <= 2);  // the first run's, and the second's timing of the transports
    plan.execute(a, b);  // repeated: no new allocation
    CHECK(plan.scratch().allocations() == allocations);
  }
}

TEST_CASE("Too small a budget throws on every rank before data moves", "[mpi][budget][errors]") {
  mpi::communicator world;
  if (world.size() < 3) return;  // needs two packed messages on some rank
  DistArray<double, Cyclic<1>> a(world, 1000);
  DistArray<double, Cyclic<2>> b(world, 1000);
  std::fill(b.local().begin(), b.local().end(), -1.0);
  options o;
  o.max_scratch_bytes = sizeof(double);
  bool threw = false;
  try {
    redistribute(a, b, o);
  } catch (const redist::error& e) {
    threw = std::string(e.what()).find("max_scratch_bytes") != std::string::npos;
  }
  REQUIRE(all_ok(world, threw));
  bool unchanged = true;
  for (double v : b.local()) unchanged = unchanged && v == -1.0;
  REQUIRE(all_ok(world, unchanged));
}

TEST_CASE("Messages longer than max_message_bytes go as several MPI messages", "[mpi][chunks]") {
  mpi::communicator world;
  const index_t n = 10007;
  DistArray<int, Block> a(world, n);
  DistArray<int, Cyclic<4>> b(world, n);
  fill_index(a);
  for (std::size_t chunk : {std::size_t{4}, std::size_t{60}, std::size_t{1024}}) {
    options o;
    o.max_message_bytes = chunk;
    std::fill(b.local().begin(), b.local().end(), -1);
    redistribute(a, b, o);
    REQUIRE(all_ok(world, holds_index(b)));
    a = b;  // and back, through the default options
    REQUIRE(all_ok(world, holds_index(a)));
  }
}

}  // namespace mpi_test_budget
