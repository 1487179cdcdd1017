// MPI tests of the derived-datatype transport (runtime/typed.hpp, runtime/measure.hpp's
// time_transports): messages described to MPI over the arrays, exact for 1-D and N-D pairs,
// transposes, empty parts and mixed with shared memory on emulated nodes; the choice, timed on a
// plan's second run, is the same on every rank.
#include <array>
#include <random>
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
    CHECK(plan.uses_datatypes() == (typed < packed));
  }
  std::fill(b.local().begin(), b.local().end(), -1.0);
  plan.execute(a, b);
  REQUIRE(all_ok(world, holds_nd(b, value_2d)));
  // Small messages are not timed.
  DistArray<double, D> c(world, {9, 7}, D{Cyclic<>{2}, Cyclic<>{2}}, Grid{world.size(), 1});
  DistArray<double, D> d(world, {9, 7}, D{Cyclic<>{3}, Cyclic<>{3}}, Grid{1, world.size()});
  auto small = make_plan(c, d, schedule::automatic, opts);
  small.execute(c, d);
  small.execute(c, d);
  CHECK(small.transport_medians().first == 0);
  CHECK_FALSE(small.uses_datatypes());
}

}  // namespace mpi_test_transport
