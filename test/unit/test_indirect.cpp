// Indirect layouts (issue "Arbitrary layouts"): the distributed directory and the plans it gives,
// run in one process on virtual ranks. Each rank's part of the two all-to-all rounds is the pure
// function the array layer calls (directory_requests, make_directory, directory_moves,
// plan_of_moves); here the rounds are vectors handed from rank to rank. The plans then run in
// memory, sender's runs checked against the receiver's, values folded where the source holds
// partial values, against the brute-force oracle: every holder of every index (ghosts), with
// every 1-D distribution on the other side. And what the directory costs a rank at 4096 ranks.
#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <redist/dist/block.hpp>
#include <redist/dist/cyclic.hpp>
#include <redist/dist/gen_block.hpp>
#include <redist/dist/indirect.hpp>
#include <redist/dist/partial.hpp>
#include <redist/dist/replicated.hpp>
#include <redist/plan/indirect.hpp>
#include <redist/plan/plan.hpp>
#include <redist/runtime/pack.hpp>

#include "../support/indirect_sim.hpp"

// This file's names, apart from the other files of its program: meson compiles them together
// (unity build).
namespace unit_test_indirect {

using namespace redist;
using namespace redist::test;
using Piece = IndirectDirectory::Piece;

/// The (rank, local index) pairs that hold g in a directory part, by rank.
std::vector<std::pair<int, index_t>> holders(const IndirectDirectory& d, index_t g) {
  std::vector<std::pair<int, index_t>> h;
  for (const Piece& p : detail::directory_pieces(d))
    if (p.index <= g && g < p.end()) h.emplace_back(p.rank, p.local + (g - p.index));
  std::sort(h.begin(), h.end());
  return h;
}

/// The simulation against the oracle, as a check.
template <class A, class B>
void check_against_oracle(const Side<A>& src, const Side<B>& dst, index_t n) {
  // The way the array layer takes, and the directory's way (the same pair planned without formula).
  for (const bool formula : {true, false}) {
    const std::string failure = simulate_indirect(src, dst, n, formula);
    INFO((formula ? "by formula where it applies: " : "by the directory: ") << failure);
    CHECK(failure.empty());
    if (!by_formula(src, dst)) break;
  }
}

/// Random lists over [0, n) on p ranks: each index to a random rank (some ranks may hold none),
/// then `ghosts` random extra indices per rank it does not hold yet, each rank's list shuffled.
std::vector<std::vector<index_t>> random_lists(index_t n, int p, int ghosts, std::mt19937& rng) {
  std::vector<std::vector<index_t>> lists(static_cast<std::size_t>(p));
  std::uniform_int_distribution<int> who(0, p - 1);
  const int empty = p > 2 ? who(rng) : -1;  // one rank may hold nothing at all
  for (index_t g = 0; g < n; ++g) {
    int r = who(rng);
    if (r == empty) r = (r + 1) % p;
    lists[static_cast<std::size_t>(r)].push_back(g);
  }
  for (int r = 0; r < p; ++r) {
    if (r == empty || n == 0) continue;
    std::vector<char> held(static_cast<std::size_t>(n), 0);
    for (index_t g : lists[static_cast<std::size_t>(r)]) held[static_cast<std::size_t>(g)] = 1;
    std::uniform_int_distribution<index_t> any(0, n - 1);
    for (int k = 0; k < ghosts; ++k) {
      const index_t g = any(rng);
      if (!held[static_cast<std::size_t>(g)]) {
        held[static_cast<std::size_t>(g)] = 1;
        lists[static_cast<std::size_t>(r)].push_back(g);
      }
    }
  }
  for (auto& l : lists) std::shuffle(l.begin(), l.end(), rng);
  return lists;
}

/// A 1-D halo: rank r's block of ceil(n / P) indices, then `w` ghosts on each side.
std::vector<std::vector<index_t>> halo_lists(index_t n, int p, index_t w) {
  std::vector<std::vector<index_t>> lists(static_cast<std::size_t>(p));
  for (int r = 0; r < p; ++r) {
    const auto [lo, hi] = detail::directory_range(r, n, p);
    auto& l = lists[static_cast<std::size_t>(r)];
    for (index_t g = lo; g < hi; ++g) l.push_back(g);
    if (lo == hi) continue;
    for (index_t g = std::max<index_t>(0, lo - w); g < lo; ++g) l.push_back(g);
    for (index_t g = hi; g < std::min(n, hi + w); ++g) l.push_back(g);
  }
  return lists;
}

TEST_CASE("indirect: the directory lists every holder of its indices, by rank, and finds an unheld one", "[indirect]") {
  // 10 indices on 3 ranks: rank 0 holds 0-4 and 7 (a ghost), rank 1 holds 5, 6, 7, 9, rank 2 holds 2, 9 and 8.
  const std::vector<std::vector<index_t>> lists = {{4, 3, 2, 1, 0, 7}, {9, 7, 5, 6}, {2, 9, 8}};
  const auto dirs = directories(lists, 10);
  REQUIRE(dirs.size() == 3);
  CHECK(dirs[0].lo == 0);
  CHECK(dirs[0].hi == 4);  // ceil(10 / 3) = 4
  CHECK(dirs[2].lo == 8);
  CHECK(dirs[2].hi == 10);
  const auto h2 = holders(dirs[0], 2);
  REQUIRE(h2.size() == 2);
  CHECK(h2[0] == std::pair<int, index_t>{0, 2});
  CHECK(h2[1] == std::pair<int, index_t>{2, 0});
  const auto h7 = holders(dirs[1], 7);
  REQUIRE(h7.size() == 2);
  CHECK(h7[0] == std::pair<int, index_t>{0, 5});
  CHECK(h7[1] == std::pair<int, index_t>{1, 1});
  // Consecutive indices at consecutive places are one piece: rank 1's 5, 6 (at 2, 3).
  const auto& pieces1 = detail::directory_pieces(dirs[1]);
  CHECK(std::count(pieces1.begin(), pieces1.end(), Piece{5, 2, 1, 2}) == 1);
  CHECK(pieces1.size() == 4);  // 4 (rank 0), 5-6 (rank 1), 7 (ranks 0 and 1)
  for (const auto& d : dirs) {
    CHECK(detail::first_unheld(d) == -1);
    CHECK(detail::first_repeated(d).first == -1);
  }
  // An index one rank lists twice: the directory finds it (index 1, rank 0).
  const auto twice = directories({{0, 1, 2, 3, 1}, {4, 5, 6, 7}, {8, 9, 1}}, 10);
  CHECK(detail::first_repeated(twice[0]) == std::pair<index_t, int>{1, 0});
  CHECK(detail::first_repeated(twice[1]).first == -1);
  // Without rank 1, 5 and 6 are held by nobody: the first is 5, in rank 1's part.
  const auto missing = directories({{4, 3, 2, 1, 0, 7}, {}, {2, 9, 8}}, 10);
  CHECK(detail::first_unheld(missing[0]) == -1);
  CHECK(detail::first_unheld(missing[1]) == 5);
  CHECK(detail::first_unheld(missing[2]) == -1);
}

TEST_CASE("indirect: a directory part of many requests checks them by marks and sorts them only when asked", "[indirect]") {
  // Random lists over [0, n) with faults: some indices held by nobody, some listed twice by one
  // rank, copies across ranks; runs of 1-3 indices (many requests: the marks) or whole stretches
  // of 64 (few: sorted at once). Each part's checks and pieces equal those of the sorted pieces
  // (make_directory, first_unheld, first_repeated, holds_copies), and the pieces of a deferred
  // part are made on the first directory_pieces only.
  std::mt19937 rng(20261129);
  int deferred = 0, sorted = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int p = 1 + trial % 6;
    const index_t n = std::uniform_int_distribution<index_t>(0, 400)(rng);
    const bool stretches = trial % 5 == 4;
    std::vector<std::vector<index_t>> lists(static_cast<std::size_t>(p));
    std::uniform_int_distribution<int> who(0, p - 1), coin(0, 99);
    for (index_t g = 0; g < n;) {
      const index_t len = stretches ? 64 : std::uniform_int_distribution<index_t>(1, 3)(rng);
      auto& l = lists[static_cast<std::size_t>(who(rng))];
      for (index_t k = g; k < std::min(n, g + len); ++k)
        if (coin(rng) >= 2) l.push_back(k);  // 2 %: nobody holds it (unless a ghost below)
      g += len;
    }
    for (auto& l : lists) {
      const std::size_t size = l.size();
      for (std::size_t k = 0; k < size; ++k)
        if (coin(rng) < 2) l.push_back(l[k]);  // listed twice by this rank
      if (n > 0)
        for (int k = 0; k < 3; ++k) l.push_back(std::uniform_int_distribution<index_t>(0, n - 1)(rng));  // ghosts (or twice)
      if (!stretches) std::shuffle(l.begin(), l.end(), rng);
    }
    ReceivedRequests in = received_requests(lists, n);
    for (int d = 0; d < p; ++d) {
      auto& data = in.data[static_cast<std::size_t>(d)];
      auto& counts = in.counts[static_cast<std::size_t>(d)];
      const IndirectDirectory expect = detail::make_directory(d, n, p, data, counts);
      detail::DirectoryChecks checks;
      const IndirectDirectory dir = detail::directory_of_requests(d, n, p, std::move(data), std::move(counts), checks);
      INFO("trial " << trial << ", P = " << p << ", n = " << n << ", part " << d);
      CHECK(checks.unheld == detail::first_unheld(expect));
      CHECK(checks.repeated == detail::first_repeated(expect));
      CHECK(checks.copies == detail::holds_copies(expect));
      const bool was_deferred = !dir.deferred_counts.empty();
      (was_deferred ? deferred : sorted) += 1;
      if (was_deferred) CHECK(dir.pieces.empty());  // not sorted yet
      CHECK(detail::directory_pieces(dir) == expect.pieces);
      CHECK(dir.deferred.empty());
      CHECK(dir.deferred_counts.empty());
    }
  }
  CHECK(deferred > 100);  // both ways were taken
  CHECK(sorted > 20);
}

