// Seed 001's worked examples with the paper's own numbers: Figs. 1-3 for R_2(3, 4), the stage-1
// rows of Fig. 7 and eqs. (4), (5), (8), (9), (11) for R(6, 9), and Table 1's step counts, each
// computed with the library (Cyclic mappings, index::Circulant, schedule::circulant_schedule) and
// checked against the paper's numbers and a brute-force count.
#include <array>
#include <set>
#include <vector>

#include <catch2/catch.hpp>

#include <redist/dist/cyclic.hpp>
#include <redist/index/circulant.hpp>
#include <redist/schedule/circulant.hpp>

using namespace redist;
using Table = std::vector<std::vector<index_t>>;

namespace {

// R_2(3, 4) (Sec. 3.1): cyclic(2) -> cyclic(6) on 4 processors, N = 48, two superblocks.
// Figures 1-3 are images missing from the text; their tables are rebuilt from the text's
// definitions: S(i, j) = iP + j (row major, eq. (2)), R column major, P = S / K (Sec. 3.3),
// "blocks b0, b1, b2 are moved to p0, ..., b9, b10, b11 to p3".
constexpr index::Circulant r34(3, 4);
static_assert(r34.g == 1 && r34.k1 == 3 && r34.p1 == 4);
static_assert(r34.n == 3 && r34.m == 2 && r34.n * r34.k1 - r34.m * r34.p1 == 1);  // nK' - mP' = 1
// The generalized circulant matrix Ps of R(3, 4) (G = 1: S1 = S, each row is row 0 shifted by one).
static_assert(r34.ps(0, 0) == 0 && r34.ps(0, 1) == 3 && r34.ps(0, 2) == 2 && r34.ps(0, 3) == 1);
static_assert(r34.ps(1, 0) == 1 && r34.ps(1, 1) == 0 && r34.ps(1, 2) == 3 && r34.ps(1, 3) == 2);
static_assert(r34.ps(2, 0) == 2 && r34.ps(2, 1) == 1 && r34.ps(2, 2) == 0 && r34.ps(2, 3) == 3);
// Its send data locations Ds.
static_assert(r34.ds(0, 0) == 0 && r34.ds(0, 1) == 2 && r34.ds(0, 2) == 1 && r34.ds(0, 3) == 0);
static_assert(r34.ds(1, 0) == 1 && r34.ds(1, 1) == 0 && r34.ds(1, 2) == 2 && r34.ds(1, 3) == 1);
static_assert(r34.ds(2, 0) == 2 && r34.ds(2, 1) == 1 && r34.ds(2, 2) == 0 && r34.ds(2, 3) == 2);
// Direct: K = 3 steps; indirect: ceil(log 3) + ceil(log 1) + 1 = 3 steps.
static_assert(schedule::circulant_schedule(r34, 0).size() == 3);
static_assert(schedule::circulant_schedule(r34, schedule::indirect_depth(r34)).size() == 3);

constexpr index_t x2 = 2, n48 = 48;
using Cyc = Cyclic<dynamic>::mapping;

/// Block q (of x elements) of process j's local array: its global block index.
index_t global_block(const Cyc& m, int j, index_t q, index_t x) { return m.global_index(j, q * x) / x; }

}  // namespace

TEST_CASE("Seed 001 Fig. 1: R_2(3, 4), N = 48: b_i on p_(i mod 4); b0-b2 -> p0, b3-b5 -> p1, ..., b12-b14 -> p0",
          "[circulant][seed001]") {
  const Cyc c2(Cyclic<dynamic>(2), n48, 4), c6(Cyclic<dynamic>(6), n48, 4);
  // Fig. 1(b): 24 blocks of 2 elements, round robin.
  for (index_t i = 0; i < 24; ++i) {
    CHECK(c2.owner(i * x2) == static_cast<int>(i % 4));
    CHECK(c2.owner(i * x2 + 1) == static_cast<int>(i % 4));
  }
  // Fig. 1(c)-(d): three consecutive blocks make a block of 6; where each b_i goes, both superblocks.
  const std::vector<int> dest{0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3};
  for (index_t i = 0; i < 24; ++i) CHECK(c6.owner(i * x2) == dest[static_cast<std::size_t>(i % 12)]);
  // Superblocks of P·K = 12 blocks: the second moves like the first.
  CHECK(r34.p * r34.k == 12);
}

