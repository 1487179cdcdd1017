// Serial tests of seed 001's generalized circulant schedules: Theorem 2's tables against brute
// force, the R(6, 9) example, step counts, and every schedule run in the virtual-rank simulator
// against the oracle (contention-free steps, relays included), K <= 32, P <= 64, ragged n.
#include <algorithm>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <redist/index/circulant.hpp>
#include <redist/plan/automatic.hpp>
#include <redist/plan/circulant.hpp>
#include <redist/schedule/circulant.hpp>
#include <redist/schedule/cost.hpp>

#include "../support/oracle.hpp"
#include "../support/sanitized.hpp"
#include "../support/simulator.hpp"

using namespace redist;
using CycMap = Cyclic<dynamic>::mapping;

namespace {
// Static checks: the tables are constexpr.
constexpr index::Circulant r69(6, 9);
static_assert(r69.g == 3 && r69.k1 == 2 && r69.p1 == 3);
static_assert(r69.ps(0, 0) == 0 && r69.ps(0, 1) == 6 && r69.ps(0, 2) == 3 && r69.ps(0, 3) == 2 && r69.ps(0, 4) == 8 &&
              r69.ps(0, 5) == 5 && r69.ps(0, 6) == 1 && r69.ps(0, 7) == 7 && r69.ps(0, 8) == 4);
// ERRATA 001: Theorem 2 gives Ps(3, 3) = 0 where Corollary 1's recurrence gives 3.
static_assert(r69.ps(3, 3) == 0);
static_assert(schedule::circulant_schedule(index::Circulant(31, 64), 100).size() == 6);
static_assert(schedule::circulant_schedule(index::Circulant(6, 9), 1).size() == 4);
static_assert(schedule::circulant_schedule(index::Circulant(6, 8), 1).size() == 5);  // ERRATA: not 4
static_assert(index::extended_euclid(240, 46) == index::Bezout{2, -9, 47});

/// Brute force: the destination of S(row, j) = row·P + j is (row·P + j) / K.
std::string check_tables(index_t K, index_t P) {
  const index::Circulant c(K, P);
  for (index_t j = 0; j < P; ++j) {
    std::vector<int> rows(static_cast<std::size_t>(K), 0);
    for (index_t i = 0; i < K; ++i) {
      const index_t d = c.ds(i, j);
      if (d < 0 || d >= K) return "Ds out of range";
      ++rows[static_cast<std::size_t>(d)];
      const index_t block = d * P + j;
      if (c.ps(i, j) != block / K) return "Ps(" + std::to_string(i) + "," + std::to_string(j) + ") is not S'/K";
      if (c.pr(i, c.ps(i, j)) != j) return "Pr is not the inverse of Ps";
      if (c.dr(i, c.ps(i, j)) != block % K) return "Dr is not the receiving row";
    }
    for (int r : rows)
      if (r != 1) return "column " + std::to_string(j) + " of Ds is not a permutation";
  }
  for (index_t i = 0; i < K; ++i) {
    std::vector<int> seen(static_cast<std::size_t>(P), 0);
    for (index_t j = 0; j < P; ++j) ++seen[static_cast<std::size_t>(c.ps(i, j))];
    for (int s : seen)
      if (s != 1) return "row " + std::to_string(i) + " of Ps is not a permutation";
  }
  return "";
}

/// The schedules of every rank: each step pairs, and is contention-free.
constexpr test::SimChecks circulant_checks{true, true};

/// Runs the plans of every rank in the virtual-rank simulator, relays included.
template <class Make>
test::SimResult simulate_cyclic(index_t s, index_t t, index_t n, int P, Make&& make) {
  std::vector<Plan> plans;
  for (int r = 0; r < P; ++r) plans.push_back(make(r));
  return test::simulate_plans(plans, test::oracle(Cyclic<dynamic>(s), n, P), test::oracle(Cyclic<dynamic>(t), n, P),
                              circulant_checks);
}

test::SimResult run(index_t s, index_t t, index_t n, int P, auto policy) {
  const CycMap from(Cyclic<dynamic>(s), n, P), to(Cyclic<dynamic>(t), n, P);
  return simulate_cyclic(s, t, n, P, [&](int r) { return plan_with(from, to, r, policy); });
}
}  // namespace