TEST_CASE("indirect: a halo's plan may update its ghosts in place, its owned part the source; other overlaps may not",
          "[indirect]") {
  // Virtual ranks: Block -> the halo lists (block, then 2 ghosts each side), every rank's plan.
  const index_t n = 1000, w = 2;
  for (int p : {1, 2, 5, 64}) {
    INFO("P = " << p);
    const Block::mapping block(Block{}, n, p);
    std::vector<std::vector<index_t>> lists(static_cast<std::size_t>(p));
    for (int r = 0; r < p; ++r) {
      if (block.local_size(r) == 0) continue;  // an empty rank (P = 64): no block, no ghosts
      const index_t lo = block.global_index(r, 0), hi = lo + block.local_size(r);
      for (index_t g = lo; g < hi; ++g) lists[r].push_back(g);
      for (index_t g = std::max<index_t>(0, lo - w); g < lo; ++g) lists[r].push_back(g);
      for (index_t g = hi; g < std::min(n, hi + w); ++g) lists[r].push_back(g);
    }
    const auto plans = plans_of(regular_side(block), indirect_side<void>(lists, n), n);
    for (int r = 0; r < p; ++r) {
      const index_t own = block.local_size(r), size = static_cast<index_t>(lists[r].size());
      CHECK(writes_over_source_only_itself(plans[r], 0, own, size));       // the owned part at its own places
      if (own > 0) CHECK(!writes_over_source_only_itself(plans[r], 1, own, size));  // shifted: over a neighbour
      CHECK(writes_over_source_only_itself(plans[r], -own, own, size));    // just before: no overlap
      if (size > own)                                                      // over the ghosts the receives write
        CHECK(!writes_over_source_only_itself(plans[r], own, own, size));
    }
  }
  // Hand-made plans: an element list onto itself, one that is not, and a plan of two stages.
  Plan plan;
  plan.stages.resize(1);
  Stage<Run>& st = plan.stages[0];
  st.list = detail::shared_records<index_t>(detail::records<index_t>{0, 1, 2, 0, 1, 2});
  st.local = Message{-1, 0, 0, 3, false, -1, 0};  // places 0, 1, 2 onto 0, 1, 2
  CHECK(writes_over_source_only_itself(plan, 0, 3, 3));
  CHECK(!writes_over_source_only_itself(plan, 1, 3, 4));
  Plan two = plan;
  two.stages.push_back(plan.stages[0]);
  CHECK(!writes_over_source_only_itself(two, 0, 3, 3));
}

