// Unit tests of index/: LDD intersection against brute-force set intersection.
#include <algorithm>
#include <map>
#include <random>
#include <set>

#include <catch2/catch.hpp>

#include <redist/index/intersect.hpp>

// This file's names, apart from the other files of its program: meson compiles them together
// (unity build).
namespace unit_test_intersect {

using namespace redist;

namespace {
std::map<index_t, index_t> elements(const Ldd& d) {  // global -> local
  std::map<index_t, index_t> e;
  for (index_t u = 0; u < d.n; ++u)
    for (index_t j = 0; j < d.b; ++j) e[d.o + u * d.s + j] = d.local + u * d.lblock + j * d.step;
  return e;
}

void check_intersection(const Ldd& a, const Ldd& b) {
  INFO("a = (" << a.o << "," << a.b << "," << a.s << "," << a.n << "; step " << a.step << ", lblock " << a.lblock
               << ")  b = (" << b.o << "," << b.b << "," << b.s << "," << b.n << "; step " << b.step << ", lblock "
               << b.lblock << ")");
  const auto ea = elements(a), eb = elements(b);
  std::vector<std::pair<index_t, index_t>> expected;  // (local in a, local in b)
  for (auto [g, la] : ea)
    if (auto it = eb.find(g); it != eb.end()) expected.emplace_back(la, it->second);
  std::vector<std::pair<index_t, index_t>> got;
  std::vector<Run> runs;
  index::intersect(a, b, [&](const Run& r) { runs.push_back(r); });
  for (const Run& r : runs)
    for (index_t c = 0; c < r.count; ++c)
      for (index_t j = 0; j < r.len; ++j)
        got.emplace_back(r.src + c * r.src_stride + j * r.src_step, r.dst + c * r.dst_stride + j * r.dst_step);
  // Families of a periodic intersection interleave; the order is a convention both sides share.
  std::sort(got.begin(), got.end());
  std::sort(expected.begin(), expected.end());
  REQUIRE(got == expected);
}

Ldd random_ldd(std::mt19937_64& rng) {
  const index_t s = 1 + static_cast<index_t>(rng() % 40);
  const index_t b = 1 + static_cast<index_t>(rng() % s);
  const index_t n = static_cast<index_t>(rng() % 12);
  if (rng() % 4 == 0) {  // one long block, as BLOCK and GEN_BLOCK have
    const index_t len = static_cast<index_t>(rng() % 300);
    return Ldd{static_cast<index_t>(rng() % 100), len, len, len > 0 ? 1 : 0, static_cast<index_t>(rng() % 5)};
  }
  return Ldd{static_cast<index_t>(rng() % 60), b, s, n, static_cast<index_t>(rng() % 5)};
}
}  // namespace

TEST_CASE("LDD intersection equals the brute-force set intersection", "[index][intersect]") {
  std::mt19937_64 rng(2024);
  for (int t = 0; t < 4000; ++t) check_intersection(random_ldd(rng), random_ldd(rng));
}

TEST_CASE("LDD intersection is exact for LDDs whose elements and blocks are apart in local storage", "[index][intersect][sections]") {
  // The LDDs of strided sections (index::slice_ldds): elements `step` apart within a block, blocks
  // `lblock` apart; the runs carry the steps.
  std::mt19937_64 rng(2025);
  auto spread = [&](Ldd d) {
    d.step = 1 + static_cast<index_t>(rng() % 4);
    d.lblock = (d.b - 1) * d.step + 1 + static_cast<index_t>(rng() % 5);
    return d;
  };
  for (int t = 0; t < 4000; ++t) check_intersection(spread(random_ldd(rng)), t % 2 ? spread(random_ldd(rng)) : random_ldd(rng));
}

TEST_CASE("Seed 003 Theorem 1: the intersection is a union of LDDs of stride lcm(s1, s2)", "[index][intersect][seed003]") {
  // CYCLIC(2) and CYCLIC(3) on 4 processes, n = 48: the pieces repeat with stride lcm(8, 12) = 24.
  const Ldd a{2, 2, 8, 6, 0}, b{3, 3, 12, 4, 0};
  std::vector<Run> runs;
  index::intersect(a, b, [&](const Run& r) { runs.push_back(r); });
  REQUIRE(!runs.empty());
  for (const Run& r : runs) {
    CHECK(r.src_stride == 24 / 8 * 2);   // three blocks of a per period
    CHECK(r.dst_stride == 24 / 12 * 3);  // two blocks of b per period
  }
  check_intersection(a, b);
}

TEST_CASE("Index work does not grow with n for periodic LDDs", "[index][intersect][period]") {
  for (index_t n : {index_t{1} << 10, index_t{1} << 20, index_t{1} << 40}) {
    const Ldd a{8, 8, 32, n / 32, 0}, b{5, 5, 20, n / 20, 0};   // CYCLIC(8) -> CYCLIC(5) on 4 processes
    std::size_t families = 0;
    index_t covered = 0;
    index::intersect(a, b, [&](const Run& r) { ++families; covered += r.size(); });
    CHECK(families <= 160 / 32 + 160 / 20 + 2);
    CHECK(covered > 0);
  }
  // BLOCK against CYCLIC(1): one family, whatever n.
  const Ldd blk{0, index_t{1} << 40, index_t{1} << 40, 1, 0}, cyc{1, 1, 4, (index_t{1} << 40) / 4, 0};
  std::size_t families = 0;
  index::intersect(blk, cyc, [&](const Run&) { ++families; });
  CHECK(families == 1);
}

}  // namespace unit_test_intersect
