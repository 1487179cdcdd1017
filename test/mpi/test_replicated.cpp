// MPI tests of Replicated placements: b = a into and out of copies, 1-D and on grids, every copy
// checked; what a rank holds as a copy does not move (explain: no message).
#include <algorithm>
#include <array>
#include <span>
#include <random>
#include <vector>

#include <boost/hana/tuple.hpp>
#include <boost/mpi/communicator.hpp>
#include <catch2/catch.hpp>

#include <redist/redist.hpp>

#include "../support/array_values.hpp"
#include "../support/array_values_nd.hpp"
#include "../support/mpi_check.hpp"

// This file's names, apart from the other files of its program: meson compiles them together
// (unity build).
namespace mpi_test_replicated {

using namespace redist;
namespace mpi = boost::mpi;
using redist::test::all_ok;

namespace {
double value_of(index_t g) { return 0.5 + static_cast<double>(g); }
double value_of2(const std::array<index_t, 2>& g) { return 0.25 + static_cast<double>(g[0]) * 1000.0 + static_cast<double>(g[1]); }
}  // namespace

TEST_CASE("1-D: every rank receives the whole array, and reads any layout out of its own copy", "[mpi][replicated]") {
  mpi::communicator world;
  for (index_t n : {index_t{0}, index_t{1}, index_t{7}, index_t{1000}}) {
    DistArray<double, Cyclic<3>> a(world, n);
    test::fill(a, value_of);
    DistArray<double, Replicated> all(world, n);
    REQUIRE(all.local_size() == n);
    all = a;
    CHECK(all_ok(world, test::holds(all, value_of)));
    // Out of the copies: no message on any rank.
    DistArray<double, Block> b(world, n);
    CHECK(explain(all, b).messages == 0);
    b = all;
    CHECK(all_ok(world, test::holds(b, value_of)));
    CHECK(explain(all, b).messages == 0);
    DistArray<double, Replicated> again(world, n);
    again = all;
    CHECK(all_ok(world, test::holds(again, value_of)));
    CHECK(explain(all, again).messages == 0);
  }
}

TEST_CASE("1-D copies under every general schedule, and extents that differ between ranks refused", "[mpi][replicated]") {
  mpi::communicator world;
  const index_t n = 300;
  std::vector<index_t> sizes(static_cast<std::size_t>(world.size()), 0);
  for (index_t g = 0; g < n; ++g) ++sizes[static_cast<std::size_t>((g * g) % world.size())];  // uneven
  DistArray<double, GenBlock> a(world, n, GenBlock(sizes));
  test::fill(a, value_of);
  auto each = [&](auto policy) {
    DistArray<double, Replicated> all(world, n);
    redistribute(a, all, policy);
    DistArray<double, Cyclic<4>> c(world, n);
    redistribute(all, c, policy);
    return test::holds(all, value_of) && test::holds(c, value_of);
  };
  CHECK(all_ok(world, each(schedule::all_at_once)));
  CHECK(all_ok(world, each(schedule::caterpillar)));
  CHECK(all_ok(world, each(schedule::relative_group)));
  CHECK(all_ok(world, each(schedule::automatic)));
  if (world.size() > 1)
    CHECK_THROWS_AS((DistArray<double, Replicated>(world, world.rank() == 0 ? n : n + 1)), redist::error);
}

TEST_CASE("2-D: (Block, Block) <-> (Block, Replicated) on one grid, and to other grids", "[mpi][replicated][2d]") {
  mpi::communicator world;
  const int p = world.size();
  const Grid g = p % 2 == 0 ? Grid{p / 2, 2} : Grid{p, 1};
  const std::array<index_t, 2> ext{37, 29};
  DistArray<double, Dist<Block, Block>> a(world, ext, g);
  test::fill_nd(a, value_of2);
  DistArray<double, Dist<Block, Replicated>> rows(world, ext, g);
  rows = a;  // a gather along each grid row
  CHECK(all_ok(world, test::holds_nd(rows, value_of2)));
  // Back: every rank extracts its block from its own copy.
  test::fill_nd(a, [](const auto&) { return -1.0; });
  CHECK(explain(rows, a).messages == 0);
  a = rows;
  CHECK(all_ok(world, test::holds_nd(a, value_of2)));
  // Copies to a block-cyclic layout on the transposed grid, and all of it everywhere.
  const Grid gt = Grid{g.extent(1), g.extent(0)};
  DistArray<double, Dist<Cyclic<>, Cyclic<>>> c(world, ext, Dist{Cyclic<>{4}, Cyclic<>{3}}, gt);
  c = rows;
  CHECK(all_ok(world, test::holds_nd(c, value_of2)));
  DistArray<double, Dist<Replicated, Replicated>> everywhere(world, ext, g);
  everywhere = c;
  CHECK(all_ok(world, test::holds_nd(everywhere, value_of2)));
  CHECK(explain(everywhere, rows).messages == 0);
  test::fill_nd(rows, [](const auto&) { return -1.0; });
  rows = everywhere;
  CHECK(all_ok(world, test::holds_nd(rows, value_of2)));
}

TEST_CASE("Copies on a subset of the ranks serve the others", "[mpi][replicated][subset]") {
  mpi::communicator world;
  const index_t n = 101;
  // The copies on rank 0 only (a grid of one process) or on the first half.
  for (int holders : {1, std::max(1, world.size() / 2)}) {
    DistArray<double, Dist<Replicated>> src(world, {n}, Grid{holders});
    test::fill_nd(src, [](const std::array<index_t, 1>& g) { return value_of(g[0]); });
    DistArray<double, Dist<Cyclic<2>>> dst(world, {n}, Grid{world.size()});
    dst = src;
    CHECK(all_ok(world, test::holds_nd(dst, [](const std::array<index_t, 1>& g) { return value_of(g[0]); })));
    DistArray<double, Dist<Replicated>> back(world, {n}, Grid{world.size()});
    back = dst;
    CHECK(all_ok(world, test::holds_nd(back, [](const std::array<index_t, 1>& g) { return value_of(g[0]); })));
  }
}

TEST_CASE("Copies are read on the reader's node first (emulated nodes of 3)", "[mpi][replicated][nodes]") {
  mpi::communicator world;
  const int p = world.size();
  const options saved = default_options();
  default_options().node_size = 3;
  struct restore {
    options o;
    ~restore() { default_options() = o; }
  } guard{saved};
  for (bool shared : {true, false}) {
    default_options().shared_memory = shared && saved.shared_memory;
    const Grid g = p % 2 == 0 ? Grid{p / 2, 2} : Grid{p, 1};
    const std::array<index_t, 2> ext{40, 9};
    DistArray<double, Dist<Block, Replicated>> a(world, ext, g);
    test::fill_nd(a, value_of2);
    DistArray<double, Dist<Replicated, Block>> b(world, ext, Grid{1, p});
    b = a;  // by the nodes of 3 the arrays learnt when they were made
    CHECK(all_ok(world, test::holds_nd(b, value_of2)));
    // At 4 ranks the copies of row block 1 are ranks 2 (node {0, 1, 2}) and 3 (node {3}): rank 1,
    // at coordinates (0, 1), reads it from rank 2, on its own node, not from rank 3 at its own
    // coordinate; make_plan (no communication) plans by the same nodes.
    if (p == 4) {
      const auto plan = make_plan(a, b);
      bool ok = true;
      if (world.rank() == 1) {
        bool from2 = false, from3 = false;
        for (const Message& m : plan.plan().stages[0].recvs) {
          from2 = from2 || m.peer == 2;
          from3 = from3 || m.peer == 3;
        }
        ok = from2 && !from3;
      }
      CHECK(all_ok(world, ok));
    }
    // Nodes known on some ranks only when they planned: rank 0 plans (explain, no communication)
    // before the communicator learns its nodes of 5, the others after; the first run refuses it on
    // every rank before any element moves (once: then the nodes of 5 are known).
    if (p > 1 && shared) {
      options o5 = default_options();
      o5.node_size = 5;
      DistArray<double, Dist<Replicated, Block>> d(world, ext, Grid{1, p});
      test::fill_nd(d, [](const auto&) { return -1.0; });
      if (world.rank() == 0) (void)explain(a, d, schedule::automatic, o5);
      (void)runtime::node_of(static_cast<MPI_Comm>(world), 5);
      bool refused = false;
      try {
        redistribute(a, d, schedule::automatic, o5);
      } catch (const redist::error& e) {
        refused = std::string(e.what()).find("nodes") != std::string::npos;
      }
      CHECK(all_ok(world, refused));
      CHECK(all_ok(world, test::holds_nd(d, [](const auto&) { return -1.0; })));
    }
    // Back into copies, then out of them into a block-cyclic layout on the transposed grid.
    DistArray<double, Dist<Cyclic<>, Cyclic<>>> c(world, ext, Dist{Cyclic<>{3}, Cyclic<>{2}}, Grid{g.extent(1), g.extent(0)});
    c = a;
    CHECK(all_ok(world, test::holds_nd(c, value_of2)));
  }
}

TEST_CASE("Sections of copies: a column of (Block, Replicated) is written in every copy, read from one",
          "[mpi][replicated][section]") {
  mpi::communicator world;
  const int p = world.size();
  const Grid g = p % 2 == 0 ? Grid{p / 2, 2} : Grid{p, 1};
  const std::array<index_t, 2> ext{23, 9};
  DistArray<double, Dist<Block, Replicated>> rows(world, ext, g);
  test::fill_nd(rows, [](const auto&) { return -1.0; });
  DistArray<double, Cyclic<2>> v(world, ext[0]);
  test::fill(v, value_of);
  // Into column 3 of every copy (a dropped dimension held in copies).
  section(rows, full_extent, index_t{3}) = section(v, full_extent);
  CHECK(all_ok(world, test::holds_nd(rows, [](const std::array<index_t, 2>& x) { return x[1] == 3 ? value_of(x[0]) : -1.0; })));
  // Out of it, into another 1-D layout.
  DistArray<double, Block> w(world, ext[0]);
  section(w, full_extent) = section(rows, full_extent, index_t{3});
  CHECK(all_ok(world, test::holds(w, value_of)));
  // A kept dimension held in copies, as the source of a scaled update: each element once.
  test::fill_nd(rows, value_of2);
  DistArray<double, Dist<Block, Block>> b(world, {ext[0], 4}, g);
  test::fill_nd(b, [](const auto&) { return 1.0; });
  section(b, full_extent, full_extent) = section(rows, full_extent, std::pair{index_t{2}, index_t{6}});
  CHECK(all_ok(world, test::holds_nd(b, [](const std::array<index_t, 2>& x) { return value_of2({x[0], x[1] + 2}); })));
  DistArray<double, Dist<Block, Replicated>> c(world, ext, g);
  test::fill_nd(c, [](const auto&) { return 1.0; });
  DistArray<double, Dist<Cyclic<3>, Block>> d(world, ext, g);
  test::fill_nd(d, [](const auto&) { return 1.0; });
  d = 2.0 * c + 3.0 * d;
  CHECK(all_ok(world, test::holds_nd(d, [](const auto&) { return 5.0; })));
}

namespace {
/// src -> dst by plan on `wire`, run and started in turn, four times in one workspace (the group
/// is made once), dst cleared before each; check() after each.
template <class P, class T, class Check>
bool run_wire(const P& plan, Wire wire, const mpi::communicator& world, std::span<const T> src, std::span<T> dst,
              Check&& check) {
  runtime::Workspace ws;
  ws.exchange.wire = wire;
  bool ok = true;
  for (int run = 0; run < 6; ++run) {
    std::fill(dst.begin(), dst.end(), T(-1));
    if (run % 2 == 0) {
      // Run (waited for at once): the blocking collective, and every other time the nonblocking
      // one waited for at once (as the decision may choose).
      ws.exchange.nonblocking = run % 4 == 2;
      runtime::execute(plan, world, src, dst, ws);
      ws.exchange.nonblocking = false;
    } else {
      auto parts = boost::hana::make_tuple(runtime::part(plan, src, dst, ws));
      const auto c = static_cast<MPI_Comm>(world);
      runtime::start(parts, ws.exchange, c, nullptr, runtime::max_chunk_bytes, runtime::message_tag);
      runtime::test(parts, ws.exchange, c, runtime::max_chunk_bytes, runtime::message_tag);
      runtime::wait(parts, ws.exchange, c, runtime::max_chunk_bytes, runtime::message_tag);
    }
    ok = ok && check();
  }
  return all_ok(world, ok);
}
}  // namespace

TEST_CASE("Into copies by one MPI_Allgatherv per group: exact, run and started; offered only where ranks gather",
          "[mpi][replicated][wire]") {
  mpi::communicator world;
  const int p = world.size();
  for (index_t n : {index_t{1}, index_t{97}, index_t{4000}}) {
    DistArray<double, Block> a(world, n);
    test::fill(a, value_of);
    DistArray<double, Replicated> all(world, n);
    auto plan = make_plan(a, all, schedule::all_at_once);
    runtime::WireResources r;
    // Every rank holds part of the array: each sends its block to all others, a group of all ranks.
    const bool gathers = runtime::detail::make_gather_group(plan.plan(), static_cast<MPI_Comm>(world), r);
    CHECK(gathers == (n >= p));
    if (gathers) {
      CHECK(r.members.size() == static_cast<std::size_t>(p));
      CHECK(run_wire(plan.plan(), Wire::allgatherv, world, std::span<const double>(a.local()), all.local(),
                     [&] { return test::holds(all, value_of); }));
    }
    // A plan that does not gather (its sends to two peers differ) makes no group, on every rank
    // alike. (Between two ranks every exchange is an all-gather of one message each.)
    DistArray<double, Cyclic<3>> c(world, n);
    auto other = make_plan(a, c, schedule::all_at_once);
    CHECK_FALSE((p > 2 && n > 1 && runtime::detail::make_gather_group(other.plan(), static_cast<MPI_Comm>(world), r)));
  }
  // 2-D: (Block, Block) -> (Block, Replicated) gathers along each grid row: groups of the row's ranks.
  const Grid g = p % 2 == 0 ? Grid{p / 2, 2} : Grid{p, 1};
  const std::array<index_t, 2> ext{37, 29};
  DistArray<double, Dist<Block, Block>> a(world, ext, g);
  test::fill_nd(a, value_of2);
  DistArray<double, Dist<Block, Replicated>> rows(world, ext, g);
  auto plan = make_plan(a, rows, schedule::all_at_once);
  runtime::WireResources r;
  REQUIRE(runtime::detail::make_gather_group(plan.plan(), static_cast<MPI_Comm>(world), r));
  CHECK(r.members.size() == static_cast<std::size_t>(g.extent(1)));
  CHECK(run_wire(plan.plan(), Wire::allgatherv, world, std::span<const double>(a.local()), rows.local(),
                 [&] { return test::holds_nd(rows, value_of2); }));
  // Stored row-major, a peer's block is no range of the destination: gathered through the scratch.
  DistArray<double, Dist<Block, Block>> ar(world, ext, Dist<Block, Block>{}, g, {0, 0}, Storage{row_major, 0});
  test::fill_nd(ar, value_of2);
  DistArray<double, Dist<Block, Replicated>> rr(world, ext, Dist<Block, Replicated>{}, g, {0, 0}, Storage{row_major, 0});
  auto packed = make_plan(ar, rr, schedule::all_at_once);
  CHECK(run_wire(packed.plan(), Wire::allgatherv, world, std::span<const double>(ar.local()), rr.local(),
                 [&] { return test::holds_nd(rr, value_of2); }));
  // b = a with shared memory off: the decision times the all-gather among the wires, names it.
  options opts = default_options();
  opts.shared_memory = false;
  DistArray<double, Block> x(world, 4096);
  test::fill(x, value_of);
  DistArray<double, Replicated> y(world, 4096);
  for (int run = 0; run < 3; ++run) {
    redistribute(x, y, opts);
    CHECK(all_ok(world, test::holds(y, value_of)));
  }
  const Explanation e = explain(x, y, schedule::automatic, opts);
  int timed = 0;  // the all-gather blocking and nonblocking
  bool named = e.transports.empty();
  for (const TransportTiming& t : e.transports) {
    if (t.wire == Wire::allgatherv) timed += t.nonblocking ? 2 : 1;
    named = named || e.transport == t.name();
  }
  if (p > 1) CHECK(timed == 3);
  CHECK(named);
}

}  // namespace mpi_test_replicated