TEST_CASE("indirect: a halo's sums may be added into its owned part in place; other overlaps may not", "[indirect]") {
  // Virtual ranks: the halo lists' partial sums (block, then 2 ghosts each side) -> Block, every
  // rank's plan: the owned part of each list goes onto itself (the local copy), the ghosts to
  // their owners, whose receives fold into the owned part.
  const index_t n = 1000, w = 2;
  for (int p : {1, 2, 5, 64}) {
    INFO("P = " << p);
    const Block::mapping block(Block{}, n, p);
    std::vector<std::vector<index_t>> lists(static_cast<std::size_t>(p)), ghosts_first(static_cast<std::size_t>(p));
    for (int r = 0; r < p; ++r) {
      if (block.local_size(r) == 0) continue;
      const index_t lo = block.global_index(r, 0), hi = lo + block.local_size(r);
      for (index_t g = lo; g < hi; ++g) lists[r].push_back(g);
      for (index_t g = std::max<index_t>(0, lo - w); g < lo; ++g) lists[r].push_back(g);
      for (index_t g = hi; g < std::min(n, hi + w); ++g) lists[r].push_back(g);
      ghosts_first[r].assign(lists[r].begin() + (hi - lo), lists[r].end());
      ghosts_first[r].insert(ghosts_first[r].end(), lists[r].begin(), lists[r].begin() + (hi - lo));
    }
    const auto plans = plans_of(indirect_side<std::plus<>>(lists, n), regular_side(block), n);
    const auto later = plans_of(indirect_side<std::plus<>>(ghosts_first, n), regular_side(block), n);
    for (int r = 0; r < p; ++r) {
      const index_t own = block.local_size(r), size = static_cast<index_t>(lists[r].size());
      INFO("rank " << r);
      // The owned part at the head of the source, the destination over it: the fold in place.
      CHECK(writes_over_source_only_itself(plans[r], 0, size, own, true));
      // Not as plain copies (the receives land on the source's owned elements).
      if (size > own) CHECK(!writes_over_source_only_itself(plans[r], 0, size, own));
      if (own > 0) CHECK(!writes_over_source_only_itself(plans[r], -1, size, own, true));  // one element in
      CHECK(writes_over_source_only_itself(plans[r], own, size, own, true));                 // just after: no overlap
      // The ghosts first, the owned part after them: the destination over the ghosts would
      // receive onto the elements the sends read; over the owned part it is in place again.
      if (size > own && own > 0) CHECK(!writes_over_source_only_itself(later[r], 0, size, own, true));
      CHECK(writes_over_source_only_itself(later[r], own - size, size, own, true));
    }
  }
}

