// MPI tests of the derived-datatype transport (runtime/typed.hpp, runtime/measure.hpp's
// time_transports): messages described to MPI over the arrays, exact for 1-D and N-D pairs,
// transposes, empty parts and mixed with shared memory on emulated nodes; the choice, timed on a
// plan's second run, is the same on every rank.
#include <algorithm>
#include <array>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
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
namespace mpi_test_transport {

using namespace redist;
namespace mpi = boost::mpi;
using redist::test::all_ok;
using redist::test::fill_nd;
using redist::test::holds_nd;

namespace {
double value_1d(index_t g) { return 0.5 + 3.0 * static_cast<double>(g); }
double value_2d(const std::array<index_t, 2>& g) { return 0.25 + static_cast<double>(g[0]) * 1000.0 + static_cast<double>(g[1]); }

/// src -> dst with the plan's messages as derived datatypes (and, with a segment, the node's
/// pairs through shared memory).
template <class P, class T>
void run_typed(const P& plan, const mpi::communicator& world, std::span<const T> src, std::span<T> dst,
               const runtime::SharedSegment* source = nullptr, const runtime::Node* node = nullptr) {
  runtime::Workspace ws;
  ws.typed = true;
  runtime::execute(plan, world, src, dst, ws, runtime::max_chunk_bytes, runtime::assign_op{}, source, node);
  // The types are reused.
  runtime::execute(plan, world, src, dst, ws, runtime::max_chunk_bytes, runtime::assign_op{}, source, node);
}
}  // namespace

TEST_CASE("Messages as derived datatypes are exact for 1-D pairs, matrices, transposes and empty parts", "[mpi][typed]") {
  mpi::communicator world;
  const int p = world.size();
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 8; ++trial) {
    const index_t n = static_cast<index_t>(rng() % 3000);
    DistArray<double, Cyclic<dynamic>> a(world, n, Cyclic<dynamic>(1 + static_cast<index_t>(rng() % 9)));
    DistArray<double, Cyclic<dynamic>> b(world, n, Cyclic<dynamic>(1 + static_cast<index_t>(rng() % 13)));
    redist::test::fill(a, value_1d);
    std::fill(b.local().begin(), b.local().end(), -1.0);
    auto plan = make_plan(a, b, schedule::all_at_once);
    run_typed(plan.plan(), world, std::span<const double>(a.local()), b.local());
    REQUIRE(all_ok(world, redist::test::holds(b, value_1d)));
  }
  using D = Dist<Cyclic<>, Cyclic<>>;
  for (int trial = 0; trial < 8; ++trial) {
    const std::array<index_t, 2> ext{static_cast<index_t>(1 + rng() % 60), static_cast<index_t>(1 + rng() % 40)};
    const int q = 1 + static_cast<int>(rng() % p);
    DistArray<double, D> a(world, ext, D{Cyclic<>{1 + rng() % 5}, Cyclic<>{1 + rng() % 5}}, Grid{p, 1});
    DistArray<double, D> b(world, ext, D{Cyclic<>{1 + rng() % 7}, Cyclic<>{1 + rng() % 7}}, Grid{1, q}, {0, 0},
                           Storage{rng() % 2 ? row_major : column_major, 0});
    fill_nd(a, value_2d);
    std::fill(b.local().begin(), b.local().end(), -1.0);
    auto plan = make_plan(a, b);
    run_typed(plan.plan(), world, std::span<const double>(a.local()), b.local());
    REQUIRE(all_ok(world, holds_nd(b, value_2d)));
    // Transposed: b(i, j) = a(j, i).
    DistArray<double, D> t(world, {ext[1], ext[0]}, D{Cyclic<>{2}, Cyclic<>{3}}, Grid{1, p}, {0, 0},
                           Storage{row_major, 0});
    Redistribution<Transposed<typename decltype(a)::mapping_type>, typename decltype(t)::mapping_type> tp(
        Transposed<typename decltype(a)::mapping_type>{a.mapping()}, t.mapping(), world.rank());
    run_typed(tp.plan(), world, std::span<const double>(a.local()), t.local());
    REQUIRE(all_ok(world, holds_nd(t, [](const auto& g) { return value_2d({g[1], g[0]}); })));
  }
}