TEST_CASE("Theorem 2's Ps, Ds, Pr and Dr agree with brute force for K <= 32, P <= 64", "[circulant][tables]") {
  for (index_t K = 1; K <= 32; ++K)
    for (index_t P = 1; P <= 64; ++P) {
      INFO("K = " << K << ", P = " << P);
      REQUIRE(check_tables(K, P) == "");
    }
}

TEST_CASE("R(6, 9): row 0 of Ps, and hybrid(1) combines rows 0&3, 1&4, 2&5", "[circulant][paper]") {
  const index::Circulant c(6, 9);
  const std::vector<index_t> row0{0, 6, 3, 2, 8, 5, 1, 7, 4};
  for (index_t j = 0; j < 9; ++j) CHECK(c.ps(0, j) == row0[static_cast<std::size_t>(j)]);
  const auto h = schedule::circulant_schedule(c, 1);
  REQUIRE(h.size() == 4);
  CHECK(h.steps[0].phase == schedule::circulant_phase::shift_rows);
  // After the one shift the rows of the two submatrix rows are identical: each direct step moves
  // rows {r, r + 3}.
  for (std::size_t t = 1; t < 4; ++t) {
    std::vector<index_t> rows;
    for (index_t i = 0; i < 6; ++i)
      if (h.moves(h.steps[t], i)) rows.push_back(i);
    CHECK(rows == std::vector<index_t>{static_cast<index_t>(t - 1), static_cast<index_t>(t + 2)});
  }
  CHECK(schedule::circulant_schedule(c, 0).size() == 6);                            // direct: K steps
  CHECK(schedule::circulant_schedule(c, schedule::indirect_depth(c)).size() == 4);  // 1 + 2 + 1
}

TEST_CASE("Step counts: K = 31, P = 64 takes 6 indirect steps; indirect <= ceil(log K) + 2 always", "[circulant][steps]") {
  CHECK(schedule::circulant_schedule(index::Circulant(31, 64), schedule::indirect_depth(index::Circulant(31, 64))).size() == 6);
  CHECK(schedule::circulant_schedule(index::Circulant(31, 64), 0).size() == 31);
  for (index_t K = 1; K <= 32; ++K)
    for (index_t P = 1; P <= 64; ++P) {
      const index::Circulant c(K, P);
      const auto ind = schedule::circulant_schedule(c, schedule::indirect_depth(c));
      INFO("K = " << K << ", P = " << P);
      CHECK(static_cast<int>(ind.size()) <= index::ceil_log2(K) + 2);
      const auto dir = schedule::circulant_schedule(c, 0);
      CHECK(static_cast<index_t>(dir.size()) <= K);
      if (K < P) CHECK(static_cast<index_t>(dir.size()) == K - (K == 1 ? 1 : 0));
    }
}

