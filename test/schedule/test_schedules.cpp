// Caterpillar (seed 004) and relative-group (seed 003) schedules: the papers' tables, the
// caterpillar's rolling pattern, random properties, and apply_global_schedule on all ranks' plans.
#include <algorithm>
#include <array>
#include <numeric>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include <redist/dist/block.hpp>
#include <redist/dist/cyclic.hpp>
#include <redist/dist/gen_block.hpp>
#include <redist/plan/plan.hpp>
#include <redist/plan/stepwise.hpp>
#include <redist/schedule/caterpillar.hpp>
#include <redist/schedule/relative_group.hpp>
#include <redist/schedule/transfer.hpp>

#include "../support/random_dists.hpp"
#include "schedule_check.hpp"

using namespace redist;
using schedule::Transfer;
using Table = std::vector<std::vector<int>>;

namespace {

/// COM of CYCLIC(b) on p processes -> CYCLIC(b2) on p2 processes, element by element over one
/// period lcm(b·p, b2·p2): nothing shared with index/.
Table brute_com(index_t b, int p, index_t b2, int p2) {
  const index_t n = std::lcm(b * p, b2 * p2);
  Table com(static_cast<std::size_t>(p), std::vector<int>(static_cast<std::size_t>(p2), 0));
  for (index_t g = 0; g < n; ++g) com[(g / b) % p][(g / b2) % p2] = 1;
  return com;
}

/// Transfers of a 0/1 table, sender rank = row + row_base, receiver rank = column + col_base.
std::vector<Transfer> transfers_of_table(const Table& com, int row_base = 0, int col_base = 0) {
  std::vector<Transfer> t;
  for (std::size_t i = 0; i < com.size(); ++i)
    for (std::size_t j = 0; j < com[i].size(); ++j)
      if (com[i][j]) t.push_back({static_cast<int>(i) + row_base, static_cast<int>(j) + col_base, 1});
  return t;
}

/// The steps of g as (sender, receiver) pairs.
std::vector<std::vector<std::pair<int, int>>> pairs_of(const std::vector<Transfer>& t, const schedule::GlobalSchedule& g) {
  std::vector<std::vector<std::pair<int, int>>> out;
  for (const auto& step : g.steps) {
    out.emplace_back();
    for (std::size_t i : step) out.back().emplace_back(t[i].sender, t[i].receiver);
    std::sort(out.back().begin(), out.back().end());
  }
  return out;
}

// Seed 003, Fig. 7(a): a 5 × 5 communication table.
const Table fig7_com{{1, 1, 0, 1, 0}, {1, 0, 1, 0, 1}, {0, 1, 0, 1, 1}, {1, 0, 1, 1, 0}, {0, 1, 1, 0, 1}};

// Compile time: a 3-rank all-to-all under the caterpillar, and Fig. 8(b)'s start elements.
constexpr bool caterpillar_three() {
  std::array<Transfer, 9> t{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) t[static_cast<std::size_t>(3 * i + j)] = {i, j, 1};
  const auto g = schedule::caterpillar_schedule(t, 3);
  // step 0: 1 <-> 2 (0 with itself); step 1: 0 <-> 2; step 2: 0 <-> 1.
  return g.size() == 3 && g.steps[0] == std::vector<std::size_t>{5, 7} && g.steps[1] == std::vector<std::size_t>{2, 6} &&
         g.steps[2] == std::vector<std::size_t>{1, 3};
}
constexpr bool relative_group_fig8b() {
  // CYCLIC(6) -> CYCLIC(2), P = 5: row i = {3i, 3i+1, 3i+2} mod 5.
  std::vector<std::vector<int>> com(5, std::vector<int>(5, 0));
  for (int i = 0; i < 5; ++i)
    for (int k = 0; k < 3; ++k) com[static_cast<std::size_t>(i)][static_cast<std::size_t>((3 * i + k) % 5)] = 1;
  const auto tab = schedule::relative_group_table(com);
  return tab.structured && tab.shift == 3 && tab.groups == std::vector<int>{0, 3, 1, 4, 2} &&
         tab.start == std::vector<int>{0, 3, 1, 4, 2};
}
constexpr int relative_group_steps_k33() {
  std::array<Transfer, 9> t{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) t[static_cast<std::size_t>(3 * i + j)] = {i, 3 + j, 1};
  return static_cast<int>(schedule::relative_group_schedule(t, 6).size());
}
static_assert(caterpillar_three());
static_assert(relative_group_fig8b());
static_assert(relative_group_steps_k33() == 3);
static_assert(schedule::is_policy<schedule::caterpillar_t> && schedule::is_policy<schedule::relative_group_t>);

}  // namespace

