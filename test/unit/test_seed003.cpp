// Seed 003's worked examples not asserted elsewhere: Sec. 3.2's BLOCK, CYCLIC(4) and CYCLIC LDDs
// on 4 processes, Theorem 1's intersections of those LDDs by the paper's own formulas, Theorem 2's
// send and receive sets of Fig. 3 through Corollary 1, and Fig. 10's tables COM1, COM2 and COM.
#include <algorithm>
#include <array>
#include <iterator>
#include <numeric>
#include <set>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include <redist/dist/block.hpp>
#include <redist/dist/collapsed.hpp>
#include <redist/dist/cyclic.hpp>
#include <redist/dist/dist.hpp>
#include <redist/index/intersect.hpp>
#include <redist/plan/plan.hpp>
#include <redist/schedule/relative_group.hpp>

// This file's names, apart from the other files of its program: meson compiles them together
// (unity build).
namespace unit_test_seed003 {

using namespace redist;
using Table = std::vector<std::vector<int>>;

namespace {

/// An LDD in the paper's 1-based notation (o, b, s, n).
struct PaperLdd {
  index_t o, b, s, n;
  friend bool operator==(const PaperLdd&, const PaperLdd&) = default;
  friend bool operator<(const PaperLdd& x, const PaperLdd& y) {
    return std::tie(x.o, x.b, x.s, x.n) < std::tie(y.o, y.b, y.s, y.n);
  }
};

/// Eq. (1): S[d] = {i | o + s·u <= i < o + b + s·u, 0 <= u < n} (each block has b elements;
/// eq. (2)'s `< o + s·j + (b − 1)` has b − 1, ERRATA 003).
std::set<index_t> elements(const PaperLdd& d) {
  std::set<index_t> e;
  for (index_t u = 0; u < d.n; ++u)
    for (index_t i = d.o + d.s * u; i < d.o + d.b + d.s * u; ++i) e.insert(i);
  return e;
}

/// Theorem 1 as printed: one LDD d^(k) for each intersecting block pair (u1, u2) that starts a
/// family (the pair lcm/s1, lcm/s2 blocks earlier does not exist), with
/// o = max(o1 + s1·u1, o2 + s2·u2), b = min(o1 + b1 + s1·u1, o2 + b2 + s2·u2) − o, s = lcm(s1, s2),
/// n = min(s1·(n1 − u1 − 1), s2·(n2 − u2 − 1)) div s + 1. The ranges "u < m1, m2" are taken as
/// u1 < n1, u2 < n2 (ERRATA 003).
std::vector<PaperLdd> theorem1(const PaperLdd& d1, const PaperLdd& d2) {
  const index_t s = std::lcm(d1.s, d2.s);
  std::vector<PaperLdd> out;
  for (index_t u1 = 0; u1 < d1.n; ++u1)
    for (index_t u2 = 0; u2 < d2.n; ++u2) {
      const index_t lo = std::max(d1.o + d1.s * u1, d2.o + d2.s * u2);
      const index_t hi = std::min(d1.o + d1.b + d1.s * u1, d2.o + d2.b + d2.s * u2);
      if (lo >= hi) continue;
      if (u1 >= s / d1.s && u2 >= s / d2.s) continue;  // continues an earlier family (Lemma 2)
      out.push_back({lo, hi - lo, s, std::min(d1.s * (d1.n - u1 - 1), d2.s * (d2.n - u2 - 1)) / s + 1});
    }
  std::sort(out.begin(), out.end());
  return out;
}

/// The library's intersection of two distribution LDDs (0-based, local order = global order),
/// its runs turned back into global families in the paper's 1-based notation.
std::vector<PaperLdd> library_intersection(const Ldd& a, const Ldd& b) {
  std::vector<PaperLdd> out;
  index::intersect(a, b, [&](const Run& r) {
    const index_t g = a.o + (r.src / a.b) * a.s + r.src % a.b;
    const index_t gstride = a.n > 1 ? (r.src_stride / a.b) * a.s : r.src_stride;
    out.push_back({g + 1, r.len, gstride, r.count});
  });
  std::sort(out.begin(), out.end());
  return out;
}

PaperLdd paper_of(const Ldd& d) { return {d.o + 1, d.b, d.s, d.n}; }

/// The same index set: the stride of a single block does not matter.
bool same_set(const PaperLdd& x, const PaperLdd& y) {
  return x.o == y.o && x.b == y.b && x.n == y.n && (x.n <= 1 || x.s == y.s);
}

std::set<index_t> elements(const std::vector<PaperLdd>& ds) {
  std::set<index_t> e;
  for (const PaperLdd& d : ds) {
    const auto x = elements(d);
    e.insert(x.begin(), x.end());
  }
  return e;
}

std::set<index_t> intersection(const std::set<index_t>& a, const std::set<index_t>& b) {
  std::set<index_t> e;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::inserter(e, e.end()));
  return e;
}

constexpr index_t G = 32;  // Sec. 3.2 needs G a multiple of p (and of 4p for CYCLIC(4)); Fig. 1 has p = 4
constexpr int p = 4;

}  // namespace