TEST_CASE("Every circulant schedule is contention-free and exact in the virtual-rank simulation", "[circulant][simulate]") {
  std::mt19937 rng(2026);
  int cases = 0;
  for (index_t K = 1; K <= 32; ++K)
    for (int P = 1; P <= 64; ++P) {
      // Sample: every small case, half of the others (an eighth under the sanitizers).
      if (P > 12 && K > 6 && rng() % (test::sanitized ? 8 : 2) != 0) continue;
      const index_t x = 1 + static_cast<index_t>(rng() % 3);
      const index_t full = x * K * P;
      // A ragged n: a few superblocks, cut somewhere.
      const index_t n = static_cast<index_t>(rng() % static_cast<unsigned>(2 * full + 1)) + (rng() % 4 == 0 ? 0 : 1);
      const int depth = schedule::indirect_depth(index::Circulant(K, P));
      const int d = depth == 0 ? 0 : static_cast<int>(rng() % static_cast<unsigned>(depth + 1));
      for (bool reverse : {false, true}) {
        const index_t s = reverse ? K * x : x, t = reverse ? x : K * x;
        INFO("K = " << K << ", P = " << P << ", x = " << x << ", n = " << n << ", d = " << d << (reverse ? " reverse" : ""));
        auto a = run(s, t, n, P, schedule::direct);
        INFO(a.failure);
        REQUIRE(a.ok);
        // Direct needs no relay area: its workspace is the larger local array (the default budget),
        // or one step's packed send and receive when that alone is more.
        {
          const CycMap f(Cyclic<dynamic>(s), n, P), g(Cyclic<dynamic>(t), n, P);
          const int r = static_cast<int>(rng() % static_cast<unsigned>(P));
          const Plan pd = plan_with(f, g, r, schedule::direct);
          REQUIRE(pd.stages.size() == 1);
          const Stage<Run>& st = pd.only();
          index_t step = 0;
          for (const schedule::Step& k : st.schedule.steps) {
            index_t e = 0;
            for (std::size_t i : k.sends) e += st.sends[i].size;
            for (std::size_t i : k.recvs) e += st.recvs[i].size;
            step = std::max(step, e);
          }
          CHECK(st.relay == 0);
          CHECK(workspace_need(pd, index_t{1} << 40).total() <= std::max({f.local_size(r), g.local_size(r), step}));
          // Its stage says what it sends: one message per step at most, every step of the schedule.
          CHECK(pd.messages_sent() == st.sends.size());
          CHECK(st.schedule.size() == static_cast<std::size_t>(schedule::circulant_schedule(index::Circulant(std::max(s, t) / std::min(s, t), P), 0).size()));
          CHECK(pd.rank == r);
          CHECK(pd.schedule_name == "direct");
        }
        auto b = run(s, t, n, P, schedule::indirect);
        INFO(b.failure);
        REQUIRE(b.ok);
        CHECK(static_cast<int>(b.max_steps) <= index::ceil_log2(K) + 2);
        auto h = run(s, t, n, P, schedule::hybrid(d));
        INFO(h.failure);
        REQUIRE(h.ok);
        ++cases;
      }
    }
  CHECK(cases > 200);
}

TEST_CASE("Two phases through Cyclic(lcm) for general Cyclic pairs", "[circulant][two_phase]") {
  for (auto [s, t] : std::vector<std::pair<index_t, index_t>>{{2, 3}, {3, 2}, {4, 6}, {5, 7}, {8, 5}, {6, 10}})
    for (int P : {1, 2, 3, 5, 7, 16})
      for (index_t n : {index_t{0}, index_t{1}, index_t{97}, index_t{1000}, index_t{4321}}) {
        INFO("s = " << s << ", t = " << t << ", P = " << P << ", n = " << n);
        auto a = run(s, t, n, P, schedule::direct);
        INFO(a.failure);
        REQUIRE(a.ok);
        auto b = run(s, t, n, P, schedule::indirect);
        INFO(b.failure);
        REQUIRE(b.ok);
        auto h = run(s, t, n, P, schedule::hybrid(1));
        INFO(h.failure);
        REQUIRE(h.ok);
      }
  // Table 1: x, y relatively prime: ceil(log x) + ceil(log y) + 4 indirect steps at most.
  const CycMap f(Cyclic<dynamic>(5), 100000, 64), g(Cyclic<dynamic>(7), 100000, 64);
  CHECK(plan_with(f, g, 0, schedule::indirect).steps() <= 3 + 3 + 4);
}