TEST_CASE("Figure 7: Algorithm 3 on the 5 × 5 table; the printed CS starts at J*_0 = 3", "[schedule][seed003][relative_group]") {
  // The printed CS (rows 3 0 1 | 2 4 0 | 1 3 4 | 0 2 3 | 4 1 2) is Algorithm 3 with J*_0 = 3,
  // the last 1-entry of row 0: each row cycles over its 1-entries (ERRATA 003, Def. 4).
  const auto printed = schedule::relative_group_table(fig7_com, 3);
  REQUIRE(printed.structured);
  CHECK(printed.shift == 4);
  CHECK(printed.cs == Table{{3, 0, 1}, {2, 4, 0}, {1, 3, 4}, {0, 2, 3}, {4, 1, 2}});
  // With the errata's J*_0 (the first 1-entry of row 0): another contention-free table.
  const auto ours = schedule::relative_group_table(fig7_com);
  REQUIRE(ours.structured);
  CHECK(ours.groups == std::vector<int>{0, 4, 3, 2, 1});
  CHECK(ours.cs == Table{{0, 1, 3}, {4, 0, 2}, {3, 4, 1}, {2, 3, 0}, {1, 2, 4}});
  // On disjoint ranks (no local copies) the schedule is CS column by column.
  const auto t = transfers_of_table(fig7_com, 0, 5);
  const auto g = schedule::relative_group_schedule(t, 10);
  CHECK(test::check_schedule(t, 10, g).empty());
  REQUIRE(g.size() == 3);
  for (std::size_t k = 0; k < 3; ++k) {
    std::vector<std::pair<int, int>> col;
    for (int i = 0; i < 5; ++i) col.emplace_back(i, 5 + ours.cs[static_cast<std::size_t>(i)][k]);
    std::sort(col.begin(), col.end());
    CHECK(pairs_of(t, g)[k] == col);
  }
  CHECK_THROWS_WITH(schedule::relative_group_table(fig7_com, 2),
                    "redist::schedule::relative_group_table(com, first_one) requires first_one to be a 1-entry of row 0");
}

TEST_CASE("Figure 8(a): CYCLIC(8) -> CYCLIC(2) on 6, RG = (0,4,2,0,4,2), starts (0,4,2,1,5,3)", "[schedule][seed003][relative_group]") {
  const Table com = brute_com(8, 6, 2, 6);
  CHECK(com[0] == std::vector<int>{1, 1, 1, 1, 0, 0});  // 𝒦 = 4
  const auto tab = schedule::relative_group_table(com);
  REQUIRE(tab.structured);
  CHECK(tab.shift == 4);  // b / b'
  CHECK(tab.groups == std::vector<int>{0, 4, 2, 0, 4, 2});
  // SN_0 = (P0, P3) starts (0, 1), SN_1 = (P1, P4) (4, 5), SN_2 = (P2, P5) (2, 3), as printed.
  CHECK(tab.start == std::vector<int>{0, 4, 2, 1, 5, 3});
  CHECK(tab.cs[3] == std::vector<int>{1, 2, 3, 0});
}

TEST_CASE("Figure 8(b): CYCLIC(6) -> CYCLIC(2) on 5, RG' = (0,3,1,4,2) are the start elements", "[schedule][seed003][relative_group]") {
  const auto tab = schedule::relative_group_table(brute_com(6, 5, 2, 5));
  REQUIRE(tab.structured);
  CHECK(tab.groups == std::vector<int>{0, 3, 1, 4, 2});
  CHECK(tab.start == tab.groups);  // every sub-group has one member (step 3)
  // Figures 9 and 10 (the CS tables of Algorithm 4) are images missing from the text: the
  // 2-D case is tested by its property below.
}

