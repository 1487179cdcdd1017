// Seed 004 (Prylli, Tourancheau: the ScaLAPACK redistribution), Sec. 5: the Bezout lemma, the
// intersection of two block-cyclic patterns (Propositions 3-5: at most r·r' cyclic patterns of
// period lcm(rP, r'P'), at most r·r' items per period), scanning that stops at the period
// (Proposition 6, with ERRATA.md's b = min(M, lcm)), and the communication volume of
// Proposition 8 on the paper's own 2 × 3 grid (its Fig. 1), each against brute force.
#include <algorithm>
#include <array>
#include <cstddef>
#include <iterator>
#include <numeric>
#include <set>
#include <vector>

#include <catch2/catch.hpp>

#include <redist/dist/cyclic.hpp>
#include <redist/dist/dist.hpp>
#include <redist/dist/grid.hpp>
#include <redist/dist/ldd.hpp>
#include <redist/index/intersect.hpp>
#include <redist/plan/transfers.hpp>

// This file's names, apart from the other files of its program: meson compiles them together
// (unity build).
namespace unit_test_seed004 {

using namespace redist;

namespace {

/// C(a, m) = {a + k m} as an LDD of blocks of one element, n of them from a (a >= 0).
Ldd cyclic_pattern(index_t a, index_t m, index_t n) { return Ldd{a, 1, m, n, 0, 1, 1}; }

/// The global indices of the runs of intersect(x, y) (x's own global indices, from x's local ones).
std::set<index_t> intersection_of(const Ldd& x, const Ldd& y) {
  std::set<index_t> out;
  index::intersect(x, y, [&](const Run& r) {
    for (index_t c = 0; c < r.count; ++c)
      for (index_t e = 0; e < r.len; ++e) {
        const index_t l = r.src + c * r.src_stride + e * r.src_step;  // x's local index
        const index_t block = l / x.lblock, within = l % x.lblock;
        out.insert(x.o + block * x.s + within);
      }
  });
  return out;
}

/// E(s, l, b) ∩ [0, M): the paper's block-cyclic pattern, by brute force.
std::set<index_t> pattern(index_t s, index_t l, index_t b, index_t m) {
  std::set<index_t> out;
  for (index_t x = 0; x < m; ++x)
    if (((x - s) % l + l) % l < b) out.insert(x);
  return out;
}

}  // namespace

TEST_CASE("Seed 004 lemma: C(a, m) ∩ C(a', m') is C(b, lcm(m, m')) when gcd(m, m') divides a - a', else empty",
          "[seed004][intersect]") {
  // The lemma's two cases on one pair of moduli, 4 and 6 (gcd 2, lcm 12): 1 and 3 differ by a
  // multiple of 2, and x = 9 is 1 mod 4 and 3 mod 6; 0 and 1 do not, and nothing is both.
  const std::set<index_t> c9_12{9, 21, 33, 45, 57, 69, 81, 93, 105, 117};  // C(9, 12) up to 117
  CHECK(intersection_of(cyclic_pattern(1, 4, 30), cyclic_pattern(3, 6, 20)) == c9_12);
  CHECK(intersection_of(cyclic_pattern(0, 4, 30), cyclic_pattern(1, 6, 20)).empty());
  // Every a, a' < 12, m, m' <= 12: the intersection (within the shorter pattern's reach) is
  // empty exactly when gcd(m, m') does not divide a - a', and otherwise the progression of step
  // lcm(m, m') from its least element, which is what brute force finds.
  for (index_t m = 1; m <= 12; ++m)
    for (index_t mp = 1; mp <= 12; ++mp)
      for (index_t a = 0; a < 12; ++a)
        for (index_t ap = 0; ap < 12; ++ap) {
          const index_t l = std::lcm(m, mp), reach = 4 * l + 24;
          const Ldd x = cyclic_pattern(a, m, (reach - a + m - 1) / m);
          const Ldd y = cyclic_pattern(ap, mp, (reach - ap + mp - 1) / mp);
          const std::set<index_t> got = intersection_of(x, y);
          std::set<index_t> brute;
          for (index_t v = 0; v < reach; ++v)
            if (v >= a && (v - a) % m == 0 && v >= ap && (v - ap) % mp == 0) brute.insert(v);
          INFO("C(" << a << ", " << m << ") ∩ C(" << ap << ", " << mp << ")");
          REQUIRE(got == brute);
          const bool divides = (a - ap) % std::gcd(m, mp) == 0;
          REQUIRE(got.empty() == !divides);
          if (!got.empty()) {
            index_t prev = *got.begin();
            for (auto it = std::next(got.begin()); it != got.end(); prev = *it++) REQUIRE(*it - prev == l);
          }
        }
}

TEST_CASE("Seed 004 Propositions 3-6: block-cyclic intersections are periodic, at most r·r' items a period, "
          "and scanning stops at the period", "[seed004][intersect]") {
  for (index_t r = 1; r <= 5; ++r)
    for (index_t rp = 1; rp <= 5; ++rp)
      for (index_t p = 1; p <= 4; ++p)
        for (index_t pp = 1; pp <= 4; ++pp)
          for (index_t s = 0; s < r * p; s += 2)
            for (index_t sp = 0; sp < rp * pp; sp += 3) {
              const index_t period = std::lcm(r * p, rp * pp);
              INFO("E(" << s << ", " << r * p << ", " << r << ") ∩ E(" << sp << ", " << rp * pp << ", " << rp
                        << "), period " << period);
              // Brute force over three periods (from 0: both patterns start at their offsets).
              const index_t m = 3 * period + r * p + rp * pp;
              const index_t reach = m + r * p + rp * pp;  // past the LDDs' last blocks below
              const auto a = pattern(s, r * p, r, reach), b = pattern(sp, rp * pp, rp, reach);
              std::vector<index_t> both;
              std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(both));
              const index_t lo = std::max(s, sp);  // both patterns have begun
              // Proposition 4: periodic of period lcm(rP, r'P').
              for (index_t x : both)
                if (x >= lo && x + period < reach) REQUIRE(std::binary_search(both.begin(), both.end(), x + period));
              // Propositions 3 and 5: at most r·r' items in one period.
              const auto in_period =
                  std::count_if(both.begin(), both.end(), [&](index_t v) { return v >= lo && v < lo + period; });
              REQUIRE(in_period <= r * rp);
              // redist's intersection of the two LDDs (seed 003's form of the same patterns) finds
              // the same set, and its families repeat with stride lcm(rP, r'P') (or are single).
              const index_t na = (m - s + r * p - 1) / (r * p), nb = (m - sp + rp * pp - 1) / (rp * pp);
              const Ldd x{s, r, r * p, na, 0, 1, r}, y{sp, rp, rp * pp, nb, 0, 1, rp};
              std::set<index_t> got;
              std::size_t families = 0;
              index::intersect(x, y, [&](const Run& run) {
                ++families;
                if (run.count > 1) REQUIRE(run.src_stride / r * (r * p) == period);  // local stride -> global
                for (index_t c = 0; c < run.count; ++c)
                  for (index_t e = 0; e < run.len; ++e) {
                    const index_t l = run.src + c * run.src_stride + e;
                    got.insert(s + (l / r) * r * p + l % r);
                  }
              });
              std::set<index_t> want;  // the LDDs begin at their offsets and end with their blocks
              for (index_t v : both)
                if (v >= lo && v < std::min(x.end(), y.end())) want.insert(v);
              REQUIRE(got == want);
              // Proposition 6 with b = min(M, lcm) (ERRATA.md): the scan covers one period, so the
              // families found for a pattern ten times as long are as many.
              const Ldd x10{s, r, r * p, 10 * na, 0, 1, r}, y10{sp, rp, rp * pp, 10 * nb, 0, 1, rp};
              std::size_t families10 = 0;
              index::intersect(x10, y10, [&](const Run&) { ++families10; });
              REQUIRE(families10 == families);
              // Each family is a block pair overlapping in the first period: at most r·r' of them.
              REQUIRE(families <= static_cast<std::size_t>(r * rp));
            }
}

