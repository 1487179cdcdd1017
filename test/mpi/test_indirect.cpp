// MPI tests of Indirect layouts (issue "Arbitrary layouts"): index lists with ghosts to and from
// every 1-D distribution and each other, sums of contributions (Indirect<std::plus<>>) both ways,
// HPF's INDIRECT through from_owners, a repeated b = a that plans nothing, views, and bad lists
// refused on every rank naming the first bad index. Every holder of every index is checked.
#include <algorithm>
#include <complex>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <boost/mpi/collectives/all_gather.hpp>
#include <boost/mpi/collectives/all_reduce.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/serialization/vector.hpp>
#include <catch2/catch.hpp>

#include <redist/redist.hpp>

#include "../support/array_values.hpp"
#include "../support/mpi_check.hpp"

// This file's names, apart from the other files of its program: meson compiles them together
// (unity build).
namespace mpi_test_indirect {

using namespace redist;
namespace mpi = boost::mpi;
using redist::test::all_ok;

namespace {
double value_of(index_t g) { return 0.5 + static_cast<double>(g); }

/// A 1-D halo: this rank's block of ceil(n / P), then w ghosts on each side.
std::vector<index_t> halo(index_t n, int p, int r, index_t w) {
  const index_t b = std::max<index_t>(1, (n + p - 1) / p), lo = std::min(n, b * r), hi = std::min(n, lo + b);
  std::vector<index_t> l;
  for (index_t g = lo; g < hi; ++g) l.push_back(g);
  if (lo == hi) return l;
  for (index_t g = std::max<index_t>(0, lo - w); g < lo; ++g) l.push_back(g);
  for (index_t g = hi; g < std::min(n, hi + w); ++g) l.push_back(g);
  return l;
}

/// Random lists with ghosts, the same on every rank (one seed): rank r's.
std::vector<index_t> random_list(index_t n, int p, int r, int ghosts, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<std::vector<index_t>> lists(static_cast<std::size_t>(p));
  std::uniform_int_distribution<int> who(0, p - 1);
  for (index_t g = 0; g < n; ++g) lists[static_cast<std::size_t>(who(rng))].push_back(g);
  for (int q = 0; q < p && n > 0; ++q) {
    std::uniform_int_distribution<index_t> any(0, n - 1);
    for (int k = 0; k < ghosts; ++k) {
      const index_t g = any(rng);
      auto& l = lists[static_cast<std::size_t>(q)];
      if (std::find(l.begin(), l.end(), g) == l.end()) l.push_back(g);
    }
    std::shuffle(lists[static_cast<std::size_t>(q)].begin(), lists[static_cast<std::size_t>(q)].end(), rng);
  }
  return lists[static_cast<std::size_t>(r)];
}

/// Per global index, the ranks that list it (every rank's list gathered: small n only).
std::vector<std::vector<int>> holders_of(const mpi::communicator& world, const std::vector<index_t>& mine, index_t n) {
  std::vector<std::vector<index_t>> all;
  mpi::all_gather(world, mine, all);
  std::vector<std::vector<int>> h(static_cast<std::size_t>(n));
  for (std::size_t r = 0; r < all.size(); ++r)
    for (index_t g : all[r]) h[static_cast<std::size_t>(g)].push_back(static_cast<int>(r));
  return h;
}

/// A contribution of rank r to element g (partial values): their sum over the holders is the element.
double part(index_t g, int r) { return static_cast<double>((g * 7 + r * 13) % 17 + 1); }

/// The sum of every holder's part(g, q) (holders h from holders_of): what Indirect<std::plus<>>'s
/// partial values fold to.
auto sum_over(const std::vector<std::vector<int>>& h) {
  return [&h](index_t g) {
    double s = 0;
    for (int q : h[static_cast<std::size_t>(g)]) s += part(g, q);
    return s;
  };
}
}  // namespace

TEST_CASE("Indirect: a halo with ghosts from Block and back, the copies equal, repeated without planning", "[mpi][indirect]") {
  mpi::communicator world;
  const int p = world.size(), r = world.rank();
  for (index_t n : {index_t{0}, index_t{1}, index_t{7}, index_t{1000}}) {
    for (index_t w : {index_t{1}, index_t{3}}) {
      INFO("n = " << n << ", ghosts per side " << w);
      DistArray<double, Block> a(world, n);
      test::fill(a, value_of);
      DistArray<double, Indirect<>> u(world, n, Indirect<>{halo(n, p, r, w)});
      REQUIRE(u.local_size() == static_cast<index_t>(halo(n, p, r, w).size()));
      // Ghosts are copies (on more than one rank, of at least 2 elements): the directory knows it on every rank.
      CHECK(redist::detail::one_dimensional_mapping(u.mapping()).directory()->copies == (p > 1 && n > 1));
      for (int rep = 0; rep < 3; ++rep) {  // the first run, the decision's timing, the decided run
        std::fill(u.local().begin(), u.local().end(), -1.0);
        u = a;
        CHECK(all_ok(world, test::holds(u, value_of)));
      }
      // A repeated assignment plans nothing and asks no directory.
      const std::size_t built = plans_built();
      u = a;
      CHECK(plans_built() == built);
      // Every rank's own block is in its list: nothing but the ghosts moves, to the two
      // neighbours when the ghosts reach no further.
      if (w <= (n + p - 1) / p) CHECK(explain(a, u).messages <= 2);
      DistArray<double, Cyclic<3>> c(world, n);
      c = u;
      CHECK(all_ok(world, test::holds(c, value_of)));
      DistArray<double, Block> back(world, n);
      back = u;
      CHECK(all_ok(world, test::holds(back, value_of)));
      CHECK(explain(u, back).messages == 0);  // each block read from its own rank's copy
    }
  }
}

TEST_CASE("Indirect: random lists with ghosts and empty ranks, to and from every 1-D distribution", "[mpi][indirect]") {
  mpi::communicator world;
  const int p = world.size(), r = world.rank();
  for (unsigned seed : {1u, 2u, 3u}) {
    const index_t n = seed == 1 ? 0 : 97 * seed;
    INFO("seed " << seed << ", n = " << n);
    DistArray<double, Indirect<>> u(world, n, Indirect<>{random_list(n, p, r, 5, seed)});
    DistArray<double, Indirect<>> v(world, n, Indirect<>{random_list(n, p, r, 9, seed + 100)});
    std::vector<index_t> sizes(static_cast<std::size_t>(p), 0);
    for (index_t g = 0; g < n; ++g) ++sizes[static_cast<std::size_t>((g * g) % p)];
    DistArray<double, GenBlock> gen(world, n, GenBlock(sizes));
    DistArray<double, Cyclic<>> cyc(world, n, Cyclic<>{4});
    DistArray<double, Replicated> all(world, n);
    test::fill(gen, value_of);
    u = gen;
    CHECK(all_ok(world, test::holds(u, value_of)));
    v = u;
    CHECK(all_ok(world, test::holds(v, value_of)));
    cyc = v;
    CHECK(all_ok(world, test::holds(cyc, value_of)));
    all = u;
    CHECK(all_ok(world, test::holds(all, value_of)));
    test::fill(v, [](index_t) { return -1.0; });
    v = all;
    CHECK(all_ok(world, test::holds(v, value_of)));
    AnyDist k = Cyclic<>{2};
    DistArray<double, AnyDist> any(world, n, k);
    any = v;
    CHECK(all_ok(world, test::holds(any, value_of)));
    u = any;
    CHECK(all_ok(world, test::holds(u, value_of)));
  }
}

TEST_CASE("Indirect<std::plus<>>: the holders' contributions summed into their owners, and back into partial values",
          "[mpi][indirect]") {
  mpi::communicator world;
  const int p = world.size(), r = world.rank();
  for (index_t n : {index_t{5}, index_t{1000}}) {
    INFO("n = " << n);
    for (int lists = 0; lists < 2; ++lists) {
      const std::vector<index_t> mine = lists == 0 ? halo(n, p, r, 2) : random_list(n, p, r, 7, 11);
      const auto h = holders_of(world, mine, n);
      const auto sum_of = sum_over(h);
      DistArray<double, Indirect<std::plus<>>> c(world, n, Indirect<std::plus<>>{mine});
      for (int rep = 0; rep < 3; ++rep) {
        for (index_t l = 0; l < c.local_size(); ++l) c.local()[static_cast<std::size_t>(l)] = part(c.global_index(l), r);
        // Tpetra's Export with ADD: into owners of one copy each.
        DistArray<double, Block> b(world, n);
        b = c;
        CHECK(all_ok(world, test::holds(b, sum_of)));
        // Into copies with ghosts: every holder receives the sum.
        DistArray<double, Indirect<>> u(world, n, Indirect<>{mine});
        u = c;
        CHECK(all_ok(world, test::holds(u, sum_of)));
        // Into partial values: the first holder of each index receives it, the others hold 0.
        DistArray<double, Indirect<std::plus<>>> d(world, n, Indirect<std::plus<>>{mine});
        test::fill(d, [](index_t) { return -1.0; });
        d = b;
        bool ok = true;
        for (index_t l = 0; l < d.local_size(); ++l) {
          const index_t g = d.global_index(l);
          const bool first = h[static_cast<std::size_t>(g)].front() == r;
          ok = ok && d.local()[static_cast<std::size_t>(l)] == (first ? sum_of(g) : 0.0);
        }
        CHECK(all_ok(world, ok));
        // And their sum again, out of them.
        DistArray<double, Cyclic<2>> e(world, n);
        e = d;
        CHECK(all_ok(world, test::holds(e, sum_of)));
      }
    }
  }
}

TEST_CASE("Indirect: partial values of other types and Ops; Partial<> and Replicated on the other side", "[mpi][indirect]") {
  mpi::communicator world;
  const int p = world.size(), r = world.rank();
  const index_t n = 200;
  const std::vector<index_t> mine = random_list(n, p, r, 6, 5);
  const auto h = holders_of(world, mine, n);
  DistArray<long long, Indirect<std::plus<>>> c(world, n, Indirect<std::plus<>>{mine});
  for (index_t l = 0; l < c.local_size(); ++l) c.local()[static_cast<std::size_t>(l)] = c.global_index(l) + r;
  DistArray<long long, Block> b(world, n);
  b = c;
  bool ok = true;
  for (index_t l = 0; l < b.local_size(); ++l) {
    const index_t g = b.global_index(l);
    long long want = 0;
    for (int q : h[static_cast<std::size_t>(g)]) want += g + q;
    ok = ok && b.local()[static_cast<std::size_t>(l)] == want;
  }
  CHECK(all_ok(world, ok));
  // max_op: the largest contribution.
  DistArray<double, Indirect<max_op>> m(world, n, Indirect<max_op>{mine});
  for (index_t l = 0; l < m.local_size(); ++l) m.local()[static_cast<std::size_t>(l)] = part(m.global_index(l), r);
  DistArray<double, Replicated> all(world, n);
  all = m;
  CHECK(all_ok(world, test::holds(all, [&](index_t g) {
    double x = -1;
    for (int q : h[static_cast<std::size_t>(g)]) x = std::max(x, part(g, q));
    return x;
  })));
  // A 1-D Partial<> source folded into copies with ghosts; and copies into Partial<> (rank 0 receives).
  DistArray<double, Partial<>> parts(world, n);
  for (index_t l = 0; l < n; ++l) parts.local()[static_cast<std::size_t>(l)] = part(l, r);
  DistArray<double, Indirect<>> u(world, n, Indirect<>{mine});
  u = parts;
  CHECK(all_ok(world, test::holds(u, [&](index_t g) {
    double s = 0;
    for (int q = 0; q < p; ++q) s += part(g, q);
    return s;
  })));
  test::fill(u, value_of);
  DistArray<double, Partial<>> back(world, n);
  back = u;
  bool ok2 = true;
  for (index_t l = 0; l < n; ++l) ok2 = ok2 && back.local()[static_cast<std::size_t>(l)] == (r == 0 ? value_of(l) : 0.0);
  CHECK(all_ok(world, ok2));
}

TEST_CASE("Indirect::from_owners: HPF's INDIRECT with the map in blocks", "[mpi][indirect]") {
  mpi::communicator world;
  const int p = world.size(), r = world.rank();
  const index_t n = 500, b = (n + p - 1) / p;
  auto owner = [&](index_t g) { return static_cast<int>((g * 7 / 3) % p); };
  std::vector<int> owners;
  for (index_t g = std::min(n, b * r); g < std::min(n, b * (r + 1)); ++g) owners.push_back(owner(g));
  const auto layout = Indirect<>::from_owners(world, n, owners);
  bool ok = std::is_sorted(layout.indices().begin(), layout.indices().end());
  for (index_t g : layout.indices()) ok = ok && owner(g) == r;
  CHECK(all_ok(world, ok));
  const index_t mine = static_cast<index_t>(layout.indices().size());
  CHECK(mpi::all_reduce(world, mine, std::plus<>()) == n);
  DistArray<double, Indirect<>> w(world, n, layout);
  DistArray<double, Cyclic<5>> a(world, n);
  test::fill(a, value_of);
  w = a;
  CHECK(all_ok(world, test::holds(w, value_of)));
  // No index held twice: planned by formula both ways, and into and out of partial values (one
  // holder each: it receives the element, and its part is the element).
  CHECK_FALSE(redist::detail::one_dimensional_mapping(w.mapping()).directory()->copies);
  DistArray<double, Block> back(world, n);
  back = w;
  CHECK(all_ok(world, test::holds(back, value_of)));
  DistArray<double, Indirect<std::plus<>>> parts(world, n, Indirect<std::plus<>>(layout.indices()));
  parts = a;
  CHECK(all_ok(world, test::holds(parts, value_of)));
  test::fill(back, [](index_t) { return -1.0; });
  back = parts;
  CHECK(all_ok(world, test::holds(back, value_of)));
  // On an MPI_Comm too.
  const auto again = Indirect<>::from_owners(static_cast<MPI_Comm>(world), n, owners);
  CHECK(all_ok(world, again.indices() == layout.indices()));
  // A bad owner, on one rank only: refused on every rank, naming the index.
  std::vector<int> bad = owners;
  const int who = p - 1;
  if (r == who && !bad.empty()) bad.back() = p;
  const index_t bad_index = std::min(n, b * (who + 1)) - 1;
  bool refused = false;
  try {
    (void)Indirect<>::from_owners(world, n, bad);
  } catch (const redist::error& e) {
    refused = std::string(e.what()).find("owner of " + std::to_string(bad_index)) != std::string::npos;
  }
  CHECK(all_ok(world, refused));
  // An owner past int's range (2^32 would wrap to 0): refused too.
  std::vector<long long> wide(owners.begin(), owners.end());
  if (r == 0 && !wide.empty()) wide.front() = 1LL << 32;
  refused = false;
  try {
    (void)Indirect<>::from_owners(world, n, wide);
  } catch (const redist::error& e) {
    refused = std::string(e.what()).find("owner of 0 is 4294967296") != std::string::npos;
  }
  CHECK(all_ok(world, refused));
}

TEST_CASE("Indirect: a ghosted array's owned part as the source: the ghosts updated in place", "[mpi][indirect]") {
  mpi::communicator world;
  const int p = world.size(), r = world.rank();
  for (index_t n : {index_t{0}, index_t{1}, index_t{7}, index_t{1000}}) {
    for (index_t w : {index_t{1}, index_t{3}}) {
      INFO("n = " << n << ", ghosts per side " << w);
      const std::vector<index_t> mine = halo(n, p, r, w);
      const index_t block = std::min(n, (n + p - 1) / p * (r + 1)) - std::min(n, (n + p - 1) / p * r);
      // u's storage: this rank's block, then its ghosts (PETSc's VecGhost, Tpetra's offset view).
      DistArray<double, Indirect<>> u(world, n, Indirect<>{mine});
      DistView<double, Block> owned(u.local().data(), world, n);
      REQUIRE(owned.local_size() == block);
      for (index_t l = 0; l < block; ++l) u.local()[static_cast<std::size_t>(l)] = value_of(mine[static_cast<std::size_t>(l)]);
      for (int rep = 0; rep < 3; ++rep) {  // the first run (its check), the decision's timing, the decided run
        std::fill(u.local().begin() + block, u.local().end(), -1.0);
        u = owned;
        CHECK(all_ok(world, test::holds(u, value_of)));
      }
      // The same pair of layouts from another array: the plan is u's cached one.
      DistArray<double, Block> a(world, n);
      test::fill(a, value_of);
      std::fill(u.local().begin(), u.local().end(), -1.0);
      u = a;
      CHECK(all_ok(world, test::holds(u, value_of)));
    }
  }
}

TEST_CASE("Indirect<std::plus<>>: a ghosted array's contributions summed into its owned part in place", "[mpi][indirect]") {
  // PETSc's VecGhostUpdate(ADD_VALUES, SCATTER_REVERSE): c holds this rank's block, then its
  // ghosts, each a contribution; x, a view over c's head, receives every holder's sum, and c's
  // ghosts keep their values. n = 6 with 3 ghosts a side at 2 ranks: each rank's plan is a
  // reduce-scatter's pattern, whose decision would time repeated runs (not in place).
  mpi::communicator world;
  const int p = world.size(), r = world.rank();
  for (index_t n : {index_t{0}, index_t{1}, index_t{6}, index_t{7}, index_t{1000}}) {
    for (index_t w : {index_t{1}, index_t{3}}) {
      INFO("n = " << n << ", ghosts per side " << w);
      const std::vector<index_t> mine = halo(n, p, r, w);
      const auto block = static_cast<std::size_t>(std::min(n, (n + p - 1) / p * (r + 1)) - std::min(n, (n + p - 1) / p * r));
      const auto h = holders_of(world, mine, n);
      const auto sum_of = sum_over(h);
      DistArray<double, Indirect<std::plus<>>> c(world, n, Indirect<std::plus<>>{mine});
      DistView<double, Block> x(c.local().data(), world, n);
      // The first run (its check), the decision's runs (node copies and messages alternately), decided runs.
      for (int rep = 0; rep < 3 + redist::detail::fold_timing_runs; ++rep) {
        for (std::size_t l = 0; l < mine.size(); ++l) c.local()[l] = part(mine[l], r);
        x = c;
        CHECK(all_ok(world, test::holds(x, sum_of)));
        bool ghosts_kept = true;
        for (std::size_t l = block; l < mine.size(); ++l) ghosts_kept = ghosts_kept && c.local()[l] == part(mine[l], r);
        CHECK(all_ok(world, ghosts_kept));
      }
      // Nothing timed (shared memory off, a node of one, sends of 64 KiB or more), or the node's
      // copies against the messages, each the median of its runs.
      const auto timed = explain(c, x).transports;
      CHECK(all_ok(world, timed.empty() || (timed.size() == 2 && timed[0].node && !timed[1].node && timed[0].median > 0 &&
                                            timed[1].median > 0)));
    }
  }
  // The owned part one element in: the local copy would write each contribution over another's.
  const index_t n = 1000;
  const std::vector<index_t> mine = halo(n, p, r, 2);
  std::vector<double> memory(mine.size() + 1);
  std::iota(memory.begin(), memory.end(), 100.0);
  const std::vector<double> before = memory;
  DistView<double, Indirect<std::plus<>>> c(memory.data(), world, n, Indirect<std::plus<>>{mine});
  DistView<double, Block> shifted(memory.data() + 1, world, n);
  try {
    shifted = c;
    FAIL("a fold over its source other than in place was accepted");
  } catch (const redist::error& e) {
    CHECK(std::string(e.what()).find("update in place") != std::string::npos);
  }
  CHECK(all_ok(world, memory == before));
}

TEST_CASE("Indirect: a source sharing the destination's memory other than element for element is refused on every rank",
          "[mpi][indirect]") {
  mpi::communicator world;
  const int p = world.size(), r = world.rank();
  const index_t n = 1000, w = 2;
  const std::vector<index_t> mine = halo(n, p, r, w);
  const auto block = static_cast<std::size_t>(std::min(n, (n + p - 1) / p * (r + 1)) - std::min(n, (n + p - 1) / p * r));
  const std::vector<double> before = [&] {
    std::vector<double> m(2 * block + mine.size());
    std::iota(m.begin(), m.end(), 100.0);
    return m;
  }();
  // Shifted by one element: the local copy would write each element over its neighbour.
  {
    std::vector<double> memory = before;
    DistView<double, Indirect<>> u(memory.data(), world, n, Indirect<>{mine});
    DistView<double, Block> shifted(memory.data() + 1, world, n);
    try {
      u = shifted;
      FAIL("an overlap that is not element for element was accepted");
    } catch (const redist::error& e) {
      CHECK(std::string(e.what()).find("update in place") != std::string::npos);
    }
    CHECK(all_ok(world, memory == before));  // refused before any data moved
  }
  // The source where the ghosts are: the receives would write over elements still to be sent.
  {
    std::vector<double> memory = before;
    DistView<double, Indirect<>> u(memory.data(), world, n, Indirect<>{mine});
    DistView<double, Block> there(memory.data() + block, world, n);
    if (p > 1) {
      CHECK_THROWS_AS(u = there, redist::error);
      CHECK(all_ok(world, memory == before));
    } else {  // one rank: no ghosts, no overlap
      u = there;
      CHECK(all_ok(world, test::holds(u, [&](index_t g) { return before[block + static_cast<std::size_t>(g)]; })));
    }
  }
}

TEST_CASE("Indirect: views over the caller's memory, make_plan and explain", "[mpi][indirect]") {
  mpi::communicator world;
  const int p = world.size(), r = world.rank();
  const index_t n = 333;
  const std::vector<index_t> mine = halo(n, p, r, 2);
  std::vector<double> memory(mine.size(), -1.0);
  DistView<double, Indirect<>> v(memory.data(), world, n, Indirect<>{mine});
  DistArray<double, Cyclic<7>> a(world, n);
  test::fill(a, value_of);
  auto plan = make_plan(a, v);
  plan.execute(a, v);
  bool ok = true;
  for (std::size_t l = 0; l < mine.size(); ++l) ok = ok && memory[l] == value_of(mine[l]);
  CHECK(all_ok(world, ok));
  const Explanation e = explain(a, v);
  CHECK(e.reason.find("Indirect") != std::string::npos);
  CHECK(e.steps <= 1);
}

/// The arrays of the make_plan tests: a (Cyclic(4), value_of) and c (Block, twice value_of), each
/// into u, a random list with ghosts (seed); clear() fills u with -1.
struct PlanPair {
  static constexpr index_t n = 300;
  mpi::communicator world;
  DistArray<double, Cyclic<4>> a{world, n};
  DistArray<double, Block> c{world, n};
  DistArray<double, Indirect<>> u;
  explicit PlanPair(unsigned seed) : u{world, n, Indirect<>{random_list(n, world.size(), world.rank(), 3, seed)}} {
    test::fill(a, value_of);
    test::fill(c, [](index_t g) { return 2.0 * value_of(g); });
  }
  void clear() { test::fill(u, [](index_t) { return -1.0; }); }
  auto parts() { return std::tie(world, a, c, u); }
};

TEST_CASE("Indirect: make_plan takes the plan b = a made", "[mpi][indirect]") {
  PlanPair pp(31);
  auto [world, a, c, u] = pp.parts();
  auto clear = [&] { pp.clear(); };
  // Plans built: a pair with an Indirect layout asks its directory for each (collective).
  auto asked = [] { return redist::plans_built(); };
  const std::size_t before = asked();
  // u = a asks the directory; make_plan and explain then take u's plan as it is.
  u = a;
  CHECK(all_ok(world, test::holds(u, value_of)));
  CHECK(all_ok(world, asked() == before + 1));
  auto plan = make_plan(a, u);
  CHECK(explain(a, u).ran);
  CHECK(all_ok(world, asked() == before + 1));
  // The copy and the cached plan run in turn, each deciding on its own second run.
  for (int k = 0; k < 3; ++k) {
    clear();
    plan.execute(a, u);
    CHECK(all_ok(world, test::holds(u, value_of)));
    clear();
    u = a;
    CHECK(all_ok(world, test::holds(u, value_of)));
  }
  CHECK(all_ok(world, asked() == before + 1));
  // Another pair's plan is made apart, of its own directory round; u's stays.
  auto other = make_plan(c, u);
  CHECK(all_ok(world, asked() == before + 2));
  other.execute(c, u);
  CHECK(all_ok(world, test::holds(u, [](index_t g) { return 2.0 * value_of(g); })));
  u = a;
  CHECK(all_ok(world, test::holds(u, value_of)));
  CHECK(all_ok(world, asked() == before + 2));
  // A copy outlives the plan it was made of (u's, dropped by u = c).
  u = c;
  CHECK(all_ok(world, asked() == before + 3));
  clear();
  plan.execute(a, u);
  CHECK(all_ok(world, test::holds(u, value_of)));
  // Different options are another plan: asked for.
  auto budget = make_plan(a, u, redist::schedule::automatic, redist::options{.max_scratch_bytes = 4096});
  CHECK(all_ok(world, asked() == before + 4));
  clear();
  budget.execute(a, u);
  CHECK(all_ok(world, test::holds(u, value_of)));
}

TEST_CASE("Indirect: b = a takes the plan make_plan made, sharing its element lists", "[mpi][indirect]") {
  PlanPair pp(37);
  auto [world, a, c, u] = pp.parts();
  auto clear = [&] { pp.clear(); };
  const std::size_t before = redist::plans_built();
  // u's cache is empty: make_plan asks the directory once and leaves the plan there too.
  auto plan = make_plan(a, u);
  CHECK(all_ok(world, redist::plans_built() == before + 1));
  const auto* kept = redist::detail::array_access::cache(u).cached(plan.from(), plan.to(), redist::schedule::automatic,
                                                                   redist::default_options(), world);
  REQUIRE(all_ok(world, kept != nullptr));
  // One set of element lists between them (a shuffled list's messages and local copy are listed).
  bool shared = plan.plan().stages.size() == kept->plan().stages.size();
  for (std::size_t s = 0; shared && s < plan.plan().stages.size(); ++s) {
    const auto& mine = plan.plan().stages[s].list;
    const auto& theirs = kept->plan().stages[s].list;
    shared = !mine.empty() && mine.data() == theirs.data() && mine.holders() == 2;
  }
  CHECK(all_ok(world, shared));
  // u = a runs the plan left in u's cache (nothing asked), the copy runs apart; in turn.
  for (int k = 0; k < 3; ++k) {
    clear();
    u = a;
    CHECK(all_ok(world, test::holds(u, value_of)));
    clear();
    plan.execute(a, u);
    CHECK(all_ok(world, test::holds(u, value_of)));
  }
  CHECK(all_ok(world, redist::plans_built() == before + 1));
  // u = c drops the cached plan (a new pair, asked); the copy keeps the lists and runs on.
  u = c;
  CHECK(all_ok(world, test::holds(u, [](index_t g) { return 2.0 * value_of(g); })));
  CHECK(all_ok(world, redist::plans_built() == before + 2));
  CHECK(all_ok(world, plan.plan().stages[0].list.holders() == 1));
  clear();
  plan.execute(a, u);
  CHECK(all_ok(world, test::holds(u, value_of)));
  // A cache holding another pair's plan keeps it: make_plan's plan is made apart (asked), and
  // u = c then asks nothing.
  auto apart = make_plan(a, u, redist::schedule::automatic, redist::options{.max_scratch_bytes = 4096});
  CHECK(all_ok(world, redist::plans_built() == before + 3));
  CHECK(all_ok(world, apart.plan().stages[0].list.holders() == 1));
  clear();
  u = c;
  CHECK(all_ok(world, test::holds(u, [](index_t g) { return 2.0 * value_of(g); })));
  CHECK(all_ok(world, redist::plans_built() == before + 3));
}

TEST_CASE("Indirect: expressions, fused lists and started exchanges", "[mpi][indirect]") {
  mpi::communicator world;
  const int p = world.size(), r = world.rank();
  const index_t n = 400;
  const std::vector<index_t> mine = random_list(n, p, r, 8, 21);
  const auto h = holders_of(world, mine, n);
  DistArray<double, Block> a(world, n);
  test::fill(a, value_of);
  DistArray<double, Indirect<>> u(world, n, Indirect<>{mine});
  test::fill(u, [](index_t g) { return static_cast<double>(g % 5); });
  for (int rep = 0; rep < 3; ++rep) {
    test::fill(u, [](index_t g) { return static_cast<double>(g % 5); });
    u = 2.0 * a + 3.0 * u;  // every copy updated
    CHECK(all_ok(world, test::holds(u, [](index_t g) { return 2.0 * value_of(g) + 3.0 * static_cast<double>(g % 5); })));
  }
  // Sums out of partial values, scaled; and two assignments in one exchange, started and waited for.
  DistArray<double, Indirect<std::plus<>>> c(world, n, Indirect<std::plus<>>{mine});
  for (index_t l = 0; l < c.local_size(); ++l) c.local()[static_cast<std::size_t>(l)] = part(c.global_index(l), r);
  const auto sum_of = sum_over(h);
  DistArray<double, Cyclic<3>> b(world, n);
  b = 0.5 * c;
  CHECK(all_ok(world, test::holds(b, [&](index_t g) { return 0.5 * sum_of(g); })));
  DistArray<double, Indirect<>> v(world, n, Indirect<>{random_list(n, p, r, 3, 22)});
  for (int rep = 0; rep < 3; ++rep) {
    test::fill(b, [](index_t) { return -1.0; });
    test::fill(v, [](index_t) { return -1.0; });
    auto pending = redist::start(b <<= c, v <<= a);
    pending.wait();
    CHECK(all_ok(world, test::holds(b, sum_of)));
    CHECK(all_ok(world, test::holds(v, value_of)));
    test::fill(v, [](index_t) { return -1.0; });
    redist::assign(v <<= u, b <<= a);
    CHECK(all_ok(world, test::holds(v, [](index_t g) { return 2.0 * value_of(g) + 3.0 * static_cast<double>(g % 5); })));
    CHECK(all_ok(world, test::holds(b, value_of)));
  }
}

TEST_CASE("Indirect: a list that leaves an index unheld, lists one twice or names one outside [0, n) is refused on every rank",
          "[mpi][indirect]") {
  mpi::communicator world;
  const int p = world.size(), r = world.rank();
  const index_t n = 100;
  auto refused_naming = [&](const std::vector<index_t>& mine, const std::string& words) {
    bool refused = false;
    try {
      DistArray<double, Indirect<>> u(world, n, Indirect<>{mine});
    } catch (const redist::error& e) {
      refused = std::string(e.what()).find(words) != std::string::npos;
      if (!refused) UNSCOPED_INFO(e.what());
    }
    return all_ok(world, refused);
  };
  // Unheld: the last rank's list loses its first index (every rank but one holds nothing else of it).
  std::vector<index_t> mine = halo(n, p, r, 0);
  const index_t b = (n + p - 1) / p;
  const int last = static_cast<int>((n - 1) / b);
  const index_t dropped = b * last;
  if (r == last) mine.erase(mine.begin());
  CHECK(refused_naming(mine, "no rank holds " + std::to_string(dropped)));
  // Twice on one rank.
  mine = halo(n, p, r, 0);
  if (r == 0) mine.push_back(mine.front());
  CHECK(refused_naming(mine, "listed once"));
  // The same two in lists of single indices (each rank's block reversed: the directory checks a
  // part of many requests by a mark per index, not by sorted pieces).
  auto reversed = [&] {
    std::vector<index_t> v = halo(n, p, r, 0);
    std::reverse(v.begin(), v.end());
    return v;
  };
  mine = reversed();
  if (r == last) mine.pop_back();
  CHECK(refused_naming(mine, "no rank holds " + std::to_string(dropped)));
  mine = reversed();
  if (r == 0) mine.push_back(mine.front());
  CHECK(refused_naming(mine, "(rank 0 lists " + std::to_string(std::min(n, b) - 1) + " twice)"));  // rank 0's last
  // Outside [0, n).
  mine = halo(n, p, r, 0);
  if (r == p - 1) mine.push_back(n);
  CHECK(refused_naming(mine, "= " + std::to_string(n)));
  // The other side a 1-D array on some of the ranks (Dist<Block> from rank 1): refused on every rank.
  if (p > 1) {
    DistArray<double, Indirect<>> u(world, n, Indirect<>{halo(n, p, r, 1)});
    DistArray<double, Dist<Block>> sub(world, {n}, Grid{p - 1}.with_first(1));
    bool refused = false;
    try {
      u = sub;
    } catch (const redist::error& e) {
      refused = std::string(e.what()).find("every rank of the communicator, in order") != std::string::npos;
    }
    CHECK(all_ok(world, refused));
  }
  // A good list still works after the refusals.
  DistArray<double, Indirect<>> u(world, n, Indirect<>{halo(n, p, r, 1)});
  DistArray<double, Block> a(world, n);
  test::fill(a, value_of);
  u = a;
  CHECK(all_ok(world, test::holds(u, value_of)));
}

}  // namespace mpi_test_indirect
