// BlockCyclic (a block-cyclic distribution with a short first block) against a brute-force oracle, and as the rows of a sub-matrix of Cyclic<>{k}.
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <redist/dist/block_cyclic.hpp>
#include <redist/dist/cyclic.hpp>
#include <redist/dist/dist.hpp>
#include <redist/index/intersect.hpp>

using namespace redist;

namespace {
/// The oracle: deal the first block of f, then blocks of k, to processes 0, 1, ..., P-1, 0, ...
struct Dealt {
  std::vector<int> owner;
  std::vector<index_t> local;
  std::vector<std::vector<index_t>> globals;  // per process, its elements in local order
};
Dealt deal(index_t k, index_t f, index_t n, int p) {
  Dealt d;
  d.globals.resize(static_cast<std::size_t>(p));
  index_t block = 0, left = f;
  for (index_t g = 0; g < n; ++g) {
    if (left == 0) ++block, left = k;
    const int q = static_cast<int>(block % p);
    d.owner.push_back(q);
    d.local.push_back(static_cast<index_t>(d.globals[static_cast<std::size_t>(q)].size()));
    d.globals[static_cast<std::size_t>(q)].push_back(g);
    --left;
  }
  return d;
}

/// The elements of an LDD set in local order, checking that each LDD's local index is consistent.
std::vector<index_t> expand(const LddSet& set) {
  std::vector<index_t> out;
  for (const Ldd& l : set) {
    REQUIRE(l.local == static_cast<index_t>(out.size()));
    for (index_t u = 0; u < l.n; ++u)
      for (index_t j = 0; j < l.b; ++j) out.push_back(l.o + u * l.s + j);
  }
  return out;
}
}  // namespace

TEST_CASE("BlockCyclic agrees with the brute-force oracle on every small case", "[interop][block_cyclic]") {
  for (index_t k = 1; k <= 6; ++k)
    for (index_t f = 1; f <= k; ++f)
      for (int p = 1; p <= 5; ++p)
        for (index_t n = 0; n <= 3 * k * p + 7; ++n) {
          INFO("k = " << k << ", f = " << f << ", P = " << p << ", n = " << n);
          const BlockCyclic::mapping m(BlockCyclic{k, f}, n, p);
          const Dealt d = deal(k, f, n, p);
          for (index_t g = 0; g < n; ++g) {
            REQUIRE(m.owner(g) == d.owner[static_cast<std::size_t>(g)]);
            REQUIRE(m.local_index(g) == d.local[static_cast<std::size_t>(g)]);
            REQUIRE(m.global_index(m.owner(g), m.local_index(g)) == g);
          }
          for (int q = 0; q < p; ++q) {
            const auto& mine = d.globals[static_cast<std::size_t>(q)];
            REQUIRE(m.local_size(q) == static_cast<index_t>(mine.size()));
            REQUIRE(expand(m.ldds(q)) == mine);
          }
        }
}

TEST_CASE("BlockCyclic{k, k} is Cyclic<>{k}", "[interop][block_cyclic]") {
  for (index_t k : {1, 3, 8})
    for (int p : {1, 2, 3, 4})
      for (index_t n : {0, 1, 7, 50}) {
        const BlockCyclic::mapping a(BlockCyclic{k, k}, n, p);
        const Cyclic<>::mapping b(Cyclic<>{k}, n, p);
        for (index_t g = 0; g < n; ++g) {
          REQUIRE(a.owner(g) == b.owner(g));
          REQUIRE(a.local_index(g) == b.local_index(g));
        }
        for (int q = 0; q < p; ++q) {
          REQUIRE(a.local_size(q) == b.local_size(q));
          REQUIRE(expand(a.ldds(q)) == expand(b.ldds(q)));
        }
      }
}

TEST_CASE("BlockCyclic::from_offset(k, i) is Cyclic<>{k} from element i on, local indices relative to the sub-range",
          "[interop][block_cyclic]") {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 2000; ++trial) {
    const index_t k = std::uniform_int_distribution<index_t>(1, 9)(rng);
    const int p = std::uniform_int_distribution<int>(1, 5)(rng);
    const int src = std::uniform_int_distribution<int>(0, p - 1)(rng);
    const index_t big = std::uniform_int_distribution<index_t>(1, 80)(rng);
    const index_t i = std::uniform_int_distribution<index_t>(0, big - 1)(rng);
    const index_t n = std::uniform_int_distribution<index_t>(0, big - i)(rng);
    INFO("k = " << k << ", P = " << p << ", src = " << src << ", N = " << big << ", i = " << i << ", n = " << n);
    const Cyclic<>::mapping whole(Cyclic<>{k}, big, p);
    const BlockCyclic::mapping sub(BlockCyclic::from_offset(k, i), n, p);
    const int first = static_cast<int>((src + i / k) % p);  // the process of the sub-range's first block
    for (index_t g = 0; g < n; ++g) {
      const int q_whole = (whole.owner(g + i) + src) % p;
      REQUIRE((sub.owner(g) + first) % p == q_whole);
      // The whole range's local index minus the count of elements before i on that process.
      const Cyclic<>::mapping before(Cyclic<>{k}, i, p);
      REQUIRE(sub.local_index(g) == whole.local_index(g + i) - before.local_size(whole.owner(g + i)));
    }
  }
}

TEST_CASE("BlockCyclic rejects bad sizes", "[interop][block_cyclic][error]") {
  REQUIRE_THROWS_WITH(BlockCyclic(0, 1), Catch::Contains("redist::BlockCyclic(k, f) requires k to be > 0"));
  REQUIRE_THROWS_WITH(BlockCyclic(4, 0), Catch::Contains("requires f to be in [1, k]"));
  REQUIRE_THROWS_WITH(BlockCyclic(4, 5), Catch::Contains("requires f to be in [1, k]"));
  REQUIRE_THROWS_WITH(BlockCyclic::from_offset(3, -1), Catch::Contains("requires start to be >= 0"));
  STATIC_REQUIRE(Distribution<BlockCyclic>);
}

TEST_CASE("Dist<BlockCyclic, BlockCyclic> intersects with Cyclic layouts like the oracle", "[interop][block_cyclic]") {
  // The LDD intersection of a BlockCyclic process with a Cyclic process is exactly the
  // elements both own.
  std::mt19937 rng(5);
  for (int trial = 0; trial < 500; ++trial) {
    const index_t k = std::uniform_int_distribution<index_t>(1, 7)(rng);
    const index_t f = std::uniform_int_distribution<index_t>(1, k)(rng);
    const index_t c = std::uniform_int_distribution<index_t>(1, 7)(rng);
    const int p = std::uniform_int_distribution<int>(1, 4)(rng);
    const int q = std::uniform_int_distribution<int>(1, 4)(rng);
    const index_t n = std::uniform_int_distribution<index_t>(0, 90)(rng);
    const BlockCyclic::mapping a(BlockCyclic{k, f}, n, p);
    const Cyclic<>::mapping b(Cyclic<>{c}, n, q);
    for (int x = 0; x < p; ++x)
      for (int y = 0; y < q; ++y) {
        std::vector<Run> runs;
        index::intersect(a.ldds(x), b.ldds(y), runs);
        std::vector<index_t> got, want;
        for (const Run& r : runs)
          for (index_t u = 0; u < r.count; ++u)
            for (index_t e = 0; e < r.len; ++e) got.push_back(a.global_index(x, r.src + u * r.src_stride + e));
        for (index_t g = 0; g < n; ++g)
          if (a.owner(g) == x && b.owner(g) == y) want.push_back(g);
        std::sort(got.begin(), got.end());
        REQUIRE(got == want);
      }
  }
}