TEST_CASE("indirect: a list that is really a block costs what a block costs", "[indirect]") {
  const index_t n = 1000;
  for (int p : {1, 3, 4, 7}) {
    const Block::mapping block(Block{}, n, p);
    std::vector<std::vector<index_t>> lists(static_cast<std::size_t>(p)), shifted(static_cast<std::size_t>(p));
    for (int r = 0; r < p; ++r)
      for (index_t l = 0; l < block.local_size(r); ++l) lists[r].push_back(block.global_index(r, l));
    for (int r = 0; r < p; ++r) shifted[r] = lists[static_cast<std::size_t>((r + 1) % p)];
    const auto a = indirect_side<void>(lists, n);
    const auto b = indirect_side<void>(shifted, n);
    const auto plans = plans_of(a, b, n);
    for (int r = 0; r < p; ++r) {
      const Stage<Run>& st = plans[r].only();
      // Rank r's block goes whole to rank r - 1 (or stays, on one rank): one run, sent in place.
      if (p == 1) {
        CHECK(st.local.nruns == 1);
        continue;
      }
      if (block.local_size(r) == 0) continue;
      REQUIRE(st.sends.size() == 1);
      CHECK(st.sends[0].nruns == 1);
      CHECK(st.sends[0].direct);
      CHECK(st.local.nruns == 0);
    }
    check_against_oracle(a, b, n);
    check_against_oracle(a, regular_side(block), n);
    check_against_oracle(regular_side(block), a, n);
  }
}

TEST_CASE("indirect: a message of runs shorter than 4 elements is an element list, 16 bytes an element", "[indirect]") {
  // Lists made of blocks of L consecutive indices, the blocks dealt to the ranks at random and
  // each list shuffled by block: from and into Block, a message's runs are the blocks (L
  // elements, joined where two blocks happen to continue each other). Runs of fewer than 4
  // elements on average: an element list (both places of each element, in the runs' order). A
  // rank whose whole list averages fewer than 4 indices a run makes every message it defines a
  // list by formula (formula_lists: the messages with its owners, and its local copy).
  std::mt19937 rng(20261128);
  for (int p : {1, 2, 3, 5}) {
    for (index_t len : {1, 2, 3, 4, 8}) {
      const index_t n = 120 * p;
      std::vector<index_t> blocks(static_cast<std::size_t>(n / len));
      std::iota(blocks.begin(), blocks.end(), index_t{0});
      std::shuffle(blocks.begin(), blocks.end(), rng);
      std::vector<std::vector<index_t>> lists(static_cast<std::size_t>(p));
      for (std::size_t b = 0; b < blocks.size(); ++b)
        for (index_t e = 0; e < len; ++e) lists[b % static_cast<std::size_t>(p)].push_back(blocks[b] * len + e);
      for (index_t g = static_cast<index_t>(blocks.size()) * len; g < n; ++g) lists[0].push_back(g);
      INFO("P = " << p << ", blocks of " << len);
      const auto ind = indirect_side<void>(lists, n);
      const auto block = regular_side(Block::mapping(Block{}, n, p));
      std::vector<bool> whole(static_cast<std::size_t>(p));  // the rank's list goes as element lists
      for (int r = 0; r < p; ++r) {
        const auto& l = lists[static_cast<std::size_t>(r)];
        whole[static_cast<std::size_t>(r)] = detail::list_runs(l, r, l.size() / 8).empty() && detail::lists_by_formula(l);
      }
      if (len == 1 && p > 1) CHECK(whole[0]);
      if (len >= 4) CHECK(std::none_of(whole.begin(), whole.end(), [](bool b) { return b; }));
      for (const bool into : {true, false}) {
        const auto plans = into ? plans_of(block, ind, n) : plans_of(ind, block, n);
        for (int me = 0; me < p; ++me) {
          const Stage<Run>& st = plans[static_cast<std::size_t>(me)].only();
          index_t listed = 0;
          // The rank whose list defines a message: the receiver into the list, the sender out of it.
          auto defined_by = [&](const Message& m, bool send) { return (send != into) ? me : m.peer; };
          auto check = [&](const Message& m, bool send) {
            if (m.size == 0) return;
            // A message is listed when it has two runs or more and they average fewer than 4
            // elements (a list's runs counted where its places stop continuing each other).
            index_t runs = static_cast<index_t>(m.nruns);
            if (m.listed()) {
              const auto s = st.src_list(m), d = st.dst_list(m);
              runs = 1;
              for (std::size_t k = 1; k < s.size(); ++k) runs += s[k] != s[k - 1] + 1 || d[k] != d[k - 1] + 1;
            }
            CHECK(m.listed() == (whole[static_cast<std::size_t>(defined_by(m, send))] || (runs > 1 && m.size < 4 * runs)));
            if (m.listed()) {
              CHECK(m.nruns == 0);
              CHECK_FALSE(m.direct);
              CHECK(st.src_list(m).size() == static_cast<std::size_t>(m.size));
              listed += m.size;
            }
          };
          check(st.local, !into);
          for (const Message& m : st.sends) check(m, true);
          for (const Message& m : st.recvs) check(m, false);
          CHECK(st.list.size() == 2 * static_cast<std::size_t>(listed));
          if (len == 1 && p > 1) CHECK(listed > 0);
          if (len >= 4) CHECK(st.list.empty());
        }
        if (into) check_against_oracle(block, ind, n);
        else check_against_oracle(ind, block, n);
      }
      check_against_oracle(ind, indirect_side<void>(lists, n), n);
    }
  }
}