TEST_CASE("Algorithm 3's structure: found for CYCLIC(βb') -> CYCLIC(b') with p <= p̃, and on the transpose",
          "[schedule][seed003][relative_group]") {
  for (int p = 1; p <= 12; ++p)
    for (int pt = p; pt <= 12; ++pt)
      for (index_t b2 : {1, 2, 3})
        for (index_t beta : {1, 2, 3, 4, 5}) {
          const Table com = brute_com(beta * b2, p, b2, pt);
          const auto tab = schedule::relative_group_table(com);
          INFO("p = " << p << ", p~ = " << pt << ", b = " << beta * b2 << ", b' = " << b2);
          // Found for every such pair here (Algorithm 3 may give up elsewhere: then the schedule colours).
          REQUIRE(tab.structured);
          // b' = β·b with the sides swapped (p̃ sources, p destinations): structured on the transpose.
          const Table swapped = brute_com(b2, pt, beta * b2, p);
          Table transposed(static_cast<std::size_t>(p), std::vector<int>(static_cast<std::size_t>(pt), 0));
          for (int i = 0; i < pt; ++i)
            for (int j = 0; j < p; ++j)
              transposed[static_cast<std::size_t>(j)][static_cast<std::size_t>(i)] = swapped[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)];
          CHECK(schedule::relative_group_table(transposed).structured);
          for (std::size_t k = 0; k < tab.cs.front().size(); ++k) {
            std::vector<int> col;
            for (const auto& row : tab.cs) col.push_back(row[k]);
            std::sort(col.begin(), col.end());
            CHECK(std::adjacent_find(col.begin(), col.end()) == col.end());
          }
          for (std::size_t i = 0; i < com.size(); ++i) {
            std::vector<int> ones, row = tab.cs[i];
            for (int j = 0; j < pt; ++j)
              if (com[i][static_cast<std::size_t>(j)]) ones.push_back(j);
            std::sort(row.begin(), row.end());
            CHECK(row == ones);
          }
        }
  // The paper's figures are all structured.
  CHECK(schedule::relative_group_table(brute_com(8, 6, 2, 6)).structured);
  CHECK(schedule::relative_group_table(brute_com(4, 4, 2, 6)).structured);
  CHECK_FALSE(schedule::relative_group_table(brute_com(2, 6, 4, 4)).structured);  // p > p̃: the transpose's job
}

TEST_CASE("Caterpillar on one process set: step d pairs i with (P − i − d) mod P", "[schedule][seed004][caterpillar]") {
  for (int nprocs = 1; nprocs <= 20; ++nprocs) {
    std::vector<Transfer> t;
    for (int i = 0; i < nprocs; ++i)
      for (int j = 0; j < nprocs; ++j) t.push_back({i, j, 1 + i + j});
    const auto g = schedule::caterpillar_schedule(t, nprocs);
    INFO("P = " << nprocs);
    CHECK(test::check_schedule(t, nprocs, g).empty());
    // P = 1: nothing to send; P = 2: step 0 pairs everyone with itself and is dropped.
    CHECK(g.size() == static_cast<std::size_t>(nprocs == 2 ? 1 : nprocs == 1 ? 0 : nprocs));
    const auto steps = pairs_of(t, g);
    const int first = nprocs == 2 ? 1 : 0;
    for (std::size_t k = 0; k < g.size(); ++k) {
      const int d = first + static_cast<int>(k);
      std::vector<std::pair<int, int>> expect;
      for (int i = 0; i < nprocs; ++i) {
        const int j = ((nprocs - i - d) % nprocs + nprocs) % nprocs;
        if (i != j) expect.emplace_back(i, j);
      }
      CHECK(steps[k] == expect);
    }
  }
}

