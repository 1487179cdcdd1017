// MPI tests of redistribution through shared memory on a node (options::shared_memory), alone and
// mixed with messages between emulated nodes (options::node_size): every plan kind, budgets,
// empty parts, private copies, per-rank leading dimensions, repeated writes between calls.
#include <algorithm>
#include <array>
#include <numeric>
#include <random>
#include <span>
#include <utility>
#include <vector>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <catch2/catch.hpp>

#include <redist/redist.hpp>

#include "../support/array_values.hpp"
#include "../support/array_values_nd.hpp"
#include "../support/mpi_check.hpp"

// This file's names, apart from the other files of its program: meson compiles them together
// (unity build).
namespace mpi_test_shared {

using namespace redist;
namespace mpi = boost::mpi;
using redist::test::all_ok;
using redist::test::fill_nd;
using redist::test::holds_nd;

namespace {
double value_1d(index_t g) { return 0.5 + 3.0 * static_cast<double>(g); }
double value_2d(const std::array<index_t, 2>& g) { return 0.25 + static_cast<double>(g[0]) * 1000.0 + static_cast<double>(g[1]); }

/// Sets default_options().shared_memory and node_size for the arrays constructed in its scope.
struct NodeScope {
  options saved = default_options();
  NodeScope(bool shared, int node_size) {
    default_options().shared_memory = shared;
    default_options().node_size = node_size;
  }
  ~NodeScope() { default_options() = saved; }
};

/// The ranks of this rank's node (emulated with node_size > 0).
int node_ranks(const mpi::communicator& world, int node_size) {
  return runtime::node_of(static_cast<MPI_Comm>(world), node_size)->size;
}

/// 1-D pair a -> b with policy: exact, and through shared memory exactly when expected.
template <class A, class B, class S>
void check_1d(const mpi::communicator& world, A& a, B& b, S policy, bool expect_shared, const options& opts) {
  for (int round = 0; round < 3; ++round) {  // the source changes between calls
    redist::test::fill(a, [&](index_t g) { return value_1d(g) + round; });
    std::fill(b.local().begin(), b.local().end(), -1.0);
    auto plan = make_plan(a, b, policy, opts);
    plan.execute(a, b);
    REQUIRE(all_ok(world, redist::test::holds(b, [&](index_t g) { return value_1d(g) + round; })));
    CHECK(plan.used_shared_memory() == expect_shared);
  }
}
}  // namespace

TEST_CASE("Arrays live in a node's shared memory by default, copies do not", "[mpi][shared]") {
  mpi::communicator world;
  NodeScope scope(true, 0);
  DistArray<double, Cyclic<4>> a(world, 1000);
  CHECK(a.in_shared_memory() == (node_ranks(world, 0) > 1));
  DistArray<double, Cyclic<4>> copy(a);
  CHECK_FALSE(copy.in_shared_memory());
  CHECK(std::equal(copy.local().begin(), copy.local().end(), a.local().begin(), a.local().end()));
  DistArray<double, Cyclic<4>> moved(std::move(a));
  CHECK(moved.in_shared_memory() == (node_ranks(world, 0) > 1));
  default_options().shared_memory = false;
  DistArray<double, Cyclic<4>> plain(world, 1000);
  CHECK_FALSE(plain.in_shared_memory());
}

TEST_CASE("b = a through shared memory: every plan kind, on one node and on emulated nodes", "[mpi][shared]") {
  mpi::communicator world;
  for (int node_size : {0, 1, 2, 3}) {
    NodeScope scope(true, node_size);
    const int on_node = node_ranks(world, node_size);
    const bool shared = on_node > 1;
    options opts = default_options();
    for (index_t n : {index_t{0}, index_t{1}, index_t{37}, index_t{4099}}) {
      DistArray<double, Cyclic<8>> a(world, n);
      DistArray<double, Cyclic<5>> b(world, n);
      // automatic on a Cyclic pair (the one-pass basic-cycle exchange or a circulant schedule):
      // when some node copies, every rank runs BCC's direct messages, copied within that node.
      check_1d(world, a, b, schedule::automatic, shared, opts);
      check_1d(world, a, b, schedule::bcc, shared, opts);
      // Schedules of messages asked for by name stay messages.
      check_1d(world, a, b, schedule::multiphase, false, opts);
      DistArray<double, Cyclic<2>> c(world, n);
      DistArray<double, Cyclic<6>> d(world, n);
      check_1d(world, c, d, schedule::indirect, false, opts);
      // GEN_BLOCK and general pairs: plans of direct messages, shared on any node.
      std::vector<index_t> parts(static_cast<std::size_t>(world.size()), 0);
      for (index_t i = 0; i < n; ++i) ++parts[static_cast<std::size_t>((i * 7) % world.size())];
      DistArray<double, GenBlock> e(world, n, GenBlock(parts));
      DistArray<double, Block> f(world, n);
      check_1d(world, e, f, schedule::automatic, shared, opts);
      check_1d(world, f, a, schedule::automatic, shared, opts);
    }
  }
}

TEST_CASE("Matrices through shared memory, mixed with messages, under a scratch budget and transposed", "[mpi][shared]") {
  mpi::communicator world;
  std::mt19937_64 rng(11);
  for (int node_size : {0, 1, 2, 3}) {
    NodeScope scope(true, node_size);
    const bool shared = node_ranks(world, node_size) > 1;
    for (int trial = 0; trial < 6; ++trial) {
      const std::array<index_t, 2> ext{static_cast<index_t>(1 + rng() % 70), static_cast<index_t>(1 + rng() % 50)};
      const int p = world.size();
      // The source on a grid of every rank, the destination on a part of them (empty parts).
      const int q = 1 + static_cast<int>(rng() % p);
      using D = Dist<Cyclic<>, Cyclic<>>;
      DistArray<double, D> a(world, ext, D{Cyclic<>{1 + rng() % 6}, Cyclic<>{1 + rng() % 6}}, Grid{p, 1});
      DistArray<double, D> b(world, ext, D{Cyclic<>{1 + rng() % 9}, Cyclic<>{1 + rng() % 9}}, Grid{1, q},
                             {0, 0}, Storage{rng() % 2 ? row_major : column_major, 0});
      options opts = default_options();
      if (trial % 2 == 1) opts.max_scratch_bytes = 8 * sizeof(double) * static_cast<std::size_t>(p);  // rounds
      for (int round = 0; round < 2; ++round) {
        fill_nd(a, [&](const auto& g) { return value_2d(g) + round; });
        std::fill(b.local().begin(), b.local().end(), -1.0);
        auto plan = make_plan(a, b, schedule::automatic, opts);
        plan.execute(a, b);
        REQUIRE(all_ok(world, holds_nd(b, [&](const auto& g) { return value_2d(g) + round; })));
        CHECK(plan.used_shared_memory() == shared);
      }
      // b = transpose(a), through the same path.
      DistArray<double, D> t(world, {ext[1], ext[0]}, D{Cyclic<>{3}, Cyclic<>{2}}, Grid{1, p});
      fill_nd(a, [](const auto& g) { return value_2d(g); });
      t = transpose(a);
      REQUIRE(all_ok(world, holds_nd(t, [](const auto& g) { return value_2d({g[1], g[0]}); })));
    }
  }
}

TEST_CASE("A node falls back to messages when a rank's source is private or leading dimensions differ", "[mpi][shared]") {
  mpi::communicator world;
  NodeScope scope(true, 0);
  const bool shared = node_ranks(world, 0) > 1;
  using D = Dist<Cyclic<>, Cyclic<>>;
  const std::array<index_t, 2> ext{45, 31};
  DistArray<double, D> a(world, ext, D{Cyclic<>{4}, Cyclic<>{3}}, Grid{world.size(), 1});
  DistArray<double, D> b(world, ext, D{Cyclic<>{5}, Cyclic<>{2}}, Grid{1, world.size()});
  fill_nd(a, value_2d);
  // Rank 0 passes a private copy of its part; the others the shared array.
  DistArray<double, D> copy(a);
  auto plan = make_plan(a, b);
  if (world.rank() == 0) plan.execute(copy, b);
  else plan.execute(a, b);
  REQUIRE(all_ok(world, holds_nd(b, value_2d)));
  CHECK_FALSE(plan.used_shared_memory());
  plan.execute(a, b);
  REQUIRE(all_ok(world, holds_nd(b, value_2d)));
  // (unless this second run timed the messages alone faster: a small array's)
  CHECK(plan.used_shared_memory() == (shared && plan.decision().node_copies));

  // Leading dimensions that differ per rank (ScaLAPACK's LLD): a peer's offsets are unknown here.
  const index_t ld = 50 + world.rank();
  DistArray<double, D> c(world, ext, D{Cyclic<>{4}, Cyclic<>{3}}, Grid{world.size(), 1}, {0, 0}, Storage{column_major, ld});
  fill_nd(c, value_2d);
  std::fill(b.local().begin(), b.local().end(), -1.0);
  auto plan_c = make_plan(c, b);
  plan_c.execute(c, b);
  REQUIRE(all_ok(world, holds_nd(b, value_2d)));
  CHECK_FALSE(plan_c.used_shared_memory());
}

TEST_CASE("Node peers' short pieces are packed, then pulled; long ones pulled piece by piece", "[mpi][shared]") {
  mpi::communicator world;
  for (int node_size : {0, 2, 3}) {
    NodeScope scope(true, node_size);
    default_options().tune_reps = 0;  // the model's choice, not the timed one (tested below)
    const bool shared = node_ranks(world, node_size) > 1;
    INFO("node size " << node_size);
    for (index_t n : {index_t{5}, index_t{4099}, index_t{100003}}) {
      INFO("n = " << n);
      // Pieces of 1-8 doubles (Cyclic<8> -> Cyclic<5>, the one-pass pack by basic cycles), of one
      // (Block -> Cyclic<1>, message by message), and of 64 (Block -> Cyclic<64>: pulled).
      DistArray<double, Cyclic<8>> a(world, n);
      DistArray<double, Cyclic<5>> b(world, n);
      DistArray<double, Block> c(world, n);
      DistArray<double, Cyclic<1>> d(world, n);
      DistArray<double, Cyclic<64>> e(world, n);
      for (int round = 0; round < 5; ++round) {
        auto v = [&](index_t g) { return value_1d(g) + round; };
        redist::test::fill(a, v);
        redist::test::fill(c, v);
        for (std::span<double> x : {b.local(), d.local(), e.local()}) std::fill(x.begin(), x.end(), -1.0);
        b = a;
        d = c;
        e = c;
        REQUIRE(all_ok(world, redist::test::holds(b, v) && redist::test::holds(d, v) && redist::test::holds(e, v)));
        const Explanation xb = explain(a, b), xd = explain(c, d), xe = explain(c, e);
        if (!shared) {
          CHECK(xb.node_copy.empty());
          continue;
        }
        // From the run after the node found its pieces short: run 1, or run 2 when automatic's
        // plan became BCC's on run 0 (a new workspace).
        if (n == 5) continue;  // a piece or two per rank
        CHECK(xd.node_copy == (round >= 1 ? "pack_then_pull" : "pull"));
        if (round != 1) CHECK(xb.node_copy == (round >= 2 ? "pack_then_pull" : "pull"));
        CHECK(xe.node_copy == "pull");
      }
      // A rank whose source is a private copy: its node falls back to messages, then packs again.
      const bool with_zero = runtime::node_of(static_cast<MPI_Comm>(world), node_size)->holds(0);
      DistArray<double, Block> copy(c);
      auto plan = make_plan(c, d);
      for (int round = 0; round < 4; ++round) {
        std::fill(d.local().begin(), d.local().end(), -1.0);
        if (round == 2 && world.rank() == 0) plan.execute(copy, d);
        else plan.execute(c, d);
        REQUIRE(all_ok(world, redist::test::holds(d, [&](index_t g) { return value_1d(g) + 4; })));
        CHECK(plan.used_shared_memory() == (shared && !(round == 2 && with_zero)));
      }
    }
    // 2-D: a row-major source whose columns go cyclically to the ranks: pieces of one element.
    using D = Dist<Cyclic<>, Cyclic<>>;
    const std::array<index_t, 2> ext{61, 47};
    DistArray<double, D> m(world, ext, D{Cyclic<>{1}, Cyclic<>{3}}, Grid{world.size(), 1}, {0, 0}, Storage{row_major, 0});
    DistArray<double, D> t(world, ext, D{Cyclic<>{2}, Cyclic<>{1}}, Grid{1, world.size()});
    for (int round = 0; round < 4; ++round) {
      fill_nd(m, [&](const auto& g) { return value_2d(g) + round; });
      std::fill(t.local().begin(), t.local().end(), -1.0);
      t = m;
      REQUIRE(all_ok(world, holds_nd(t, [&](const auto& g) { return value_2d(g) + round; })));
    }
    if (shared) CHECK(explain(m, t).node_copy == "pack_then_pull");
  }
}

TEST_CASE("Element lists (an Indirect permutation) on the node path: pulled, then packed and pulled", "[mpi][shared][indirect]") {
  mpi::communicator world;
  const int p = world.size();
  const index_t n = 20011;
  std::mt19937_64 rng(31);
  std::vector<index_t> perm(static_cast<std::size_t>(n));
  std::iota(perm.begin(), perm.end(), index_t{0});
  std::shuffle(perm.begin(), perm.end(), rng);
  const std::vector<index_t> mine(perm.begin() + n * world.rank() / p, perm.begin() + n * (world.rank() + 1) / p);
  for (int node_size : {0, 2, 3}) {
    NodeScope scope(true, node_size);
    default_options().tune_reps = 0;  // the model's choice
    const bool shared = node_ranks(world, node_size) > 1;
    INFO("node size " << node_size);
    DistArray<double, Block> a(world, n), c(world, n);
    DistArray<double, Indirect<>> u(world, n, Indirect<>{mine});
    for (int round = 0; round < 4; ++round) {
      auto v = [&](index_t g) { return value_1d(g) + round; };
      redist::test::fill(a, v);
      std::fill(u.local().begin(), u.local().end(), -1.0);
      std::fill(c.local().begin(), c.local().end(), -1.0);
      u = a;
      c = u;
      bool ok = redist::test::holds(c, v);
      for (std::size_t l = 0; l < mine.size(); ++l) ok = ok && u.local()[l] == v(mine[l]);
      REQUIRE(all_ok(world, ok));
      if (!shared) continue;
      // Pieces of one element: short, packed by their senders from the run after the first.
      CHECK(explain(a, u).node_copy == (round >= 1 ? "pack_then_pull" : "pull"));
      CHECK(explain(u, c).node_copy == (round >= 1 ? "pack_then_pull" : "pull"));
    }
  }
}

TEST_CASE("Pack, then pull, is tried once and kept only if it copied faster", "[mpi][shared]") {
  mpi::communicator world;
  for (int node_size : {0, 2}) {
    NodeScope scope(true, node_size);
    const bool shared = node_ranks(world, node_size) > 1;
    const index_t n = 200003;
    DistArray<double, Block> c(world, n);
    DistArray<double, Cyclic<1>> d(world, n);
    for (int round = 0; round < 8; ++round) {
      auto v = [&](index_t g) { return value_1d(g) - round; };
      redist::test::fill(c, v);
      std::fill(d.local().begin(), d.local().end(), -1.0);
      d = c;
      REQUIRE(all_ok(world, redist::test::holds(d, v)));
    }
    const Explanation e = explain(c, d);
    if (!shared) {
      CHECK(e.node_copy.empty());
      continue;
    }
    // Pulled on run 0 (which finds the pieces short and builds the copy list), packed on run 1,
    // pulled on runs 2 and 3 (run 2 timed), compared on run 3: both timed by now, and the last
    // runs copied the faster way (the same on every rank of the node).
    INFO(e.str());
    CHECK(e.node_copy_seconds.first > 0);
    CHECK(e.node_copy_seconds.second > 0);
    CHECK(e.node_copy == (e.node_copy_seconds.second < e.node_copy_seconds.first ? "pack_then_pull" : "pull"));
  }
}

TEST_CASE("A small array's messages alone are timed against the node's settled copies and the faster kept", "[mpi][shared]") {
  mpi::communicator world;
  for (int node_size : {0, 2}) {
    NodeScope scope(true, node_size);
    const bool shared = node_ranks(world, node_size) > 1;
    const bool some = all_reduce(world, shared ? 1 : 0, mpi::maximum<int>()) != 0;  // some node copies
    // With node aggregation always (REDIST_NODE_AGGREGATION=1) the wires are not compared: the
    // aggregated one alone between nodes, and the messages alone are not offered.
    const bool always = default_options().node_aggregation == NodeAggregation::always;
    INFO("node size " << node_size << ", aggregation always " << always);
    for (index_t n : {index_t{4099}, index_t{400009}}) {
      INFO("n = " << n);
      const bool small = n == 4099 && !always;  // messages under 64 KiB
      DistArray<double, Cyclic<8>> a(world, n);
      DistArray<double, Cyclic<5>> b(world, n);
      // (Short pieces: the node packs, then pulls on run 1, pulls on run 2 and keeps the faster on
      // run 3, where the transports are timed against the messages alone; run 4 runs the kept.)
      for (int round = 0; round < 5; ++round) {
        auto v = [&](index_t g) { return value_1d(g) + round; };
        redist::test::fill(a, v);
        std::fill(b.local().begin(), b.local().end(), -1.0);
        b = a;
        REQUIRE(all_ok(world, redist::test::holds(b, v)));
      }
      const Explanation e = explain(a, b);
      INFO(e.str());
      const auto copies = std::count_if(e.transports.begin(), e.transports.end(), [](const TransportTiming& t) { return t.node; });
      const auto alone = static_cast<std::ptrdiff_t>(e.transports.size()) - copies;
      if (!some) {
        CHECK(copies == 0);
        continue;
      }
      // A large array: the node's copies, never timed against messages alone (a node holding every
      // rank times nothing: no message).
      if (!small) {
        CHECK(alone == 0);
        if (!always) CHECK((copies > 0) == (node_ranks(world, node_size) < world.size()));
        if (shared) CHECK(e.transport.rfind("shared_memory", 0) == 0);
        continue;
      }
      // A small one: both timed; the faster runs from then on, the same on every rank.
      CHECK(copies > 0);
      CHECK(alone > 0);
      const TransportTiming* best = nullptr;  // the first of the fastest, as the decision takes it
      for (const TransportTiming& t : e.transports)
        if (t.median > 0 && (best == nullptr || t.median < best->median)) best = &t;
      REQUIRE(best != nullptr);
      const bool kept_copies = best->node;
      CHECK((e.reason.find("node peers by messages") == std::string::npos) == kept_copies);
      if (shared) CHECK((e.transport.rfind("shared_memory", 0) == 0) == kept_copies);
      if (!kept_copies) CHECK(e.transport == best->name());
      const int kept = kept_copies ? 1 : 0;
      CHECK(all_reduce(world, kept, mpi::minimum<int>()) == all_reduce(world, kept, mpi::maximum<int>()));
    }
    // Into copies: the all-gather is among the messages alone (no rank copies from node peers there).
    DistArray<double, Block> part(world, 4099);
    DistArray<double, Replicated> whole(world, 4099);
    for (int round = 0; round < 5; ++round) {
      auto v = [&](index_t g) { return value_1d(g) - round; };
      redist::test::fill(part, v);
      std::fill(whole.local().begin(), whole.local().end(), -1.0);
      whole = part;
      REQUIRE(all_ok(world, redist::test::holds(whole, v)));
    }
    const Explanation e = explain(part, whole);
    INFO(e.str());
    const bool gathered_alone = std::any_of(e.transports.begin(), e.transports.end(), [](const TransportTiming& t) {
      return t.wire == Wire::allgatherv && !t.node;
    });
    CHECK(gathered_alone == (some && !always));
  }
}

}  // namespace mpi_test_shared