TEST_CASE("Derived datatypes between emulated nodes, shared memory within", "[mpi][typed][shared]") {
  mpi::communicator world;
  const options saved = default_options();
  default_options().node_size = 2;
  using D = Dist<Cyclic<>, Cyclic<>>;
  const std::array<index_t, 2> ext{77, 51};
  DistArray<double, D> a(world, ext, D{Cyclic<>{3}, Cyclic<>{4}}, Grid{world.size(), 1});
  DistArray<double, D> b(world, ext, D{Cyclic<>{8}, Cyclic<>{2}}, Grid{1, world.size()});
  fill_nd(a, value_2d);
  auto plan = make_plan(a, b);
  const auto node = runtime::node_of(static_cast<MPI_Comm>(world), 2);
  // Typed messages between the nodes, copies from shared memory within (a's window).
  runtime::Workspace ws;
  ws.typed = true;
  const bool copied = runtime::execute(plan.plan(), world, std::span<const double>(a.local()), b.local(), ws,
                                       runtime::max_chunk_bytes, runtime::assign_op{}, detail::array_access::segment(a),
                                       node.get());
  REQUIRE(all_ok(world, holds_nd(b, value_2d)));
  if (world.size() > 1 && detail::array_access::segment(a) != nullptr) CHECK(copied);
  std::fill(b.local().begin(), b.local().end(), -1.0);
  runtime::execute(plan.plan(), world, std::span<const double>(a.local()), b.local(), ws, runtime::max_chunk_bytes,
                   runtime::assign_op{}, detail::array_access::segment(a), node.get());
  REQUIRE(all_ok(world, holds_nd(b, value_2d)));
  default_options() = saved;
}

TEST_CASE("A long exchange stops timing the transports over twice the fastest after one round", "[mpi][typed]") {
  using redist::runtime::detail::keep_close_candidates;
  // First runs (s): candidate 0 at 30 ms, 1 at 50 ms, 2 at 61 ms (over twice 30), 3 at 200 ms.
  std::vector<std::vector<double>> samples{{0.030}, {0.050}, {0.061}, {0.200}};
  std::vector<std::size_t> which{0, 1, 2, 3};
  keep_close_candidates(which, samples, 0.01);
  CHECK(which == std::vector<std::size_t>{0, 1});
  // Short calls (the fastest at most 10 ms): every candidate is timed on, however far behind.
  samples = {{0.004}, {0.009}, {0.020}};
  which = {0, 1, 2};
  keep_close_candidates(which, samples, 0.01);
  CHECK(which == std::vector<std::size_t>{0, 1, 2});
  // Only the candidates still timed count: the fastest of those, not of every sample.
  samples = {{0.001}, {0.040}, {0.070}, {0.090}};
  which = {1, 2, 3};
  keep_close_candidates(which, samples, 0.01);
  CHECK(which == std::vector<std::size_t>{1, 2});
}

TEST_CASE("The second run chooses packed or typed messages alike on every rank", "[mpi][typed]") {
  mpi::communicator world;
  options opts = default_options();
  opts.shared_memory = false;  // messages between every pair, so that there is something to choose
  using D = Dist<Cyclic<>, Cyclic<>>;
  const std::array<index_t, 2> ext{300, 280};
  DistArray<double, D> a(world, ext, D{Cyclic<>{16}, Cyclic<>{16}}, Grid{world.size(), 1});
  DistArray<double, D> b(world, ext, D{Cyclic<>{50}, Cyclic<>{50}}, Grid{1, world.size()});
  fill_nd(a, value_2d);
  auto plan = make_plan(a, b, schedule::automatic, opts);
  plan.execute(a, b);
  REQUIRE(all_ok(world, holds_nd(b, value_2d)));
  // A plan run once is not timed (a plan made per call pays for no timing).
  CHECK(plan.transport_medians().first == 0);
  std::fill(b.local().begin(), b.local().end(), -1.0);
  plan.execute(a, b);
  REQUIRE(all_ok(world, holds_nd(b, value_2d)));
  const auto [packed, typed] = plan.transport_medians();
  const int mine = plan.uses_datatypes() ? 1 : 0;
  CHECK(mpi::all_reduce(world, mine, mpi::minimum<int>()) == mpi::all_reduce(world, mine, mpi::maximum<int>()));
  if (world.size() > 1) {
    CHECK(packed > 0);
    CHECK(typed > 0);
    // The fastest of the transports timed: point to point (and one all-to-all), packed and typed.
    const Decision& dec = plan.decision();
    CHECK(dec.transports.size() >= 2);  // the collectives only when no budget cuts the messages into pieces
    const TransportTiming* best = &dec.transports.front();
    for (const TransportTiming& t : dec.transports)
      if (t.median < best->median) best = &t;
    CHECK(plan.uses_datatypes() == best->datatypes);
    CHECK(plan.wire() == best->wire);
  }
  std::fill(b.local().begin(), b.local().end(), -1.0);
  plan.execute(a, b);
  REQUIRE(all_ok(world, holds_nd(b, value_2d)));
  // Small messages are not timed as datatypes (their wires are).
  DistArray<double, D> c(world, {9, 7}, D{Cyclic<>{2}, Cyclic<>{2}}, Grid{world.size(), 1});
  DistArray<double, D> d(world, {9, 7}, D{Cyclic<>{3}, Cyclic<>{3}}, Grid{1, world.size()});
  auto small = make_plan(c, d, schedule::automatic, opts);
  small.execute(c, d);
  small.execute(c, d);
  CHECK(small.transport_medians().second == 0);
  CHECK_FALSE(small.uses_datatypes());
}

