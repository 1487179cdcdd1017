// Fused assignments and start/wait (issue 16): redist::assign(b1 <<= a1, ...) and redist::start(...)
// against the element-by-element oracle on random layouts and element types, one message per peer
// whatever the number of arrays, work between start and wait, test(), errors before data moves.
#include <complex>
#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <boost/mpi/collectives/all_reduce.hpp>
#include <boost/mpi/communicator.hpp>
#include <catch2/catch.hpp>

#include <redist/redist.hpp>

#include "../support/array_values_nd.hpp"
#include "../support/mpi_check.hpp"
#include "../support/random_dists.hpp"

// This file's names, apart from the other files of its program: meson compiles them together
// (unity build).
namespace mpi_test_assign {

using namespace redist;
namespace mpi = boost::mpi;
using redist::test::all_ok;
using redist::test::fill_nd;
using redist::test::holds_nd;
using redist::test::make_dist;

namespace {

template <class T>
T val(index_t g, int tag) {
  const auto v = static_cast<double>((g * 13 + tag * 7) % 101) - 50;
  if constexpr (std::is_same_v<T, std::complex<double>>) return {v, static_cast<double>(tag)};
  else return static_cast<T>(v);
}

/// A 1-D pair of arrays of element type T on random layouts DA -> DB, filled (b with junk), and
/// what b must hold after `b <<= [alpha *] a [+ beta * b]`.
template <class T, class DA, class DB>
struct Pair1 {
  DistArray<T, DA> a;
  DistArray<T, DB> b;
  int tag;
  T alpha{}, beta{};
  bool scaled = false, with_beta = false;

