// MPI tests of seed 001's circulant schedules: Cyclic(x) <-> Cyclic(Kx) and general Cyclic pairs
// under direct, indirect, hybrid(d), modeled and automatic, static and dynamic block sizes,
// ragged n, plan reuse without allocation, and the calibration agreed by every rank.
#include <algorithm>
#include <random>
#include <vector>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <catch2/catch.hpp>

#include <redist/redist.hpp>

#include "../support/array_values.hpp"
#include "../support/mpi_check.hpp"

using namespace redist;
namespace mpi = boost::mpi;
using redist::test::all_ok;

namespace {
double value_of(index_t g) { return 0.5 + 3.0 * static_cast<double>(g); }

template <class A, class B, class Policy>
void check_policy(const mpi::communicator& world, A& a, B& b, Policy policy, const options& opts = default_options()) {
  redist::test::fill(a, value_of);
  std::fill(b.local().begin(), b.local().end(), -1.0);
  redistribute(a, b, policy, opts);
  REQUIRE(all_ok(world, redist::test::holds(b, value_of)));
  // And back.
  std::fill(a.local().begin(), a.local().end(), -1.0);
  redistribute(b, a, policy, opts);
  REQUIRE(all_ok(world, redist::test::holds(a, value_of)));
}

template <class A, class B>
void check_all(const mpi::communicator& world, A& a, B& b) {
  check_policy(world, a, b, schedule::direct);
  check_policy(world, a, b, schedule::indirect);
  for (int d = 0; d <= 3; ++d) check_policy(world, a, b, schedule::hybrid(d));
  check_policy(world, a, b, schedule::automatic);
  check_policy(world, a, b, schedule::modeled(runtime::gdm_parameters(world)));
  check_policy(world, a, b, schedule::modeled(schedule::Machine{1e-3, 1e-12}));  // default budget: may fall back
  options roomy;
  // The same on every rank (options must agree): room for any rank's relays.
  roomy.max_scratch_bytes = mpi::all_reduce(
      world, 64 * sizeof(double) * static_cast<std::size_t>(a.local_size() + b.local_size() + 64), mpi::maximum<std::size_t>());
  check_policy(world, a, b, schedule::modeled(schedule::Machine{1e-3, 1e-12}), roomy);  // startup-bound: circulant
}
}  // namespace

TEST_CASE("Cyclic<x> <-> Cyclic<Kx> under every circulant schedule, static block sizes", "[mpi][circulant]") {
  mpi::communicator world;
  for (index_t n : {index_t{0}, index_t{1}, index_t{37}, index_t{1000}, index_t{4099}}) {
    DistArray<double, Cyclic<2>> a(world, n);
    DistArray<double, Cyclic<6>> b(world, n);
    check_all(world, a, b);
    DistArray<double, Cyclic<1>> c(world, n);
    DistArray<double, Cyclic<7>> d(world, n);
    check_all(world, c, d);
  }
}

TEST_CASE("Cyclic<dynamic> pairs, K < P, K = P, K > P, and general pairs in two phases", "[mpi][circulant]") {
  mpi::communicator world;
  const index_t P = world.size();
  std::mt19937 rng(7);
  for (index_t K : {index_t{1}, index_t{2}, P, P + 1, 2 * P, index_t{13}}) {
    const index_t x = 1 + static_cast<index_t>(rng() % 3);
    const index_t n = 1 + static_cast<index_t>(rng() % 5000);
    DistArray<double, Cyclic<dynamic>> a(world, n, Cyclic<dynamic>(x));
    DistArray<double, Cyclic<dynamic>> b(world, n, Cyclic<dynamic>(K * x));
    check_all(world, a, b);
  }
  DistArray<double, Cyclic<dynamic>> a(world, 3001, Cyclic<dynamic>(3));
  DistArray<double, Cyclic<dynamic>> b(world, 3001, Cyclic<dynamic>(5));
  check_all(world, a, b);
}

TEST_CASE("A repeated circulant redistribution reuses its plan and scratch", "[mpi][circulant]") {
  mpi::communicator world;
  DistArray<double, Cyclic<1>> a(world, 5000);
  DistArray<double, Cyclic<8>> b(world, 5000);
  redist::test::fill(a, value_of);
  auto plan = make_plan(a, b, schedule::indirect);
  plan.execute(a, b);
  const auto allocations = plan.scratch().allocations();
  for (int i = 0; i < 3; ++i) plan.execute(a, b);
  CHECK(plan.scratch().allocations() == allocations);
  REQUIRE(all_ok(world, redist::test::holds(b, value_of)));
}

TEST_CASE("modeled runs the circulant choice when the budget allows it, BCC otherwise, on every rank alike", "[mpi][circulant]") {
  mpi::communicator world;
  DistArray<double, Cyclic<1>> a(world, 3000);
  DistArray<double, Cyclic<16>> b(world, 3000);
  redist::test::fill(a, value_of);
  const auto policy = schedule::modeled(schedule::Machine{1e-3, 1e-12});
  options roomy;
  roomy.max_scratch_bytes = 1 << 20;
  auto wide = make_plan(a, b, policy, roomy);
  wide.execute(a, b);
  REQUIRE(all_ok(world, redist::test::holds(b, value_of)));
  // With room, the model's choice runs (few ranks: often BCC, whose few messages tie).
  const bool circulant = wide.plan().kind == CirculantPlan::method::circulant;
  REQUIRE(all_ok(world, wide.plan().runs_circulant() == circulant));
  int chosen = circulant ? wide.plan().choice.d : -1, first = chosen;
  mpi::broadcast(world, first, 0);
  REQUIRE(all_ok(world, chosen == first));
  options tight;
  tight.max_scratch_bytes = 512;
  auto narrow = make_plan(a, b, policy, tight);
  std::fill(b.local().begin(), b.local().end(), -1.0);
  narrow.execute(a, b);
  REQUIRE(all_ok(world, redist::test::holds(b, value_of)));
  REQUIRE(all_ok(world, !narrow.plan().runs_circulant()));
  CHECK(narrow.scratch_high_water() <= 512);
}

