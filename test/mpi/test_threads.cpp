// The threads contract (doc/threads.md): under MPI_THREAD_MULTIPLE, threads redistribute at once
// on different communicators; what is not supported (two threads on one communicator, concurrent
// calls below MPI_THREAD_MULTIPLE, calls from another thread under MPI_THREAD_FUNNELED) is a
// redist::error before the call communicates. The thread level comes from
// REDIST_TEST_THREAD_LEVEL (multiple, the default; serialized; funneled), and each level's tests
// carry its tag.
#define CATCH_CONFIG_RUNNER
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include <boost/mpi/communicator.hpp>
#include <boost/mpi/environment.hpp>
#include <catch2/catch.hpp>

#include <redist/redist.hpp>

#include "../support/array_values.hpp"
#include "../support/array_values_nd.hpp"
#include "../support/mpi_check.hpp"

using namespace redist;
namespace mpi = boost::mpi;
using redist::test::all_ok;
using redist::test::throws_with;

namespace {
mpi::threading::level requested_level() {
  const char* s = std::getenv("REDIST_TEST_THREAD_LEVEL");
  const std::string v = s == nullptr ? "multiple" : s;
  if (v == "serialized") return mpi::threading::serialized;
  if (v == "funneled") return mpi::threading::funneled;
  return mpi::threading::multiple;
}

double value_of(index_t g) { return 0.5 * static_cast<double>(g) - 7.0; }
double value_2d(const std::array<index_t, 2>& g) { return static_cast<double>(g[0]) * 1000.0 + static_cast<double>(g[1]); }

/// One thread's work on its own communicator: arrays made here, `rounds` rounds of 1-D and 2-D
/// redistributions (BCC, general, GEN_BLOCK, the corner turn, a view, a section, a fused list),
/// every element checked after each. Returns whether all held on every rank of comm.
bool work(const mpi::communicator& comm, int rounds, int salt) {
  const int p = comm.size();
  const index_t n = 20011 + 97 * salt;
  DistArray<double, Cyclic<3>> a(comm, n);
  DistArray<double, Cyclic<5>> b(comm, n);
  DistArray<double, Block> c(comm, n);
  std::vector<index_t> parts(static_cast<std::size_t>(p), 0);
  for (int r = 0; r < p; ++r) parts[static_cast<std::size_t>(r)] = n / p + (r < n % p ? 1 : 0);
  std::rotate(parts.begin(), parts.begin() + salt % p, parts.end());
  DistArray<double, GenBlock> g(comm, n, GenBlock(parts));
  std::vector<double> mem(static_cast<std::size_t>(DistView<double, Cyclic<7>>::required_span_size(comm, n)));
  DistView<double, Cyclic<7>> v(mem, comm, n);
  DistArray<double, Cyclic<2>> half(comm, (n + 1) / 2);
  const std::array<index_t, 2> ext{40 * p + salt, 33};
  DistArray<double, Dist<Block, Collapsed>> rows(comm, ext, Grid{p, 1});
  DistArray<double, Dist<Collapsed, Cyclic<2>>> cols(comm, ext, Grid{1, p});
  redist::test::fill(a, value_of);
  redist::test::fill_nd(rows, value_2d);
  bool ok = true;
  for (int i = 0; i < rounds && ok; ++i) {
    b = a;
    c = b;
    g = c;
    v = g;
    a = v;
    half = section(a, strided_slice{index_t{0}, n, index_t{2}});
    cols = rows;
    assign(b <<= a, c <<= a);
    ok = redist::test::holds(a, value_of) && redist::test::holds(b, value_of) && redist::test::holds(c, value_of) &&
         redist::test::holds(g, value_of) && redist::test::holds(half, [](index_t k) { return value_of(2 * k); }) &&
         redist::test::holds_nd(cols, value_2d);
    ok = all_ok(comm, ok);
  }
  return ok;
}

using namespace std::chrono_literals;
}  // namespace

// First in the file, so that its graphs are the process's first topology calls: Open MPI 4.1 loads
// its topology components at that call without a lock, and threads making their first graphs at
// once crashed in it (CI, test_threads below, one run in many) until the wire loaded them once per
// process (WireResources::make_graph). Every thread's first exchange here is a neighbourhood
// collective, so a regression fails here more often than below (a race: not every run).
TEST_CASE("Threads make their first neighbourhood graphs at once", "[threads][multiple]") {
  mpi::communicator world;
  REQUIRE(mpi::environment::thread_level() == mpi::threading::multiple);
  constexpr int threads = 4;
  std::vector<mpi::communicator> comms;
  for (int t = 0; t < threads; ++t) comms.emplace_back(world, mpi::comm_duplicate);
  std::array<int, threads> ok{};
  std::atomic<int> ready{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      try {
        const mpi::communicator& comm = comms[static_cast<std::size_t>(t)];
        const index_t n = 3001 + t;
        DistArray<double, Cyclic<3>> a(comm, n);
        DistArray<double, Cyclic<4>> b(comm, n);
        redist::test::fill(a, value_of);
        auto plan = make_plan(a, b, schedule::all_at_once);
        runtime::Workspace ws;
        ws.exchange.wire = Wire::neighbor;
        ready.fetch_add(1);
        while (ready.load() < threads) std::this_thread::yield();
        runtime::execute(plan.plan(), comm, std::span<const double>(a.local()), b.local(), ws,
                         runtime::max_chunk_bytes);
        ok[static_cast<std::size_t>(t)] = redist::test::holds(b, value_of) ? 1 : 0;
      } catch (const std::exception& e) {
        ok[static_cast<std::size_t>(t)] = -1;
        WARN("thread " << t << ": " << e.what());
      }
    });
  for (std::thread& t : pool) t.join();
  for (int t = 0; t < threads; ++t) CHECK(all_ok(world, ok[static_cast<std::size_t>(t)] == 1));
}

