// MPI tests of seed 001's circulant schedules: Cyclic(x) <-> Cyclic(Kx) and general Cyclic pairs
// under direct, indirect, hybrid(d), modeled and automatic, static and dynamic block sizes,
// ragged n, plan reuse without allocation, and the calibration agreed by every rank.
#include <algorithm>
#include <random>
#include <string>
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

namespace {
/// True when every rank holds the same string as rank 0.
bool same_on_every_rank(const mpi::communicator& world, const std::string& mine) {
  std::string first = mine;
  mpi::broadcast(world, first, 0);
  return all_ok(world, first == mine);
}
bool is_bcc(const Plan& p) { return p.schedule_name.rfind("bcc", 0) == 0; }
}  // namespace

TEST_CASE("modeled runs the circulant choice when the budget allows it, BCC otherwise, on every rank alike", "[mpi][circulant]") {
  mpi::communicator world;
  DistArray<double, Cyclic<1>> a(world, 3000);
  DistArray<double, Cyclic<16>> b(world, 3000);
  redist::test::fill(a, value_of);
  const auto policy = schedule::modeled(schedule::Machine{1e-3, 1e-12});
  // By messages (on a node, copies from shared memory replace any schedule: the pair's direct messages).
  options roomy;
  roomy.max_scratch_bytes = 1 << 20;
  roomy.shared_memory = false;
  auto wide = make_plan(a, b, policy, roomy);
  const std::string planned = wide.plan().schedule_name;
  wide.execute(a, b);
  REQUIRE(all_ok(world, redist::test::holds(b, value_of)));
  // With room, the model's choice runs (few ranks: often BCC, whose few messages tie), the same everywhere.
  CHECK(wide.plan().schedule_name == planned);
  REQUIRE(same_on_every_rank(world, wide.plan().schedule_name));
  options tight = roomy;
  tight.max_scratch_bytes = 512;
  auto narrow = make_plan(a, b, policy, tight);
  // A choice that forwards needs its relay area whatever the budget; one of direct messages is cut
  // into pieces and runs in any budget.
  const std::string narrow_planned = narrow.plan().schedule_name;
  const bool fits = all_ok(world, fits_budget(narrow.plan(), static_cast<index_t>(512 / sizeof(double))));
  std::fill(b.local().begin(), b.local().end(), -1.0);
  narrow.execute(a, b);
  REQUIRE(all_ok(world, redist::test::holds(b, value_of)));
  if (fits) CHECK(narrow.plan().schedule_name == narrow_planned);
  else REQUIRE(all_ok(world, is_bcc(narrow.plan())));
  REQUIRE(same_on_every_rank(world, narrow.plan().schedule_name));
  CHECK(narrow.scratch_high_water() <= 512);
  // On a node, the pair's direct messages, copied from shared memory: BCC, or the model's choice
  // when it forwards nothing (the circulant direct).
  if (world.size() > 1 && default_options().shared_memory) {
    options node = roomy;
    node.shared_memory = true;
    auto copies = make_plan(a, b, policy, node);
    std::fill(b.local().begin(), b.local().end(), -1.0);
    copies.execute(a, b);
    REQUIRE(all_ok(world, redist::test::holds(b, value_of)));
    if (copies.used_shared_memory()) CHECK((is_bcc(copies.plan()) || copies.plan().schedule_name == "direct"));
  }
}

TEST_CASE("automatic times its candidates when the plan runs again and keeps the fastest, on every rank alike", "[mpi][circulant][automatic]") {
  mpi::communicator world;
  DistArray<double, Cyclic<1>> a(world, 3001);
  DistArray<double, Cyclic<dynamic>> b(world, 3001, Cyclic<dynamic>(12));
  redist::test::fill(a, value_of);
  options roomy;
  roomy.max_scratch_bytes = 1 << 20;
  roomy.shared_memory = false;
  const std::size_t built = plans_built();
  auto plan = make_plan(a, b, schedule::automatic, roomy);
  plan.execute(a, b);
  REQUIRE(all_ok(world, redist::test::holds(b, value_of)));
  // A plan run once is never timed (a plan made per call pays for no timing).
  CHECK(plan.timed_candidates().empty());
  CHECK(plans_built() == built + 1);
  std::fill(b.local().begin(), b.local().end(), -1.0);
  plan.execute(a, b);
  REQUIRE(all_ok(world, redist::test::holds(b, value_of)));
  const auto& timed = plan.timed_candidates();
  const auto expected = automatic_candidates(a.mapping().linear(), b.mapping().linear());
  if (world.size() > 1 && expected.size() > 1) {
    REQUIRE(timed.size() == expected.size());  // all fit in 1 MiB
    CHECK(plans_built() == built + 1 + timed.size());  // each candidate's plan, once
  }
  // The one that runs is the fastest of them, with the same times on every rank.
  for (const auto& c : timed) CHECK(c.measured > 0);
  if (!timed.empty()) {
    const auto best = std::min_element(timed.begin(), timed.end(), [](const auto& x, const auto& y) { return x.measured < y.measured; });
    CHECK(plan.plan().schedule_name ==
          plan_for_choice(a.mapping().linear(), b.mapping().linear(), world.rank(), *best).schedule_name);
    double t = best->measured, t0 = t;
    mpi::broadcast(world, t0, 0);
    REQUIRE(all_ok(world, t0 == t));
  }
  REQUIRE(same_on_every_rank(world, plan.plan().schedule_name));
  // Repeated runs neither plan, time nor allocate.
  const std::size_t after = plans_built();
  const auto allocations = plan.scratch().allocations();
  for (int i = 0; i < 3; ++i) {
    std::fill(b.local().begin(), b.local().end(), -1.0);
    plan.execute(a, b);
  }
  CHECK(plan.scratch().allocations() == allocations);
  CHECK(plans_built() == after);
  REQUIRE(all_ok(world, redist::test::holds(b, value_of)));
  // tune_reps = 0: the model's choice, untimed.
  options untimed = roomy;
  untimed.tune_reps = 0;
  auto model = make_plan(a, b, schedule::automatic, untimed);
  model.execute(a, b);
  model.execute(a, b);
  CHECK(model.timed_candidates().empty());
  CHECK(model.plan().schedule_name ==
        plan_with(a.mapping().linear(), b.mapping().linear(), world.rank(), schedule::automatic).schedule_name);
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
    o.shared_memory = false;
    auto plan = make_plan(a, b, schedule::automatic, o);
    std::fill(b.local().begin(), b.local().end(), -1.0);
    plan.execute(a, b);
    plan.execute(a, b);
    REQUIRE(all_ok(world, redist::test::holds(b, value_of)));
    CHECK(plan.scratch_high_water() <= budget);
    // Every circulant candidate timed fits on every rank; BCC is always among them.
    int bcc = 0;
    for (const auto& c : plan.timed_candidates()) {
      if (c.kind == schedule::CyclicChoice::method::basic_cycles) ++bcc;
      else {
        const Plan v = plan_for_choice(a.mapping().linear(), b.mapping().linear(), world.rank(), c);
        REQUIRE(all_ok(world, fits_budget(v, static_cast<index_t>(budget / sizeof(double)))));
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