TEST_CASE("automatic times its candidates on the first run and keeps the fastest, on every rank alike", "[mpi][circulant][automatic]") {
  mpi::communicator world;
  DistArray<double, Cyclic<1>> a(world, 3001);
  DistArray<double, Cyclic<dynamic>> b(world, 3001, Cyclic<dynamic>(12));
  redist::test::fill(a, value_of);
  options roomy;
  roomy.max_scratch_bytes = 1 << 20;
  const std::size_t built = plans_built();
  auto plan = make_plan(a, b, schedule::automatic, roomy);
  plan.execute(a, b);
  REQUIRE(all_ok(world, redist::test::holds(b, value_of)));
  CHECK(plans_built() == built + 1);  // the candidates are variants of one plan
  const auto& timed = plan.timed_candidates();
  const auto expected = automatic_candidates(a.mapping().linear(), b.mapping().linear());
  REQUIRE(timed.size() == expected.size());  // all fit in 1 MiB
  // The one that runs is one of them, with the same times on every rank.
  for (const auto& c : timed) CHECK(c.measured > 0);
  const auto chosen = plan.plan().choice;
  CHECK(std::find(timed.begin(), timed.end(), chosen) != timed.end());
  double t = chosen.measured, t0 = t;
  mpi::broadcast(world, t0, 0);
  REQUIRE(all_ok(world, t0 == t));
  int d = plan.plan().runs_circulant() ? plan.plan().choice.d : -1, d0 = d;
  mpi::broadcast(world, d0, 0);
  REQUIRE(all_ok(world, d == d0));
  // Repeated runs neither plan, time nor allocate.
  const auto allocations = plan.scratch().allocations();
  for (int i = 0; i < 3; ++i) {
    std::fill(b.local().begin(), b.local().end(), -1.0);
    plan.execute(a, b);
  }
  CHECK(plan.scratch().allocations() == allocations);
  CHECK(plans_built() == built + 1);
  REQUIRE(all_ok(world, redist::test::holds(b, value_of)));
  // tune_reps = 0: the model's choice, untimed.
  options untimed = roomy;
  untimed.tune_reps = 0;
  auto model = make_plan(a, b, schedule::automatic, untimed);
  model.execute(a, b);
  CHECK(model.timed_candidates().empty());
  CHECK(model.plan().choice == plan_with(a.mapping().linear(), b.mapping().linear(), world.rank(), schedule::automatic).plan.choice);
  REQUIRE(all_ok(world, redist::test::holds(b, value_of)));
}

TEST_CASE("automatic times only the candidates whose workspace fits the budget on every rank", "[mpi][circulant][automatic]") {
  mpi::communicator world;
  DistArray<double, Cyclic<1>> a(world, 3000);
  DistArray<double, Cyclic<16>> b(world, 3000);
  redist::test::fill(a, value_of);
  for (std::size_t budget : {std::size_t{512}, std::size_t{4096}, std::size_t{1} << 20}) {
    options o;
    o.max_scratch_bytes = budget;
    auto plan = make_plan(a, b, schedule::automatic, o);
    std::fill(b.local().begin(), b.local().end(), -1.0);
    plan.execute(a, b);
    plan.execute(a, b);
    REQUIRE(all_ok(world, redist::test::holds(b, value_of)));
    CHECK(plan.scratch_high_water() <= budget);
    // Every circulant candidate timed fits on every rank; BCC is always among them.
    int bcc = 0;
    for (const auto& c : plan.timed_candidates()) {
      if (c.kind == schedule::CyclicChoice::method::bcc) ++bcc;
      else {
        const auto v = with_choice(plan.plan(), a.mapping().linear(), b.mapping().linear(), c);
        const auto need = mpi::all_reduce(world, v.scratch_elements(), mpi::maximum<index_t>());
        CHECK(static_cast<std::size_t>(need) * sizeof(double) <= budget);
      }
    }
    if (!plan.timed_candidates().empty()) CHECK(bcc == 1);
  }
}

TEST_CASE("gdm_parameters is the same on every rank and cached", "[mpi][circulant][calibrate]") {
  mpi::communicator world;
  const schedule::Machine m = runtime::gdm_parameters(world);
  CHECK(m.ts > 0);
  CHECK(m.td > 0);
  double v[2] = {m.ts, m.td}, r0[2] = {m.ts, m.td};
  mpi::broadcast(world, r0, 2, 0);
  REQUIRE(all_ok(world, v[0] == r0[0] && v[1] == r0[1]));
  CHECK(runtime::gdm_parameters(world) == m);
}

TEST_CASE("Circulant policies raise bad input on every rank before data moves", "[mpi][circulant][errors]") {
  mpi::communicator world;
  DistArray<double, Cyclic<2>> a(world, 100);
  DistArray<double, Cyclic<6>> b(world, 101);
  bool threw = false;
  try {
    redistribute(a, b, schedule::indirect);
  } catch (const redist::error&) {
    threw = true;
  }
  REQUIRE(all_ok(world, threw));
}