TEST_CASE("Seed 004 Fig. 2: the caterpillar with 8 and with 7 processes, step by step", "[schedule][seed004][caterpillar]") {
  // partner[d][i]: the process i exchanges with at step d, (P - i - d) mod P, written out for the
  // figure's two cases. With 8 processes an even step pairs two processes with themselves and an
  // odd one none; with 7 every step leaves exactly one process alone ("a processor alone
  // communicates with itself").
  const std::vector<std::vector<int>> eight{{0, 7, 6, 5, 4, 3, 2, 1}, {7, 6, 5, 4, 3, 2, 1, 0}, {6, 5, 4, 3, 2, 1, 0, 7},
                                            {5, 4, 3, 2, 1, 0, 7, 6}, {4, 3, 2, 1, 0, 7, 6, 5}, {3, 2, 1, 0, 7, 6, 5, 4},
                                            {2, 1, 0, 7, 6, 5, 4, 3}, {1, 0, 7, 6, 5, 4, 3, 2}};
  const std::vector<std::vector<int>> seven{{0, 6, 5, 4, 3, 2, 1}, {6, 5, 4, 3, 2, 1, 0}, {5, 4, 3, 2, 1, 0, 6},
                                            {4, 3, 2, 1, 0, 6, 5}, {3, 2, 1, 0, 6, 5, 4}, {2, 1, 0, 6, 5, 4, 3},
                                            {1, 0, 6, 5, 4, 3, 2}};
  for (const auto* table : {&eight, &seven}) {
    const int nprocs = static_cast<int>(table->size());
    std::vector<Transfer> t;
    for (int i = 0; i < nprocs; ++i)
      for (int j = 0; j < nprocs; ++j) t.push_back({i, j, 1});
    const auto g = schedule::caterpillar_schedule(t, nprocs);
    REQUIRE(g.size() == static_cast<std::size_t>(nprocs));
    const auto steps = pairs_of(t, g);
    for (int d = 0; d < nprocs; ++d) {
      const std::vector<int>& partner = (*table)[static_cast<std::size_t>(d)];
      std::vector<std::pair<int, int>> expect;
      int alone = 0;
      for (int i = 0; i < nprocs; ++i) {
        CHECK(partner[static_cast<std::size_t>(partner[static_cast<std::size_t>(i)])] == i);  // an exchange
        if (partner[static_cast<std::size_t>(i)] == i) ++alone;
        else expect.emplace_back(i, partner[static_cast<std::size_t>(i)]);
      }
      CHECK(alone == (nprocs == 7 ? 1 : d % 2 == 0 ? 2 : 0));
      INFO("P = " << nprocs << ", step " << d);
      CHECK(steps[static_cast<std::size_t>(d)] == expect);  // the local copy takes no step
    }
  }
}

TEST_CASE("Caterpillar extension: different sender and receiver sets roll on positions, at most max(|S|, |R|) steps",
          "[schedule][seed004][caterpillar]") {
  auto all_pairs = [](std::vector<int> s, std::vector<int> r) {
    std::vector<Transfer> t;
    for (int a : s)
      for (int b : r) t.push_back({a, b, 1});
    return t;
  };
  struct Case {
    std::vector<int> s, r;
    int nprocs;
  };
  const Case cases[] = {{{0, 1, 2, 3}, {0, 1}, 4},
                        {{0, 1}, {0, 1, 2, 3}, 4},
                        {{0, 1, 2, 3}, {2, 3, 4, 5}, 6},
                        {{0, 1}, {2, 3, 4, 5}, 6},
                        {{0, 2, 4}, {1, 3, 5, 7, 9}, 10}};
  for (const Case& c : cases) {
    const auto t = all_pairs(c.s, c.r);
    const auto g = schedule::caterpillar_schedule(t, c.nprocs);
    CHECK(test::check_schedule(t, c.nprocs, g).empty());
    const std::size_t m = std::max(c.s.size(), c.r.size());
    CHECK(g.size() <= m);
    // Sender position i sends in step d to receiver position (m − i − d) mod m.
    for (const auto& step : g.steps) {
      const Transfer& first = t[step.front()];
      const auto pos = [](const std::vector<int>& set, int rank) {
        return static_cast<int>(std::find(set.begin(), set.end(), rank) - set.begin());
      };
      const int d = static_cast<int>((2 * m - pos(c.s, first.sender) - pos(c.r, first.receiver)) % m);
      for (std::size_t i : step)
        CHECK((pos(c.s, t[i].sender) + pos(c.r, t[i].receiver) + d) % static_cast<int>(m) == 0);
    }
  }
  // Ranks 0–3 -> 2–5 of 6: the overlap (2, 3) sends and receives in a step, at most one each.
  const auto t = all_pairs({0, 1, 2, 3}, {2, 3, 4, 5});
  CHECK(schedule::caterpillar_schedule(t, 6).size() == 4);
}