TEST_CASE("Threads redistribute at once, each on its own communicator", "[threads][multiple]") {
  mpi::communicator world;
  REQUIRE(mpi::environment::thread_level() == mpi::threading::multiple);
  constexpr int threads = 3;
  std::vector<mpi::communicator> comms;
  for (int t = 0; t < threads; ++t) comms.emplace_back(world, mpi::comm_duplicate);
  std::array<int, threads> ok{};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      try {
        ok[static_cast<std::size_t>(t)] = work(comms[static_cast<std::size_t>(t)], 25, t) ? 1 : 0;
      } catch (const std::exception& e) {
        ok[static_cast<std::size_t>(t)] = -1;
        WARN("thread " << t << ": " << e.what());
      }
    });
  for (std::thread& t : pool) t.join();
  for (int t = 0; t < threads; ++t) CHECK(ok[static_cast<std::size_t>(t)] == 1);
}

namespace {
/// Rank 0 starts `b = a` on x in a thread, where it waits for the other ranks (they arrive late),
/// and meanwhile calls `other()` in the test's thread. Returns whether other() threw `what`.
template <class F>
bool overlapping(const mpi::communicator& x, F&& other, const std::string& what) {
  const index_t n = 1001;
  DistArray<double, Cyclic<3>> a(x, n);
  DistArray<double, Cyclic<4>> b(x, n);
  redist::test::fill(a, value_of);
  bool refused = true;
  if (x.rank() == 0) {
    std::thread first([&] { b = a; });
    std::this_thread::sleep_for(300ms);
    refused = throws_with(other, what);
    first.join();
  } else {
    std::this_thread::sleep_for(1500ms);
    b = a;
  }
  REQUIRE(all_ok(x, redist::test::holds(b, value_of)));
  return all_ok(x, refused);
}
}  // namespace

TEST_CASE("Two threads on one communicator at once: the second is refused", "[threads][multiple]") {
  mpi::communicator world;
  if (world.size() == 1) return;  // one rank does not wait in b = a
  mpi::communicator x(world, mpi::comm_duplicate);
  DistArray<double, Block> c(x, 500);
  DistArray<double, Cyclic<2>> d(x, 500);
  redist::test::fill(c, value_of);
  CHECK(overlapping(x, [&] { d = c; }, "another thread of this process is in a redist call on the same communicator"));
  d = c;  // afterwards, from one thread, it runs
  CHECK(all_ok(x, redist::test::holds(d, value_of)));
}

TEST_CASE("Below MPI_THREAD_MULTIPLE, threads take turns; overlapping calls are refused", "[threads][serialized]") {
  mpi::communicator world;
  REQUIRE(mpi::environment::thread_level() == mpi::threading::serialized);
  mpi::communicator x(world, mpi::comm_duplicate), y(world, mpi::comm_duplicate);
  // One thread after the other: supported.
  bool ok = true;
  for (int t = 0; t < 2; ++t) {
    std::thread one([&] { ok = ok && work(t == 0 ? x : y, 3, t); });
    one.join();
  }
  CHECK(ok);
  if (world.size() == 1) return;
  // At once, even on another communicator: refused.
  DistArray<double, Block> c(y, 500);
  DistArray<double, Cyclic<2>> d(y, 500);
  redist::test::fill(c, value_of);
  CHECK(overlapping(x, [&] { d = c; }, "and MPI was initialised with MPI_THREAD_SERIALIZED"));
  d = c;
  CHECK(all_ok(y, redist::test::holds(d, value_of)));
}

TEST_CASE("Under MPI_THREAD_FUNNELED, a call from another thread is refused on every rank", "[threads][funneled]") {
  mpi::communicator world;
  REQUIRE(mpi::environment::thread_level() == mpi::threading::funneled);
  DistArray<double, Cyclic<3>> a(world, 777);
  DistArray<double, Block> b(world, 777);
  redist::test::fill(a, value_of);
  std::fill(b.local().begin(), b.local().end(), -1.0);
  bool refused = false;
  std::thread other([&] {
    refused = throws_with([&] { b = a; }, "was called from a thread other than the main one, and MPI was initialised with "
                                          "MPI_THREAD_FUNNELED");
  });
  other.join();
  CHECK(all_ok(world, refused));
  CHECK(all_ok(world, std::all_of(b.local().begin(), b.local().end(), [](double x) { return x == -1.0; })));
  b = a;  // from the main thread
  CHECK(all_ok(world, redist::test::holds(b, value_of)));
}

int main(int argc, char* argv[]) {
  mpi::environment env(argc, argv, requested_level());
  return Catch::Session().run(argc, argv);
}