namespace {
constexpr Wire all_wires[] = {Wire::point_to_point, Wire::persistent, Wire::alltoallv, Wire::neighbor,
                               Wire::node_aggregated};

/// src -> dst by plan in ws: run (runtime::execute: blocking, a collective wire's blocking
/// collective) or started, tested once and waited for (its nonblocking collective).
template <class P, class T>
void exchange(const P& plan, Wire wire, bool started, const mpi::communicator& world, std::span<const T> src,
              std::span<T> dst, runtime::Workspace& ws, const runtime::SharedSegment* source = nullptr,
              const runtime::Node* node = nullptr) {
  ws.exchange.wire = wire;
  if (!started) {
    runtime::execute(plan, world, src, dst, ws, runtime::max_chunk_bytes, runtime::assign_op{}, source, node);
    return;
  }
  auto parts = boost::hana::make_tuple(runtime::part(plan, src, dst, ws, runtime::assign_op{}, source));
  const bool on_node = node != nullptr && node->size > 1 && runtime::agree_on_node(parts, *node, plan.direct());
  const auto c = static_cast<MPI_Comm>(world);
  runtime::start(parts, ws.exchange, c, on_node ? node : nullptr, runtime::max_chunk_bytes, runtime::message_tag);
  runtime::test(parts, ws.exchange, c, runtime::max_chunk_bytes, runtime::message_tag);
  runtime::wait(parts, ws.exchange, c, runtime::max_chunk_bytes, runtime::message_tag);
}

/// src -> dst on `wire`, packed or typed, four times in one workspace (persistent requests and the
/// graph are made once and reused), run and started in turn, dst cleared before each; `check`
/// after each.
template <class P, class T, class Check>
void run_wire(const P& plan, Wire wire, bool typed, const mpi::communicator& world, std::span<const T> src,
              std::span<T> dst, Check&& check, const runtime::SharedSegment* source = nullptr,
              const runtime::Node* node = nullptr) {
  runtime::Workspace ws;
  ws.typed = typed;
  for (int run = 0; run < 4; ++run) {
    std::fill(dst.begin(), dst.end(), T(-1));
    exchange(plan, wire, run % 2 == 1, world, src, dst, ws, source, node);
    INFO("wire " << wire_name(wire, typed) << ", run " << run << (run % 2 == 1 ? " (started)" : ""));
    REQUIRE(all_ok(world, check()));
  }
}
}  // namespace