TEST_CASE("Seed 003 Sec. 3.2: BLOCK ((G/p)k + 1, G/p, 1, 1), CYCLIC(4) (4k + 1, 4, 4p, G/4p), CYCLIC (k + 1, 1, p, G/p)",
          "[dist][seed003]") {
  for (index_t n : {G, index_t{16}, index_t{64}, index_t{160}}) {
    const Block::mapping blk(Block{}, n, p);
    const Cyclic<4>::mapping cyc4(Cyclic<4>{}, n, p);
    const Cyclic<1>::mapping cyc(Cyclic<1>{}, n, p);
    for (int k = 0; k < p; ++k) {
      INFO("G = " << n << ", k = " << k);
      const PaperLdd block_k{(n / p) * k + 1, n / p, 1, 1}, cyc4_k{4 * k + 1, 4, 4 * p, n / (4 * p)}, cyc_k{k + 1, 1, p, n / p};
      REQUIRE(blk.ldds(k).size() == 1);
      REQUIRE(cyc4.ldds(k).size() == 1);
      REQUIRE(cyc.ldds(k).size() == 1);
      // The library keeps origins 0-based; a BLOCK part is one block, whose stride does not
      // matter (the library stores s = b, the paper 1).
      CHECK(same_set(paper_of(blk.ldds(k)[0]), block_k));
      CHECK(same_set(paper_of(cyc4.ldds(k)[0]), cyc4_k));
      CHECK(same_set(paper_of(cyc.ldds(k)[0]), cyc_k));
      if (n > 4 * p) CHECK(paper_of(cyc4.ldds(k)[0]) == cyc4_k);  // strides too, where blocks repeat
      // Eq. (1) of each is exactly what owner() gives to k (global index i + 1 is element i).
      std::set<index_t> owned_blk, owned_cyc4, owned_cyc;
      for (index_t g = 0; g < n; ++g) {
        if (blk.owner(g) == k) owned_blk.insert(g + 1);
        if (cyc4.owner(g) == k) owned_cyc4.insert(g + 1);
        if (cyc.owner(g) == k) owned_cyc.insert(g + 1);
      }
      CHECK(elements(block_k) == owned_blk);
      CHECK(elements(cyc4_k) == owned_cyc4);
      CHECK(elements(cyc_k) == owned_cyc);
    }
  }
  // The paper's literal values at G = 32, p = 4, e.g. process 1 (also at compile time).
  STATIC_REQUIRE(Cyclic<4>::mapping(Cyclic<4>{}, G, p).ldds(1)[0] == Ldd{4, 4, 16, 2, 0});      // (5, 4, 16, 2)
  STATIC_REQUIRE(Cyclic<1>::mapping(Cyclic<1>{}, G, p).ldds(1)[0] == Ldd{1, 1, 4, 8, 0});       // (2, 1, 4, 8)
  STATIC_REQUIRE(Block::mapping(Block{}, G, p).ldds(1)[0].o == 8);                              // (9, 8, ·, 1)
}