TEST_CASE("Seed 001 Fig. 2(e)-(f) and Fig. 3: S, R, the destination processor table P and the pattern of R(3, 4)",
          "[circulant][seed001]") {
  const Cyc c2(Cyclic<dynamic>(2), n48, 4), c6(Cyclic<dynamic>(6), n48, 4);
  Table s(3, std::vector<index_t>(4)), r = s, p = s;
  for (index_t i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) {
      const auto ii = static_cast<std::size_t>(i), jj = static_cast<std::size_t>(j);
      s[ii][jj] = global_block(c2, j, i, x2);  // row i of processor j's first superblock
      r[ii][jj] = global_block(c6, j, i, x2);  // in blocks of x = 2 on the cyclic(6) side
      p[ii][jj] = c6.owner(s[ii][jj] * x2);
    }
  // Fig. 2(e): S in row major order; Fig. 2(f): R in column major order.
  CHECK(s == Table{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}});
  CHECK(r == Table{{0, 3, 6, 9}, {1, 4, 7, 10}, {2, 5, 8, 11}});
  // Fig. 3(a): P(i, j) = S(i, j) / K.
  CHECK(p == Table{{0, 0, 0, 1}, {1, 1, 2, 2}, {2, 3, 3, 3}});
  // Row 1 of P sends p0 and p1 both to 1 (and row 0 all but p3 to 0): using the rows of P as
  // steps has node contention, which is why the columns are transformed.
  CHECK(std::set<index_t>(p[0].begin(), p[0].end()).size() < 4);
  // Fig. 3(b): every processor communicates with K = 3 processors, itself included.
  const std::vector<std::set<index_t>> pattern{{0, 1, 2}, {0, 1, 3}, {0, 2, 3}, {1, 2, 3}};
  for (int j = 0; j < 4; ++j) {
    std::set<index_t> from_p, from_ps;
    for (index_t i = 0; i < 3; ++i) {
      from_p.insert(p[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)]);
      from_ps.insert(r34.ps(i, j));
    }
    CHECK(from_p == pattern[static_cast<std::size_t>(j)]);
    CHECK(from_ps == pattern[static_cast<std::size_t>(j)]);  // the column moves keep each column's set
  }
  // After the local column moves (Fig. 4): S'(i, j) = S(Ds(i, j), j) and Ps = S' / K, a generalized
  // circulant matrix whose every row is a permutation.
  Table s1(3, std::vector<index_t>(4)), ps = s1;
  for (index_t i = 0; i < 3; ++i)
    for (index_t j = 0; j < 4; ++j) {
      const auto ii = static_cast<std::size_t>(i), jj = static_cast<std::size_t>(j);
      s1[ii][jj] = s[static_cast<std::size_t>(r34.ds(i, j))][jj];
      ps[ii][jj] = r34.ps(i, j);
      CHECK(s1[ii][jj] / 3 == ps[ii][jj]);
      // S'(i, j) = R'(i, Ps(i, j)), and Dr puts it at its row of R.
      CHECK(r34.pr(i, r34.ps(i, j)) == j);
      CHECK(r[static_cast<std::size_t>(r34.dr(i, r34.ps(i, j)))][static_cast<std::size_t>(r34.ps(i, j))] == s1[ii][jj]);
    }
  CHECK(s1 == Table{{0, 9, 6, 3}, {4, 1, 10, 7}, {8, 5, 2, 11}});
  CHECK(ps == Table{{0, 3, 2, 1}, {1, 0, 3, 2}, {2, 1, 0, 3}});
  for (const auto& row : ps) CHECK(std::set<index_t>(row.begin(), row.end()).size() == 4);
}