namespace {
/// predict() as the model is defined, by brute force over every column and row: O(P · steps + K · steps).
double predict_brute(const schedule::CirculantSchedule& s, index_t n, index_t b, schedule::Machine m) {
  const double per_row = static_cast<double>(n) / static_cast<double>(s.shape.p * s.shape.k);
  double t = 0;
  bool any_direct = false;
  index_t busiest = 0;
  for (index_t c = 0; c < s.shape.p; ++c) {
    index_t sends = 0;
    for (const schedule::CirculantStep& st : s.steps)
      if (st.phase == schedule::circulant_phase::direct_rows && s.to(st, c) != c) ++sends;
    busiest = std::max(busiest, sends);
  }
  for (const schedule::CirculantStep& st : s.steps) {
    index_t rows = 0;
    for (index_t i = 0; i < s.shape.k; ++i) rows += s.moves(st, i) ? 1 : 0;
    const double bytes = static_cast<double>(rows) * per_row * static_cast<double>(b) * m.td;
    if (st.phase == schedule::circulant_phase::direct_rows) {
      any_direct = true;
      t += bytes;
    } else {
      t += m.tstep + m.ts + bytes;
    }
  }
  if (any_direct) t += m.tstep + static_cast<double>(busiest) * m.ts;
  return t;
}
}  // namespace

TEST_CASE("The kept columns of a direct step and predict() agree with brute force for K <= 40, P <= 72", "[circulant][model]") {
  const schedule::Machine m{3e-6, 2e-10, 1e-6};
  for (index_t K = 1; K <= 40; ++K)
    for (index_t P = 1; P <= 72; ++P) {
      const index::Circulant c(K, P);
      for (int d = 0; d <= schedule::indirect_depth(c); ++d) {
        const schedule::CirculantSchedule s = schedule::circulant_schedule(c, d);
        INFO("K = " << K << ", P = " << P << ", d = " << d);
        for (const schedule::CirculantStep& st : s.steps) {
          if (st.phase != schedule::circulant_phase::direct_rows) continue;
          std::vector<index_t> kept, brute;
          s.for_each_kept_column(st, [&](index_t col) { kept.push_back(col); });
          for (index_t col = 0; col < P; ++col)
            if (s.to(st, col) == col) brute.push_back(col);
          std::sort(kept.begin(), kept.end());
          REQUIRE(kept == brute);
        }
        const index_t n = P * K * 37 + 11;
        REQUIRE(schedule::predict(s, n, 8, m) == Approx(predict_brute(s, n, 8, m)).epsilon(1e-12));
      }
    }
}

TEST_CASE("automatic picks by the GDM model, the same on every rank, and runs exactly", "[circulant][automatic]") {
  const schedule::Machine startup_bound{1e-3, 1e-12}, bandwidth_bound{1e-9, 1e-6};
  // Tiny messages, expensive startups: fewer steps win (indirect, or BCC's few messages).
  const CycMap f(Cyclic<dynamic>(1), 4096, 64), g(Cyclic<dynamic>(31), 4096, 64);
  const Plan p = plan_with(f, g, 0, schedule::modeled(startup_bound));
  CHECK(p.only().forwards);  // a circulant schedule that forwards
  CHECK(p.steps() == 6);  // indirect, or hybrid(4) = 4 + ceil(31 / 16) steps, with less volume
  // Bandwidth-bound: moving every byte once wins; BCC and direct tie, and bandwidth-bound ties go
  // to BCC (its one-pass pack measured faster on large arrays).
  const Plan q = plan_with(f, g, 0, schedule::modeled(bandwidth_bound));
  CHECK(q.schedule_name == "bcc_contention_free");
  CHECK(q.only().cycles);
  for (int r = 1; r < 64; ++r) {
    const Plan pr = plan_with(f, g, r, schedule::modeled(startup_bound));
    CHECK(pr.schedule_name == p.schedule_name);
    CHECK(pr.steps() == p.steps());
  }
  auto res = simulate_cyclic(1, 31, 4096, 64, [&](int r) { return plan_with(f, g, r, schedule::modeled(startup_bound)); });
  INFO(res.failure);
  CHECK(res.ok);
  // The model's numbers: Corollary 2 (i) and the real schedule agree for direct.
  const schedule::Machine m{1e-5, 1e-9};
  CHECK(schedule::predict(schedule::circulant_schedule(index::Circulant(8, 16), 0), 16 * 8 * 100, 8, m) ==
        Approx(schedule::corollary2_direct(8, 16 * 8 * 100, 16, 8, m)));
}