TEST_CASE("Random transfer sets: both schedules complete and contention-free; relative_group in max-degree steps",
          "[schedule][caterpillar][relative_group][random]") {
  std::mt19937_64 rng(20240603);
  for (int trial = 0; trial < 400; ++trial) {
    const int nprocs = 1 + static_cast<int>(rng() % 64);
    std::vector<Transfer> t;
    std::vector<int> senders, receivers;
    switch (trial % 4) {
      case 0:  // one process set, random pairs
        senders = receivers = test::random_ranks(nprocs, 1.0, rng);
        break;
      case 1:  // overlapping sets
        senders = test::random_ranks(nprocs, 0.6, rng);
        receivers = test::random_ranks(nprocs, 0.6, rng);
        break;
      case 2: {  // disjoint: a prefix sends, the rest receives
        const int cut = static_cast<int>(rng() % static_cast<unsigned>(nprocs));
        for (int r = 0; r < nprocs; ++r) (r <= cut ? senders : receivers).push_back(r);
        if (receivers.empty()) receivers = senders;
        break;
      }
      default:  // a grid on ranks [0, a) to a grid on ranks [b, b + c)
        const int a = 1 + static_cast<int>(rng() % static_cast<unsigned>(nprocs));
        const int c = 1 + static_cast<int>(rng() % static_cast<unsigned>(nprocs));
        const int b = static_cast<int>(rng() % static_cast<unsigned>(nprocs - c + 1));
        for (int r = 0; r < a; ++r) senders.push_back(r);
        for (int r = b; r < b + c; ++r) receivers.push_back(r);
    }
    const double density = std::uniform_real_distribution<double>(0.02, 1.0)(rng);
    std::bernoulli_distribution take(density);
    for (int s : senders)
      for (int r : receivers)
        if (take(rng)) t.push_back({s, r, 1 + static_cast<index_t>(rng() % 100)});
    std::shuffle(t.begin(), t.end(), rng);
    INFO("trial " << trial << ", P = " << nprocs << ", " << t.size() << " transfers");
    const auto cat = schedule::caterpillar_schedule(t, nprocs);
    const auto rel = schedule::relative_group_schedule(t, nprocs);
    CHECK(test::check_schedule(t, nprocs, cat).empty());
    CHECK(test::check_schedule(t, nprocs, rel).empty());
    const auto [ns, nr] = test::set_sizes(t, nprocs);
    CHECK(cat.size() <= static_cast<std::size_t>(std::max(ns, nr)));
    CHECK(static_cast<int>(rel.size()) == test::brute_degree(t, nprocs));
    CHECK(schedule::max_degree(t, nprocs) == test::brute_degree(t, nprocs));
  }
}