TEST_CASE("Every wire is exact: point to point, persistent, one alltoallv, a neighbourhood collective", "[mpi][wire]") {
  mpi::communicator world;
  const int p = world.size();
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 6; ++trial) {
    const index_t n = static_cast<index_t>(rng() % 2500);
    DistArray<double, Cyclic<dynamic>> a(world, n, Cyclic<dynamic>(1 + static_cast<index_t>(rng() % 9)));
    DistArray<double, Cyclic<dynamic>> b(world, n, Cyclic<dynamic>(1 + static_cast<index_t>(rng() % 13)));
    redist::test::fill(a, value_1d);
    // All at once (the general plan) and BCC in its steps (groups of steps; with the one-pass pack
    // of basic cycles), each posted on every wire.
    auto once = make_plan(a, b, schedule::all_at_once);
    auto bcc = make_plan(a, b, schedule::bcc_contention_free);
    for (Wire w : all_wires)
      for (bool typed : {false, true}) {
        run_wire(once.plan(), w, typed, world, std::span<const double>(a.local()), b.local(),
                 [&] { return redist::test::holds(b, value_1d); });
        if (!typed)
          run_wire(bcc.plan(), w, false, world, std::span<const double>(a.local()), b.local(),
                   [&] { return redist::test::holds(b, value_1d); });
      }
  }
  using D = Dist<Cyclic<>, Cyclic<>>;
  for (int trial = 0; trial < 4; ++trial) {
    const std::array<index_t, 2> ext{static_cast<index_t>(1 + rng() % 50), static_cast<index_t>(1 + rng() % 40)};
    const int q = 1 + static_cast<int>(rng() % p);
    DistArray<double, D> a(world, ext, D{Cyclic<>{1 + rng() % 5}, Cyclic<>{1 + rng() % 5}}, Grid{p, 1});
    DistArray<double, D> b(world, ext, D{Cyclic<>{1 + rng() % 7}, Cyclic<>{1 + rng() % 7}}, Grid{1, q}, {0, 0},
                           Storage{rng() % 2 ? row_major : column_major, 0});
    fill_nd(a, value_2d);
    auto plan = make_plan(a, b);
    using Tr = Transposed<typename decltype(a)::mapping_type>;
    DistArray<double, D> t(world, {ext[1], ext[0]}, D{Cyclic<>{2}, Cyclic<>{3}}, Grid{1, p});
    Redistribution<Tr, typename decltype(t)::mapping_type> tp(Tr{a.mapping()}, t.mapping(), world.rank());
    for (Wire w : all_wires)
      for (bool typed : {false, true}) {
        run_wire(plan.plan(), w, typed, world, std::span<const double>(a.local()), b.local(),
                 [&] { return holds_nd(b, value_2d); });
        run_wire(tp.plan(), w, typed, world, std::span<const double>(a.local()), t.local(),
                 [&] { return holds_nd(t, [](const auto& g) { return value_2d({g[1], g[0]}); }); });
      }
  }
}

TEST_CASE("Wires in rounds of pieces: the collectives run as many rounds on every rank", "[mpi][wire]") {
  mpi::communicator world;
  std::mt19937_64 rng(17);
  for (int trial = 0; trial < 4; ++trial) {
    const index_t n = 500 + static_cast<index_t>(rng() % 3000);
    DistArray<double, Cyclic<dynamic>> a(world, n, Cyclic<dynamic>(1 + static_cast<index_t>(rng() % 9)));
    DistArray<double, Cyclic<dynamic>> b(world, n, Cyclic<dynamic>(1 + static_cast<index_t>(rng() % 13)));
    redist::test::fill(a, value_1d);
    for (auto plan : {make_plan(a, b, schedule::all_at_once).plan(), make_plan(a, b, schedule::bcc).plan()}) {
      // A piece every rank shares (a multiple of the basic cycle's quantum for the one-pass pack),
      // and the most rounds of any rank, as the decision agrees them.
      const index_t quantum = plan.stages[0].cycles ? plan.stages[0].cycles.quantum : 1;
      plan.piece = quantum * (1 + static_cast<index_t>(rng() % 40));
      const index_t mine = runtime::detail::stage_rounds(plan, plan.stages[0], false, false).rounds;
      const index_t rounds = mpi::all_reduce(world, mine, mpi::maximum<index_t>());
      for (Wire w : all_wires)
        for (bool started : {false, true}) {
          runtime::Workspace ws;
          ws.exchange.collective_rounds = rounds;
          std::fill(b.local().begin(), b.local().end(), -1.0);
          exchange(plan, w, started, world, std::span<const double>(a.local()), b.local(), ws);
          INFO("wire " << wire_name(w, false) << ", piece " << plan.piece << ", rounds " << rounds << (started ? ", started" : ""));
          REQUIRE(all_ok(world, redist::test::holds(b, value_1d)));
        }
    }
  }
}

