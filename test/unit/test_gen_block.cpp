// GEN_BLOCK schedules (seed 002): the paper's figures, hand-derived LMR cases, and random properties in the virtual-rank simulator.
#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <set>
#include <numeric>
#include <vector>

#include <catch2/catch.hpp>

#include <redist/index/gen_block.hpp>
#include <redist/plan/automatic.hpp>
#include <redist/plan/gen_block.hpp>
#include <redist/schedule/gen_block.hpp>

#include "../support/oracle.hpp"
#include "../support/paper_steps.hpp"
#include "../support/random_dists.hpp"
#include "../support/sanitized.hpp"
#include "../support/simulator.hpp"

// This file's names, apart from the other files of its program: meson compiles them together
// (unity build).
namespace unit_test_gen_block {

using namespace redist;
using schedule::Transfer;
using redist::test::numbered;
using redist::test::Steps;

namespace {

// Seed 002, Fig. 2: source (7, 10, 4, 18, 7, 18, 36), destination (10, 14, 18, 14, 14, 12, 18).
constexpr std::array<index_t, 7> fig2_src{7, 10, 4, 18, 7, 18, 36};
constexpr std::array<index_t, 7> fig2_dst{10, 14, 18, 14, 14, 12, 18};
// Seed 002, Fig. 1(a): source (7, 16, 11, 10, 7, 49), destination (15, 16, 10, 16, 15, 28).
constexpr std::array<index_t, 6> fig1_src{7, 16, 11, 10, 7, 49};
constexpr std::array<index_t, 6> fig1_dst{15, 16, 10, 16, 15, 28};


/// The messages by brute force: the owners of every element, runs of equal (source owner,
/// destination owner) in global order, so that run k starts where run k - 1 ends — nothing
/// shared with index/gen_block.hpp.
std::vector<Transfer> brute_messages(const test::Layout& src, const test::Layout& dst) {
  std::vector<Transfer> out;
  for (std::size_t g = 0; g < src.owner.size(); ++g) {
    const int s = src.owner[g], d = dst.owner[g];
    if (!out.empty() && out.back().sender == s && out.back().receiver == d)
      ++out.back().size;
    else
      out.push_back({s, d, 1});
  }
  return out;
}

/// Checks a global schedule against the message list: every message in exactly one step, no
/// empty step, and (when contention_free) each source part sends and each destination part
/// receives at most one message per step, its local message included.
std::string check_global(const std::vector<Transfer>& msgs, int nprocs, const schedule::GlobalSchedule& s,
                         bool contention_free) {
  std::vector<int> seen(msgs.size(), 0);
  for (std::size_t k = 0; k < s.size(); ++k) {
    if (s.steps[k].empty()) return "step " + std::to_string(k) + " is empty";
    std::vector<int> sends(static_cast<std::size_t>(nprocs), 0), recvs(static_cast<std::size_t>(nprocs), 0);
    for (std::size_t i : s.steps[k]) {
      if (i >= msgs.size()) return "step " + std::to_string(k) + " names message " + std::to_string(i);
      ++seen[i];
      if (contention_free && (++sends[msgs[i].sender] > 1 || ++recvs[msgs[i].receiver] > 1))
        return "step " + std::to_string(k) + " has node contention at message " + std::to_string(i);
    }
  }
  for (std::size_t i = 0; i < msgs.size(); ++i)
    if (seen[i] != 1) return "message " + std::to_string(i) + " is scheduled " + std::to_string(seen[i]) + " times";
  return {};
}

/// Max over parts of the number of messages sent, and of received: counted here, not by the library.
int brute_degree(const std::vector<Transfer>& msgs, int nprocs) {
  std::vector<int> out(static_cast<std::size_t>(nprocs), 0), in(out);
  int d = 0;
  for (const auto& m : msgs) d = std::max({d, ++out[m.sender], ++in[m.receiver]});
  return d;
}

/// Σ over steps of the largest cost, and max over parts of their total, computed here.
double brute_cost(const std::vector<Transfer>& msgs, const schedule::GlobalSchedule& s, double r) {
  double total = 0;
  for (const auto& step : s.steps) {
    double longest = 0;
    for (std::size_t i : step) longest = std::max(longest, msgs[i].sender == msgs[i].receiver ? msgs[i].size / r : double(msgs[i].size));
    total += longest;
  }
  return total;
}
double brute_bound(const std::vector<Transfer>& msgs, int nprocs, double r) {
  std::vector<double> out(static_cast<std::size_t>(nprocs), 0), in(out);
  for (const auto& m : msgs) {
    const double c = m.sender == m.receiver ? m.size / r : double(m.size);
    out[m.sender] += c;
    in[m.receiver] += c;
  }
  return std::max(*std::max_element(out.begin(), out.end()), *std::max_element(in.begin(), in.end()));
}

constexpr double fig2_tpdr_cost() {
  const auto m = index::gen_block_messages(fig2_src, fig2_dst);
  return schedule::schedule_cost(m, schedule::tpdr_schedule(m, 7));
}

}  // namespace

TEST_CASE("Figure 2: the 13 messages of (7,10,4,18,7,18,36) -> (10,14,18,14,14,12,18)", "[gen_block][seed002]") {
  const auto m = index::gen_block_messages(fig2_src, fig2_dst);
  // Sizes as printed in Figs. 4 and 6; senders and receivers from Fig. 2(a).
  const std::vector<Transfer> paper{{0, 0, 7}, {1, 0, 3},  {1, 1, 7}, {2, 1, 4}, {3, 1, 3},  {3, 2, 15}, {4, 2, 3},
                                    {4, 3, 4}, {5, 3, 10}, {5, 4, 8}, {6, 4, 6}, {6, 5, 12}, {6, 6, 18}};
  CHECK(m == paper);
  // The list is in global order and tiles [0, 100): m_k starts at the sum of the sizes before it.
  std::vector<index_t> begins{0};
  for (const Transfer& x : m) begins.push_back(begins.back() + x.size);
  CHECK(begins == std::vector<index_t>{0, 7, 10, 17, 21, 24, 39, 42, 46, 56, 64, 70, 82, 100});
  CHECK(schedule::max_degree(m, 7, schedule::LocalMessages::counted) == 3);  // SP6 and DP1
  CHECK(schedule::max_degree(m, 7) == 2);  // without the local m1, m3, m13: the general schedulers' count
  const GenBlock src(fig2_src), dst(fig2_dst);
  CHECK(m == brute_messages(test::oracle(src, 100, 7), test::oracle(dst, 100, 7)));
  CHECK(index::gen_block_messages(GenBlock::mapping(src, 100, 7), GenBlock::mapping(dst, 100, 7)) == m);
}

TEST_CASE("Figure 4: TPDR schedules Figure 2 as {m1,m3,m6,m8,m10,m13} {m2,m4,m7,m9,m12} {m11,m5}, cost 36",
          "[gen_block][seed002][tpdr]") {
  const auto m = index::gen_block_messages(fig2_src, fig2_dst);
  const auto s = schedule::tpdr_schedule(m, 7);
  CHECK(numbered(s) == Steps{{1, 3, 6, 8, 10, 13}, {2, 4, 7, 9, 12}, {11, 5}});
  CHECK(check_global(m, 7, s, true).empty());
  // S1 is led by m13 (18), S2 by m12 (12), S3 by m11 (6).
  CHECK(schedule::schedule_cost(m, s) == 18 + 12 + 6);
  STATIC_REQUIRE(fig2_tpdr_cost() == 36);  // the whole of TPDR runs at compile time too
}

TEST_CASE("Figure 6: E-TPDR schedules Figure 2 as {m1,m3,m6,m9,m13} {m4,m7,m10,m12} {m11,m5,m8,m2}",
          "[gen_block][seed002][etpdr]") {
  const auto m = index::gen_block_messages(fig2_src, fig2_dst);
  const auto s = schedule::etpdr_schedule(m, 7);
  CHECK(numbered(s) == Steps{{1, 3, 6, 9, 13}, {4, 7, 10, 12}, {11, 5, 8, 2}});
  CHECK(check_global(m, 7, s, true).empty());
  CHECK(schedule::schedule_cost(m, s) == 36);  // "this example does not reflect lower total cost"
}

TEST_CASE("E-TPDR can cost more than TPDR: P = 12, 781 against 885 (explained in doc/papers.md)",
          "[gen_block][seed002][etpdr]") {
  const std::vector<index_t> src{437, 289, 387, 158, 219, 0, 483, 345, 515, 299, 427, 537};
  const std::vector<index_t> dst{98, 503, 633, 642, 641, 382, 316, 38, 251, 331, 231, 30};
  const auto m = index::gen_block_messages(src, dst);
  REQUIRE(m.size() == 22);
  CHECK(schedule::max_degree(m, 12, schedule::LocalMessages::counted) == 4);  // SP10: m16 ... m19
  const auto t = schedule::tpdr_schedule(m, 12), e = schedule::etpdr_schedule(m, 12);
  CHECK(check_global(m, 12, t, true).empty());
  CHECK(check_global(m, 12, e, true).empty());
  // Step 4 is SP10's m17 in both; E-TPDR adds the local m7 and m22 to it. In step 3, DP3 and SP11
  // (now of degree 2) pick nothing, and DP2 takes m6 (121), which SP3's m7 blocked in TPDR,
  // instead of m4 (125): the path m2 m3 m4 m5 stays whole for the two-colouring, and m2 (339)
  // and m5 (387) fall in different steps.
  CHECK(numbered(t) == Steps{{1, 3, 6, 8, 12, 14, 16, 21}, {2, 5, 9, 11, 13, 15, 18, 20}, {4, 7, 10, 19, 22}, {17}});
  CHECK(numbered(e) == Steps{{2, 4, 8, 12, 15, 18, 20}, {3, 5, 9, 11, 13, 16, 21}, {1, 6, 10, 14, 19}, {7, 17, 22}});
  CHECK(schedule::schedule_cost(m, t) == 231 + 387 + 125 + 38);
  CHECK(schedule::schedule_cost(m, e) == 339 + 387 + 121 + 38);
  CHECK(schedule::schedule_cost(m, e) - schedule::schedule_cost(m, t) == 104);
}

TEST_CASE("Figure 1: 11 messages 7 | 8 8 | 8 3 | 7 3 | 7 | 6 15 28, three steps, step 3 is {m9}",
          "[gen_block][seed002]") {
  const auto m = index::gen_block_messages(fig1_src, fig1_dst);
  REQUIRE(m.size() == 11);
  std::vector<index_t> sizes;
  for (const auto& x : m) sizes.push_back(x.size);
  CHECK(sizes == std::vector<index_t>{7, 8, 8, 8, 3, 7, 3, 7, 6, 15, 28});  // ERRATA 002
  CHECK(m == brute_messages(test::oracle(GenBlock(fig1_src), 100, 6), test::oracle(GenBlock(fig1_dst), 100, 6)));
  CHECK(schedule::max_degree(m, 6, schedule::LocalMessages::counted) == 3);  // SP5 and DP3
  // Fig. 1(c) (with the blank step 3 restored to {m9}) is contention-free.
  const schedule::GlobalSchedule fig1c{{{0, 2, 4, 6, 9}, {1, 3, 5, 7, 10}, {8}}};
  CHECK(check_global(m, 6, fig1c, true).empty());
  // TPDR: SP5 (49) outweighs DP3 (16) and puts its smallest message, m9, into step 3; DP3 is
  // then busy. The rest is one section m1..m8 and one m10, m11 (no exchange on equal cost):
  // Fig. 1(c) exactly, at the lower bound, SP5's 49.
  const auto s = schedule::tpdr_schedule(m, 6);
  CHECK(s == fig1c);
  CHECK(schedule::schedule_cost(m, s) == 49);
  CHECK(schedule::lower_bound(m, 6) == 49);
  for (const auto& sched : {schedule::etpdr_schedule(m, 6), schedule::list_schedule(m, 6)}) {
    CHECK(check_global(m, 6, sched, true).empty());
    CHECK(sched.size() == 3);
    CHECK(schedule::schedule_cost(m, sched) == 49);
  }
}

TEST_CASE("LMR: a cheap local message changes degree reduction and colouring", "[gen_block][lmr]") {
  const double r = 10;
  const schedule::MessageCost lmr{r};
  CHECK(lmr(Transfer{2, 2, 99}) == Approx(9.9));
  CHECK(lmr(Transfer{2, 3, 99}) == 99);
  {
    // (4, 20, 6) -> (8, 10, 12): m1 SP0->DP0 4 (local), m2 SP1->DP0 4, m3 SP1->DP1 10 (local),
    // m4 SP1->DP2 6, m5 SP2->DP2 6 (local). SP1 has degree 3 and puts its cheapest message into
    // step 3: m2 (4) by size, m3 (10 / 10 = 1) by LMR cost.
    const std::array<index_t, 3> a{4, 20, 6}, b{8, 10, 12};
    const auto m = index::gen_block_messages(a, b);
    REQUIRE(m.size() == 5);
    CHECK(numbered(schedule::tpdr_schedule(m, 3))[2] == std::set<std::size_t>{2});
    CHECK(numbered(schedule::tpdr_schedule(m, 3, lmr))[2] == std::set<std::size_t>{3});
  }
  {
    // (5, 5, 12) -> (2, 3, 17): m1 SP0->DP0 2 (local), m2 SP0->DP1 3, m3 SP1->DP2 5, m4 SP2->DP2
    // 12 (local). Degree 2: sections {m1, m2} and {m3, m4}. By size, exchanging the second
    // section's colours costs max(2,12) + max(3,5) = 17 = max(2,5) + max(3,12): kept, and under
    // LMR that table costs max(0.2, 5) + max(3, 1.2) = 8. By LMR cost the exchange gives
    // max(0.2, 1.2) + max(3, 5) = 6.2 < 8: taken.
    const std::array<index_t, 3> a{5, 5, 12}, b{2, 3, 17};
    const auto m = index::gen_block_messages(a, b);
    REQUIRE(m.size() == 4);
    const auto plain = schedule::tpdr_schedule(m, 3), with_lmr = schedule::tpdr_schedule(m, 3, lmr);
    CHECK(numbered(plain) == Steps{{1, 3}, {2, 4}});
    CHECK(numbered(with_lmr) == Steps{{1, 4}, {2, 3}});
    CHECK(schedule::schedule_cost(m, plain, lmr) == Approx(8));
    CHECK(schedule::schedule_cost(m, with_lmr, lmr) == Approx(6.2));
    CHECK(schedule::etpdr_schedule(m, 3, lmr) == with_lmr);
  }
  CHECK_THROWS_AS(schedule::tpdr_schedule({}, 1, {0.0}), redist::error);
  CHECK_THROWS_AS(schedule::list_schedule({}, 1, {-2.0}), redist::error);
}

TEST_CASE("List scheduling relocates when first fit runs out of steps", "[gen_block][list]") {
  // (10, 5, 9) -> (12, 12, 0): m1 SP0->DP0 10, m2 SP1->DP0 2, m3 SP1->DP1 3, m4 SP2->DP1 9; d = 2.
  // First fit: m1, m4 -> step 1; m3 -> step 2 (DP1 busy in 1); m2: SP1 busy in 2, DP0 busy in 1.
  // Relocation with a = 1 (SP1 free), b = 2 (DP0 free): the chain from DP0 in step 1 is m1 alone
  // (SP0 has nothing in step 2), so m1 moves to step 2 and m2 takes step 1.
  const std::array<index_t, 3> a{10, 5, 9}, b{12, 12, 0};
  const auto m = index::gen_block_messages(a, b);
  REQUIRE(m.size() == 4);
  const auto s = schedule::list_schedule(m, 3);
  CHECK(numbered(s) == Steps{{2, 4}, {1, 3}});
  CHECK(check_global(m, 3, s, true).empty());
  CHECK(schedule::schedule_cost(m, s) == 9 + 10);
}

TEST_CASE("Policies: equality, is_policy, defaults", "[gen_block][policy]") {
  STATIC_REQUIRE(schedule::is_policy<schedule::tpdr_t>);
  STATIC_REQUIRE(schedule::is_policy<schedule::etpdr_t>);
  STATIC_REQUIRE(schedule::is_policy<schedule::list_t>);
  STATIC_REQUIRE(schedule::tpdr == schedule::tpdr_t{1.0});
  STATIC_REQUIRE(!(schedule::etpdr == schedule::etpdr_t{.lmr_ratio = 4}));
  STATIC_REQUIRE(schedule::list.lmr_ratio == 1.0);
}

TEST_CASE("The cost model of automatic, by hand on Figure 2", "[gen_block][automatic]") {
  const auto m = index::gen_block_messages(fig2_src, fig2_dst);
  const auto s = schedule::etpdr_schedule(m, 7);
  // Unit Ts and Td, 1-byte elements, no LMR. E-TPDR: 3 steps, 3·Ts + (18 + 12 + 6)·Td = 39.
  // All at once: one step; m13 (18) shares SP6 with two others: Ts + 18·3·Td = 55.
  schedule::CostModel unit{1, 1, 1, 1};
  CHECK(schedule::predicted_seconds(m, 7, s, unit) == 39);
  CHECK(schedule::predicted_seconds(m, 7, schedule::all_at_once_schedule(m), unit) == 55);
  CHECK(schedule::choose_automatic(m, 7, s, unit) == schedule::automatic_choice::etpdr_lmr);
  // With Ts = 20: 60 + 36 = 96 against 20 + 54 = 74: all at once.
  schedule::CostModel slow_start{20, 1, 1, 1};
  CHECK(schedule::choose_automatic(m, 7, s, slow_start) == schedule::automatic_choice::one_exchange);
}

TEST_CASE("Random GEN_BLOCK pairs: every schedule is complete, contention-free, max-degree steps, exact",
          "[gen_block][simulate]") {
  std::mt19937_64 rng(20240502);
  const double ratios[] = {1.0, 7.5};
  for (int t = 0; t < test::trials(120); ++t) {
    const int nprocs = t < 20 ? 1 + t % 5 : 1 + static_cast<int>(rng() % 256);
    const index_t n = t % 10 == 0 ? static_cast<index_t>(rng() % 8)
                                  : static_cast<index_t>(std::pow(10.0, std::uniform_real_distribution<double>(0, 4)(rng)));
    const GenBlock df(test::random_parts(n, nprocs, rng)), dt(test::random_parts(n, nprocs, rng));
    const GenBlock::mapping mf(df, n, nprocs), mt(dt, n, nprocs);
    const auto of = test::oracle(df, n, nprocs), ot = test::oracle(dt, n, nprocs);
    INFO("case " << t << ": n = " << n << ", P = " << nprocs);
    const auto msgs = index::gen_block_messages(mf, mt);
    REQUIRE(msgs == brute_messages(of, ot));
    const int d = brute_degree(msgs, nprocs);
    REQUIRE(schedule::max_degree(msgs, nprocs, schedule::LocalMessages::counted) == d);
    for (double r : ratios) {
      INFO("lmr ratio " << r);
      const schedule::MessageCost cost{r};
      const double bound = brute_bound(msgs, nprocs, r);
      REQUIRE(schedule::lower_bound(msgs, nprocs, cost) == Approx(bound));
      const std::pair<const char*, schedule::GlobalSchedule> all[] = {
          {"tpdr", schedule::tpdr_schedule(msgs, nprocs, cost)},
          {"etpdr", schedule::etpdr_schedule(msgs, nprocs, cost)},
          {"list", schedule::list_schedule(msgs, nprocs, cost)}};
      for (const auto& [name, s] : all) {
        INFO(name);
        const std::string why = check_global(msgs, nprocs, s, true);
        INFO(why);
        REQUIRE(why.empty());
        REQUIRE(static_cast<int>(s.size()) == d);
        const double c = brute_cost(msgs, s, r);
        REQUIRE(schedule::schedule_cost(msgs, s, cost) == Approx(c));
        REQUIRE(c >= bound * (1 - 1e-12));
      }
      const auto aao = schedule::all_at_once_schedule(msgs);
      REQUIRE(check_global(msgs, nprocs, aao, false).empty());
      REQUIRE(aao.size() == (msgs.empty() ? 0u : 1u));
    }
    // Virtual ranks: each rank's row of each schedule, data checked against the oracle, steps
    // paired between ranks, at most one send and one receive per rank and step.
    auto run = [&](auto policy, test::SimChecks checks) {
      return test::simulate(mf, mt, of, ot, checks,
                            [&](const auto& f, const auto& to, int rank) { return plan_with(f, to, rank, policy); });
    };
    const test::SimChecks strict{true, true};
    for (const auto& res : {run(schedule::tpdr, strict), run(schedule::etpdr, strict), run(schedule::list, strict),
                            run(schedule::tpdr_t{7.5}, strict), run(schedule::etpdr_t{7.5}, strict),
                            run(schedule::list_t{7.5}, strict)}) {
      INFO(res.failure);
      REQUIRE(res.ok);
      REQUIRE(res.max_steps == static_cast<std::size_t>(d));
    }
    // automatic: E-TPDR with LMR, or all at once, as the cost model says.
    const auto choice = schedule::choose_automatic(
        msgs, nprocs, schedule::etpdr_schedule(msgs, nprocs, {schedule::default_lmr_ratio}), schedule::CostModel{});
    const bool scheduled = choice == schedule::automatic_choice::etpdr_lmr;
    const auto res = run(schedule::automatic, test::SimChecks{true, scheduled});
    INFO(res.failure);
    REQUIRE(res.ok);
    REQUIRE(res.max_steps == (scheduled ? static_cast<std::size_t>(d) : std::min<std::size_t>(1, msgs.size())));
  }
}

TEST_CASE("automatic picks E-TPDR for large GEN_BLOCK messages and all at once for tiny ones", "[gen_block][automatic]") {
  for (index_t scale : {1, 1000000}) {
    std::vector<index_t> a, b;
    for (index_t x : fig2_src) a.push_back(x * scale);
    for (index_t x : fig2_dst) b.push_back(x * scale);
    const GenBlock::mapping mf(GenBlock(a), 100 * scale, 7), mt(GenBlock(b), 100 * scale, 7);
    const auto msgs = index::gen_block_messages(mf, mt);
    const auto s = schedule::etpdr_schedule(msgs, 7, {schedule::default_lmr_ratio});
    // Tiny (n = 100): 3 start-ups of 20 µs against one; the bytes do not matter. Large: by LMR
    // cost (r = 8) E-TPDR puts m13 (18/8), m3 (7/8) and, by the complement, m1 (7/8) into step 3,
    // and the rest (sections {m2} and m4..m12, kept) costs 15 + 10: 27.25 per scale unit, against
    // all at once's m12, 12 · 3 (SP6's three messages) = 36: 8.75e6 elements more than 2 start-ups.
    const auto expect = scale == 1 ? schedule::automatic_choice::one_exchange : schedule::automatic_choice::etpdr_lmr;
    REQUIRE(schedule::choose_automatic(msgs, 7, s, {}) == expect);
    for (int rank = 0; rank < 7; ++rank) {
      const Plan p_whole = plan_with(mf, mt, rank, schedule::automatic);
      const auto& p = p_whole.only();
      CHECK(p.schedule.size() == (scale == 1 ? 1u : 3u));
    }
  }
}

TEST_CASE("automatic posts GEN_BLOCK's messages at once above max_gen_block_schedule_procs", "[gen_block][automatic]") {
  // Large messages, where the model takes E-TPDR at any P; uneven blocks (0.4 and 1.6 times n/P,
  // alternately, shifted by one rank on the other side) so that ranks have several messages.
  for (const int p : {max_gen_block_schedule_procs, max_gen_block_schedule_procs + 1}) {
    const index_t unit = 1 << 20;
    std::vector<index_t> a(static_cast<std::size_t>(p)), b(a.size());
    for (int r = 0; r < p; ++r) {
      a[static_cast<std::size_t>(r)] = r % 2 ? 16 * unit : 4 * unit;
      b[static_cast<std::size_t>((r + 1) % p)] = a[static_cast<std::size_t>(r)];
    }
    const index_t n = std::accumulate(a.begin(), a.end(), index_t{0});
    const GenBlock::mapping mf(GenBlock(a), n, p), mt(GenBlock(b), n, p);
    for (const int rank : {0, p / 2 + 1, p - 1}) {
      const Plan got = plan_with(mf, mt, rank, schedule::automatic);
      const Plan once = build_plan(mf, mt, rank);
      INFO("P = " << p << ", rank " << rank);
      if (p > max_gen_block_schedule_procs) {
        CHECK(got.only().schedule == once.only().schedule);
      } else {
        CHECK(got.only().schedule.size() > 1);  // E-TPDR's steps
      }
      CHECK(got.only().sends.size() == once.only().sends.size());
    }
  }
}

TEST_CASE("GenBlock to other layouts keeps the general plan under automatic", "[gen_block][automatic]") {
  const GenBlock::mapping g(GenBlock{10, 0, 30, 60}, 100, 4);
  const Block::mapping b(Block{}, 100, 4);
  for (int r = 0; r < 4; ++r) {
    CHECK(plan_with(g, b, r, schedule::automatic).only().schedule == build_plan(g, b, r).only().schedule);
    CHECK(plan_with(b, g, r, schedule::automatic).only().schedule == build_plan(b, g, r).only().schedule);
  }
}

}  // namespace unit_test_gen_block