TEST_CASE("indirect: random lists with ghosts, against the oracle, with every 1-D distribution", "[indirect]") {
  std::mt19937 rng(20261128);
  for (int p : {1, 2, 3, 5, 8, 16, 64}) {
    for (int trial = 0; trial < 4; ++trial) {
      const index_t n = std::uniform_int_distribution<index_t>(0, 400)(rng);
      const int ghosts = trial == 0 ? 0 : std::uniform_int_distribution<int>(1, 12)(rng);
      INFO("P = " << p << ", n = " << n << ", ghosts per rank " << ghosts);
      const auto la = random_lists(n, p, ghosts, rng), lb = random_lists(n, p, ghosts, rng);
      const auto copies_a = indirect_side<void>(la, n);
      const auto copies_b = indirect_side<void>(lb, n);
      const auto sums_a = indirect_side<std::plus<>>(la, n);
      const auto sums_b = indirect_side<std::plus<>>(lb, n);
      std::vector<index_t> sizes(static_cast<std::size_t>(p), 0);
      for (index_t g = 0; g < n; ++g) ++sizes[std::uniform_int_distribution<std::size_t>(0, sizes.size() - 1)(rng)];
      const auto block = regular_side(Block::mapping(Block{}, n, p));
      const auto cyclic = regular_side(Cyclic<>::mapping(Cyclic<>{3}, n, p));
      const auto gen = regular_side(GenBlock::mapping(GenBlock(sizes), n, p));
      const auto copies = regular_side(Replicated::mapping(Replicated{}, n, p));
      const auto partial = regular_side(Partial<>::mapping(Partial<>{}, n, p));
      {  // Indirect copies to and from each other and every 1-D distribution
        check_against_oracle(copies_a, copies_b, n);
        check_against_oracle(copies_a, copies_a, n);
        check_against_oracle(copies_a, block, n);
        check_against_oracle(copies_a, cyclic, n);
        check_against_oracle(copies_a, gen, n);
        check_against_oracle(copies_a, copies, n);
        check_against_oracle(block, copies_b, n);
        check_against_oracle(cyclic, copies_b, n);
        check_against_oracle(gen, copies_b, n);
        check_against_oracle(copies, copies_b, n);
      }
      {  // partial values: folded from every holder, received by the first holder of a partial destination
        check_against_oracle(sums_a, copies_b, n);
        check_against_oracle(sums_a, sums_b, n);
        check_against_oracle(sums_a, block, n);
        check_against_oracle(sums_a, cyclic, n);
        check_against_oracle(sums_a, copies, n);
        check_against_oracle(copies_a, sums_b, n);
        check_against_oracle(block, sums_b, n);
        check_against_oracle(partial, copies_b, n);
        check_against_oracle(copies_a, partial, n);
      }
    }
  }
}

