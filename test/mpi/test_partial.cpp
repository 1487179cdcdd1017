// MPI tests of Partial placements: b = a out of partial values (folded on the way, every op) into
// every layout, into partial values (process 0 of the dimension receives, the others the
// identity), 1-D and on grids, through transposes, scaled updates of sums, fused lists, start and
// make_plan; exact with integer-valued doubles and ints.
#include <algorithm>
#include <array>
#include <functional>
#include <limits>

#include <boost/hana/tuple.hpp>
#include <boost/mpi/communicator.hpp>
#include <catch2/catch.hpp>

#include <redist/redist.hpp>

#include "../support/array_values.hpp"
#include "../support/array_values_nd.hpp"
#include "../support/mpi_check.hpp"

// This file's names, apart from the other files of its program: meson compiles them together
// (unity build).
namespace mpi_test_partial {

using namespace redist;
namespace mpi = boost::mpi;
using redist::test::all_ok;

namespace {
/// (Block, Partial<>) on grid g: grid column col holds value(x) + 10000 col, partial values along
/// each grid row; total(x) is their sum.
struct RowSums {
  template <class G>
  RowSums(const mpi::communicator& world, const G& g, Storage storage = {}) : q{g.extent(1)}, a(world, ext, g, {}, storage) {
    const int col = a.coords() ? (*a.coords())[1] : 0;
    test::fill_nd(a, [&](const std::array<index_t, 2>& x) { return value(x) + 10000.0 * col; });
  }
  static double value(const std::array<index_t, 2>& x) { return static_cast<double>(x[0] * 100 + x[1]); }
  double total(const std::array<index_t, 2>& x) const { return q * value(x) + 10000.0 * q * (q - 1) / 2; }
  int q;  ///< partial values per element
  std::array<index_t, 2> ext{29, 17};
  DistArray<double, Dist<Block, Partial<>>> a;
};

/// Rank r's partial value of element g, and their sum over P ranks.
double part(index_t g, int r) { return static_cast<double>(g) * 1000.0 + static_cast<double>(r); }
double sum_of(index_t g, int p) { return static_cast<double>(g) * 1000.0 * p + static_cast<double>(p) * (p - 1) / 2.0; }
}  // namespace

TEST_CASE("1-D: partial sums fold into Block, Replicated and Cyclic, and into partial values again", "[mpi][partial]") {
  mpi::communicator world;
  const int p = world.size();
  for (index_t n : {index_t{0}, index_t{1}, index_t{13}, index_t{1000}}) {
    DistArray<double, Partial<>> a(world, n);
    REQUIRE(a.local_size() == n);
    test::fill(a, [&](index_t g) { return part(g, world.rank()); });
    DistArray<double, Block> b(world, n);
    test::fill(b, [](index_t) { return -7.0; });
    b = a;
    CHECK(all_ok(world, test::holds(b, [&](index_t g) { return sum_of(g, p); })));
    DistArray<double, Replicated> all(world, n);
    all = a;
    CHECK(all_ok(world, test::holds(all, [&](index_t g) { return sum_of(g, p); })));
    DistArray<double, Cyclic<3>> c(world, n);
    c = a;
    CHECK(all_ok(world, test::holds(c, [&](index_t g) { return sum_of(g, p); })));
    // Into partial values: rank 0 holds the element, the others 0; folding them back gives it again.
    DistArray<double, Partial<>> q(world, n);
    test::fill(q, [](index_t) { return -1.0; });
    q = b;
    CHECK(all_ok(world, test::holds(q, [&](index_t g) { return world.rank() == 0 ? sum_of(g, p) : 0.0; })));
    DistArray<double, Block> back(world, n);
    back = q;
    CHECK(all_ok(world, test::holds(back, [&](index_t g) { return sum_of(g, p); })));
    // Partial to partial: folded at rank 0.
    DistArray<double, Partial<>> again(world, n);
    again = a;
    CHECK(all_ok(world, test::holds(again, [&](index_t g) { return world.rank() == 0 ? sum_of(g, p) : 0.0; })));
    // Repeated: the cached plan folds again from the identity.
    b = a;
    CHECK(all_ok(world, test::holds(b, [&](index_t g) { return sum_of(g, p); })));
  }
}

TEST_CASE("1-D: max, min and product of partial values, on ints", "[mpi][partial][ops]") {
  mpi::communicator world;
  const int p = world.size(), r = world.rank();
  const index_t n = 57;
  auto v = [&](index_t g, int q) { return static_cast<int>((g * 7 + q * 13) % 31) - 15; };
  DistArray<int, Partial<max_op>> mx(world, n);
  DistArray<int, Partial<min_op>> mn(world, n);
  DistArray<int, Partial<std::multiplies<>>> pr(world, n);
  test::fill(mx, [&](index_t g) { return v(g, r); });
  test::fill(mn, [&](index_t g) { return v(g, r); });
  test::fill(pr, [&](index_t g) { return g % 3 == 0 ? -1 : 2; });
  DistArray<int, Cyclic<2>> out(world, n);
  auto fold = [&](index_t g, auto&& op, int init) {
    int x = init;
    for (int q = 0; q < p; ++q) x = op(x, v(g, q));
    return x;
  };
  out = mx;
  CHECK(all_ok(world, test::holds(out, [&](index_t g) { return fold(g, max_op{}, std::numeric_limits<int>::lowest()); })));
  out = mn;
  CHECK(all_ok(world, test::holds(out, [&](index_t g) { return fold(g, min_op{}, std::numeric_limits<int>::max()); })));
  out = pr;
  CHECK(all_ok(world, test::holds(out, [&](index_t g) {
    int x = 1;
    for (int q = 0; q < p; ++q) x *= g % 3 == 0 ? -1 : 2;
    return x;
  })));
  // Into max partial values: the others hold the identity, the lowest int.
  DistArray<int, Partial<max_op>> into(world, n);
  into = out;
  DistArray<int, Block> check(world, n);
  check = into;
  DistArray<int, Block> expect(world, n);
  expect = out;
  CHECK(all_ok(world, test::holds(check, [&](index_t g) { return expect.local()[static_cast<std::size_t>(expect.local_index(g))]; })));
  CHECK(all_ok(world, r == 0 || test::holds(into, [](index_t) { return std::numeric_limits<int>::lowest(); })));
}

TEST_CASE("2-D: (Block, Partial) sums along the grid's rows into (Block, Block), (Block, Replicated), block-cyclic",
          "[mpi][partial][2d]") {
  mpi::communicator world;
  const int p = world.size();
  const Grid g = p % 2 == 0 ? Grid{p / 2, 2} : Grid{p, 1};
  RowSums sums(world, g);
  const auto& a = sums.a;
  const auto ext = sums.ext;
  auto total = [&](const std::array<index_t, 2>& x) { return sums.total(x); };
  DistArray<double, Dist<Block, Block>> b(world, ext, g);
  b = a;  // a reduce-scatter along each grid row
  CHECK(all_ok(world, test::holds_nd(b, total)));
  // On a node of several ranks (arrays in its window), the first run folds the node peers'
  // values out of shared memory: no message within the node.
  const auto node = runtime::node_of(static_cast<MPI_Comm>(world), default_options().node_size);
  const bool shared = default_options().shared_memory && node->size > 1;  // this rank's (nodes may differ)
  const Explanation e = explain(a, b);
  CHECK(all_ok(world, !shared || e.transport.starts_with("shared_memory")));
  CHECK(all_ok(world, !shared || !node->whole() || e.messages == 0));
  DistArray<double, Dist<Block, Replicated>> rows(world, ext, g);
  rows = a;  // an all-reduce along each grid row
  CHECK(all_ok(world, test::holds_nd(rows, total)));
  DistArray<double, Dist<Cyclic<>, Cyclic<>>> c(world, ext, Dist{Cyclic<>{4}, Cyclic<>{3}}, Grid{g.extent(1), g.extent(0)});
  c = a;
  CHECK(all_ok(world, test::holds_nd(c, total)));
  // Into partial values: grid column 0 holds the elements, the others 0.
  DistArray<double, Dist<Block, Partial<>>> d(world, ext, g);
  d = c;
  const int dcol = d.coords() ? (*d.coords())[1] : 0;
  CHECK(all_ok(world, test::holds_nd(d, [&](const std::array<index_t, 2>& x) { return dcol == 0 ? total(x) : 0.0; })));
}

namespace {
/// src -> dst by plan on `wire` in ws, dst set to the fold's identity first: run (the blocking
/// collective) or started, tested and waited for (the nonblocking one).
template <class P, class T, class Op>
void fold_on(const P& plan, Wire wire, bool started, bool nonblocking, const mpi::communicator& world,
             std::span<const T> src, std::span<T> dst, runtime::Workspace& ws, Op) {
  std::fill(dst.begin(), dst.end(), fold_identity<Op, T>::value());
  ws.exchange.wire = wire;
  const runtime::fold_op<Op> store{};
  if (!started) {
    ws.exchange.nonblocking = nonblocking;  // the nonblocking reduction waited for at once
    runtime::execute(plan, world, src, dst, ws, runtime::max_chunk_bytes, store);
    ws.exchange.nonblocking = false;
    return;
  }
  auto parts = boost::hana::make_tuple(runtime::part(plan, src, dst, ws, store));
  const auto c = static_cast<MPI_Comm>(world);
  runtime::start(parts, ws.exchange, c, nullptr, runtime::max_chunk_bytes, runtime::message_tag);
  runtime::test(parts, ws.exchange, c, runtime::max_chunk_bytes, runtime::message_tag);
  runtime::wait(parts, ws.exchange, c, runtime::max_chunk_bytes, runtime::message_tag);
}

/// a -> b forced on the reduction wire the pair's pattern is (`expect`, on every rank from 2 ranks
/// on; none at 1, or where `expect` is point_to_point), six times in one workspace (the group made
/// once), run (blocking, and nonblocking waited for at once) and started in turn; check() after
/// each. Then the same by b = a, three times: the decision times the messages against that wire,
/// blocking and nonblocking, on the second run and names what it chose (nothing timed where there
/// is no reduction).
template <class A, class B, class Op, class Check>
void reduce_both_ways(A& a, B& b, Wire expect, Op op, Check&& check) {
  const mpi::communicator& world = a.comm();
  Redistribution r(a.mapping(), b.mapping(), world.rank());
  const auto& plan = r.plan();
  const Wire kind = plan.direct() && plan.stages.size() == 1 ? redist::detail::reduces(plan.stages.front()) : Wire::point_to_point;
  CHECK(all_ok(world, kind == (world.size() > 1 ? expect : Wire::point_to_point)));
  using T = typename A::value_type;
  runtime::Workspace ws;
  const bool reduction = world.size() > 1 && expect != Wire::point_to_point;
  if (reduction) {
    REQUIRE(runtime::detail::make_reduce_group(plan, static_cast<MPI_Comm>(world), ws.exchange.wire_resources, expect));
    CHECK(ws.exchange.wire_resources.members.size() == static_cast<std::size_t>(plan.stages.front().sends.size() + 1));
    for (int run = 0; run < 6; ++run) {
      fold_on(plan, expect, run % 2 == 1, run % 4 == 2, world, std::span<const T>(a.local()), b.local(), ws, op);
      INFO("wire " << wire_name(expect, false) << ", run " << run);
      REQUIRE(all_ok(world, check()));
      CHECK(ws.exchange.messages_received == plan.stages.front().recvs.size());
    }
  }
  for (int run = 0; run < 3; ++run) {
    b = a;
    REQUIRE(all_ok(world, check()));
  }
  const Explanation e = explain(a, b);
  int timed = 0;  // the wire blocking (1) and nonblocking (2)
  for (const TransportTiming& t : e.transports)
    if (reduction && t.wire == expect) timed += t.nonblocking ? 2 : 1;
  CHECK(all_ok(world, timed == (reduction ? 3 : 0)));
  // Without a reduction's pattern, at most the node's copies against the messages (point to point).
  CHECK(all_ok(world, reduction || std::all_of(e.transports.begin(), e.transports.end(),
                                               [](const TransportTiming& t) { return t.wire == Wire::point_to_point; })));
  CHECK(all_ok(world, world.size() == 1 || e.transport == "messages" || e.transport.starts_with("shared_memory") ||
                          e.transport == wire_name(expect, false) || e.transport == wire_name(expect, false, true)));
}
}  // namespace

TEST_CASE("Partial values by their reduction wires: one MPI_Allreduce or MPI_Reduce_scatter per group, exact",
          "[mpi][partial][reduce]") {
  mpi::communicator world;
  const int p = world.size(), r = world.rank();
  SECTION("1-D sums into Block (a reduce-scatter) and Replicated (an all-reduce), run and started") {
    for (index_t n : {index_t{1}, index_t{13}, index_t{1000}}) {
      DistArray<double, Partial<>> a(world, n);
      test::fill(a, [&](index_t g) { return part(g, r); });
      DistArray<double, Block> b(world, n);
      // A rank that holds no block receives nothing: no group of the same peers both ways, no
      // reduction (messages fold).
      const bool every_rank_holds = (p - 1) * ((n + p - 1) / p) < n;
      reduce_both_ways(a, b, every_rank_holds ? Wire::reduce_scatter : Wire::point_to_point, std::plus<>{},
                       [&] { return test::holds(b, [&](index_t g) { return sum_of(g, p); }); });
      DistArray<double, Replicated> all(world, n);
      reduce_both_ways(a, all, Wire::allreduce, std::plus<>{}, [&] { return test::holds(all, [&](index_t g) { return sum_of(g, p); }); });
    }
  }
  SECTION("1-D max of ints into Block and Replicated") {
    const index_t n = 101;
    auto v = [&](index_t g, int q) { return static_cast<int>((g * 7 + q * 13) % 31) - 15; };
    auto most = [&](index_t g) {
      int x = std::numeric_limits<int>::lowest();
      for (int q = 0; q < p; ++q) x = std::max(x, v(g, q));
      return x;
    };
    DistArray<int, Partial<max_op>> a(world, n);
    test::fill(a, [&](index_t g) { return v(g, r); });
    DistArray<int, Block> b(world, n);
    reduce_both_ways(a, b, Wire::reduce_scatter, max_op{}, [&] { return test::holds(b, most); });
    DistArray<int, Replicated> all(world, n);
    reduce_both_ways(a, all, Wire::allreduce, max_op{}, [&] { return test::holds(all, most); });
  }
  SECTION("2-D (Block, Partial) along the grid's rows: into (Block, Block) and (Block, Replicated)") {
    const Grid g = p % 2 == 0 ? Grid{p / 2, 2} : Grid{1, p};
    RowSums sums(world, g);
    auto& a = sums.a;
    const auto ext = sums.ext;
    auto total = [&](const std::array<index_t, 2>& x) { return sums.total(x); };
    if (sums.q > 1) {
      DistArray<double, Dist<Block, Block>> b(world, ext, g);
      reduce_both_ways(a, b, Wire::reduce_scatter, std::plus<>{}, [&] { return test::holds_nd(b, total); });
      DistArray<double, Dist<Block, Replicated>> rows(world, ext, g);
      reduce_both_ways(a, rows, Wire::allreduce, std::plus<>{}, [&] { return test::holds_nd(rows, total); });
      // Destinations with a leading dimension beyond their local rows: the folded elements are not
      // one range of them, so they arrive in the scratch and are unpacked.
      DistArray<double, Dist<Block, Block>> bp(world, ext, g, {}, Storage{Order::column_major, 40});
      reduce_both_ways(a, bp, Wire::reduce_scatter, std::plus<>{}, [&] { return test::holds_nd(bp, total); });
      DistArray<double, Dist<Block, Replicated>> rp(world, ext, g, {}, Storage{Order::column_major, 40});
      reduce_both_ways(a, rp, Wire::allreduce, std::plus<>{}, [&] { return test::holds_nd(rp, total); });
      // A padded source: the contributions are not one range of it; packed (reduce-scatter) or
      // copied into the destination first (all-reduce in place).
      RowSums padded(world, g, Storage{Order::column_major, 40});
      auto& ap = padded.a;
      reduce_both_ways(ap, b, Wire::reduce_scatter, std::plus<>{}, [&] { return test::holds_nd(b, total); });
      reduce_both_ways(ap, rows, Wire::allreduce, std::plus<>{}, [&] { return test::holds_nd(rows, total); });
    }
  }
  SECTION("No reduction where the pattern is none: into Cyclic<3>, the decision times no reduction") {
    const index_t n = 200;
    DistArray<double, Partial<>> a(world, n);
    test::fill(a, [&](index_t g) { return part(g, r); });
    DistArray<double, Cyclic<3>> c(world, n);
    for (int run = 0; run < 3 + redist::detail::fold_timing_runs; ++run) {  // through the runs that time the node's copies
      c = a;
      REQUIRE(all_ok(world, test::holds(c, [&](index_t g) { return sum_of(g, p); })));
    }
    if (p > 2) {
      Redistribution rc(a.mapping(), c.mapping(), r);
      CHECK(all_ok(world, redist::detail::reduces(rc.plan().stages.front()) == Wire::point_to_point));
      const auto timed = explain(a, c).transports;  // at most the node's copies against the messages
      CHECK(std::all_of(timed.begin(), timed.end(), [](const TransportTiming& t) { return t.wire == Wire::point_to_point; }));
    }
  }
}

TEST_CASE("Partial sums reduced into Block in place: each rank's block a view over its own place in the partial array",
          "[mpi][partial][reduce]") {
  // NCCL's in-place reduce-scatter (recvbuff = sendbuff + rank * count), a sharded optimizer's
  // gradients: b's part on rank r is a view at a's local place of r's block. The plan is a
  // reduce-scatter's pattern; in place its decision times no reduction (each timed run would add
  // the other ranks' parts again), only its own runs by the node's copies and by messages, and
  // every run is exact. A view at the start of a on every rank is
  // in place on rank 0 only, and refused on every rank.
  mpi::communicator world;
  const int p = world.size(), r = world.rank();
  for (index_t n : {index_t{0}, index_t{1}, index_t{13}, index_t{1000}}) {
    INFO("n = " << n);
    const index_t per = (n + p - 1) / p, lo = std::min(n, per * r);
    DistArray<double, Partial<>> a(world, n);
    DistView<double, Block> b(a.local().data() + lo, world, n);
    // The first run (its check), the decision's runs (node copies and messages alternately), decided runs.
    for (int run = 0; run < 3 + redist::detail::fold_timing_runs; ++run) {
      test::fill(a, [&](index_t g) { return part(g, r); });
      b = a;
      CHECK(all_ok(world, test::holds(b, [&](index_t g) { return sum_of(g, p); })));
      // Outside its own block, a rank's partial values are as they were.
      bool kept = true;
      for (index_t g = 0; g < n; ++g)
        if (g < lo || g >= lo + b.local_size()) kept = kept && a.local()[static_cast<std::size_t>(g)] == part(g, r);
      CHECK(all_ok(world, kept));
    }
    // No reduction timed: at most the node's copies against the messages, on the real runs.
    const auto timed = explain(a, b).transports;
    CHECK(std::all_of(timed.begin(), timed.end(), [](const TransportTiming& t) { return t.wire == Wire::point_to_point; }));
    if (p > 1 && n >= static_cast<index_t>(p)) {
      DistArray<double, Partial<>> c(world, n);
      test::fill(c, [&](index_t g) { return part(g, r); });
      DistView<double, Block> head(c.local().data(), world, n);
      CHECK_THROWS_AS(head = c, redist::error);
      CHECK(all_ok(world, test::holds(c, [&](index_t g) { return part(g, r); })));
    }
  }
}

TEST_CASE("Partial values through transposes, scaled updates, fused lists, start and make_plan", "[mpi][partial][2d][expr]") {
  mpi::communicator world;
  const int p = world.size();
  const Grid g = p % 2 == 0 ? Grid{p / 2, 2} : Grid{p, 1};
  const Grid gt{g.extent(1), g.extent(0)};
  RowSums sums(world, g);
  const auto& a = sums.a;
  const auto ext = sums.ext;
  const std::array<index_t, 2> text{ext[1], ext[0]};
  using A2 = std::array<index_t, 2>;
  auto total = [&](const A2& x) { return sums.total(x); };
  auto ttotal = [&](const A2& x) { return sums.total({x[1], x[0]}); };
  auto before = [](const A2& x) { return static_cast<double>(x[0] - 2 * x[1]); };  // b's values before an update

  SECTION("transpose out of partial values, and into them") {
    DistArray<double, Dist<Block, Block>> bt(world, text, gt);
    bt = transpose(a);  // folded on the way
    CHECK(all_ok(world, test::holds_nd(bt, ttotal)));
    DistArray<double, Dist<Block, Replicated>> rows(world, ext, g);
    rows = a;
    test::fill_nd(bt, [](const A2&) { return -1.0; });
    bt = transpose(rows);  // one copy read per receiver (the copy rule through the transposition)
    CHECK(all_ok(world, test::holds_nd(bt, ttotal)));
    DistArray<double, Dist<Block, Partial<>>> d(world, text, g);
    test::fill_nd(d, [](const A2&) { return -3.0; });  // stale values: the others' part must become 0
    d = transpose(a);
    const int col = d.coords() ? (*d.coords())[1] : 0;
    CHECK(all_ok(world, test::holds_nd(d, [&](const A2& x) { return col == 0 ? ttotal(x) : 0.0; })));
    d = 2.0 * transpose(a) + 3.0 * d;  // scaled into partial sums: each part scaled, the elements added at column 0
    CHECK(all_ok(world, test::holds_nd(d, [&](const A2& x) { return col == 0 ? 5.0 * ttotal(x) : 0.0; })));
  }
  SECTION("scaled updates out of partial sums: b = alpha * a + beta * b, b = alpha * a, alpha = 0") {
    DistArray<double, Dist<Block, Block>> b(world, ext, gt);
    test::fill_nd(b, before);
    b = 2.0 * a + 3.0 * b;
    CHECK(all_ok(world, test::holds_nd(b, [&](const A2& x) { return 2.0 * total(x) + 3.0 * before(x); })));
    b = 0.5 * a;
    CHECK(all_ok(world, test::holds_nd(b, [&](const A2& x) { return 0.5 * total(x); })));
    b = 0.0 * a + 2.0 * b;
    CHECK(all_ok(world, test::holds_nd(b, [&](const A2& x) { return total(x); })));
    DistArray<double, Dist<Block, Replicated>> rows(world, ext, g);
    test::fill_nd(rows, before);
    for (int run = 0; run < 3; ++run) rows = -1.0 * a + 1.0 * rows;  // the cached plan, again
    CHECK(all_ok(world, test::holds_nd(rows, [&](const A2& x) { return before(x) - 3.0 * total(x); })));
  }
  SECTION("scaled updates into partial sums: every part scaled by beta, the elements added at process 0") {
    DistArray<double, Dist<Block, Block>> c(world, ext, gt);
    test::fill_nd(c, before);
    DistArray<double, Dist<Block, Partial<>>> d(world, ext, g);
    const int col = d.coords() ? (*d.coords())[1] : 0;
    test::fill_nd(d, [&](const A2& x) { return static_cast<double>(col + 1) * before(x); });
    const double parts = static_cast<double>(g.extent(1) * (g.extent(1) + 1) / 2);  // sum over columns of (col + 1)
    d = 2.0 * c + 3.0 * d;
    DistArray<double, Dist<Block, Block>> e(world, ext, gt);
    e = d;
    CHECK(all_ok(world, test::holds_nd(e, [&](const A2& x) { return (2.0 + 3.0 * parts) * before(x); })));
    d = 0.0 * c + 0.0 * d;  // zeros everywhere, c not read
    CHECK(all_ok(world, test::holds_nd(d, [](const A2&) { return 0.0; })));
  }
  SECTION("fused lists and start: folds, scaled sums and partial destinations in one exchange") {
    DistArray<double, Dist<Block, Block>> b1(world, ext, gt), b2(world, ext, g);
    DistArray<double, Dist<Cyclic<>, Cyclic<>>> c(world, ext, Dist{Cyclic<>{4}, Cyclic<>{3}}, gt);
    DistArray<double, Dist<Block, Partial<>>> d(world, ext, g);
    const int col = d.coords() ? (*d.coords())[1] : 0;
    test::fill_nd(c, before);
    for (int run = 0; run < 3; ++run) {
      test::fill_nd(b1, [](const A2&) { return -5.0; });
      test::fill_nd(b2, before);
      test::fill_nd(d, [](const A2&) { return 7.0; });
      if (run == 1) {
        Pending h = start(b1 <<= a, b2 <<= 2.0 * a + -1.0 * b2, d <<= c);
        h.test();
        h.wait();
      } else {
        assign(b1 <<= a, b2 <<= 2.0 * a + -1.0 * b2, d <<= c);
      }
      INFO("run " << run);
      CHECK(all_ok(world, test::holds_nd(b1, total)));
      CHECK(all_ok(world, test::holds_nd(b2, [&](const A2& x) { return 2.0 * total(x) - before(x); })));
      CHECK(all_ok(world, test::holds_nd(d, [&](const A2& x) { return col == 0 ? before(x) : 0.0; })));
    }
    // Other Ops fold in a list as b = a does; and a partial destination of a scaled update.
    DistArray<int, Dist<Block, Partial<max_op>>> m(world, ext, g);
    test::fill_nd(m, [&](const A2& x) { return static_cast<int>(x[0] * 3 + x[1]) + 100 * col; });
    DistArray<int, Dist<Cyclic<>, Block>> mc(world, ext, Dist{Cyclic<>{2}, Block{}}, gt);
    DistArray<double, Dist<Block, Partial<>>> dd(world, ext, g);
    test::fill_nd(dd, [](const A2&) { return 1.0; });
    assign(mc <<= m, dd <<= 4.0 * c + 0.5 * dd);
    CHECK(all_ok(world, test::holds_nd(mc, [&](const A2& x) { return static_cast<int>(x[0] * 3 + x[1]) + 100 * (g.extent(1) - 1); })));
    CHECK(all_ok(world, test::holds_nd(dd, [&](const A2& x) { return col == 0 ? 4.0 * before(x) + 0.5 : 0.5; })));
  }
  SECTION("make_plan and execute fold like b = a; a scaled update on the plan of a reduction wire") {
    DistArray<double, Dist<Block, Replicated>> rows(world, ext, g);
    auto plan = make_plan(a, rows);
    for (int run = 0; run < 3; ++run) {
      test::fill_nd(rows, [](const A2&) { return -1.0; });
      plan.execute(a, rows);
      CHECK(all_ok(world, test::holds_nd(rows, total)));
    }
    // A scaled update on a plan whose folds go by a reduction wire (forced here where the decision
    // may keep it) has no MPI operation: it goes point to point, and the wire stays for the folds.
    const bool reduces = p > 1 && redist::detail::reduces(plan.plan().stages.front()) == Wire::allreduce;
    CHECK(all_ok(world, reduces == (g.extent(1) > 1)));
    if (reduces) {
      REQUIRE(runtime::detail::make_reduce_group(plan.plan(), static_cast<MPI_Comm>(world),
                                                 plan.workspace().exchange.wire_resources, Wire::allreduce));
      plan.workspace().exchange.wire = Wire::allreduce;
    }
    test::fill_nd(rows, before);
    plan.run_update(world, std::span<const double>(a.local()), rows.local(), runtime::accumulate_op<double, false>{2.0},
                    [] {});  // beta = 1: the parts of rows stay, 2 a added
    CHECK(all_ok(world, test::holds_nd(rows, [&](const A2& x) { return before(x) + 2.0 * total(x); })));
    CHECK(all_ok(world, plan.wire() == (reduces ? Wire::allreduce : Wire::point_to_point)));
    plan.execute(a, rows);
    CHECK(all_ok(world, test::holds_nd(rows, total)));
    DistArray<double, Dist<Block, Partial<>>> d(world, ext, g);
    test::fill_nd(d, [](const A2&) { return 9.0; });
    auto into = make_plan(rows, d);
    into.execute(rows, d);
    const int col = d.coords() ? (*d.coords())[1] : 0;
    CHECK(all_ok(world, test::holds_nd(d, [&](const A2& x) { return col == 0 ? total(x) : 0.0; })));
  }
}

TEST_CASE("Sections of arrays with Partial dimensions, kept or dropped, as sources and destinations",
          "[mpi][partial][2d][section]") {
  mpi::communicator world;
  const int p = world.size();
  const Grid g = p % 2 == 0 ? Grid{p / 2, 2} : Grid{p, 1};
  const Grid gt{g.extent(1), g.extent(0)};
  RowSums sums(world, g);
  const auto& a = sums.a;
  const auto ext = sums.ext;
  using A2 = std::array<index_t, 2>;
  auto total = [&](const A2& x) { return sums.total(x); };
  // The section of rows 2, 5, ..., 26 (9 of them) and columns [3, 11) of a 29×17 array.
  const strided_slice<index_t, index_t, index_t> rows{2, 25, 3};
  const std::pair<index_t, index_t> cols{3, 11};
  auto in_section = [](const A2& x) { return x[0] >= 2 && (x[0] - 2) % 3 == 0 && x[0] < 27 && x[1] >= 3 && x[1] < 11; };

  SECTION("out of a section: each element the sum of its parts, in whole arrays and in sections") {
    DistArray<double, Dist<Block, Block>> b(world, {9, 8}, gt);
    b = section(a, rows, cols);
    CHECK(all_ok(world, test::holds_nd(b, [&](const A2& x) { return total({2 + 3 * x[0], 3 + x[1]}); })));
    DistArray<double, Dist<Cyclic<>, Block>> c(world, ext, Dist{Cyclic<>{2}, Block{}}, g);
    for (int run = 0; run < 3; ++run) {  // the second run times the messages against what else the pattern allows
      test::fill_nd(c, [](const A2&) { return -1.0; });
      section(c, rows, cols) = section(a, rows, cols);
      INFO("run " << run);
      CHECK(all_ok(world, test::holds_nd(c, [&](const A2& x) { return in_section(x) ? total(x) : -1.0; })));
    }
    // A dropped dimension of partial values: column 5, every grid column's part of it.
    DistArray<double, Block> v(world, ext[0]);
    v = section(a, full_extent, index_t{5});
    CHECK(all_ok(world, test::holds(v, [&](index_t i) { return total({i, 5}); })));
    // A scaled update out of a section of partial sums.
    test::fill_nd(c, [](const A2&) { return 1.0; });
    auto cs = section(c, rows, cols);
    cs = 2.0 * section(a, rows, cols) + 3.0 * cs;
    CHECK(all_ok(world, test::holds_nd(c, [&](const A2& x) { return in_section(x) ? 2.0 * total(x) + 3.0 : 1.0; })));
  }
  SECTION("into a section: process 0 of the Partial dimension receives, the others' section elements become 0") {
    DistArray<double, Dist<Block, Block>> b(world, {9, 8}, gt);
    test::fill_nd(b, [](const A2& x) { return static_cast<double>(x[0] * 10 + x[1]); });
    DistArray<double, Dist<Block, Partial<>>> d(world, ext, g);
    const int col = d.coords() ? (*d.coords())[1] : 0;
    for (int run = 0; run < 2; ++run) {
      test::fill_nd(d, [](const A2&) { return -1.0; });  // stale values: outside the section they stay
      section(d, rows, cols) = b;
      CHECK(all_ok(world, test::holds_nd(d, [&](const A2& x) {
        if (!in_section(x)) return -1.0;
        return col == 0 ? static_cast<double>((x[0] - 2) / 3 * 10 + (x[1] - 3)) : 0.0;
      })));
    }
    // A dropped dimension of partial values as the destination: column 4 of d.
    DistArray<double, Block> v(world, ext[0]);
    test::fill(v, [](index_t i) { return static_cast<double>(i) + 0.5; });
    test::fill_nd(d, [](const A2&) { return -1.0; });
    section(d, full_extent, index_t{4}) = v;
    CHECK(all_ok(world, test::holds_nd(d, [&](const A2& x) {
      if (x[1] != 4) return -1.0;
      return col == 0 ? static_cast<double>(x[0]) + 0.5 : 0.0;
    })));
    // Section to section of partial values: the folded sums land at column 0 of d's section.
    test::fill_nd(d, [](const A2&) { return -1.0; });
    section(d, rows, cols) = section(a, rows, cols);
    CHECK(all_ok(world, test::holds_nd(d, [&](const A2& x) {
      if (!in_section(x)) return -1.0;
      return col == 0 ? total(x) : 0.0;
    })));
  }
}

TEST_CASE("A grid of higher rank than the array (DTensor's 3-D mesh for a 2-D tensor): the extra axis a dimension of extent 1",
          "[mpi][partial][mesh]") {
  mpi::communicator world;
  const int p = world.size();
  // (Shard(0), Replicate(), Partial()) on a 3-D mesh: rows in blocks over axis 0, copies along
  // axis 1, partial values along axis 2, whose array dimension has extent 1.
  const Grid mesh = p % 4 == 0 ? Grid{p / 4, 2, 2} : (p % 2 == 0 ? Grid{p / 2, 1, 2} : Grid{p, 1, 1});
  using A2 = std::array<index_t, 2>;
  using A3 = std::array<index_t, 3>;
  const A3 ext{29, 17, 1};
  const A2 ext2{29, 17};
  const int q = mesh.extent(2);
  DistArray<double, Dist<Block, Replicated, Partial<>>> t(world, ext, mesh);
  const int k = t.coords() ? (*t.coords())[2] : 0;
  auto value = [](index_t i, index_t j) { return static_cast<double>(i * 100 + j); };
  auto total = [&](index_t i, index_t j) { return q * value(i, j) + 10000.0 * q * (q - 1) / 2; };
  test::fill_nd(t, [&](const A3& x) { return value(x[0], x[1]) + 10000.0 * k; });
  // Out of the mesh into a 2-D tensor: the section that drops the extent-1 dimension.
  const Grid g2 = p % 2 == 0 ? Grid{2, p / 2} : Grid{1, p};
  DistArray<double, Dist<Block, Block>> b(world, ext2, g2);
  for (int run = 0; run < 3; ++run) {
    test::fill_nd(b, [](const A2&) { return -1.0; });
    b = section(t, full_extent, full_extent, index_t{0});
    CHECK(all_ok(world, test::holds_nd(b, [&](const A2& x) { return total(x[0], x[1]); })));
  }
  // On the mesh: the partial axis folded into copies (an all-reduce along axis 2), every copy.
  DistArray<double, Dist<Block, Replicated, Replicated>> r(world, ext, mesh);
  r = t;
  CHECK(all_ok(world, test::holds_nd(r, [&](const A3& x) { return total(x[0], x[1]); })));
  // Into the mesh from the 2-D tensor, sharded along its columns this time: process 0 of axis 2
  // receives, the others hold 0 (their stale values gone).
  DistArray<double, Dist<Replicated, Block, Partial<>>> u(world, ext, mesh);
  test::fill_nd(u, [](const A3&) { return -1.0; });
  section(u, full_extent, full_extent, index_t{0}) = b;
  const int uk = u.coords() ? (*u.coords())[2] : 0;
  CHECK(all_ok(world, test::holds_nd(u, [&](const A3& x) { return uk == 0 ? total(x[0], x[1]) : 0.0; })));
}

TEST_CASE("Partial sums chosen at run time (AnyDist holding Partial<>, the C interface's) fold as Partial<> does",
          "[mpi][partial][any]") {
  mpi::communicator world;
  const int p = world.size();
  const Grid g = p % 2 == 0 ? Grid{p / 2, 2} : Grid{p, 1};
  RowSums sums(world, g);
  using A2 = std::array<index_t, 2>;
  using Any2 = Dist<AnyDist, AnyDist>;
  DistArray<double, Any2> a(world, sums.ext, Any2{Block{}, Partial<>{}}, g);
  REQUIRE(a.local_size() == sums.a.local_size());
  std::copy(sums.a.local().begin(), sums.a.local().end(), a.local().begin());
  DistArray<double, Dist<Block, Block>> b(world, sums.ext, g);
  for (int run = 0; run < 3; ++run) {  // the second times the messages against the reduce-scatter
    test::fill_nd(b, [](const A2&) { return -1.0; });
    b = a;
    CHECK(all_ok(world, test::holds_nd(b, [&](const A2& x) { return sums.total(x); })));
  }
  // Into run-time partial sums: grid column 0 holds the elements, the others 0 (stale values before).
  DistArray<double, Any2> d(world, sums.ext, Any2{Block{}, Partial<>{}}, g);
  test::fill_nd(d, [](const A2&) { return 4.0; });
  d = b;
  const int col = d.coords() ? (*d.coords())[1] : 0;
  CHECK(all_ok(world, test::holds_nd(d, [&](const A2& x) { return col == 0 ? sums.total(x) : 0.0; })));
  // Sections of them: column 5's sums out, a vector into column 4 (the rest of d untouched).
  DistArray<double, Block> v(world, sums.ext[0]);
  v = section(a, full_extent, index_t{5});
  CHECK(all_ok(world, test::holds(v, [&](index_t i) { return sums.total({i, 5}); })));
  section(d, full_extent, index_t{4}) = v;
  CHECK(all_ok(world, test::holds_nd(d, [&](const A2& x) {
    if (x[1] == 4) return col == 0 ? sums.total({x[0], 5}) : 0.0;
    return col == 0 ? sums.total(x) : 0.0;
  })));
  // Where the types cannot say it, calls that do not fold refuse it on every rank, before data moves.
  test::fill_nd(b, [](const A2&) { return -1.0; });
  CHECK_THROWS_WITH(b = 2.0 * a, Catch::Contains("partial sums chosen at run time"));
  CHECK_THROWS_WITH(assign(b <<= a), Catch::Contains("partial sums chosen at run time"));
  CHECK(all_ok(world, test::holds_nd(b, [](const A2&) { return -1.0; })));
}

}  // namespace mpi_test_partial