TEST_CASE("A pair listed twice: relative_group colours the multigraph, caterpillar refuses", "[schedule][errors]") {
  const std::vector<Transfer> t{{0, 1, 5}, {1, 0, 2}, {0, 1, 3}, {2, 1, 1}};
  const auto g = schedule::relative_group_schedule(t, 3);
  CHECK(test::check_schedule(t, 3, g).empty());
  CHECK(g.size() == 3);  // rank 1 receives three messages
  CHECK_THROWS_WITH(schedule::caterpillar_schedule(t, 3),
                    "redist::schedule::caterpillar_schedule(transfers, nprocs) requires transfers to list each "
                    "(sender, receiver) pair at most once");
  const std::vector<Transfer> bad{{0, 3, 1}};
  CHECK_THROWS_WITH(schedule::caterpillar_schedule(bad, 3),
                    "redist::schedule::caterpillar_schedule(transfers, nprocs) requires every sender and receiver to be "
                    "a rank in [0, nprocs)");
  CHECK_THROWS_WITH(schedule::relative_group_schedule(std::vector<Transfer>{{0, 1, -1}}, 2),
                    "redist::schedule::relative_group_schedule(transfers, nprocs) requires every size to be >= 0");
  CHECK_THROWS_WITH(schedule::relative_group_schedule(std::vector<Transfer>{}, 0),
                    "redist::schedule::relative_group_schedule(transfers, nprocs) requires nprocs to be > 0");
  CHECK(schedule::relative_group_schedule(std::vector<Transfer>{{1, 1, 4}}, 2).size() == 0);  // local only
  CHECK(schedule::caterpillar_schedule(std::vector<Transfer>{}, 2).size() == 0);
}

TEST_CASE("max_degree counts local transfers only when told (LocalMessages)", "[schedule][degree]") {
  // Rank 0 sends to itself and to 1, rank 1 receives from 0 and from itself, rank 2 only copies.
  const std::vector<Transfer> t{{0, 0, 5}, {0, 1, 2}, {1, 1, 3}, {2, 2, 4}};
  CHECK(schedule::max_degree(t, 3) == 1);
  CHECK(schedule::max_degree(t, 3, schedule::LocalMessages::skipped) == 1);
  CHECK(schedule::max_degree(t, 3, schedule::LocalMessages::counted) == 2);  // rank 0 sending, rank 1 receiving
  CHECK(schedule::max_degree(std::vector<Transfer>{{1, 1, 4}}, 2) == 0);
  CHECK(schedule::max_degree(std::vector<Transfer>{{1, 1, 4}}, 2, schedule::LocalMessages::counted) == 1);
  CHECK(schedule::max_degree(std::vector<Transfer>{}, 2, schedule::LocalMessages::counted) == 0);
  STATIC_REQUIRE(schedule::max_degree(std::array<Transfer, 2>{{{0, 0, 1}, {0, 1, 1}}}, 2,
                                      schedule::LocalMessages::counted) == 2);
}

TEST_CASE("2-D: (BLOCK, BLOCK) on 2 × 4 -> 4 × 2 (Fig. 10's case) and random COM1 ∧ COM2 tables take max-degree steps",
          "[schedule][seed003][relative_group][2d]") {
  // COM[(i1, i2), (j1, j2)] = COM1[i1][j1] ∧ COM2[i2][j2], senders 4·i1 + i2, receivers 2·j1 + j2.
  auto product = [](const Table& c1, const Table& c2, int p2, int q2) {
    std::vector<Transfer> t;
    for (std::size_t i1 = 0; i1 < c1.size(); ++i1)
      for (std::size_t i2 = 0; i2 < c2.size(); ++i2)
        for (std::size_t j1 = 0; j1 < c1[i1].size(); ++j1)
          for (std::size_t j2 = 0; j2 < c2[i2].size(); ++j2)
            if (c1[i1][j1] && c2[i2][j2])
              t.push_back({static_cast<int>(i1) * p2 + static_cast<int>(i2), static_cast<int>(j1) * q2 + static_cast<int>(j2), 1});
    return t;
  };
  {
    // BLOCK of 8 on 2 -> on 4 (dimension 1), BLOCK of 8 on 4 -> on 2 (dimension 2).
    const auto t = product(brute_com(4, 2, 2, 4), brute_com(2, 4, 4, 2), 4, 2);
    const auto g = schedule::relative_group_schedule(t, 8);
    CHECK(test::check_schedule(t, 8, g).empty());
    CHECK(static_cast<int>(g.size()) == test::brute_degree(t, 8));
    CHECK(test::check_schedule(t, 8, schedule::caterpillar_schedule(t, 8)).empty());
  }
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 150; ++trial) {
    const int p1 = 1 + static_cast<int>(rng() % 8), p2 = 1 + static_cast<int>(rng() % 8);
    const int q1 = 1 + static_cast<int>(rng() % 8), q2 = 1 + static_cast<int>(rng() % 8);
    if (p1 * p2 > 64 || q1 * q2 > 64) continue;
    const auto blk = [&] { return static_cast<index_t>(1 + rng() % 6); };
    const auto t = product(brute_com(blk(), p1, blk(), q1), brute_com(blk(), p2, blk(), q2), p2, q2);
    const int nprocs = std::max(p1 * p2, q1 * q2);
    INFO(p1 << "x" << p2 << " -> " << q1 << "x" << q2);
    const auto g = schedule::relative_group_schedule(t, nprocs);
    CHECK(test::check_schedule(t, nprocs, g).empty());
    CHECK(static_cast<int>(g.size()) == test::brute_degree(t, nprocs));
    const auto c = schedule::caterpillar_schedule(t, nprocs);
    CHECK(test::check_schedule(t, nprocs, c).empty());
    const auto [ns, nr] = test::set_sizes(t, nprocs);
    CHECK(c.size() <= static_cast<std::size_t>(std::max(ns, nr)));
  }
}