  Pair1(const mpi::communicator& world, std::mt19937_64& rng, int tag_)
      : Pair1(world, rng, tag_, static_cast<index_t>(rng() % 150)) {}
  Pair1(const mpi::communicator& world, std::mt19937_64& rng, int tag_, index_t n)
      : a(world, n, make_dist<DA>(n, world.size(), rng)), b(world, n, make_dist<DB>(n, world.size(), rng)), tag{tag_} {
    for (index_t l = 0; l < static_cast<index_t>(a.local().size()); ++l) a.local()[l] = val<T>(a.global_index(l), tag);
    for (index_t l = 0; l < static_cast<index_t>(b.local().size()); ++l) b.local()[l] = val<T>(b.global_index(l), tag + 50);
    if constexpr (std::is_arithmetic_v<T> || std::is_same_v<T, std::complex<double>>) {
      scaled = rng() % 2 == 0;
      with_beta = scaled && rng() % 2 == 0;
      alpha = static_cast<T>(static_cast<int>(rng() % 3) - 1);
      beta = static_cast<T>(2);
    }
  }
  bool holds() const {
    bool ok = true;
    for (index_t l = 0; l < static_cast<index_t>(b.local().size()); ++l) {
      const index_t g = b.global_index(l);
      T want = val<T>(g, tag);
      if constexpr (std::is_arithmetic_v<T> || std::is_same_v<T, std::complex<double>>)
        if (scaled) want = alpha * val<T>(g, tag) + (with_beta ? beta * val<T>(g, tag + 50) : T{0});
      ok = ok && b.local()[l] == want;
    }
    return ok;
  }
  /// The assignment b <<= ..., for assign / start.
  auto assignment() {
    if constexpr (std::is_arithmetic_v<T> || std::is_same_v<T, std::complex<double>>) {
      // Only the plain form when not scaled; redist::start takes one type per position, so every
      // form is an Update whose scalars make it the wanted one.
      return b <<= (scaled ? alpha : T{1}) * a + (with_beta ? beta : T{0}) * b;
    } else {
      return b <<= a;
    }
  }
};

struct Rgb {
  std::uint8_t r, g, b;
  friend bool operator==(const Rgb&, const Rgb&) = default;
};
template <>
Rgb val<Rgb>(index_t g, int tag) {
  return {static_cast<std::uint8_t>(g), static_cast<std::uint8_t>(tag), static_cast<std::uint8_t>(g >> 8)};
}

}  // namespace

TEST_CASE("assign(...) of 1 to 4 assignments of random layouts and element types equals the oracle", "[mpi][assign]") {
  mpi::communicator world;
  std::mt19937_64 rng(17);
  int failures = 0;
  std::string first;
  for (int k = 0; k < 40; ++k) {
    Pair1<double, Block, Cyclic<3>> p1(world, rng, 1);
    Pair1<float, GenBlock, Cyclic<dynamic>> p2(world, rng, 2);
    Pair1<std::complex<double>, Cyclic<2>, Cyclic<5>> p3(world, rng, 3);
    Pair1<Rgb, Cyclic<dynamic>, Block> p4(world, rng, 4);
    switch (k % 4) {
      case 0: assign(p1.assignment()); break;
      case 1: assign(p1.assignment(), p2.assignment()); break;
      case 2: assign(p3.assignment(), p1.assignment(), p4.assignment()); break;
      default: assign(p4.assignment(), p3.assignment(), p2.assignment(), p1.assignment()); break;
    }
    const bool ok1 = p1.holds(), ok2 = k % 2 == 0 || p2.holds(), ok3 = k % 4 < 2 || p3.holds(), ok4 = k % 4 < 2 || p4.holds();
    if (!all_ok(world, ok1 && ok2 && ok3 && ok4) && failures++ == 0)
      first = "list " + std::to_string(k % 4 + 1) + ": " + std::to_string(ok1) + std::to_string(ok2) + std::to_string(ok3) +
              std::to_string(ok4);
  }
  INFO("first failure (pairs 1-4 right?): " << first);
  REQUIRE(failures == 0);
}

TEST_CASE("Fused 2-D assignments: transposes, scaled updates and sections in one exchange", "[mpi][assign][2d]") {
  mpi::communicator world;
  using D = Dist<Cyclic<>, Cyclic<>>;
  std::mt19937_64 rng(23);
  for (int k = 0; k < 10; ++k) {
    auto grid = [&] {
      const int size = 1 + static_cast<int>(rng() % static_cast<unsigned>(world.size()));
      const int rows = 1 + static_cast<int>(rng() % static_cast<unsigned>(size));
      return Grid{rows, size / rows};
    };
    auto dist = [&] { return D{Cyclic<>{static_cast<index_t>(1 + rng() % 6)}, Cyclic<>{static_cast<index_t>(1 + rng() % 6)}}; };
    const index_t m = static_cast<index_t>(1 + rng() % 30), n = static_cast<index_t>(1 + rng() % 30);
    DistArray<double, D> a(world, {m, n}, dist(), grid()), bt(world, {n, m}, dist(), grid());
    DistArray<std::complex<double>, D> z(world, {m, n}, dist(), grid()), zh(world, {n, m}, dist(), grid());
    DistArray<int, D> c(world, {m, n}, dist(), grid()), cs(world, {m, n}, dist(), grid());
    fill_nd(a, [](auto g) { return static_cast<double>(g[0] * 100 + g[1]); });
    fill_nd(bt, [](auto g) { return static_cast<double>(g[0] - g[1]); });
    fill_nd(z, [](auto g) { return std::complex<double>(static_cast<double>(g[0]), static_cast<double>(g[1])); });
    fill_nd(c, [](auto g) { return static_cast<int>(g[0] + 7 * g[1]); });
    fill_nd(cs, [](auto) { return -1; });
    const index_t half = m / 2;
    assign(bt <<= 2.0 * transpose(a) + -1.0 * bt, zh <<= conj_transpose(z),
           section(cs, std::pair{index_t{0}, half}, full_extent) <<= section(c, std::pair{m - half, m}, full_extent));
    bool ok = holds_nd(bt, [](auto g) { return 2.0 * static_cast<double>(g[1] * 100 + g[0]) - static_cast<double>(g[0] - g[1]); });
    ok = ok && holds_nd(zh, [](auto g) { return std::complex<double>(static_cast<double>(g[1]), -static_cast<double>(g[0])); });
    ok = ok && holds_nd(cs, [&](auto g) { return g[0] < half ? static_cast<int>(g[0] + m - half + 7 * g[1]) : -1; });
    REQUIRE(all_ok(world, ok));
  }
}

TEST_CASE("A fused round of k arrays sends one message per peer, as one array does", "[mpi][assign][messages]") {
  mpi::communicator world;
  const index_t n = 1 << 12;
  std::vector<DistArray<double, Block>> a;
  std::vector<DistArray<double, Cyclic<3>>> b;
  for (int k = 0; k < 8; ++k) {
    a.emplace_back(world, n);
    b.emplace_back(world, n);
    for (index_t l = 0; l < static_cast<index_t>(a[k].local().size()); ++l) a[k].local()[l] = static_cast<double>(k * n + a[k].global_index(l));
  }
  // One array: at most the plan's messages (none with the peers on this node when the arrays are
  // in shared memory, which copies from them).
  const auto one = make_plan(a[0], b[0], schedule::all_at_once);
  std::size_t sends = 0, recvs = 0;
  {
    auto h1 = start(b[0] <<= a[0]);
    sends = h1.messages_sent();
    recvs = h1.messages_received();
    CHECK(sends <= one.plan().only().sends.size());
    CHECK(recvs <= one.plan().only().recvs.size());
    if (!default_options().shared_memory) CHECK(sends == one.plan().only().sends.size());
  }
  auto h = start(b[0] <<= a[0], b[1] <<= a[1], b[2] <<= a[2], b[3] <<= a[3], b[4] <<= a[4], b[5] <<= a[5],
                 b[6] <<= a[6], b[7] <<= a[7]);
  REQUIRE(h.messages_sent() == sends);
  REQUIRE(h.messages_received() == recvs);
  h.wait();
  REQUIRE(h.done());
  bool ok = true;
  for (int k = 0; k < 8; ++k)
    for (index_t l = 0; l < static_cast<index_t>(b[k].local().size()); ++l)
      ok = ok && b[k].local()[l] == static_cast<double>(k * n + b[k].global_index(l));
  REQUIRE(all_ok(world, ok));
}

TEST_CASE("start, work, then test() until done or wait(); a repeated start plans nothing", "[mpi][assign][start]") {
  mpi::communicator world;
  DistArray<double, Cyclic<4>> a(world, 5000);
  DistArray<double, Block> b(world, 5000);
  DistArray<float, Cyclic<7>> c(world, 3000);
  DistArray<float, Cyclic<2>> d(world, 3000);
  for (index_t l = 0; l < static_cast<index_t>(a.local().size()); ++l) a.local()[l] = static_cast<double>(a.global_index(l));
  for (index_t l = 0; l < static_cast<index_t>(c.local().size()); ++l) c.local()[l] = static_cast<float>(c.global_index(l));
  std::size_t planned = 0;
  for (int round = 0; round < 4; ++round) {
    if (round == 1) planned = plans_built();
    auto h = start(b <<= a, d <<= 0.5f * c);
    // Work between start and completion that touches neither the sources nor the destinations.
    double work = 0;
    for (int i = 0; i < 100000; ++i) work += 1.0 / (1.0 + i);
    REQUIRE(work > 1);
    if (round % 2 == 0) {
      while (!h.test()) {
      }
    } else {
      h.wait();
    }
    REQUIRE(h.done());
    bool ok = true;
    for (index_t l = 0; l < static_cast<index_t>(b.local().size()); ++l) ok = ok && b.local()[l] == static_cast<double>(b.global_index(l));
    for (index_t l = 0; l < static_cast<index_t>(d.local().size()); ++l)
      ok = ok && d.local()[l] == 0.5f * static_cast<float>(d.global_index(l));
    REQUIRE(all_ok(world, ok));
    for (double& x : b.local()) x = -1;
    for (float& x : d.local()) x = -1;
  }
  REQUIRE(plans_built() == planned);
  // The destructor completes a handle never waited for.
  { auto h = start(b <<= a); }
  bool ok = true;
  for (index_t l = 0; l < static_cast<index_t>(b.local().size()); ++l) ok = ok && b.local()[l] == static_cast<double>(b.global_index(l));
  REQUIRE(all_ok(world, ok));
}

TEST_CASE("Wrong fused lists throw redist::error on every rank before data moves", "[mpi][assign][errors]") {
  mpi::communicator world;
  DistArray<double, Block> a(world, 40), b(world, 40), c(world, 41);
  DistArray<double, Cyclic<3>> e(world, 40);
  for (double& x : b.local()) x = 5;
  for (double& x : e.local()) x = 5;
  auto untouched = [&] {
    bool ok = true;
    for (double x : b.local()) ok = ok && x == 5;
    for (double x : e.local()) ok = ok && x == 5;
    return ok;
  };
  // One destination twice.
  REQUIRE(all_ok(world, test::throws_with([&] { assign(b <<= a, b <<= e); }, "each destination array at most once")));
  // A destination that another assignment reads.
  REQUIRE(all_ok(world, test::throws_with([&] { assign(e <<= b, b <<= a); }, "no destination to overlap a source")));
  // Sizes that differ.
  REQUIRE(all_ok(world, test::throws_with([&] { assign(e <<= a, c <<= b); }, "src.size() to equal dst.size()")));
  REQUIRE(all_ok(world, untouched()));
}

}  // namespace mpi_test_assign
