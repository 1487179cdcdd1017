// MPI tests of DistView: arrays over the caller's memory, in both directions and mixed with DistArray, padded caller storage, the size query, size checks on every rank, raw MPI_Comm, SharedBuffer.
#include <array>
#include <cmath>
#include <functional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <boost/mpi/collectives/all_reduce.hpp>
#include <boost/mpi/communicator.hpp>
#include <catch2/catch.hpp>

#include <redist/redist.hpp>

#include "../support/array_values_nd.hpp"
#include "../support/mpi_check.hpp"

// This file's names, apart from the other files of its program: meson compiles them together
// (unity build).
namespace mpi_test_view {

using namespace redist;
namespace mpi = boost::mpi;
using redist::test::all_ok;
using redist::test::fill_nd;
using redist::test::holds_nd;

namespace {
double value_of(const std::array<index_t, 2>& g) { return 0.5 + static_cast<double>(g[0]) * 1000.0 + static_cast<double>(g[1]); }
constexpr double guard = -7.25;  // what the caller's padding holds, and must still hold

/// True when every element of mem outside the view's elements (padding, slack) is still guard.
template <class V>
bool untouched_outside(const V& v, std::span<const double> mem) {
  std::vector<bool> element(mem.size(), false);
  redist::test::for_each_local_index(v, [&](const auto& l) { element[static_cast<std::size_t>(v.local_offset(l))] = true; });
  for (std::size_t i = 0; i < mem.size(); ++i)
    if (!element[i] && mem[i] != guard) return false;
  return true;
}
}  // namespace

TEST_CASE("DistView over the caller's memory: b = a in both directions, with arrays and views, 1-D", "[mpi][view]") {
  mpi::communicator world;
  std::mt19937_64 rng(11);
  bool ok = true;
  for (int trial = 0; trial < 12; ++trial) {
    const index_t n = static_cast<index_t>(rng() % 200);
    const Cyclic<> cyc{1 + rng() % 6};
    std::vector<double> mem(static_cast<std::size_t>(DistView<double, Cyclic<>>::required_span_size(world, n, cyc)));
    DistView<double, Cyclic<>> v(mem, world, n, cyc);
    REQUIRE(v.local().data() == mem.data());
    REQUIRE(v.local_size() == static_cast<index_t>(mem.size()));
    DistArray<double, Block> a(world, n);
    for (index_t l = 0; l < a.local_size(); ++l) a.local()[l] = 3.0 * static_cast<double>(a.global_index(l));
    v = a;  // array -> view: written in the caller's memory
    for (index_t l = 0; l < v.local_size(); ++l) ok = ok && mem[l] == 3.0 * static_cast<double>(v.global_index(l));
    // view -> view (another caller buffer), view -> array
    std::vector<double> mem2(static_cast<std::size_t>(DistView<double, Cyclic<5>>::required_span_size(world, n)));
    DistView<double, Cyclic<5>> w(mem2.data(), world, n);
    w = v;
    for (index_t l = 0; l < w.local_size(); ++l) ok = ok && mem2[l] == 3.0 * static_cast<double>(w.global_index(l));
    DistArray<double, Cyclic<2>> c(world, n);
    c = w;
    for (index_t l = 0; l < c.local_size(); ++l) ok = ok && c.local()[l] == 3.0 * static_cast<double>(c.global_index(l));
    // A read-only view is a source.
    DistView<const double, Cyclic<5>> cw(std::span<const double>(mem2), world, n);
    DistArray<double, Block> d(world, n);
    d = cw;
    for (index_t l = 0; l < d.local_size(); ++l) ok = ok && d.local()[l] == 3.0 * static_cast<double>(d.global_index(l));
  }
  CHECK(all_ok(world, ok));
}

TEST_CASE("DistView of a matrix over padded caller storage: nothing outside the elements is written", "[mpi][view][2d]") {
  mpi::communicator world;
  std::mt19937_64 rng(23);
  bool ok = true;
  using A = Dist<Cyclic<>, Cyclic<>>;
  using B = Dist<Block, Cyclic<>>;
  for (int trial = 0; trial < 10; ++trial) {
    const std::array<index_t, 2> ext{static_cast<index_t>(1 + rng() % 40), static_cast<index_t>(1 + rng() % 30)};
    const int p = world.size();
    const Grid ga = trial % 2 ? Grid{p, 1} : Grid{1, p};
    const A da{Cyclic<>{1 + rng() % 4}, Cyclic<>{1 + rng() % 5}};
    const B db{Block{}, Cyclic<>{1 + rng() % 3}};
    // Per-rank LLD with padding, as ScaLAPACK allows; a little slack after the elements too.
    const index_t pad = static_cast<index_t>(1 + (world.rank() + trial) % 3);
    const index_t rows_a = DistArray<double, A>(world, ext, da, ga).local_extents()[0];  // collective
    const Storage sa{column_major, rows_a + pad};
    std::vector<double> mem_a(static_cast<std::size_t>(DistView<double, A>::required_span_size(world, ext, da, ga, {0, 0}, sa)) + 3,
                              guard);
    DistView<double, A> va(mem_a, world, ext, da, ga, {0, 0}, sa);
    fill_nd(va, value_of);
    const Storage sb{row_major, 0};
    std::vector<double> mem_b(static_cast<std::size_t>(DistView<double, B>::required_span_size(world, ext, db, Grid{p, 1}, {0, 0}, sb)) + 2,
                              guard);
    DistView<double, B> vb(mem_b, world, ext, db, Grid{p, 1}, {0, 0}, sb);
    vb = va;
    ok = ok && holds_nd(vb, value_of) && untouched_outside(vb, mem_b);
    // And back into the padded view, after clearing its elements.
    fill_nd(va, [](const auto&) { return -1.0; });
    va = vb;
    ok = ok && holds_nd(va, value_of) && untouched_outside(va, mem_a);
    // Transposed into a view.
    const std::array<index_t, 2> text{ext[1], ext[0]};
    std::vector<double> mem_t(static_cast<std::size_t>(DistView<double, B>::required_span_size(world, text, db, Grid{1, p})) + 1, guard);
    DistView<double, B> vt(mem_t, world, text, db, Grid{1, p});
    vt = transpose(va);
    ok = ok && holds_nd(vt, [](const auto& g) { return value_of({g[1], g[0]}); }) && untouched_outside(vt, mem_t);
  }
  CHECK(all_ok(world, ok));
}

TEST_CASE("DistView takes a raw MPI_Comm; gemr2d too", "[mpi][view][comm]") {
  mpi::communicator world;
  const index_t n = 57;
  std::vector<double> mem(static_cast<std::size_t>(DistView<double, Cyclic<3>>::required_span_size(MPI_COMM_WORLD, n)));
  DistView<double, Cyclic<3>> v(mem, MPI_COMM_WORLD, n);
  DistArray<double, Block> a(MPI_COMM_WORLD, n);
  for (index_t l = 0; l < a.local_size(); ++l) a.local()[l] = static_cast<double>(a.global_index(l));
  v = a;
  bool ok = true;
  for (index_t l = 0; l < v.local_size(); ++l) ok = ok && mem[l] == static_cast<double>(v.global_index(l));
  CHECK(all_ok(world, ok));
}

TEST_CASE("A caller buffer shorter than the layout throws redist::error on every rank before anything is written",
          "[mpi][view][errors]") {
  mpi::communicator world;
  const index_t n = 40;
  const auto need = static_cast<std::size_t>(DistView<double, Cyclic<2>>::required_span_size(world, n));
  // Only the last rank's buffer is short; every rank must throw the same error.
  std::vector<double> mem(world.rank() == world.size() - 1 ? need - 1 : need, guard);
  std::string what;
  try {
    DistView<double, Cyclic<2>> v(mem, world, n);
  } catch (const redist::error& e) {
    what = e.what();
  }
  const bool names_size =
      what.find("elements the layout places on rank " + std::to_string(world.size() - 1) + " (got ") != std::string::npos;
  CHECK(all_ok(world, names_size));
  CHECK(all_ok(world, what.find("redist::DistView(data, comm, ...) requires data to hold") != std::string::npos));
  bool untouched = true;
  for (double x : mem) untouched = untouched && x == guard;
  CHECK(all_ok(world, untouched));
}

TEST_CASE("Views whose memory overlaps are refused on every rank before anything is written", "[mpi][view][errors]") {
  mpi::communicator world;
  const index_t n = 40;
  // One buffer under both views; only the last rank's parts overlap (the others get disjoint halves).
  const auto need_a = static_cast<std::size_t>(DistView<double, Block>::required_span_size(world, n));
  const auto need_b = static_cast<std::size_t>(DistView<double, Cyclic<3>>::required_span_size(world, n));
  std::vector<double> mem(need_a + need_b, guard);
  const bool last = world.rank() == world.size() - 1;
  DistView<double, Block> a(std::span<double>(mem).first(need_a), world, n);
  DistView<double, Cyclic<3>> b(std::span<double>(mem).subspan(last ? 0 : need_a, need_b), world, n);
  std::string what;
  try {
    b = a;
  } catch (const redist::error& e) {
    what = e.what();
  }
  // On the last rank; on one rank both layouts put each element at the same place, an update in
  // place that is allowed (it writes nothing: each element is the one already there).
  const bool overlap = need_a > 0 && need_b > 0 && world.size() > 1;
  const bool refused = what.find("requires the source's memory not to overlap the destination's") != std::string::npos;
  CHECK(all_ok(world, refused == boost::mpi::all_reduce(world, last && overlap, std::logical_or<bool>())));
  CHECK(all_ok(world, refused || what.empty()));
  bool untouched = true;
  for (double x : mem) untouched = untouched && x == guard;
  CHECK(all_ok(world, untouched));
}

TEST_CASE("required_span_size is the layout's local size on every rank (LLD x local columns for ScaLAPACK layouts)",
          "[mpi][view]") {
  mpi::communicator world;
  using S = Dist<Cyclic<>, Cyclic<>>;
  const S d{Cyclic<>{4}, Cyclic<>{3}};
  const std::array<index_t, 2> ext{29, 17};
  const Grid g{1, world.size()};
  DistArray<double, S> a(world, ext, d, g, {0, 0}, Storage{column_major, 40});
  const index_t need = DistView<double, S>::required_span_size(world, ext, d, g, {0, 0}, Storage{column_major, 40});
  CHECK(need == a.local_size());
  CHECK(need == (a.local_extents()[1] == 0 ? 0 : 40 * a.local_extents()[1]));
  CHECK(DistArray<double, Block>::required_span_size(world, 10) == DistArray<double, Block>(world, 10).local_size());
  // Not collective, and a bad argument throws on the calling rank.
  auto bad = [&] { return DistView<double, S>::required_span_size(world, {-1, 3}, d, g); };
  CHECK_THROWS_AS(bad(), redist::error);
}

TEST_CASE("A view over a SharedBuffer is read in place by its node peers", "[mpi][view][shared]") {
  mpi::communicator world;
  const index_t n = 1000;
  using V = DistView<double, Cyclic<7>>;
  SharedBuffer<double> buf(world, static_cast<std::size_t>(V::required_span_size(world, n)));
  V v(buf.span(), world, n);
  CHECK(v.in_shared_memory() == buf.in_shared_memory());
  for (index_t l = 0; l < v.local_size(); ++l) buf.data()[l] = 2.0 * static_cast<double>(v.global_index(l));
  DistArray<double, Block> b(world, n);
  using L = detail::plan_layouts<V, decltype(b)>;
  const auto& r = detail::array_access::cache(b).get(L::of(v), L::of(b), schedule::automatic, default_options(), world);
  b = v;
  bool ok = true;
  for (index_t l = 0; l < b.local_size(); ++l) ok = ok && b.local()[l] == 2.0 * static_cast<double>(b.global_index(l));
  CHECK(all_ok(world, ok));
  // With shared memory on and more than one rank per node, the copy came out of the peers' buffers.
  const bool expect_shared = buf.in_shared_memory() && runtime::node_of(MPI_COMM_WORLD, default_options().node_size)->whole();
  if (expect_shared) CHECK(r.used_shared_memory());
  // A view over ordinary memory is never in shared memory.
  std::vector<double> plain(buf.size());
  CHECK_FALSE(V(plain, world, n).in_shared_memory());
}

TEST_CASE("A view over an array's storage is read in place by its node peers, as the array is", "[mpi][view][shared]") {
  mpi::communicator world;
  const index_t n = 1000;
  using V = DistView<double, Cyclic<7>>;
  DistArray<double, Cyclic<7>> first(world, n);
  DistArray<double, Cyclic<7>> a(std::move(first));  // the window moves, and is found by address after it
  for (index_t l = 0; l < a.local_size(); ++l) a.local()[static_cast<std::size_t>(l)] = 3.0 * static_cast<double>(a.global_index(l));
  V v(a.local().data(), world, n);
  CHECK(v.in_shared_memory() == a.in_shared_memory());
  DistArray<double, Block> b(world, n);
  using L = detail::plan_layouts<V, decltype(b)>;
  const auto& r = detail::array_access::cache(b).get(L::of(v), L::of(b), schedule::automatic, default_options(), world);
  b = v;
  bool ok = true;
  for (index_t l = 0; l < b.local_size(); ++l) ok = ok && b.local()[l] == 3.0 * static_cast<double>(b.global_index(l));
  CHECK(all_ok(world, ok));
  const bool expect_shared = a.in_shared_memory() && runtime::node_of(MPI_COMM_WORLD, default_options().node_size)->whole();
  if (expect_shared) CHECK(r.used_shared_memory());
  // A view over an array's storage past its first element is not the window's start: messages.
  if (a.local_size() > 1) CHECK_FALSE(V(a.local().data() + 1, world, n).in_shared_memory());
}

}  // namespace mpi_test_view