TEST_CASE("Seed 003 Theorem 1 on Sec. 3.2's LDDs (G = 32, p = 4): the paper's d^(k) against the library and brute force",
          "[index][intersect][seed003]") {
  const Block::mapping blk(Block{}, G, p);
  const Cyclic<4>::mapping cyc4(Cyclic<4>{}, G, p);
  const Cyclic<1>::mapping cyc(Cyclic<1>{}, G, p);
  for (int k = 0; k < p; ++k)
    for (int j = 0; j < p; ++j) {
      INFO("k = " << k << ", j = " << j);
      const PaperLdd block_k{8 * k + 1, 8, 1, 1}, cyc4_k{4 * k + 1, 4, 16, 2}, cyc4_j{4 * j + 1, 4, 16, 2}, cyc_j{j + 1, 1, 4, 8};
      // CYCLIC(4)_k ∩ CYCLIC_j: one LDD (4k + j + 1, 1, 16, 2), by Theorem 1 and by the library.
      const auto t1 = theorem1(cyc4_k, cyc_j);
      CHECK(t1 == std::vector<PaperLdd>{{4 * k + j + 1, 1, 16, 2}});
      CHECK(library_intersection(cyc4.ldds(k)[0], cyc.ldds(j)[0]) == t1);
      CHECK(elements(t1) == intersection(elements(cyc4_k), elements(cyc_j)));
      // BLOCK_k ∩ CYCLIC(4)_j: the 4-block of CYCLIC(4)_j inside BLOCK_k when j / 2 == k mod 2.
      const auto t2 = theorem1(block_k, cyc4_j);
      if (j / 2 == k % 2)
        CHECK(t2 == std::vector<PaperLdd>{{16 * (k / 2) + 4 * j + 1, 4, 16, 1}});
      else
        CHECK(t2.empty());
      const auto l2 = library_intersection(blk.ldds(k)[0], cyc4.ldds(j)[0]);
      REQUIRE(l2.size() == t2.size());
      for (std::size_t x = 0; x < l2.size(); ++x) CHECK(same_set(l2[x], t2[x]));
      CHECK(elements(t2) == intersection(elements(block_k), elements(cyc4_j)));
      // BLOCK_k ∩ CYCLIC_j = {8k + j + 1, 8k + j + 5}. With BLOCK's n = 1, Theorem 1's n^(k) is
      // always 1: two one-element LDDs of stride lcm(1, 4) = 4; the library emits them as one
      // family of two (stride 4). Same set.
      const auto t3 = theorem1(block_k, cyc_j);
      CHECK(t3 == std::vector<PaperLdd>{{8 * k + j + 1, 1, 4, 1}, {8 * k + j + 5, 1, 4, 1}});
      CHECK(library_intersection(blk.ldds(k)[0], cyc.ldds(j)[0]) == std::vector<PaperLdd>{{8 * k + j + 1, 1, 4, 2}});
      CHECK(elements(t3) == intersection(elements(block_k), elements(cyc_j)));
    }
}

TEST_CASE("Seed 003 Theorem 2 on Fig. 3: (BLOCK, *) on 4x1 -> (BLOCK, BLOCK) on 2x2, send and receive sets",
          "[grid][seed003]") {
  // Corollary 1: D_i ∩ D~_t = (rows_i ∩ rows~_t1) x (cols_i ∩ cols~_t2), t = 2 t1 + t2; 16 x 16.
  const Block::mapping rows_s(Block{}, 16, 4), rows_t(Block{}, 16, 2), cols_t(Block{}, 16, 2);
  const Collapsed::mapping cols_s(Collapsed{}, 16, 1);
  const Ldd all_cols{0, 16, 16, 1, 0};  // '*': one block of all 16 columns
  CHECK(cols_s.local_size(0) == 16);
  auto size_of = [](const Ldd& a, const Ldd& b) {
    index_t s = 0;
    index::intersect(a, b, [&](const Run& r) { s += r.size(); });
    return s;
  };
  std::vector<std::vector<index_t>> corollary(4, std::vector<index_t>(4, 0));
  for (int i = 0; i < 4; ++i)
    for (int t = 0; t < 4; ++t)
      corollary[static_cast<std::size_t>(i)][static_cast<std::size_t>(t)] =
          size_of(rows_s.ldds(i)[0], rows_t.ldds(t / 2)[0]) * size_of(all_cols, cols_t.ldds(t % 2)[0]);
  // P_i owns rows [4i, 4i + 4); target (t1, t2) rows [8 t1, 8 t1 + 8), columns [8 t2, 8 t2 + 8).
  const std::vector<std::vector<index_t>> fig3{{32, 32, 0, 0}, {32, 32, 0, 0}, {0, 0, 32, 32}, {0, 0, 32, 32}};
  CHECK(corollary == fig3);
  // The library's plans: what each source sends (Theorem 2's send routine) and what each target
  // receives (its receive routine), local copies included.
  using S = Dist<Block, Collapsed>;
  using T = Dist<Block, Block>;
  const S::mapping from(S{}, {16, 16}, Grid{4, 1}, {0, 0}, Storage{}, 4);
  const T::mapping to(T{}, {16, 16}, Grid{2, 2}, {0, 0}, Storage{}, 4);
  std::vector<std::vector<index_t>> sent(4, std::vector<index_t>(4, 0)), received = sent;
  for (int r = 0; r < 4; ++r) {
    const GridPlan plan_whole = build_grid_plan(from, to, r);
    const auto& plan = plan_whole.only();
    for (const Message& m : plan.sends) sent[static_cast<std::size_t>(r)][static_cast<std::size_t>(m.peer)] += m.size;
    for (const Message& m : plan.recvs) received[static_cast<std::size_t>(m.peer)][static_cast<std::size_t>(r)] += m.size;
    sent[static_cast<std::size_t>(r)][static_cast<std::size_t>(r)] += plan.local.size;
    received[static_cast<std::size_t>(r)][static_cast<std::size_t>(r)] += plan.local.size;
  }
  CHECK(sent == fig3);
  CHECK(received == fig3);
}

