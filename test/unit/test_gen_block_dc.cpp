// The divide-and-conquer baseline of seed 002's Sec. 5 (bench/gen_block_dc.hpp, a reconstruction): valid on random GEN_BLOCK pairs and on Figs. 1 and 2, its merge's pairing against brute force.
#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include <redist/index/gen_block.hpp>

#include "../../bench/gen_block_dc.hpp"
#include "../support/random_dists.hpp"

// This file's names, apart from the other files of its program: meson compiles them together
// (unity build).
namespace unit_test_gen_block_dc {

using namespace redist;
using index::Transfer;

namespace {

/// An independent checker: every message in exactly one step, no empty step, no source part
/// sending twice and no destination part receiving twice in a step (local messages counted).
std::string check_dc(const std::vector<Transfer>& msgs, int nprocs, const schedule::GlobalSchedule& s) {
  std::vector<int> seen(msgs.size(), 0);
  for (std::size_t k = 0; k < s.steps.size(); ++k) {
    if (s.steps[k].empty()) return "step " + std::to_string(k) + " is empty";
    std::set<int> senders, receivers;
    for (std::size_t i : s.steps[k]) {
      if (i >= msgs.size()) return "step " + std::to_string(k) + " names message " + std::to_string(i);
      ++seen[i];
      if (!senders.insert(msgs[i].sender).second)
        return "step " + std::to_string(k) + ": SP" + std::to_string(msgs[i].sender) + " sends twice";
      if (!receivers.insert(msgs[i].receiver).second)
        return "step " + std::to_string(k) + ": DP" + std::to_string(msgs[i].receiver) + " receives twice";
    }
    if (nprocs > 0 && (*senders.rbegin() >= nprocs || *receivers.rbegin() >= nprocs))
      return "step " + std::to_string(k) + " names a part >= P";
  }
  for (std::size_t i = 0; i < msgs.size(); ++i)
    if (seen[i] != 1) return "message " + std::to_string(i) + " is scheduled " + std::to_string(seen[i]) + " times";
  return {};
}

int degree(const std::vector<Transfer>& msgs, int nprocs) {
  std::vector<int> out(static_cast<std::size_t>(nprocs), 0), in(out);
  int d = 0;
  for (const auto& m : msgs) d = std::max({d, ++out[m.sender], ++in[m.receiver]});
  return d;
}

index_t cost(const std::vector<Transfer>& msgs, const schedule::GlobalSchedule& s) {
  index_t total = 0;
  for (const auto& step : s.steps) {
    index_t longest = 0;
    for (std::size_t i : step) longest = std::max(longest, msgs[i].size);
    total += longest;
  }
  return total;
}

index_t bound(const std::vector<Transfer>& msgs, int nprocs) {
  std::vector<index_t> out(static_cast<std::size_t>(nprocs), 0), in(out);
  for (const auto& m : msgs) {
    out[m.sender] += m.size;
    in[m.receiver] += m.size;
  }
  return std::max(*std::max_element(out.begin(), out.end()), *std::max_element(in.begin(), in.end()));
}

/// As sets of the paper's message numbers m1, m2, ...
std::vector<std::set<std::size_t>> numbered(const schedule::GlobalSchedule& s) {
  std::vector<std::set<std::size_t>> out;
  for (const auto& step : s.steps) {
    std::set<std::size_t> ms;
    for (std::size_t i : step) ms.insert(i + 1);
    out.push_back(ms);
  }
  return out;
}

}  // namespace

TEST_CASE("DC baseline: the checker catches a contended, a duplicated and a missing message", "[gen_block][dc]") {
  // Fig. 2's first messages: m1 = SP0 -> DP0, m2 = SP1 -> DP0, m3 = SP1 -> DP1.
  const std::vector<Transfer> m{{0, 0, 7}, {1, 0, 3}, {1, 1, 7}};
  CHECK(check_dc(m, 2, {{{0, 2}, {1}}}).empty());
  CHECK(check_dc(m, 2, {{{0, 1}, {2}}}) == "step 0: DP0 receives twice");
  CHECK(check_dc(m, 2, {{{0}, {1, 2}}}) == "step 1: SP1 sends twice");
  CHECK(check_dc(m, 2, {{{0, 2}, {1}, {2}}}) == "message 2 is scheduled 2 times");
  CHECK(check_dc(m, 2, {{{0, 2}}}) == "message 1 is scheduled 0 times");
}

TEST_CASE("DC baseline: Figure 2 (7,10,4,18,7,18,36) -> (10,14,18,14,14,12,18)", "[gen_block][dc][seed002]") {
  const std::array<index_t, 7> src{7, 10, 4, 18, 7, 18, 36}, dst{10, 14, 18, 14, 14, 12, 18};
  const auto m = index::gen_block_messages(src, dst);
  REQUIRE(m.size() == 13);
  const auto s = bench::dc_schedule(m, 7);
  INFO(check_dc(m, 7, s));
  CHECK(check_dc(m, 7, s).empty());
  CHECK(s.size() == 3);  // d = 3 (SP6), as TPDR's Fig. 4
  // NMSs {m1,m2} (DP0) {m3,m4,m5} (DP1) {m6,m7} (DP2) | {m8,m9} (DP3) {m10,m11} (DP4) {m12,m13}
  // (SP6). By hand (doc/gen_block.md): the left half has steps of 15, 4, 3 whatever the ties,
  // the right half 18, 12, 6, and the top merge (shared node SP4: m7 | m8) can pair 15 with 18,
  // so the cost is 18 + 12 + 6 = 36, the lower bound (SP6 sends 6 + 12 + 18). The steps
  // themselves depend on ties the merge breaks; they come out as TPDR's Fig. 4.
  CHECK(numbered(s) == std::vector<std::set<std::size_t>>{{1, 3, 6, 8, 10, 13}, {2, 4, 7, 9, 12}, {5, 11}});
  CHECK(cost(m, s) == 36);
  CHECK(bound(m, 7) == 36);
}

TEST_CASE("DC baseline: Figure 1 (7,16,11,10,7,49) -> (15,16,10,16,15,28)", "[gen_block][dc][seed002]") {
  const std::array<index_t, 6> src{7, 16, 11, 10, 7, 49}, dst{15, 16, 10, 16, 15, 28};
  const auto m = index::gen_block_messages(src, dst);
  REQUIRE(m.size() == 11);
  const auto s = bench::dc_schedule(m, 6);
  INFO(check_dc(m, 6, s));
  CHECK(check_dc(m, 6, s).empty());
  CHECK(s.size() == 3);  // d = 3 (SP5, DP3)
  // Fig. 1(c)'s steps (TPDR's, step 3 = {m9}), longest first: 28 + 15 + 6 = 49, the lower
  // bound (SP5 sends 6 + 15 + 28).
  CHECK(numbered(s) == std::vector<std::set<std::size_t>>{{2, 4, 6, 8, 11}, {1, 3, 5, 7, 10}, {9}});
  CHECK(cost(m, s) == 49);
  CHECK(bound(m, 6) == 49);
}

TEST_CASE("DC baseline: the merge's pairing is the best one (brute force over all pairings)", "[gen_block][dc]") {
  std::mt19937_64 rng(2004);
  for (int t = 0; t < 3000; ++t) {
    const std::size_t a = 1 + rng() % 5, b = 1 + rng() % 5;
    std::vector<std::int64_t> wl(a), wr(b);
    std::vector<char> fl(a), fr(b);
    for (auto& w : wl) w = 1 + static_cast<std::int64_t>(rng() % 20);
    for (auto& w : wr) w = 1 + static_cast<std::int64_t>(rng() % 20);
    for (auto& f : fl) f = rng() % 3 == 0;
    for (auto& f : fr) f = rng() % 3 == 0;
    const auto pairs = bench::dc_detail::best_pairing(wl, fl, wr, fr);
    // Valid: each step at most once, never two flagged steps.
    std::vector<int> used_l(a, 0), used_r(b, 0);
    std::int64_t saved = 0;
    for (const auto& [i, j] : pairs) {
      REQUIRE(i < a);
      REQUIRE(j < b);
      REQUIRE(++used_l[i] == 1);
      REQUIRE(++used_r[j] == 1);
      REQUIRE(!(fl[i] && fr[j]));
      saved += std::min(wl[i], wr[j]);
    }
    // Brute force: every partial injection of the left steps into the right ones (or nowhere).
    std::size_t best_pairs = 0;
    std::int64_t best_saved = 0;
    std::vector<std::size_t> to(a, 0);  // to[i] == b: unpaired
    for (;;) {
      std::vector<int> taken(b, 0);
      bool ok = true;
      std::size_t np = 0;
      std::int64_t sv = 0;
      for (std::size_t i = 0; i < a && ok; ++i) {
        if (to[i] == b) continue;
        if (taken[to[i]]++ || (fl[i] && fr[to[i]])) ok = false;
        ++np;
        sv += std::min(wl[i], wr[to[i]]);
      }
      if (ok && (np > best_pairs || (np == best_pairs && sv > best_saved))) {
        best_pairs = np;
        best_saved = sv;
      }
      std::size_t i = 0;
      while (i < a && to[i] == b) to[i++] = 0;
      if (i == a) break;
      ++to[i];
    }
    INFO("case " << t);
    CHECK(pairs.size() == best_pairs);
    CHECK(saved == best_saved);
  }
}

TEST_CASE("DC baseline: valid, maximum-degree steps, at least the bound, on random GEN_BLOCK pairs",
          "[gen_block][dc]") {
  std::mt19937_64 rng(29022004);
  int cases = 0;
  for (int t = 0; t < 6000; ++t) {
    const int nprocs = 1 + static_cast<int>(rng() % 24);
    const index_t n = t % 10 == 0 ? static_cast<index_t>(rng() % 8) : 1 + static_cast<index_t>(rng() % 2000);
    const auto a = test::random_parts(n, nprocs, rng), b = test::random_parts(n, nprocs, rng);  // about a third empty
    const auto m = index::gen_block_messages(std::span<const index_t>(a), std::span<const index_t>(b));
    const auto s = bench::dc_schedule(m, nprocs);
    INFO("case " << t << ": n = " << n << ", P = " << nprocs);
    const std::string why = check_dc(m, nprocs, s);
    INFO(why);
    REQUIRE(why.empty());
    REQUIRE(static_cast<int>(s.size()) == (m.empty() ? 0 : degree(m, nprocs)));
    if (!m.empty()) REQUIRE(cost(m, s) >= bound(m, nprocs));
    ++cases;
  }
  CHECK(cases == 6000);
}

}  // namespace unit_test_gen_block_dc