TEMPLATE_TEST_CASE("1-D plans of all ranks: apply_global_schedule gives matching contention-free rows",
                   "[schedule][plan][apply]", Block, Cyclic<dynamic>, GenBlock) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 40; ++trial) {
    const int nprocs = 1 + static_cast<int>(rng() % 64);
    const index_t n = static_cast<index_t>(rng() % 5000);
    const auto from_d = test::make_dist<TestType>(n, nprocs, rng);
    const auto to_d = test::make_dist<Cyclic<dynamic>>(n, nprocs, rng);
    const typename TestType::mapping from(from_d, n, nprocs);
    const Cyclic<dynamic>::mapping to(to_d, n, nprocs);
    std::vector<Plan> plans;
    for (int r = 0; r < nprocs; ++r) plans.push_back(build_plan(from, to, r));
    const auto t = test::transfers_of(plans);
    INFO("trial " << trial << ", P = " << nprocs << ", n = " << n);
    for (int which = 0; which < 2; ++which) {
      const auto g = which == 0 ? schedule::caterpillar_schedule(t, nprocs) : schedule::relative_group_schedule(t, nprocs);
      CHECK(test::check_schedule(t, nprocs, g).empty());
      if (which == 1) CHECK(static_cast<int>(g.size()) == test::brute_degree(t, nprocs));
      std::vector<Plan> scheduled = plans;
      for (Plan& p : scheduled) apply_global_schedule(p, std::span<const Transfer>(t), g);
      CHECK(test::check_rows(scheduled).empty());
      for (const Plan& p : scheduled) CHECK(p.only().schedule.size() == g.size());
    }
  }
}

TEST_CASE("CYCLIC(β·b) -> CYCLIC(b): relative groups on the plans' own transfers, max-degree steps",
          "[schedule][seed003][relative_group][plan]") {
  for (int nprocs : {2, 3, 5, 6, 8, 12, 31, 64})
    for (index_t b : {1, 2, 3})
      for (index_t beta : {2, 3, 4}) {
        const index_t n = std::lcm(beta * b * nprocs, b * nprocs) * 3;
        const Cyclic<dynamic>::mapping from(Cyclic<dynamic>(beta * b), n, nprocs), to(Cyclic<dynamic>(b), n, nprocs);
        std::vector<Plan> plans;
        for (int r = 0; r < nprocs; ++r) plans.push_back(build_plan(from, to, r));
        const auto t = test::transfers_of(plans);
        const auto g = schedule::relative_group_schedule(t, nprocs);
        INFO("P = " << nprocs << ", CYCLIC(" << beta * b << ") -> CYCLIC(" << b << ")");
        CHECK(test::check_schedule(t, nprocs, g).empty());
        CHECK(static_cast<int>(g.size()) == test::brute_degree(t, nprocs));
        CHECK(schedule::relative_group_table(brute_com(beta * b, nprocs, b, nprocs)).structured);
        for (Plan& p : plans) apply_global_schedule(p, std::span<const Transfer>(t), g);
        CHECK(test::check_rows(plans).empty());
      }
}