TEST_CASE("automatic's candidates: BCC always, the hybrids within the window, cheapest first; each runs exactly", "[circulant][automatic]") {
  const CycMap f(Cyclic<dynamic>(1), 4096, 64), g(Cyclic<dynamic>(31), 4096, 64);
  const schedule::modeled_t m = schedule::modeled(schedule::Machine{1e-3, 1e-12});
  const std::vector<schedule::CyclicChoice> all = automatic_candidates(f, g, m, 1e300);
  // BCC and d = 0 .. indirect depth (5 for K = 31, P = 64: G = 1, K' = 31).
  CHECK(all.size() == 1 + 6);
  for (std::size_t i = 1; i < all.size(); ++i) CHECK(all[i - 1].predicted <= all[i].predicted);
  const std::vector<schedule::CyclicChoice> near = automatic_candidates(f, g, m, 1.5);
  CHECK(near.size() < all.size());
  CHECK(std::count_if(near.begin(), near.end(), [](const schedule::CyclicChoice& c) {
          return c.kind == schedule::CyclicChoice::method::basic_cycles;
        }) == 1);
  for (const schedule::CyclicChoice& c : near)
    if (c.kind == schedule::CyclicChoice::method::circulant) CHECK(c.predicted <= 1.5 * near.front().predicted);
  // The model's own plan is its first candidate's.
  CHECK(plan_with(f, g, 0, m).schedule_name == plan_for_choice(f, g, 0, near.front()).schedule_name);
  // plan_for_choice: every circulant candidate is exact in the simulation; the BCC candidate is
  // the pair's BCC plan (contention-free order).
  for (const schedule::CyclicChoice& c : all) {
    if (c.kind == schedule::CyclicChoice::method::basic_cycles) {
      const Plan q = plan_for_choice(f, g, 5, c);
      const Plan bcc = plan_with(f, g, 5, schedule::bcc_contention_free);
      CHECK(q.schedule_name == "bcc_contention_free");
      CHECK(q.only().sends == bcc.only().sends);
      CHECK(q.only().schedule == bcc.only().schedule);
      continue;
    }
    auto res = simulate_cyclic(1, 31, 4096, 64, [&](int r) { return plan_for_choice(f, g, r, c); });
    INFO("candidate d = " << c.d);
    INFO(res.failure);
    CHECK(res.ok);
  }
}

TEST_CASE("automatic and modeled keep BCC for a phase of more than max_circulant_rows rows", "[circulant][automatic]") {
  // Cyclic(1) -> Cyclic(1025) on 4 processes: K = 1025 rows, one past the bound; at 1024 the
  // startup-bound model still proposes a circulant schedule.
  const schedule::modeled_t m = schedule::modeled(schedule::Machine{1e-3, 1e-12});
  const CycMap f(Cyclic<dynamic>(1), 1025 * 4 * 3, 4), g(Cyclic<dynamic>(1025), 1025 * 4 * 3, 4);
  const std::vector<schedule::CyclicChoice> over = automatic_candidates(f, g, m, 1e300);
  REQUIRE(over.size() == 1);
  CHECK(over.front().kind == schedule::CyclicChoice::method::basic_cycles);
  CHECK(plan_with(f, g, 0, m).schedule_name == "bcc_contention_free");
  const CycMap f2(Cyclic<dynamic>(1), 1024 * 4 * 3, 4), g2(Cyclic<dynamic>(1024), 1024 * 4 * 3, 4);
  CHECK(automatic_candidates(f2, g2, m, 1e300).size() > 1);
}