TEST_CASE("Element lists (an Indirect permutation) on every wire, packed and typed, in pieces, between emulated nodes",
          "[mpi][wire][indirect]") {
  mpi::communicator world;
  const int p = world.size();
  std::mt19937_64 rng(29);
  const index_t n = 3000 + static_cast<index_t>(rng() % 1000);
  // A random permutation of [0, n) in equal parts (the same on every rank: one seed), each in
  // random order: every message and the local copy are lists of single elements.
  std::vector<index_t> perm(static_cast<std::size_t>(n));
  std::iota(perm.begin(), perm.end(), index_t{0});
  std::shuffle(perm.begin(), perm.end(), rng);
  const index_t b0 = n * world.rank() / p, b1 = n * (world.rank() + 1) / p;
  const std::vector<index_t> mine(perm.begin() + b0, perm.begin() + b1);
  DistArray<double, Block> a(world, n);
  DistArray<double, Indirect<>> u(world, n, Indirect<>{mine});
  redist::test::fill(a, value_1d);
  auto holds_u = [&] {
    bool ok = true;
    for (std::size_t l = 0; l < mine.size(); ++l) ok = ok && u.local()[l] == value_1d(mine[l]);
    return ok;
  };
  auto into = make_plan(a, u).plan();
  auto back = make_plan(u, a).plan();
  // Every message and the local copy of a random permutation's plan are element lists.
  const Stage<Run>& st = into.stages[0];
  CHECK(st.local.listed() == (st.local.size > 1));
  for (const Message& m : st.sends) CHECK(m.listed());
  for (const Message& m : st.recvs) CHECK(m.listed());
  for (Wire w : all_wires)
    for (bool typed : {false, true}) {
      run_wire(into, w, typed, world, std::span<const double>(a.local()), u.local(), holds_u);
      // And back, from the lists into Block.
      for (double& x : u.local()) x = 2 * x;
      run_wire(back, w, typed, world, std::span<const double>(u.local()), a.local(),
               [&] { return redist::test::holds(a, [](index_t g) { return 2 * value_1d(g); }); });
      redist::test::fill(a, value_1d);
    }
  // In rounds of pieces, run and started.
  into.piece = 1 + static_cast<index_t>(rng() % 300);
  const index_t mine_rounds = runtime::detail::stage_rounds(into, into.stages[0], false, false).rounds;
  const index_t rounds = mpi::all_reduce(world, mine_rounds, mpi::maximum<index_t>());
  for (Wire w : all_wires)
    for (bool started : {false, true}) {
      runtime::Workspace ws;
      ws.exchange.collective_rounds = rounds;
      std::fill(u.local().begin(), u.local().end(), -1.0);
      exchange(into, w, started, world, std::span<const double>(a.local()), u.local(), ws);
      INFO("wire " << wire_name(w, false) << ", piece " << into.piece << (started ? ", started" : ""));
      REQUIRE(all_ok(world, holds_u()));
    }
  into.piece = 0;
  // Between emulated nodes of 2: the node's pairs pulled element by element from shared memory.
  const options saved = default_options();
  default_options().node_size = 2;
  const auto node = runtime::node_of(static_cast<MPI_Comm>(world), 2);
  for (Wire w : all_wires)
    for (bool typed : {false, true})
      run_wire(into, w, typed, world, std::span<const double>(a.local()), u.local(), holds_u,
               detail::array_access::segment(a), node.get());
  default_options() = saved;
  // The second run does not time element lists as derived datatypes (one displacement per
  // element), from 64 KiB of messages on too: their wires packed only.
  const index_t big = 65536;
  std::vector<index_t> perm2(static_cast<std::size_t>(big));
  std::iota(perm2.begin(), perm2.end(), index_t{0});
  std::shuffle(perm2.begin(), perm2.end(), rng);
  const std::vector<index_t> mine2(perm2.begin() + big * world.rank() / p, perm2.begin() + big * (world.rank() + 1) / p);
  DistArray<double, Block> a2(world, big);
  DistArray<double, Indirect<>> u2(world, big, Indirect<>{mine2});
  redist::test::fill(a2, value_1d);
  options messages;
  messages.shared_memory = false;
  auto timed = make_plan(a2, u2, schedule::automatic, messages);
  for (int run = 0; run < 2; ++run) {
    std::fill(u2.local().begin(), u2.local().end(), -1.0);
    timed.execute(a2, u2);
    bool ok = true;
    for (std::size_t l = 0; l < mine2.size(); ++l) ok = ok && u2.local()[l] == value_1d(mine2[l]);
    REQUIRE(all_ok(world, ok));
  }
  if (p > 1) {
    CHECK(timed.transport_medians().first > 0);
    CHECK(timed.transport_medians().second == 0);
    CHECK_FALSE(timed.decision().transports.empty());
    for (const TransportTiming& t : timed.decision().transports) CHECK_FALSE(t.datatypes);
    CHECK_FALSE(timed.uses_datatypes());
  }
}