TEST_CASE("indirect: a reader takes its own copy, or keeps to one holder along a run", "[indirect]") {
  // Halo of 2 on 4 ranks: into the same halo, every element is on its rank already (no message);
  // into Block, each rank's block comes from its own list (no message either).
  const index_t n = 64;
  const auto halo = indirect_side<void>(halo_lists(n, 4, 2), n);
  for (const Plan& plan : plans_of(halo, halo, n)) CHECK(plan.messages_sent() == 0);
  for (const Plan& plan : plans_of(halo, regular_side(Block::mapping(Block{}, n, 4)), n)) CHECK(plan.messages_sent() == 0);
  // From Block into the halo: each rank receives its two ghost ranges, one message from each neighbour.
  const auto plans = plans_of(regular_side(Block::mapping(Block{}, n, 4)), halo, n);
  for (int r = 0; r < 4; ++r) {
    CHECK(plans[r].only().recvs.size() == (r == 0 || r == 3 ? 1u : 2u));
    for (const Message& m : plans[r].only().recvs) CHECK(m.nruns == 1);
  }
}

TEST_CASE("indirect: a pair each holder can tell alone is planned by formula, with the directory's messages", "[indirect]") {
  const index_t n = 96;
  const int p = 4;
  const auto block = regular_side(Block::mapping(Block{}, n, p));
  const auto cyclic = regular_side(Cyclic<>::mapping(Cyclic<>{5}, n, p));
  const auto replicated = regular_side(Replicated::mapping(Replicated{}, n, p));
  // A permutation holds no index twice: one holder, whatever the Op, either way.
  std::vector<index_t> all(static_cast<std::size_t>(n));
  std::iota(all.begin(), all.end(), index_t{0});
  std::mt19937 rng(7);
  std::shuffle(all.begin(), all.end(), rng);
  std::vector<std::vector<index_t>> perm(p);
  for (index_t g = 0; g < n; ++g) perm[static_cast<std::size_t>(g % p)].push_back(all[static_cast<std::size_t>(g)]);
  const auto pv = indirect_side<void>(perm, n);
  const auto ps = indirect_side<std::plus<>>(perm, n);
  CHECK_FALSE(pv.dirs.front().copies);
  CHECK(by_formula(pv, block));
  CHECK(by_formula(block, pv));
  CHECK(by_formula(ps, cyclic));
  CHECK(by_formula(cyclic, ps));
  CHECK_FALSE(by_formula(replicated, pv));  // every rank holds the source: the reader's own copy, by the directory
  CHECK_FALSE(by_formula(pv, pv));
  // A halo holds copies: every holder receives (Import) and every holder sends its part (Export
  // with ADD) by formula; one copy to send, or one holder to receive, is the directory's choice.
  const auto lists = halo_lists(n, p, 3);
  const auto hv = indirect_side<void>(lists, n);
  const auto hs = indirect_side<std::plus<>>(lists, n);
  CHECK(hv.dirs.front().copies);
  CHECK(by_formula(block, hv));
  CHECK(by_formula(hs, block));
  CHECK_FALSE(by_formula(hv, block));
  CHECK_FALSE(by_formula(block, hs));
  // Same messages both ways: the peers and the elements each carries.
  auto same_messages = [&](const auto& src, const auto& dst) {
    const auto a = plans_of(src, dst, n, nullptr, true), b = plans_of(src, dst, n, nullptr, false);
    for (int r = 0; r < p; ++r) {
      const Stage<Run>& x = a[static_cast<std::size_t>(r)].only();
      const Stage<Run>& y = b[static_cast<std::size_t>(r)].only();
      REQUIRE(x.sends.size() == y.sends.size());
      REQUIRE(x.recvs.size() == y.recvs.size());
      for (std::size_t k = 0; k < x.sends.size(); ++k) {
        CHECK(x.sends[k].peer == y.sends[k].peer);
        CHECK(x.sends[k].size == y.sends[k].size);
      }
      CHECK(x.local.size == y.local.size);
    }
  };
  same_messages(block, hv);
  same_messages(hs, block);
  same_messages(pv, cyclic);
  same_messages(cyclic, ps);
  check_against_oracle(pv, block, n);
  check_against_oracle(block, ps, n);
  check_against_oracle(hs, cyclic, n);
  check_against_oracle(cyclic, hv, n);
}