TEST_CASE("Seed 004 Proposition 8 on the paper's 2 x 3 grid: each pair's message is the product of its "
          "dimensions' overlaps, M1 M2 / (P1 P1' P2 P2') elements on average",
          "[seed004][grid]") {
  // The paper's Fig. 1 grid, 2 x 3, block-cyclic (r, s) = (2, 3) -> (3, 2) on a 3 x 2 grid; M1 and
  // M2 are multiples of both periods lcm(r P, r' P'), so the average is exact.
  using D = Dist<Cyclic<>, Cyclic<>>;
  const index_t m1 = std::lcm(2 * 2, 3 * 3) * 2, m2 = std::lcm(3 * 3, 2 * 2) * 3;  // 72, 108
  const D::mapping from(D{Cyclic<>{2}, Cyclic<>{3}}, {m1, m2}, Grid{2, 3}, {0, 0}, Storage{}, 6);
  const D::mapping to(D{Cyclic<>{3}, Cyclic<>{2}}, {m1, m2}, Grid{3, 2}, {0, 0}, Storage{}, 6);
  // Per dimension, brute force: rows (or columns) process p holds in the source and q in the target.
  auto overlap = [](index_t m, index_t r, int p, int pi, index_t rp, int pp, int qi) {
    index_t n = 0;
    for (index_t x = 0; x < m; ++x) n += (x / r) % p == pi && (x / rp) % pp == qi ? 1 : 0;
    return n;
  };
  const auto table = transfers(from, to);
  index_t total = 0;
  std::size_t pairs = 0;
  for (int s = 0; s < 6; ++s)
    for (int t = 0; t < 6; ++t) {
      const auto cs = *from.coords_of(s), ct = *to.coords_of(t);
      const index_t want = overlap(m1, 2, 2, cs[0], 3, 3, ct[0]) * overlap(m2, 3, 3, cs[1], 2, 2, ct[1]);
      index_t got = 0;
      for (const auto& x : table)
        if (x.sender == s && x.receiver == t) got = x.size;
      INFO("pair " << s << " -> " << t);
      CHECK(got == want);
      total += got;
      ++pairs;
    }
  // Proposition 8's average follows: every element goes to one pair.
  CHECK(total == m1 * m2);
  CHECK(total == static_cast<index_t>(pairs) * (m1 / (2 * 3)) * (m2 / (3 * 2)));
}

}  // namespace unit_test_seed004