TEST_CASE("A Cyclic pair whose basic cycle costs more to build than the data it moves gets the general plan", "[circulant][automatic]") {
  // Cyclic(n/P) -> Cyclic(1) at n = 2^24 on 4 processes: BC = n/P, P · BC = n templates' worth of
  // meta-elements against n/P elements to move (its BCC plan took 10-14 s to build; the general
  // plan, microseconds).
  const index_t n = index_t{1} << 24;
  const CycMap f(Cyclic<dynamic>(n / 4), n, 4), g(Cyclic<dynamic>(1), n, 4);
  CHECK_FALSE(redist::detail::cycle_plan_affordable(f, g));
  const std::size_t tables = tables_built();
  const Plan p = plan_with(f, g, 1, schedule::automatic);
  CHECK(tables_built() == tables);
  CHECK(p.schedule_name == "all_at_once");
  CHECK_FALSE(p.only().cycles);
  // Small basic cycles stay affordable whatever n, and so does a cycle within the rank's share.
  CHECK(redist::detail::cycle_plan_affordable(CycMap(Cyclic<dynamic>(8), n, 4), CycMap(Cyclic<dynamic>(5), n, 4)));
  CHECK(redist::detail::cycle_plan_affordable(CycMap(Cyclic<dynamic>(1024), n, 4), CycMap(Cyclic<dynamic>(1), n, 4)));
  CHECK_FALSE(redist::detail::cycle_plan_affordable(CycMap(Cyclic<dynamic>(1 << 21), n, 4), CycMap(Cyclic<dynamic>(1), n, 4)));
}

TEST_CASE("BCC's messages go at once when its contention-free order would cost O(P · BC) to build", "[circulant][automatic]") {
  // Cyclic(8) -> Cyclic(5), n = 2^24: the model's choice at 1024 ranks is BCC (BC = 40), whose
  // contention-free order colours every rank's messages: 1024 · 40 > max_bcc_schedule_work.
  const index_t n = index_t{1} << 24;
  const schedule::CyclicChoice bcc{schedule::CyclicChoice::method::basic_cycles, 0, 0};
  for (const int P : {64, 1024}) {
    const CycMap f(Cyclic<dynamic>(8), n, P), g(Cyclic<dynamic>(5), n, P);
    const bool affordable = redist::detail::bcc_schedule_affordable(f, g);
    CHECK(affordable == (P == 64));
    for (const int rank : {0, 1, P / 2 + 1, P - 1}) {
      const Plan p = plan_for_choice(f, g, rank, bcc);
      const Plan general = build_plan(f, g, rank);
      CHECK(p.schedule_name == (affordable ? "bcc_contention_free" : "all_at_once"));
      REQUIRE(p.stages.size() == 1);
      // The same messages either way.
      CHECK(p.only().sends.size() == general.only().sends.size());
      CHECK(p.only().recvs.size() == general.only().recvs.size());
      if (!affordable) CHECK(p.steps() == 1);
    }
  }
  // The substituted plan is exact for every rank (a P small enough to simulate, a block pair whose
  // basic cycle exceeds the bound there).
  const index_t m = 100003;
  const int P = 16;
  const CycMap f(Cyclic<dynamic>(1000), m, P), g(Cyclic<dynamic>(3), m, P);
  REQUIRE_FALSE(redist::detail::bcc_schedule_affordable(f, g));
  std::vector<Plan> plans;
  for (int r = 0; r < P; ++r) plans.push_back(plan_for_choice(f, g, r, bcc));
  const auto res = test::simulate_plans(plans, test::oracle(Cyclic<dynamic>(1000), m, P), test::oracle(Cyclic<dynamic>(3), m, P),
                                        test::SimChecks{true, false});
  INFO(res.failure);
  CHECK(res.ok);
  CHECK(res.max_steps == 1);
}

TEST_CASE("Circulant policies reject bad arguments with a message", "[circulant][errors]") {
  const CycMap f(Cyclic<dynamic>(2), 100, 4), g(Cyclic<dynamic>(6), 101, 4), h(Cyclic<dynamic>(6), 100, 3);
  CHECK_THROWS_WITH(plan_with(f, g, 0, schedule::direct),
                    "redist::plan_with(from, to, rank, direct) requires from and to to have the same global size");
  CHECK_THROWS_WITH(plan_with(f, h, 0, schedule::indirect),
                    "redist::plan_with(from, to, rank, indirect) requires from and to to have the same process count");
  CHECK_THROWS_WITH(schedule::hybrid(-1), "redist::schedule::hybrid(d) requires d to be >= 0");
}