TEST_CASE("indirect: a list's directory requests cut from its runs are those read from the list", "[indirect]") {
  // make_indirect_directory cuts the requests from list_runs where it keeps them (a block and its
  // ghosts), else reads the list: both give the same records, rank by rank, in the same order.
  std::mt19937 rng(3107);
  for (int trial = 0; trial < 300; ++trial) {
    const int p = 1 + trial % 7;
    const index_t n = std::uniform_int_distribution<index_t>(0, 400)(rng);
    std::vector<std::vector<index_t>> lists;
    if (trial % 3 == 0) lists = halo_lists(n, p, trial % 4);
    else if (trial % 3 == 1) lists = random_lists(n, p, trial % 2 == 0 ? 0 : 5, rng);
    else {  // runs of random lengths in a random order, across the directory's blocks
      lists.assign(static_cast<std::size_t>(p), {});
      for (index_t g = 0; g < n;) {
        const index_t len = std::min(n - g, std::uniform_int_distribution<index_t>(1, 90)(rng));
        auto& l = lists[static_cast<std::size_t>(std::uniform_int_distribution<int>(0, p - 1)(rng))];
        for (index_t k = 0; k < len; ++k) l.push_back(g + k);
        g += len;
      }
    }
    for (int q = 0; q < p; ++q) {
      const auto& l = lists[static_cast<std::size_t>(q)];
      const auto runs = detail::list_runs(l, q, l.size() + 1);  // every run kept
      const auto by_list = detail::directory_requests(l, n, p);
      const auto by_runs = detail::directory_requests(std::span<const IndirectDirectory::Piece>(runs), n, p);
      REQUIRE(by_runs.counts == by_list.counts);
      REQUIRE(by_runs.data.size() == by_list.data.size());
      for (std::size_t k = 0; k < by_list.data.size(); ++k) {
        CHECK(by_runs.data[k].index == by_list.data[k].index);
        CHECK(by_runs.data[k].local == by_list.data[k].local);
        CHECK(by_runs.data[k].len == by_list.data[k].len);
      }
    }
  }
}

TEST_CASE("indirect: against the directory's own Block a rank makes what it would receive from its directory part", "[indirect]") {
  // What each Indirect rank q makes for owner r by formula (its moves with r in their order, or
  // its element-list block for r) is what r's directory_formula_records makes of q's requests: one
  // for one, in the same order. Both kinds of part (requests kept unsorted, or sorted into pieces:
  // few requests, or sorted since by a pair that read them), both directions, ghosts, empty ranks.
  std::mt19937 rng(2611);
  int rebuilt = 0, deferred = 0, listed = 0, moved = 0;
  for (int trial = 0; trial < 120; ++trial) {
    const int p = 1 + trial % 6;
    const index_t n = std::uniform_int_distribution<index_t>(0, 300)(rng);
    const bool source = trial % 2 == 0;
    // A random permutation with ghosts (short runs: element lists), or a halo (long runs: moves).
    const auto lists = trial % 3 == 2 ? halo_lists(n, p, trial % 4) : random_lists(n, p, trial % 3 == 0 ? 0 : 5, rng);
    auto dirs = directories(lists, n);
    if (trial % 5 == 0)
      for (const auto& d : dirs) (void)detail::directory_pieces(d);  // sorted by an earlier pair
    const Block::mapping block(Block{}, n, p);
    REQUIRE(detail::directory_is_owner(block, n, p));
    std::vector<std::vector<IndirectMove>> made(static_cast<std::size_t>(p));
    std::vector<detail::FormulaLists> blocks(static_cast<std::size_t>(p));
    for (int q = 0; q < p; ++q) {
      const auto& list = lists[static_cast<std::size_t>(q)];
      const auto runs = detail::list_runs(list, q, list.size() / 8);
      if (runs.empty() && detail::lists_by_formula(list)) {
        blocks[static_cast<std::size_t>(q)] = detail::formula_lists(list, block, q, p, source);
        ++listed;
      } else {
        const auto m = detail::formula_moves(list, runs, block, q, source);
        made[static_cast<std::size_t>(q)].assign(m.begin(), m.end());
        ++moved;
      }
    }
    for (int r = 0; r < p; ++r) {
      const auto& dir = dirs[static_cast<std::size_t>(r)];
      (dir.deferred_counts.empty() ? rebuilt : deferred) += 1;
      std::vector<index_t> in_moves(static_cast<std::size_t>(p), 0), in_words(static_cast<std::size_t>(p), 0);
      std::vector<IndirectMove> want_moves;
      std::vector<index_t> want_words;
      for (int q = 0; q < p; ++q) {
        if (q == r) continue;
        for (const IndirectMove& m : made[static_cast<std::size_t>(q)])
          if (m.from != m.to && (m.from == r || m.to == r)) want_moves.push_back(m);
        in_moves[static_cast<std::size_t>(q)] = detail::peer_counts(made[static_cast<std::size_t>(q)], q, p)[static_cast<std::size_t>(r)];
        const auto& b = blocks[static_cast<std::size_t>(q)];
        if (b.words.empty()) continue;
        std::size_t at = 0;
        for (int t = 0; t < r; ++t) at += static_cast<std::size_t>(b.words[static_cast<std::size_t>(t)]);
        in_words[static_cast<std::size_t>(q)] = b.words[static_cast<std::size_t>(r)];
        want_words.insert(want_words.end(), b.data.begin() + static_cast<std::ptrdiff_t>(at),
                          b.data.begin() + static_cast<std::ptrdiff_t>(at + static_cast<std::size_t>(b.words[static_cast<std::size_t>(r)])));
      }
      detail::records<IndirectMove> got_moves;
      std::vector<index_t> got_words(want_words.size(), -7);
      detail::directory_formula_records(dir, r, source, in_moves, in_words, got_moves, got_words.data());
      INFO("trial " << trial << ", p = " << p << ", n = " << n << ", rank " << r);
      CHECK(std::vector<IndirectMove>(got_moves.begin(), got_moves.end()) == want_moves);
      CHECK(got_words == want_words);
    }
  }
  // Both kinds of part and both kinds of record were met.
  CHECK(rebuilt > 0);
  CHECK(deferred > 0);
  CHECK(listed > 0);
  CHECK(moved > 0);
  // Not the directory's own Block: another block size, or a cyclic layout.
  CHECK_FALSE(detail::directory_is_owner(Cyclic<>::mapping(Cyclic<>{5}, 96, 4), 96, 4));
  CHECK_FALSE(detail::directory_is_owner(Block::mapping(Block{}, 95, 4), 96, 4));
  CHECK(detail::directory_is_owner(Cyclic<>::mapping(Cyclic<>{24}, 96, 4), 96, 4));  // cyclic(24) on 4 ranks is that Block
}