TEST_CASE("Seed 001 Fig. 7 and eqs. (4), (5), (8), (9), (11): the column moves of R(6, 9), stage by stage",
          "[circulant][seed001]") {
  const index::Circulant c(6, 9);
  const index_t K = 6, P = 9, G = 3, K1 = 2, P1 = 3;
  REQUIRE((c.g == G && c.k1 == K1 && c.p1 == P1));
  auto S = [&](index_t i, index_t j) { return i * P + j; };  // eq. (2), Fig. 7(a)
  // Stage 1, eq. (4): row i of S goes to row (i mod K')G + i/K' of S1. "Rows 0, 2, 4 are moved to
  // positions 0, 1, 2 in S1, respectively. Similarly, rows 1, 3, 5 ... in rows 3, 4, and 5".
  std::vector<index_t> to_row;
  for (index_t i = 0; i < K; ++i) to_row.push_back((i % K1) * G + i / K1);
  CHECK(to_row == std::vector<index_t>{0, 3, 1, 4, 2, 5});
  Table s1(6, std::vector<index_t>(9));
  for (index_t i = 0; i < K; ++i)
    for (index_t j = 0; j < P; ++j) s1[static_cast<std::size_t>(to_row[static_cast<std::size_t>(i)])][static_cast<std::size_t>(j)] = S(i, j);
  // Fig. 7(c): the first column of S1 (rows of S 0, 2, 4, 1, 3, 5).
  std::vector<index_t> col0;
  for (const auto& row : s1) col0.push_back(row[0]);
  CHECK(col0 == std::vector<index_t>{0, 18, 36, 9, 27, 45});
  // Eq. (5): S1(i, j) = (i1 P' + j1) G + (i2 K' P + j2), i = i1 G + i2, j = j1 G + j2.
  for (index_t i = 0; i < K; ++i)
    for (index_t j = 0; j < P; ++j) {
      const index_t i1 = i / G, i2 = i % G, j1 = j / G, j2 = j % G;
      CHECK(s1[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] == (i1 * P1 + j1) * G + (i2 * K1 * P + j2));
    }
  // Stage 2, eqs. (8)-(9): S'(i, j) = S1(i', j) where i1 = (i1' P' + j1) mod K' and
  // i2 = (j2 + i2') mod G. The i' is found by search (one per (i, j)); the library's Ds, from
  // Theorem 2's closed form, must name the same block: S'(i, j) = S(Ds(i, j), j).
  for (index_t i = 0; i < K; ++i)
    for (index_t j = 0; j < P; ++j) {
      const index_t i1 = i / G, i2 = i % G, j1 = j / G, j2 = j % G;
      std::vector<index_t> sources;
      for (index_t ip = 0; ip < K; ++ip)
        if ((ip / G * P1 + j1) % K1 == i1 && (j2 + ip % G) % G == i2) sources.push_back(ip);
      REQUIRE(sources.size() == 1);
      const index_t sp = s1[static_cast<std::size_t>(sources[0])][static_cast<std::size_t>(j)];
      INFO("i = " << i << ", j = " << j);
      CHECK(S(c.ds(i, j), j) == sp);
      CHECK(c.ps(i, j) == sp / K);  // Ps = S' / K
      // Eq. (11): Ps = base (constant on each G x G submatrix) + offset ((i2 - j2) mod G)·P'.
      CHECK(c.ps(i, j) == c.ps(i1 * G, j1 * G) + ((i2 - j2 + G) % G) * P1);
    }
  // Eq. (11)'s base of submatrix (i1, j1) is (i1' P' + j1) / K' with i1' from eq. (8): row 0's
  // bases are 0, 2, 1 (submatrix columns 0, 1, 2), the first entries of Fig. 8(a)'s row 0.
  CHECK(c.ps(0, 0) == 0);
  CHECK(c.ps(0, 3) == 2);
  CHECK(c.ps(0, 6) == 1);
}