TEST_CASE("apply_global_schedule reports a plan and a schedule that disagree", "[schedule][plan][apply][errors]") {
  const Block::mapping from(Block{}, 12, 3);
  const Cyclic<dynamic>::mapping to(Cyclic<dynamic>(1), 12, 3);
  std::vector<Plan> plans;
  for (int r = 0; r < 3; ++r) plans.push_back(build_plan(from, to, r));
  auto t = test::transfers_of(plans);
  const auto g = schedule::caterpillar_schedule(t, 3);
  Plan p = plans[0];
  // A transfer left out of the schedule: the plan's send is in no step.
  schedule::GlobalSchedule missing = g;
  for (auto& step : missing.steps)
    std::erase_if(step, [&](std::size_t i) { return t[i].sender == 0 && !t[i].local(); });
  CHECK_THROWS_WITH(apply_global_schedule(p, std::span<const Transfer>(t), missing),
                    Catch::Matchers::StartsWith("redist::apply_global_schedule(plan, transfers, g): internal error"));
  // A size that differs from the plan's.
  auto wrong = t;
  for (auto& x : wrong)
    if (x.sender == 0 && !x.local()) x.size += 1;
  CHECK_THROWS_WITH(apply_global_schedule(p, std::span<const Transfer>(wrong), g),
                    Catch::Matchers::Contains("disagree on the size"));
  // A transfer named twice.
  schedule::GlobalSchedule twice = g;
  twice.steps.push_back(g.steps.front());
  CHECK_THROWS_WITH(apply_global_schedule(p, std::span<const Transfer>(t), twice),
                    Catch::Matchers::Contains("names a transfer twice"));
  apply_global_schedule(p, std::span<const Transfer>(t), g);
  CHECK(p.only().schedule.size() == g.size());
}

namespace {
/// A plan of one stage with the given rank and messages (no runs): what apply_global_schedule reads.
Plan messages_only(int rank, std::vector<Message> sends, std::vector<Message> recvs) {
  Plan p;
  p.rank = rank;
  p.nprocs = 4;
  Stage<Run>& st = p.stages.emplace_back();
  st.sends = std::move(sends);
  st.recvs = std::move(recvs);
  return p;
}
}  // namespace

TEST_CASE("apply_global_schedule places a plan's messages by peer and size alone", "[schedule][plan][apply]") {
  // Ranks 0–1 send to ranks 2–3 (a source and a destination grid of one communicator).
  const std::vector<Transfer> t{{0, 2, 4}, {0, 3, 5}, {1, 2, 6}, {1, 3, 7}};
  const auto g = schedule::relative_group_schedule(t, 4);
  REQUIRE(g.size() == 2);
  Plan w0 = messages_only(0, {Message{.peer = 3, .size = 5}, Message{.peer = 2, .size = 4}}, {});
  Plan w2 = messages_only(2, {}, {Message{.peer = 0, .size = 4}, Message{.peer = 1, .size = 6}});
  apply_global_schedule(w0, std::span<const Transfer>(t), g);
  apply_global_schedule(w2, std::span<const Transfer>(t), g);
  const Stage<Run>& p0 = w0.only();
  const Stage<Run>& p2 = w2.only();
  REQUIRE(p0.schedule.size() == 2);
  REQUIRE(p2.schedule.size() == 2);
  for (std::size_t k = 0; k < 2; ++k) {
    REQUIRE(p0.schedule.steps[k].sends.size() == 1);
    REQUIRE(p2.schedule.steps[k].recvs.size() == 1);
    CHECK(p0.schedule.steps[k].recvs.empty());
    // 0 -> 2 is in the step in which 2 receives from 0.
    CHECK((p0.sends[p0.schedule.steps[k].sends[0]].peer == 2) == (p2.recvs[p2.schedule.steps[k].recvs[0]].peer == 0));
  }
}