TEST_CASE("Persistent requests follow the buffers: other arrays with the same plan are exact", "[mpi][wire]") {
  mpi::communicator world;
  const index_t n = 3001;
  DistArray<double, Cyclic<3>> a(world, n), a2(world, n);
  DistArray<double, Cyclic<7>> b(world, n), b2(world, n);
  redist::test::fill(a, value_1d);
  redist::test::fill(a2, [](index_t g) { return -value_1d(g); });
  auto plan = make_plan(a, b, schedule::all_at_once);
  runtime::Workspace ws;
  ws.exchange.wire = Wire::persistent;
  for (int run = 0; run < 4; ++run) {
    const bool second = run % 2 == 1;
    auto& from = second ? a2 : a;
    auto& to = second ? b2 : b;
    std::fill(to.local().begin(), to.local().end(), -1.0);
    runtime::execute(plan.plan(), world, std::span<const double>(from.local()), to.local(), ws);
    if (second) REQUIRE(all_ok(world, redist::test::holds(b2, [](index_t g) { return -value_1d(g); })));
    else REQUIRE(all_ok(world, redist::test::holds(b, value_1d)));
  }
}

TEST_CASE("Wires between emulated nodes, shared memory within", "[mpi][wire][shared]") {
  mpi::communicator world;
  const options saved = default_options();
  default_options().node_size = 2;
  using D = Dist<Cyclic<>, Cyclic<>>;
  const std::array<index_t, 2> ext{61, 45};
  DistArray<double, D> a(world, ext, D{Cyclic<>{3}, Cyclic<>{4}}, Grid{world.size(), 1});
  DistArray<double, D> b(world, ext, D{Cyclic<>{8}, Cyclic<>{2}}, Grid{1, world.size()});
  fill_nd(a, value_2d);
  auto plan = make_plan(a, b);
  const auto node = runtime::node_of(static_cast<MPI_Comm>(world), 2);
  for (Wire w : all_wires)
    for (bool typed : {false, true})
      run_wire(plan.plan(), w, typed, world, std::span<const double>(a.local()), b.local(),
               [&] { return holds_nd(b, value_2d); }, detail::array_access::segment(a), node.get());
  default_options() = saved;
}

namespace {
/// The messages a rank posts on Wire::node_aggregated: one per node pair it leads (A's rank number
/// B mod |A| sends A -> B, when some rank of A has a message for B) and, without the node path, its
/// messages to node peers.
std::size_t aggregated_sends(const mpi::communicator& world, const runtime::Node& nodes, const Stage<Run>& st,
                             bool node_path) {
  std::uint64_t to = 0;  // the nodes this rank sends to (at most 64 in these tests)
  std::size_t sends = 0;
  for (const Message& m : st.sends) {
    if (m.size == 0) continue;
    const int b = nodes.node_index[static_cast<std::size_t>(m.peer)];
    if (b != nodes.index) to |= std::uint64_t{1} << b;
    else if (!node_path) ++sends;
  }
  std::vector<std::uint64_t> all;
  mpi::all_gather(world, to, all);
  std::uint64_t node_to = 0;
  const auto mine = nodes.members_of(nodes.index);
  for (int r : mine) node_to |= all[static_cast<std::size_t>(r)];
  for (int b = 0; b < nodes.nodes(); ++b)
    if ((node_to >> b & 1) != 0 && mine[static_cast<std::size_t>(b) % mine.size()] == world.rank()) ++sends;
  return sends;
}
}  // namespace

