// Unit tests of dist/: every mapping against the brute-force oracle.
#include <algorithm>
#include <random>

#include <catch2/catch.hpp>

#include <redist/plan/plan.hpp>

#include "../support/oracle.hpp"
#include "../support/random_dists.hpp"

// This file's names, apart from the other files of its program: meson compiles them together
// (unity build).
namespace unit_test_dist {

using namespace redist;
using redist::test::oracle;

namespace {
template <class D>
void check_against_oracle(const D& d, index_t n, int nprocs) {
  const typename D::mapping m(d, n, nprocs);
  const auto o = oracle(d, n, nprocs);
  INFO("n = " << n << ", P = " << nprocs);
  REQUIRE(m.size() == n);
  for (index_t g = 0; g < n; ++g) {
    REQUIRE(m.owner(g) == o.owner[g]);
    REQUIRE(m.local_index(g) == o.local[g]);
  }
  for (int p = 0; p < nprocs; ++p) {
    REQUIRE(m.local_size(p) == static_cast<index_t>(o.globals[p].size()));
    for (index_t l = 0; l < m.local_size(p); ++l) REQUIRE(m.global_index(p, l) == o.globals[p][l]);
    // The LDDs of p cover exactly p's elements, in local order.
    std::vector<index_t> from_ldds;
    index_t expect_local = 0;
    for (const Ldd& x : m.ldds(p)) {
      REQUIRE(x.local == expect_local);
      REQUIRE((x.n <= 1 || x.b <= x.s));
      for (index_t u = 0; u < x.n; ++u)
        for (index_t j = 0; j < x.b; ++j) from_ldds.push_back(x.o + u * x.s + j);
      expect_local += x.size();
    }
    REQUIRE(from_ldds == o.globals[p]);
    // The plan builder takes a built-in distribution's LDDs as walkable at every process without
    // asking each (detail::walkable_dimension).
    REQUIRE(redist::detail::walkable(m.ldds(p)));
  }
  // The plan builder's candidate peers (detail::owners_of_range): every owner of an element of
  // [lo, hi) is among them.
  for (index_t lo = 0; lo < n; lo += 1 + n / 7)
    for (index_t hi = lo + 1; hi <= n; hi += 1 + n / 5) {
      std::vector<int> got;
      REQUIRE(redist::detail::owners_of_range(m, lo, hi, got));
      for (index_t g = lo; g < hi; ++g) REQUIRE(std::find(got.begin(), got.end(), o.owner[g]) != got.end());
    }
}
}  // namespace

TEST_CASE("Block matches the oracle, trailing processes holding fewer or none", "[dist][block]") {
  for (int nprocs : {1, 2, 3, 4, 7, 16})
    for (index_t n : {0, 1, 2, 5, 15, 16, 17, 100}) check_against_oracle(Block{}, n, nprocs);
  const Block::mapping m(Block{}, 10, 4);  // b = 3: 3 3 3 1
  CHECK(m.block_size() == 3);
  CHECK(m.local_size(3) == 1);
  const Block::mapping e(Block{}, 5, 4);   // b = 2: 2 2 1 0
  CHECK(e.local_size(3) == 0);
  CHECK(e.ldds(3).size() == 0);
}

TEST_CASE("Cyclic<k> matches the oracle, static and dynamic, with ragged ends and k > n", "[dist][cyclic]") {
  for (int nprocs : {1, 2, 3, 4, 5})
    for (index_t n : {0, 1, 7, 24, 25, 100, 101}) {
      check_against_oracle(Cyclic<1>{}, n, nprocs);
      check_against_oracle(Cyclic<3>{}, n, nprocs);
      for (index_t k : {1, 2, 5, 8, 200}) check_against_oracle(Cyclic<dynamic>(k), n, nprocs);
    }
}

TEST_CASE("Cyclic<k> LDDs are those of seed 003 (0-based)", "[dist][cyclic][seed003]") {
  // Seed 003, Sec. 3.2: CYCLIC(4) on p processes is (4k + 1, 4, 4p, G/(4p)) in 1-based origins.
  const Cyclic<4>::mapping m(Cyclic<4>{}, 64, 4);
  for (int k = 0; k < 4; ++k) {
    REQUIRE(m.ldds(k).size() == 1);
    CHECK(m.ldds(k)[0] == Ldd{4 * k, 4, 16, 4, 0});
  }
  // A ragged end gets a second, shorter LDD (ERRATA, 003).
  const Cyclic<4>::mapping r(Cyclic<4>{}, 66, 4);
  REQUIRE(r.ldds(0).size() == 2);
  CHECK(r.ldds(0)[1] == Ldd{64, 2, 16, 1, 16});
}

TEST_CASE("GenBlock matches the oracle with empty parts", "[dist][gen_block]") {
  check_against_oracle(GenBlock{0, 3, 0, 0, 5, 0}, 8, 6);
  check_against_oracle(GenBlock{7, 10, 4, 18, 7, 18, 36}, 100, 7);
  check_against_oracle(GenBlock{0}, 0, 1);
  std::mt19937_64 rng(7);
  for (int t = 0; t < 50; ++t) {
    const int nprocs = 1 + static_cast<int>(rng() % 20);
    const index_t n = static_cast<index_t>(rng() % 200);
    check_against_oracle(GenBlock(redist::test::random_parts(n, nprocs, rng)), n, nprocs);
  }
}

TEST_CASE("Bad distribution parameters throw redist::error naming the parameter", "[dist][errors]") {
  CHECK_THROWS_WITH(Cyclic<dynamic>(0), Catch::Contains("requires k to be > 0"));
  CHECK_THROWS_WITH(Cyclic<dynamic>(-3), Catch::Contains("(got -3)"));
  CHECK_THROWS_AS(Cyclic<dynamic>(-3), redist::error);
  CHECK_THROWS_AS(Cyclic<dynamic>(-3), std::invalid_argument);
  CHECK_THROWS_WITH(GenBlock({4, -1, 2}), Catch::Contains("sizes[1] to be >= 0 (got -1)"));
  CHECK_THROWS_WITH(GenBlock::mapping(GenBlock{1, 2}, 3, 3), Catch::Contains("one entry per process (3 processes, got 2 sizes)"));
  CHECK_THROWS_WITH(GenBlock::mapping(GenBlock{1, 2}, 4, 2), Catch::Contains("sum to n (n = 4, sum = 3)"));
  CHECK_THROWS_AS(Cyclic<dynamic>::mapping(Cyclic<dynamic>(index_t{1} << 62), 10, 8), redist::error);
}

TEST_CASE("Distributions are types: static block sizes take no storage", "[dist][static]") {
  STATIC_REQUIRE(std::is_empty_v<Cyclic<4>>);
  STATIC_REQUIRE(std::is_empty_v<Block>);
  STATIC_REQUIRE(Cyclic<4>::static_block_size() == 4);
  STATIC_REQUIRE(Cyclic<dynamic>::static_block_size() == dynamic);
  STATIC_REQUIRE(Distribution<Block> && Distribution<Cyclic<7>> && Distribution<Cyclic<>> && Distribution<GenBlock>);
  STATIC_REQUIRE(!Distribution<int>);
  STATIC_REQUIRE(Cyclic<3>::mapping(Cyclic<3>{}, 20, 2).owner(7) == 0);   // usable in constant expressions
  STATIC_REQUIRE(Cyclic<3>::mapping(Cyclic<3>{}, 20, 2).local_index(7) == 4);
}

}  // namespace unit_test_dist
