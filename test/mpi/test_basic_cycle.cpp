// MPI tests of the basic-cycle calculation (seed 000) and the multi-phase baseline: exact results
// for every policy, the one-pass path in one round and in rounds under a scratch budget, the
// general path below one cycle, plan reuse, and errors on every rank before data moves.
#include <random>
#include <string>
#include <vector>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <catch2/catch.hpp>

#include <redist/redist.hpp>

#include "../support/array_values.hpp"
#include "../support/mpi_check.hpp"
#include "../support/plan_count.hpp"

using namespace redist;
namespace mpi = boost::mpi;
using redist::test::all_ok;

namespace {
double value_of(index_t g) { return 0.25 + 2.0 * static_cast<double>(g); }

template <class A>
void fill(A& a) {
  redist::test::fill(a, value_of);
}
template <class A>
void clear(A& a) {
  std::fill(a.local().begin(), a.local().end(), -1.0);
}
template <class A>
bool holds(const A& a) {
  return redist::test::holds(a, value_of);
}

/// a -> b under every policy that applies, each checked on every rank.
template <class A, class B>
void check_all_policies(const mpi::communicator& world, A& a, B& b, index_t s, index_t t) {
  fill(a);
  clear(b);
  b = a;
  REQUIRE(all_ok(world, holds(b)));
  clear(b);
  redistribute(a, b, schedule::bcc);
  REQUIRE(all_ok(world, holds(b)));
  clear(b);
  redistribute(a, b, schedule::bcc_contention_free);
  REQUIRE(all_ok(world, holds(b)));
  clear(b);
  redistribute(a, b, schedule::multiphase);
  REQUIRE(all_ok(world, holds(b)));
  const bool divisible = s % t == 0 || t % s == 0;
  if (divisible) {
    clear(b);
    redistribute(a, b, schedule::multiphase_one_stage);
    REQUIRE(all_ok(world, holds(b)));
  }
  const index_t r = std::max(s, t) / std::min(s, t);
  bool factor = false;
  for (index_t c = 2; c * c <= r; ++c) factor = factor || r % c == 0;
  if (!divisible || factor) {
    clear(b);
    redistribute(a, b, schedule::multiphase_two_stage);
    REQUIRE(all_ok(world, holds(b)));
  }
  REQUIRE(all_ok(world, holds(a)));  // the source is untouched
}
}  // namespace

TEST_CASE("Cyclic<s> -> Cyclic<t> is exact under BCC, BCC contention-free and multi-phase", "[mpi][bcc]") {
  mpi::communicator world;
  for (index_t n : {index_t{0}, index_t{1}, index_t{7}, index_t{48}, index_t{96}, index_t{1001}, index_t{24013}}) {
    INFO("n = " << n << ", P = " << world.size());
    {
      DistArray<double, Cyclic<3>> a(world, n);  // case 1 (Figure 2)
      DistArray<double, Cyclic<2>> b(world, n);
      check_all_policies(world, a, b, 3, 2);
    }
    {
      DistArray<double, Cyclic<6>> a(world, n);  // case 2 (Figure 3)
      DistArray<double, Cyclic<4>> b(world, n);
      check_all_policies(world, a, b, 6, 4);
    }
    {
      DistArray<double, Cyclic<60>> a(world, n);  // case 3 (Table 3)
      DistArray<double, Cyclic<3>> b(world, n);
      check_all_policies(world, a, b, 60, 3);
    }
  }
  std::mt19937_64 rng(31);  // same seed on every rank
  for (int trial = 0; trial < 12; ++trial) {
    const index_t s = 1 + static_cast<index_t>(rng() % 64), t = 1 + static_cast<index_t>(rng() % 64);
    const index_t n = static_cast<index_t>(rng() % 30000);
    INFO("s = " << s << ", t = " << t << ", n = " << n);
    DistArray<double, Cyclic<dynamic>> a(world, n, Cyclic<dynamic>(s));
    DistArray<double, Cyclic<dynamic>> b(world, n, Cyclic<dynamic>(t));
    check_all_policies(world, a, b, s, t);
  }
}