TEST_CASE("indirect: at 4096 virtual ranks a rank's share of the directory follows its list and n / P", "[indirect]") {
  // A halo of 3 ghosts per side, 32 indices per rank: its Export with ADD (sums into the halo's
  // owners: Indirect<plus> -> Block) and Import (Block -> the halo).
  const int p = 4096;
  const index_t n = index_t{32} * p;
  const auto lists = halo_lists(n, p, 3);
  const auto sums = indirect_side<std::plus<>>(lists, n);
  const auto copies = indirect_side<void>(lists, n);
  const auto block = regular_side(Block::mapping(Block{}, n, p));
  std::size_t most_pieces = 0;
  for (const auto& d : sums.dirs) most_pieces = std::max(most_pieces, detail::directory_pieces(d).size());
  CHECK(most_pieces <= 3);  // a part: its owner's block, and the ghosts of its two neighbours
  for (int way = 0; way < 2; ++way) {
    std::vector<std::vector<IndirectMove>> moves;
    const auto plans = way == 0 ? plans_of(sums, block, n, &moves) : plans_of(block, copies, n, &moves);
    std::size_t most_moves = 0, most_messages = 0;
    for (int r = 0; r < p; ++r) {
      most_moves = std::max(most_moves, moves[r].size());
      most_messages = std::max(most_messages, plans[r].messages_sent());
    }
    CHECK(most_moves <= 12);  // runs: its block (cut where ghosts overlap it) and the ghosts, not its 38 elements
    CHECK(most_messages <= 2);
  }
  check_against_oracle(sums, block, n);
  check_against_oracle(block, copies, n);
}

TEST_CASE("indirect: element lists gather, scatter and copy each place, at lengths around the prefetch distance",
          "[indirect]") {
  // The lists' loops prefetch runtime::detail::list_prefetch places ahead, then finish without:
  // every length on either side of that distance, distinct places at random.
  constexpr std::size_t d = runtime::detail::list_prefetch;
  std::mt19937 rng(20261207);
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, d - 1, d, d + 1, 2 * d, 2 * d + 1, std::size_t{1000}}) {
    INFO("a list of " << n << " places");
    const std::size_t size = 2 * n + 3;
    auto places = [&] {
      std::vector<index_t> v(size);
      std::iota(v.begin(), v.end(), index_t{0});
      std::shuffle(v.begin(), v.end(), rng);
      v.resize(n);
      return v;
    };
    const std::vector<index_t> from = places(), to = places();
    std::vector<double> src(size);
    std::iota(src.begin(), src.end(), 1.0);
    std::vector<double> packed(n, -1.0);
    runtime::detail::gather<double>(from, src.data(), packed.data());
    bool gathered = true;
    for (std::size_t k = 0; k < n; ++k) gathered = gathered && packed[k] == src[static_cast<std::size_t>(from[k])];
    CHECK(gathered);
    // Unpacked by a fold (+): each place of `to` once, the others untouched.
    std::vector<double> dst(size, 0.5), want(size, 0.5);
    runtime::detail::scatter<double>(to, packed.data(), dst.data(), runtime::fold_op<std::plus<>>{});
    for (std::size_t k = 0; k < n; ++k) want[static_cast<std::size_t>(to[k])] += packed[k];
    CHECK(dst == want);
    std::vector<double> copied(size, -2.0), copy_want(size, -2.0);
    runtime::detail::copy_listed<double>(from, to, src.data(), copied.data(), runtime::assign_op{});
    for (std::size_t k = 0; k < n; ++k) copy_want[static_cast<std::size_t>(to[k])] = src[static_cast<std::size_t>(from[k])];
    CHECK(copied == copy_want);
  }
}

}  // namespace unit_test_indirect