TEST_CASE("Node-aggregated messages are exact: one per node pair, with and without the node path", "[mpi][wire][aggregate]") {
  mpi::communicator world;
  std::mt19937_64 rng(23);
  for (int node_size : {1, 2, 3}) {
    const options saved = default_options();
    default_options().node_size = node_size;
    const auto nodes = runtime::node_of(static_cast<MPI_Comm>(world), node_size);
    INFO("node size " << node_size << ", nodes " << nodes->nodes());
    for (int trial = 0; trial < 5; ++trial) {
      const index_t n = static_cast<index_t>(rng() % 3000);
      DistArray<double, Cyclic<dynamic>> a(world, n, Cyclic<dynamic>(1 + static_cast<index_t>(rng() % 9)));
      DistArray<double, Cyclic<dynamic>> b(world, n, Cyclic<dynamic>(1 + static_cast<index_t>(rng() % 13)));
      redist::test::fill(a, value_1d);
      const std::vector<double> private_src(a.local().begin(), a.local().end());
      // The general plan (by messages) and BCC (the one-pass pack of basic cycles).
      for (auto plan : {make_plan(a, b, schedule::all_at_once).plan(), make_plan(a, b, schedule::bcc).plan()}) {
        for (bool from_window : {true, false}) {
          runtime::Workspace ws;
          ws.exchange.wire = Wire::node_aggregated;
          for (int run = 0; run < 3; ++run) {
            std::fill(b.local().begin(), b.local().end(), -1.0);
            const std::span<const double> src = from_window ? std::span<const double>(a.local()) : std::span<const double>(private_src);
            const bool node_path = runtime::execute(plan, world, src, b.local(), ws, runtime::max_chunk_bytes, runtime::assign_op{},
                                                    from_window ? detail::array_access::segment(a) : nullptr, nodes.get());
            INFO("n " << n << ", run " << run << (from_window ? ", source in a node window" : ", private source"));
            REQUIRE(all_ok(world, redist::test::holds(b, value_1d)));
            CHECK(ws.exchange.messages_sent == aggregated_sends(world, *nodes, plan.stages[0], node_path));
          }
        }
      }
    }
    // Matrices and a transpose, by messages and by MPI's datatypes elsewhere.
    using D = Dist<Cyclic<>, Cyclic<>>;
    const std::array<index_t, 2> ext{static_cast<index_t>(1 + rng() % 40), static_cast<index_t>(1 + rng() % 30)};
    DistArray<double, D> a(world, ext, D{Cyclic<>{3}, Cyclic<>{2}}, Grid{world.size(), 1});
    DistArray<double, D> b(world, ext, D{Cyclic<>{5}, Cyclic<>{1}}, Grid{1, world.size()}, {0, 0}, Storage{column_major, 0});
    fill_nd(a, value_2d);
    using Tr = Transposed<typename decltype(a)::mapping_type>;
    DistArray<double, D> t(world, {ext[1], ext[0]}, D{Cyclic<>{2}, Cyclic<>{3}}, Grid{1, world.size()});
    Redistribution<Tr, typename decltype(t)::mapping_type> tp(Tr{a.mapping()}, t.mapping(), world.rank());
    run_wire(make_plan(a, b).plan(), Wire::node_aggregated, false, world, std::span<const double>(a.local()), b.local(),
             [&] { return holds_nd(b, value_2d); }, detail::array_access::segment(a), nodes.get());
    run_wire(tp.plan(), Wire::node_aggregated, false, world, std::span<const double>(a.local()), t.local(),
             [&] { return holds_nd(t, [](const auto& g) { return value_2d({g[1], g[0]}); }); },
             detail::array_access::segment(a), nodes.get());
    default_options() = saved;
  }
}