namespace {
/// The facts of a plan's second run, timed one round per candidate (off any node, no messages).
RunFacts second_run() {
  RunFacts facts;
  facts.run = 1;
  facts.tune_reps = 1;
  return facts;
}
}  // namespace

TEST_CASE("automatic times the fastest direct candidate's wires when a stepwise candidate was fastest point to point",
          "[circulant][automatic]") {
  // Cyclic(1) -> Cyclic(31) on 64 ranks: BCC and the circulant hybrids; the hybrids of d > 0
  // forward through relays (not direct). The timings are made up: a forwarding hybrid is the
  // fastest point to point, BCC's messages slower there but faster on one collective, as at 256
  // simulated ranks where a stepwise hybrid lost to a pairwise MPI_Alltoallv.
  const CycMap f(Cyclic<dynamic>(1), 4096, 64), g(Cyclic<dynamic>(31), 4096, 64);
  using D = Decider<CycMap, CycMap, schedule::automatic_t>;
  RunFacts facts = second_run();
  facts.exchanges = true;
  const auto measure = [](std::span<Plan> plans) {
    std::vector<double> medians;
    bool forwarding_seen = false;
    for (const Plan& p : plans) {
      if (!p.direct() && !forwarding_seen) {
        medians.push_back(1e-3);  // the fastest point to point
        forwarding_seen = true;
      } else {
        medians.push_back(p.schedule_name == "bcc_contention_free" ? 2e-3 : 3e-3);
      }
    }
    return medians;
  };
  for (const double collective : {0.5e-3, 1.5e-3}) {
    Plan plan = plan_with(f, g, 3, schedule::automatic);
    Decision d;
    std::string timed_name;
    bool timed_direct = false;
    const auto transports = [&] {
      timed_name = plan.schedule_name;
      timed_direct = plan.direct();
      return std::vector<TransportTiming>{{Wire::point_to_point, false, 2e-3}, {Wire::alltoallv, false, collective}};
    };
    INFO("the collective's median " << collective);
    CHECK(D::on_run(f, g, facts, plan, d, measure, transports));
    // The wires timed were BCC's messages.
    CHECK(timed_name == "bcc_contention_free");
    CHECK(timed_direct);
    const auto bcc = std::find_if(d.timed.begin(), d.timed.end(), [](const schedule::CyclicChoice& c) {
      return c.kind == schedule::CyclicChoice::method::basic_cycles;
    });
    REQUIRE(bcc != d.timed.end());
    if (collective < 1e-3) {
      // Faster than the hybrid's 1 ms: BCC on the collective.
      CHECK(plan.schedule_name == "bcc_contention_free");
      CHECK(d.wire == Wire::alltoallv);
      CHECK(d.transports.size() == 2);
      CHECK(bcc->measured == collective);
    } else {
      // Slower: the hybrid stays on its steps, and nothing of BCC's wires is reported as its own.
      CHECK_FALSE(plan.direct());
      CHECK(plan.schedule_name != "bcc_contention_free");
      CHECK(d.wire == Wire::point_to_point);
      CHECK(d.transports.empty());
      CHECK(bcc->measured == 2e-3);
    }
  }
}