TEST_CASE("Seed 003 Fig. 10(a)-(c): COM1, COM2 and COM[4 i1 + i2, 2 j1 + j2] of (BLOCK, BLOCK) 2x4 -> 4x2; CS in 2 steps",
          "[grid][seed003][relative_group]") {
  // Fig. 10 is an image; its tables follow from the text: 16 x 16, dimension 1 BLOCK on 2 -> 4,
  // dimension 2 BLOCK on 4 -> 2. COM1 and COM2 from the 1-D LDD intersections (Corollary 2).
  auto nonempty = [](const Ldd& a, const Ldd& b) {
    bool any = false;
    index::intersect(a, b, [&](const Run& r) { any = any || r.size() > 0; });
    return any;
  };
  const Block::mapping d1_s(Block{}, 16, 2), d1_t(Block{}, 16, 4), d2_s(Block{}, 16, 4), d2_t(Block{}, 16, 2);
  Table com1(2, std::vector<int>(4, 0)), com2(4, std::vector<int>(2, 0));
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j) com1[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] = nonempty(d1_s.ldds(i)[0], d1_t.ldds(j)[0]);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 2; ++j) com2[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] = nonempty(d2_s.ldds(i)[0], d2_t.ldds(j)[0]);
  CHECK(com1 == Table{{1, 1, 0, 0}, {0, 0, 1, 1}});    // Fig. 10(a)
  CHECK(com2 == Table{{1, 0}, {1, 0}, {0, 1}, {0, 1}});  // Fig. 10(b)
  // Fig. 10(c): COM from the library's 2-D plans (messages and local copies).
  using D = Dist<Block, Block>;
  const D::mapping from(D{}, {16, 16}, Grid{2, 4}, {0, 0}, Storage{}, 8);
  const D::mapping to(D{}, {16, 16}, Grid{4, 2}, {0, 0}, Storage{}, 8);
  Table com(8, std::vector<int>(8, 0));
  for (int i = 0; i < 8; ++i) {
    const GridPlan plan_whole = build_grid_plan(from, to, i);
    const auto& plan = plan_whole.only();
    for (const Message& m : plan.sends) com[static_cast<std::size_t>(i)][static_cast<std::size_t>(m.peer)] = 1;
    if (plan.local.size > 0) com[static_cast<std::size_t>(i)][static_cast<std::size_t>(i)] = 1;
  }
  const Table fig10c{{1, 0, 1, 0, 0, 0, 0, 0}, {1, 0, 1, 0, 0, 0, 0, 0}, {0, 1, 0, 1, 0, 0, 0, 0},
                     {0, 1, 0, 1, 0, 0, 0, 0}, {0, 0, 0, 0, 1, 0, 1, 0}, {0, 0, 0, 0, 1, 0, 1, 0},
                     {0, 0, 0, 0, 0, 1, 0, 1}, {0, 0, 0, 0, 0, 1, 0, 1}};
  CHECK(com == fig10c);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j)
      CHECK(com[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] ==
            (com1[static_cast<std::size_t>(i / 4)][static_cast<std::size_t>(j / 2)] &
             com2[static_cast<std::size_t>(i % 4)][static_cast<std::size_t>(j % 2)]));
  // Fig. 10(d)'s CS is not in the text. Any contention-free schedule in the minimum number of
  // steps will do (ERRATA 003): with sources and targets as separate processors (8 + 8), two
  // steps, each a permutation of the eight targets.
  std::vector<schedule::Transfer> t;
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j)
      if (fig10c[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)]) t.push_back({i, 8 + j, 1});
  const auto g = schedule::relative_group_schedule(t, 16);
  REQUIRE(g.size() == 2);
  std::set<std::pair<int, int>> seen;
  for (const auto& step : g.steps) {
    std::set<int> senders, receivers;
    for (std::size_t x : step) {
      senders.insert(t[x].sender);
      receivers.insert(t[x].receiver);
      seen.insert({t[x].sender, t[x].receiver});
    }
    CHECK(step.size() == 8);
    CHECK(senders.size() == 8);
    CHECK(receivers.size() == 8);
  }
  CHECK(seen.size() == t.size());
}

}  // namespace unit_test_seed003