TEST_CASE("Seed 001 Table 1 and Theorem 3: direct K, indirect ceil(log K') + ceil(log G) + 1, hybrid d + ceil(K / 2^d)",
          "[circulant][seed001][steps]") {
  // The steps the library's schedules take, K < P (the paper's case). Hybrid columns are d = 1,
  // 2, ... up to the indirect depth - 1. Values marked (*) differ from Theorem 3(iii)'s
  // d + ceil(K/2^d): G > 1 and K' not a power of two, where rows combine only within a block row
  // (ERRATA 001); the brute-force count below agrees with the library there.
  struct Row {
    index_t k, p;
    std::size_t direct, indirect;
    std::vector<std::size_t> hybrid;
  };
  const std::vector<Row> table{
      {3, 4, 3, 3, {3}},
      {6, 9, 6, 4, {4, 4}},                // Figs. 8-10: direct 6, indirect 1 + 2 + 1, hybrid(1) 1 + 3
      {31, 64, 31, 6, {17, 10, 7, 6}},     // Sec. 1: "K = 31 and P = 64 ... 6 communication steps"
      {6, 8, 6, 4, {5, 4}},                // (*) d = 1: formula 4 (ERRATA's example)
      {10, 16, 10, 5, {7, 6, 5}},          // (*) d = 1, 2: formulas 6, 5
      {6, 16, 6, 4, {5, 4}},               // (*) d = 1: formula 4
      {8, 12, 8, 4, {5, 4}},
      {12, 18, 12, 5, {7, 5, 5}},
      {16, 64, 16, 5, {9, 6, 5}},
      {7, 8, 7, 4, {5, 4}},
  };
  for (const Row& row : table) {
    const index::Circulant c(row.k, row.p);
    const int depth = schedule::indirect_depth(c);
    INFO("K = " << row.k << ", P = " << row.p);
    CHECK(schedule::circulant_schedule(c, 0).size() == row.direct);
    CHECK(row.direct == static_cast<std::size_t>(row.k));  // Table 1: direct K
    CHECK(schedule::circulant_schedule(c, depth).size() == row.indirect);
    CHECK(row.indirect == static_cast<std::size_t>(index::ceil_log2(c.k1) + index::ceil_log2(c.g) + 1));
    CHECK(static_cast<int>(row.indirect) <= index::ceil_log2(row.k) + 2);  // Table 1: at most ceil(log K) + 2
    REQUIRE(row.hybrid.size() == static_cast<std::size_t>(depth > 0 ? depth - 1 : 0));
    const bool theorem_holds = c.g == 1 || (c.k1 & (c.k1 - 1)) == 0;
    for (int d = 1; d < depth; ++d) {
      const std::size_t got = schedule::circulant_schedule(c, d).size();
      const auto formula = static_cast<std::size_t>(d + (row.k + (index_t{1} << d) - 1) / (index_t{1} << d));
      INFO("d = " << d);
      CHECK(got == row.hybrid[static_cast<std::size_t>(d - 1)]);
      if (theorem_holds)
        CHECK(got == formula);
      else
        CHECK(got >= formula);
    }
  }
}

TEST_CASE("Seed 001 Theorem 3: every hybrid(d) step count equals a brute-force count, K < P <= 32",
          "[circulant][seed001][steps]") {
  // Brute force, from Ps alone: after the d shift steps (bits of i1 first, then of i2; a shift by
  // a multiple of P' moves nothing), the item of row i at column c came from column
  // ((c1 + (i1 & mask1)) mod P')G + (c2 + (i2 & mask2)) mod G; rows whose maps c -> destination
  // are equal share one direct step, and a row whose map is the identity needs none.
  int mismatches = 0, theorem_cases = 0;
  for (index_t K = 1; K <= 16; ++K)
    for (index_t P = K + 1; P <= 32; ++P) {
      const index::Circulant c(K, P);
      const int l1 = index::ceil_log2(c.k1), l2 = index::ceil_log2(c.g);
      for (int d = 0; d <= l1 + l2; ++d) {
        const int d1 = d < l1 ? d : l1, d2 = d - d1;
        const index_t mask1 = (index_t{1} << d1) - 1, mask2 = (index_t{1} << d2) - 1;
        std::size_t shifts = static_cast<std::size_t>(d2);
        for (int b = 0; b < d1; ++b) shifts += (index_t{1} << b) % c.p1 != 0 ? 1 : 0;
        std::set<std::vector<index_t>> maps;
        for (index_t i = 0; i < K; ++i) {
          const index_t i1 = i / c.g, i2 = i % c.g;
          std::vector<index_t> map;
          bool identity = true;
          for (index_t col = 0; col < P; ++col) {
            const index_t from = ((col / c.g + (i1 & mask1)) % c.p1) * c.g + (col % c.g + (i2 & mask2)) % c.g;
            map.push_back(c.ps(i, from));
            identity = identity && map.back() == col;
          }
          if (!identity) maps.insert(map);
        }
        const std::size_t got = schedule::circulant_schedule(c, d).size();
        if (got != shifts + maps.size()) {
          ++mismatches;
          UNSCOPED_INFO("K = " << K << ", P = " << P << ", d = " << d << ": " << got << " vs " << shifts + maps.size());
        }
        // Theorem 3(iii) where ERRATA 001 says it holds (K = 1 moves nothing: no step at all).
        if (K > 1 && (c.g == 1 || (c.k1 & (c.k1 - 1)) == 0)) {
          ++theorem_cases;
          CHECK(got == static_cast<std::size_t>(d + (K + (index_t{1} << d) - 1) / (index_t{1} << d)));
        }
      }
    }
  CHECK(mismatches == 0);
  CHECK(theorem_cases > 300);
}
