// A repeated b = a allocates nothing: global operator new is counted in this test program. It can
// also be made to refuse large requests on one rank, to show that a plan's workspace that cannot
// be allocated is an error on every rank.
#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include <boost/mpi/communicator.hpp>
#include <catch2/catch.hpp>

#include <redist/redist.hpp>

#include "../support/array_values.hpp"
#include "../support/array_values_nd.hpp"
#include "../support/mpi_check.hpp"

namespace {
std::atomic<std::size_t> allocations{0};
/// operator new throws std::bad_alloc for requests of at least this many bytes (0: never).
std::atomic<std::size_t> refuse_from{0};
}  // namespace

// This operator new takes its memory from malloc, so free is the matching release; GCC cannot
// see that through the replacement and warns.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

void* operator new(std::size_t size) {
  ++allocations;
  if (const std::size_t limit = refuse_from.load(); limit != 0 && size >= limit) throw std::bad_alloc();
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

using namespace redist;

namespace {
double value_of(index_t g) { return 3.0 * static_cast<double>(g) + 1.0; }

/// The runs that may allocate: the first plans; the second may time candidate plans and switch to
/// one (a workspace of its own), and times the transports, or, where a node first tries its copy
/// both ways (short pieces: runs 2 and 3), the fourth does, the fifth at the latest.
void warm_up(auto&& assign) {
  for (int i = 0; i < 5; ++i) assign();
}

/// Allocations of five repeated b = a after warm_up's, and whether b is right.
template <class A, class B>
std::size_t repeated_allocations(const A& a, B& b, auto&& assign) {
  warm_up(assign);
  const std::size_t before = allocations.load();
  for (int i = 0; i < 5; ++i) assign();
  const std::size_t used = allocations.load() - before;
  REQUIRE(redist::test::all_ok(a.comm(), redist::test::holds(b, value_of)));
  return used;
}
}  // namespace

TEST_CASE("A repeated b = a allocates nothing, whichever plan runs", "[mpi][alloc]") {
  boost::mpi::communicator world;
  const index_t n = 100003;
  DistArray<double, Block> a_block(world, n);
  DistArray<double, Cyclic<1>> b_cyc1(world, n);
  DistArray<double, Cyclic<8>> a_cyc8(world, n);
  DistArray<double, Cyclic<5>> b_cyc5(world, n);
  std::vector<index_t> sizes(static_cast<std::size_t>(world.size()), 0), other(sizes);
  sizes.back() = n;
  other.front() = n;
  DistArray<double, GenBlock> a_gen(world, n, GenBlock(sizes));
  DistArray<double, GenBlock> b_gen(world, n, GenBlock(other));
  redist::test::fill(a_block, value_of);
  redist::test::fill(a_cyc8, value_of);
  redist::test::fill(a_gen, value_of);

  CHECK(repeated_allocations(a_block, b_cyc1, [&] { b_cyc1 = a_block; }) == 0);      // general plan
  CHECK(repeated_allocations(a_cyc8, b_cyc5, [&] { b_cyc5 = a_cyc8; }) == 0);        // basic cycles
  CHECK(repeated_allocations(a_gen, b_gen, [&] { b_gen = a_gen; }) == 0);            // GEN_BLOCK schedule
  options small;
  small.max_scratch_bytes = 4096;
  CHECK(repeated_allocations(a_cyc8, b_cyc5, [&] { redistribute(a_cyc8, b_cyc5, small); }) == 0);  // in rounds
  CHECK(repeated_allocations(a_block, b_cyc1, [&] {
          redistribute(a_block, b_cyc1, schedule::all_at_once, small);
        }) == 0);
}

TEST_CASE("A repeated small b = a allocates nothing, by the node's copies or the messages alone", "[mpi][alloc][shared]") {
  // Under 64 KiB a rank: the run that times the transports (the fourth here: short pieces, the
  // node tries its copy both ways first) times the messages alone against the node's copies, and
  // the faster runs from then on (the explain says which).
  boost::mpi::communicator world;
  const index_t n = 4099;
  DistArray<double, Cyclic<8>> a(world, n);
  DistArray<double, Cyclic<5>> b(world, n);
  DistArray<double, Block> c(world, n);
  DistArray<double, Cyclic<1>> d(world, n);
  redist::test::fill(a, value_of);
  redist::test::fill(c, value_of);
  CHECK(repeated_allocations(a, b, [&] { b = a; }) == 0);  // basic cycles
  CHECK(repeated_allocations(c, d, [&] { d = c; }) == 0);  // a general plan
  INFO(explain(a, b).str() << explain(c, d).str());
}

TEST_CASE("A repeated b = a out of partial values allocates nothing, by messages or one reduction", "[mpi][alloc][partial]") {
  boost::mpi::communicator world;
  const index_t n = 50021;
  // Rank 0 holds the values, the others 0: the sums are value_of.
  DistArray<double, Partial<>> a(world, n);
  redist::test::fill(a, [&](index_t g) { return world.rank() == 0 ? value_of(g) : 0.0; });
  DistArray<double, Block> b(world, n);
  DistArray<double, Replicated> all(world, n);
  DistArray<double, Cyclic<3>> c(world, n);
  CHECK(repeated_allocations(a, b, [&] { b = a; }) == 0);      // a reduce-scatter's pattern
  CHECK(repeated_allocations(a, all, [&] { all = a; }) == 0);  // an all-reduce's
  CHECK(repeated_allocations(a, c, [&] { c = a; }) == 0);      // messages that fold
}

TEST_CASE("A repeated b = a aggregated between emulated nodes allocates nothing", "[mpi][alloc][aggregate]") {
  boost::mpi::communicator world;
  const options saved = default_options();
  default_options().node_size = 2;  // at 3 ranks: nodes {0, 1} and {2}
  const index_t n = 4099;
  DistArray<double, Cyclic<8>> a(world, n);
  DistArray<double, Cyclic<5>> b(world, n);
  DistArray<double, Block> c(world, n);
  redist::test::fill(a, value_of);
  redist::test::fill(c, value_of);
  options always = default_options();
  always.node_aggregation = NodeAggregation::always;
  // Several nodes, one of two ranks; the nodes' windows need shared memory (not with REDIST_SHARED_MEMORY=0).
  const bool aggregates = world.size() >= 3 && saved.shared_memory;
  auto aggregated = [&](const auto& from, const auto& policy) {
    return explain(from, b, policy, always).transport.find("node_aggregated") != std::string::npos;
  };
  CHECK(repeated_allocations(a, b, [&] { redistribute(a, b, always); }) == 0);  // basic cycles
  CHECK(aggregated(a, schedule::automatic) == aggregates);
  CHECK(repeated_allocations(c, b, [&] { redistribute(c, b, schedule::all_at_once, always); }) == 0);  // by messages
  CHECK(aggregated(c, schedule::all_at_once) == aggregates);
  default_options() = saved;
}

TEST_CASE("A repeated b = a between N-D arrays allocates nothing, all at once, stepwise or in rounds", "[mpi][alloc][grid]") {
  boost::mpi::communicator world;
  const int p = world.size();
  using A = Dist<Cyclic<3>, Cyclic<2>>;
  using B = Dist<Block, Collapsed>;
  auto f = [](const std::array<index_t, 2>& g) { return static_cast<double>(g[0]) * 1000.0 + static_cast<double>(g[1]); };
  DistArray<double, A> a(world, {300, 200}, Grid{1, p});
  DistArray<double, B> b(world, {300, 200}, Grid{p, 1});
  DistArray<double, Dist<Collapsed, Block>> at(world, {200, 300}, Grid{1, p});
  redist::test::fill_nd(a, f);
  // Allocations of five repeated calls after warm_up's.
  auto repeated = [&](auto&& assign) {
    warm_up(assign);
    const std::size_t before = allocations.load();
    for (int i = 0; i < 5; ++i) assign();
    return allocations.load() - before;
  };
  CHECK(repeated([&] { b = a; }) == 0);
  CHECK(repeated([&] { redistribute(a, b, schedule::relative_group); }) == 0);
  options small;
  small.max_scratch_bytes = 4096;
  CHECK(repeated([&] { redistribute(a, b, schedule::all_at_once, small); }) == 0);
  CHECK(repeated([&] { at = transpose(a); }) == 0);
  const bool ok = redist::test::holds_nd(b, f) &&
                  redist::test::holds_nd(at, [&](const std::array<index_t, 2>& g) { return f({g[1], g[0]}); });
  CHECK(redist::test::all_ok(world, ok));
}

TEST_CASE("A repeated assignment into and out of views over the caller's memory allocates nothing", "[mpi][alloc][view]") {
  boost::mpi::communicator world;
  const index_t n = 100003;
  DistArray<double, Block> a_block(world, n);
  for (index_t l = 0; l < a_block.local_size(); ++l) a_block.local()[l] = value_of(a_block.global_index(l));
  std::vector<double> mem(static_cast<std::size_t>(DistView<double, Cyclic<3>>::required_span_size(world, n)));
  DistView<double, Cyclic<3>> v(mem, world, n);
  CHECK(repeated_allocations(a_block, v, [&] { v = a_block; }) == 0);  // written in place
  std::vector<double> mem2(static_cast<std::size_t>(DistView<double, Cyclic<8>>::required_span_size(world, n)));
  DistView<double, Cyclic<8>> w(mem2.data(), world, n);
  CHECK(repeated_allocations(v, w, [&] { w = v; }) == 0);  // view to view
}

TEST_CASE("A repeated section assignment allocates nothing", "[mpi][alloc][section]") {
  boost::mpi::communicator world;
  const index_t n = 50001;
  // a(2i) = value_of(i); the odd elements hold something else.
  DistArray<double, Block> a(world, 2 * n);
  for (index_t l = 0; l < a.local_size(); ++l) {
    const index_t g = a.global_index(l);
    a.local()[l] = g % 2 == 0 ? value_of(g / 2) : -1.0;
  }
  DistArray<double, Cyclic<3>> b(world, n);
  CHECK(repeated_allocations(a, b, [&] { b = section(a, strided_slice{index_t{0}, 2 * n, index_t{2}}); }) == 0);
  std::vector<double> mem(static_cast<std::size_t>(DistView<double, Cyclic<5>>::required_span_size(world, n)));
  DistView<double, Cyclic<5>> v(mem, world, n);
  CHECK(repeated_allocations(a, v, [&] {
          section(v, full_extent) = section(a, strided_slice{index_t{0}, 2 * n, index_t{2}});
        }) == 0);
}

TEST_CASE("Repeated scaled updates, fused assignments and start/wait allocate nothing", "[mpi][alloc][expression]") {
  boost::mpi::communicator world;
  const index_t n = 30011;
  DistArray<double, Cyclic<4>> a(world, n);
  for (index_t l = 0; l < a.local_size(); ++l) a.local()[l] = value_of(a.global_index(l));
  DistArray<double, Block> b(world, n);
  DistArray<double, Cyclic<7>> c(world, n);
  std::vector<index_t> parts(static_cast<std::size_t>(world.size()), n / world.size());
  parts[0] += n % world.size();
  DistArray<double, GenBlock> d(world, n, GenBlock(parts));
  CHECK(repeated_allocations(a, b, [&] { b = 1.0 * a; }) == 0);                  // b = alpha * a
  CHECK(repeated_allocations(a, b, [&] { b = 1.0 * a + 0.0 * b; }) == 0);        // beta = 0: b not read
  CHECK(repeated_allocations(a, c, [&] { assign(c <<= a, d <<= a, b <<= a); }) == 0);  // fused
  REQUIRE(test::all_ok(world, test::holds(d, value_of) && test::holds(b, value_of)));
  CHECK(repeated_allocations(a, c, [&] {
          auto h = start(c <<= a, b <<= 1.0 * a);
          while (!h.test()) {
          }
        }) == 0);  // start, then test() until done
}

TEST_CASE("A plan whose workspace one rank cannot allocate makes every rank throw before data moves",
          "[mpi][alloc][memory]") {
  boost::mpi::communicator world;
  const int p = world.size();
  if (p == 1) return;  // one rank sends no messages and needs no workspace
  // The corner turn: each rank packs a strided block for every other rank, (p - 1) / p of its
  // 1 MiB part, in its workspace; the arrays and the plan (a few sections) are small beside it.
  using Rows = Dist<Block, Collapsed>;
  using Cols = Dist<Collapsed, Block>;
  const std::array<index_t, 2> extents{256 * p, 512};
  auto f = [](const std::array<index_t, 2>& g) { return static_cast<double>(g[0]) * 1000.0 + static_cast<double>(g[1]); };
  DistArray<double, Rows> a(world, extents, Grid{p, 1});
  DistArray<double, Cols> b(world, extents, Grid{1, p});
  redist::test::fill_nd(a, f);
  for (const bool shared : {false, true}) {
    INFO("shared memory " << shared);
    std::fill(b.local().begin(), b.local().end(), -1.0);
    options opts;
    opts.shared_memory = shared;
    const bool last = world.rank() == p - 1;
    bool agreed = false;
    if (last) refuse_from = std::size_t{512} << 10;  // the last rank cannot have 512 KiB at once
    try {
      redistribute(a, b, opts);
    } catch (const redist::error& e) {
      agreed = std::string(e.what()).find("could not allocate this rank's workspace (") != std::string::npos &&
               std::string(e.what()).find("on rank " + std::to_string(p - 1) + ")") != std::string::npos;
    }
    refuse_from = 0;
    REQUIRE(redist::test::all_ok(world, agreed));
    // Nothing moved, and the next call, with the memory there, runs.
    REQUIRE(redist::test::all_ok(world, std::all_of(b.local().begin(), b.local().end(), [](double x) { return x == -1.0; })));
    redistribute(a, b, opts);
    REQUIRE(redist::test::all_ok(world, redist::test::holds_nd(b, f)));
  }
}