TEST_CASE("b = a times node aggregation among the wires of small messages between nodes", "[mpi][wire][aggregate]") {
  mpi::communicator world;
  const options saved = default_options();
  default_options().node_size = 2;
  default_options().shared_memory = true;  // the aggregation goes through node windows
  const auto nodes = runtime::node_of(static_cast<MPI_Comm>(world), 2);
  DistArray<double, Cyclic<8>> a(world, 4096);
  DistArray<double, Cyclic<5>> b(world, 4096);
  redist::test::fill(a, value_1d);
  auto plan = make_plan(a, b, schedule::all_at_once);
  for (int run = 0; run < 4; ++run) {
    std::fill(b.local().begin(), b.local().end(), -1.0);
    plan.execute(a, b);
    REQUIRE(all_ok(world, redist::test::holds(b, value_1d)));
  }
  const Decision& d = plan.decision();
  const bool offered = std::any_of(d.transports.begin(), d.transports.end(),
                                   [](const TransportTiming& t) { return t.wire == Wire::node_aggregated; });
  // Offered when the ranks span several nodes of which one holds several ranks.
  CHECK(offered == (world.size() >= 3));
  const Explanation e = plan.template explain<double>(nodes.get());
  // A node of one rank has no node peers to copy from.
  const std::string aggregated_name = nodes->size > 1 ? "shared_memory+node_aggregated" : "node_aggregated";
  if (plan.wire() == Wire::node_aggregated) CHECK(e.transport == aggregated_name);
  // always: aggregated from the second run, untimed, even without tune_reps; never: not offered.
  for (NodeAggregation how : {NodeAggregation::always, NodeAggregation::never}) {
    options o = default_options();
    o.node_aggregation = how;
    o.tune_reps = how == NodeAggregation::always ? 0 : 3;
    auto forced = make_plan(a, b, schedule::all_at_once, o);
    for (int run = 0; run < 3; ++run) {
      std::fill(b.local().begin(), b.local().end(), -1.0);
      forced.execute(a, b);
      REQUIRE(all_ok(world, redist::test::holds(b, value_1d)));
    }
    const bool aggregated = forced.wire() == Wire::node_aggregated;
    CHECK(aggregated == (how == NodeAggregation::always && world.size() >= 3));
    if (aggregated) {
      CHECK(forced.template explain<double>(nodes.get()).transport == aggregated_name);
      CHECK(forced.decision().transports.size() == 1);
    }
    for (const TransportTiming& t : forced.decision().transports)
      CHECK((t.wire != Wire::node_aggregated || how == NodeAggregation::always));
  }
  default_options() = saved;
}

TEST_CASE("The second run times the wires of small messages and keeps the fastest, alike on every rank",
          "[mpi][wire]") {
  mpi::communicator world;
  options opts = default_options();
  opts.shared_memory = false;
  opts.max_scratch_bytes = std::size_t{1} << 20;  // room for the collectives' whole messages
  DistArray<double, Cyclic<8>> a(world, 4096);
  DistArray<double, Cyclic<5>> b(world, 4096);
  redist::test::fill(a, value_1d);
  auto plan = make_plan(a, b, schedule::all_at_once, opts);
  for (int run = 0; run < 4; ++run) {
    std::fill(b.local().begin(), b.local().end(), -1.0);
    plan.execute(a, b);
    REQUIRE(all_ok(world, redist::test::holds(b, value_1d)));
    const Decision& d = plan.decision();
    if (run == 0) CHECK(d.transports.empty());
    if (run >= 1 && world.size() > 1) {
      // 4096 doubles: every wire, no datatypes (and at 2 ranks, where each sends its one message
      // to the rank it receives from, the all-gather, blocking and nonblocking); the fastest kept,
      // the same choice everywhere.
      const std::size_t wires = world.size() == 2 ? 6 : 4;
      REQUIRE(d.transports.size() == wires);
      const TransportTiming* best = &d.transports.front();
      for (const TransportTiming& t : d.transports) {
        CHECK(t.median > 0);
        CHECK_FALSE(t.datatypes);
        if (t.median < best->median) best = &t;
      }
      CHECK(plan.wire() == best->wire);
      const int mine = static_cast<int>(plan.wire());
      CHECK(mpi::all_reduce(world, mine, mpi::minimum<int>()) == mpi::all_reduce(world, mine, mpi::maximum<int>()));
      CHECK(plan.template explain<double>(nullptr).transports.size() == wires);
    }
  }
  const Explanation e = plan.template explain<double>(nullptr);
  CHECK(e.transport == wire_name(plan.wire(), plan.uses_datatypes()));
}

}  // namespace mpi_test_transport