TEST_CASE("On the node path the messages alone are kept where they were timed faster than the node's copies",
          "[circulant][automatic][shared]") {
  // Cyclic(8) -> Cyclic(5) on 4 ranks under BCC (direct, not adaptive), its second run on a node
  // holding every rank: the transports as time_transports reports them (made-up medians).
  const CycMap f(Cyclic<dynamic>(8), 4096, 4), g(Cyclic<dynamic>(5), 4096, 4);
  using D = Decider<CycMap, CycMap, schedule::bcc_t>;
  RunFacts facts = second_run();
  facts.node_path = true;
  facts.node_whole = true;
  facts.exchanges = false;
  const auto no_candidates = [](std::span<Plan>) { return std::vector<double>{}; };
  for (const double copies : {0.5e-3, 2e-3}) {
    INFO("the node's copies' median " << copies);
    Decision d;
    Plan plan = D::plan(f, g, 1, schedule::bcc, d);
    REQUIRE(plan.direct());
    const std::string planned = d.reason;
    int timed = 0;
    const auto transports = [&] {
      ++timed;
      return std::vector<TransportTiming>{{Wire::point_to_point, false, copies, true},
                                          {Wire::point_to_point, false, 1.5e-3},
                                          {Wire::alltoallv, false, 1e-3}};
    };
    CHECK_FALSE(D::on_run(f, g, facts, plan, d, no_candidates, transports));
    CHECK(timed == 1);
    CHECK(d.node_copies == (copies < 1e-3));
    CHECK(d.wire == (copies < 1e-3 ? Wire::point_to_point : Wire::alltoallv));
    CHECK((d.reason.find("node peers by messages") != std::string::npos) == (copies >= 1e-3));
    CHECK(d.reason.rfind(planned, 0) == 0);
  }
  // Timed with the copies only (a large array: no messages alone offered): kept.
  Plan plan = plan_with(f, g, 1, schedule::bcc);
  Decision d;
  facts.node_whole = false;
  facts.exchanges = true;
  const auto with_copies = [] {
    return std::vector<TransportTiming>{{Wire::point_to_point, false, 2e-3, true}, {Wire::alltoallv, false, 1e-3, true}};
  };
  CHECK_FALSE(D::on_run(f, g, facts, plan, d, no_candidates, with_copies));
  CHECK(d.node_copies);
  CHECK(d.wire == Wire::alltoallv);
  // Nothing timed on other runs, nor off the node path without messages.
  for (const int run : {0, 2}) {
    RunFacts other = facts;
    other.run = run;
    int timed = 0;
    Decision e;
    CHECK_FALSE(D::on_run(f, g, other, plan, e, no_candidates, [&] {
      ++timed;
      return std::vector<TransportTiming>{};
    }));
    CHECK(timed == 0);
    CHECK(e.node_copies);
  }
  const RunFacts alone = second_run();
  int timed = 0;
  CHECK_FALSE(D::on_run(f, g, alone, plan, d, no_candidates, [&] {
    ++timed;
    return std::vector<TransportTiming>{};
  }));
  CHECK(timed == 0);
}

TEST_CASE("The transports wait for the node's copy to settle, then are timed once", "[circulant][automatic][shared]") {
  // As time_transports answers while some node still compares its two copies (short pieces: pack
  // then pull on run 1, pull on run 2): not yet (nullopt), then the timings on run 3.
  const CycMap f(Cyclic<dynamic>(8), 4096, 4), g(Cyclic<dynamic>(5), 4096, 4);
  using D = Decider<CycMap, CycMap, schedule::bcc_t>;
  const auto no_candidates = [](std::span<Plan>) { return std::vector<double>{}; };
  Decision d;
  Plan plan = D::plan(f, g, 1, schedule::bcc, d);
  REQUIRE(plan.direct());
  std::vector<int> asked;  // the runs on which the transports were asked for
  const int settled = 3;
  for (int run = 0; run < 6; ++run) {
    RunFacts facts = second_run();
    facts.run = run;
    facts.node_path = true;
    facts.exchanges = true;
    CHECK_FALSE(D::on_run(f, g, facts, plan, d, no_candidates, [&]() -> std::optional<std::vector<TransportTiming>> {
      asked.push_back(run);
      if (run < settled) return std::nullopt;
      return std::vector<TransportTiming>{{Wire::point_to_point, false, 2e-3, true}, {Wire::alltoallv, false, 1e-3}};
    }));
    INFO("run " << run);
    // Until then nothing is chosen: the copies, point to point.
    CHECK(d.transports_pending == (run >= 1 && run < settled));
    CHECK(d.node_copies == (run < settled));
    CHECK(d.wire == (run < settled ? Wire::point_to_point : Wire::alltoallv));
  }
  CHECK(asked == std::vector<int>{1, 2, 3});
  CHECK(d.transports.size() == 2);
  CHECK(d.reason.find("node peers by messages: timed faster than the node's copies once they were settled, on the plan's run 4") !=
        std::string::npos);
}