TEST_CASE("The one-pass path runs in one round, in rounds of cycles, or falls back, within the budget", "[mpi][bcc][budget]") {
  mpi::communicator world;
  const index_t n = 50021;
  DistArray<double, Cyclic<8>> a(world, n);
  DistArray<double, Cyclic<5>> b(world, n);
  fill(a);
  // The same budgets on every rank (the options must agree): from the largest local array.
  const std::size_t local = mpi::all_reduce(
      world, static_cast<std::size_t>(std::max(a.local_size(), b.local_size())) * sizeof(double), mpi::maximum<std::size_t>());
  for (std::size_t budget : {4 * local + 64, local / 4, std::size_t{3000}, std::size_t{200}}) {
    options o;
    o.max_scratch_bytes = budget;
    auto plan = make_plan(a, b, schedule::bcc, o);
    static_assert(std::is_same_v<std::remove_cvref_t<decltype(plan.plan())>, Plan>);
    clear(b);
    plan.execute(a, b);
    INFO("budget " << budget);
    REQUIRE(all_ok(world, holds(b)));
    CHECK(plan.scratch_high_water() <= budget);
    const Plan& p = plan.plan();
    // Every rank took the same path.
    const index_t piece = p.piece;
    CHECK(mpi::all_reduce(world, piece, mpi::minimum<index_t>()) == mpi::all_reduce(world, piece, mpi::maximum<index_t>()));
    if (budget > 2 * local) CHECK(piece == 0);  // everything in one round
    if (budget == 200 && world.size() > 1) CHECK((piece > 0 && piece < p.only().cycles.quantum));  // less than a cycle: message by message
    const std::size_t allocations = plan.scratch().allocations();
    plan.execute(a, b);  // repeated: no new allocation
    CHECK(plan.scratch().allocations() == allocations);
    REQUIRE(all_ok(world, holds(b)));
  }
}

TEST_CASE("BCC messages split into several MPI messages stay exact", "[mpi][bcc][chunks]") {
  mpi::communicator world;
  const index_t n = 10007;
  DistArray<double, Cyclic<25>> a(world, n);
  DistArray<double, Cyclic<20>> b(world, n);
  fill(a);
  for (std::size_t chunk : {std::size_t{8}, std::size_t{96}}) {
    options o;
    o.max_message_bytes = chunk;
    o.max_scratch_bytes = 1 << 24;
    clear(b);
    redistribute(a, b, schedule::bcc_contention_free, o);
    REQUIRE(all_ok(world, holds(b)));
  }
}

TEST_CASE("BCC and multi-phase plans are cached and reused", "[mpi][bcc][cache]") {
  mpi::communicator world;
  DistArray<double, Cyclic<8>> a(world, 5000);
  DistArray<double, Cyclic<5>> b(world, 5000);
  fill(a);
  const std::size_t first = redist::test::first_run_plans(a, b);
  const std::size_t before = plans_built();
  b = a;
  b = a;
  CHECK(plans_built() == before + first);
  redistribute(a, b, schedule::multiphase);  // two phases: two plans
  CHECK(plans_built() == before + first + 2);
  redistribute(a, b, schedule::multiphase);
  CHECK(plans_built() == before + first + 2);
  REQUIRE(all_ok(world, holds(b)));
  auto mp = make_plan(a, b, schedule::multiphase);
  CHECK(mp.plan().stages.size() == 2);
  // CYCLIC(8) -> CYCLIC(40) -> CYCLIC(5): the intermediate array is this rank's part of CYCLIC(40).
  CHECK(mp.plan().intermediate == Cyclic<dynamic>::mapping(Cyclic<dynamic>(40), 5000, world.size()).local_size(world.rank()));
  CHECK(mp.plan().schedule_name == "multiphase(2)");
  clear(b);
  mp.execute(a, b);
  REQUIRE(all_ok(world, holds(b)));
}

TEST_CASE("A one-stage multi-phase outside case 3 throws on every rank before data moves", "[mpi][bcc][errors]") {
  mpi::communicator world;
  DistArray<double, Cyclic<8>> a(world, 1000);
  DistArray<double, Cyclic<5>> b(world, 1000);
  fill(a);
  clear(b);
  bool threw = false;
  try {
    redistribute(a, b, schedule::multiphase_one_stage);
  } catch (const redist::error& e) {
    threw = std::string(e.what()).find("requires s to divide t or t to divide s") != std::string::npos;
  }
  REQUIRE(all_ok(world, threw));
  bool unchanged = true;
  for (double v : b.local()) unchanged = unchanged && v == -1.0;
  REQUIRE(all_ok(world, unchanged));
}
