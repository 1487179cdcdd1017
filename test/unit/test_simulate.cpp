// Virtual-rank property tests: all P plans in one process, messages delivered in memory, checked against the oracle.
#include <cmath>
#include <random>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>
#include <catch2/catch.hpp>

#include <redist/dist/any.hpp>

#include "../support/oracle.hpp"
#include "../support/random_dists.hpp"
#include "../support/simulator.hpp"

// This file's names, apart from the other files of its program: meson compiles them together
// (unity build).
namespace unit_test_simulate {

using namespace redist;
namespace mp11 = boost::mp11;

using Dists1D = mp11::mp_list<Block, Cyclic<1>, Cyclic<3>, Cyclic<dynamic>, GenBlock>;
using Pairs1D = mp11::mp_product<mp11::mp_list, Dists1D, Dists1D>;

namespace {
template <class From, class To>
void simulate_case(index_t n, int nprocs, std::mt19937_64& rng) {
  const From df = redist::test::make_dist<From>(n, nprocs, rng);
  const To dt = redist::test::make_dist<To>(n, nprocs, rng);
  const typename From::mapping mf(df, n, nprocs);
  const typename To::mapping mt(dt, n, nprocs);
  const auto res = redist::test::simulate(mf, mt, redist::test::oracle(df, n, nprocs), redist::test::oracle(dt, n, nprocs));
  INFO("n = " << n << ", P = " << nprocs);
  INFO(res.failure);
  REQUIRE(res.ok);
  REQUIRE(res.max_steps <= 1);
  REQUIRE(res.unwalked == 0);  // every rank packs and unpacks along its walks
}
}  // namespace

TEMPLATE_LIST_TEST_CASE("Every 1-D pair is exact in the virtual-rank simulation", "[simulate][1d]", Pairs1D) {
  using From = mp11::mp_first<TestType>;
  using To = mp11::mp_second<TestType>;
  std::mt19937_64 rng(12345);
  SECTION("edge cases: n = 0, n < P, P = 1") {
    for (int nprocs : {1, 2, 3, 4, 7})
      for (index_t n : {0, 1, 2, 3, 5, 6, 13}) simulate_case<From, To>(n, nprocs, rng);
  }
  SECTION("random n in [0, 1e5], P in [1, 256]") {
    for (int t = 0; t < 12; ++t) {
      const int nprocs = 1 + static_cast<int>(rng() % 256);
      const index_t n = static_cast<index_t>(std::pow(10.0, std::uniform_real_distribution<double>(0, 5)(rng)));
      simulate_case<From, To>(n, nprocs, rng);
    }
  }
}

TEST_CASE("No message to self, one message per communicating pair, contiguous messages unpacked", "[simulate][plan]") {
  const Cyclic<3>::mapping from(Cyclic<3>{}, 1000, 4);
  const Block::mapping to(Block{}, 1000, 4);
  const auto o_from = redist::test::oracle(Cyclic<3>{}, 1000, 4), o_to = redist::test::oracle(Block{}, 1000, 4);
  for (int r = 0; r < 4; ++r) {
    const Plan p_whole = build_plan(from, to, r);
    const auto& p = p_whole.only();
    CHECK(p.sends.size() == 3);
    CHECK(p.recvs.size() == 3);
    index_t local = 0;
    for (index_t g : o_from.globals[r]) local += o_to.owner[g] == r;
    CHECK(p.local.size == local);
    for (const Message& m : p.sends) {
      CHECK(m.peer != r);
      // What CYCLIC(3) sends to one BLOCK is consecutive in its local storage: sent unpacked.
      CHECK(m.direct);
    }
    for (const Message& m : p.recvs) CHECK(!m.direct);  // but interleaved on the BLOCK receiver
  }
  // GEN_BLOCK -> BLOCK: every message is one contiguous run on both sides: no packing at all.
  const GenBlock::mapping g(GenBlock{100, 0, 300, 600}, 1000, 4);
  for (int r = 0; r < 4; ++r) {
    const Plan p_whole = build_plan(g, to, r);
    const auto& p = p_whole.only();
    for (const Message& m : p.sends) CHECK(m.direct);
    for (const Message& m : p.recvs) CHECK(m.direct);
    CHECK(workspace_need(p_whole, index_t{1} << 30).buffer == 0);
  }
}

namespace {
/// A random AnyDist for n elements on P processes: Block, Cyclic(k), GenBlock (empty parts
/// included) or, on one process, Collapsed; and its oracle (the chosen distribution's).
std::pair<AnyDist, redist::test::Layout> random_any(index_t n, int nprocs, std::mt19937_64& rng) {
  switch (rng() % (nprocs == 1 ? 4 : 3)) {
    case 0: return {AnyDist{Block{}}, redist::test::oracle(Block{}, n, nprocs)};
    case 1: {
      const Cyclic<> d = redist::test::make_dist<Cyclic<>>(n, nprocs, rng);
      return {AnyDist{d}, redist::test::oracle(d, n, nprocs)};
    }
    case 2: {
      const GenBlock d = redist::test::make_dist<GenBlock>(n, nprocs, rng);
      return {AnyDist{d}, redist::test::oracle(d, n, nprocs)};
    }
    default: return {AnyDist{Collapsed{}}, redist::test::oracle(Block{}, n, 1)};
  }
}
}  // namespace

TEST_CASE("AnyDist answers as the distribution it holds, and its pairs are exact in the simulation", "[simulate][any]") {
  std::mt19937_64 rng(2026);
  for (int t = 0; t < 300; ++t) {
    const int nprocs = 1 + static_cast<int>(rng() % (t < 100 ? 7 : 64));
    const index_t n = static_cast<index_t>(rng() % (t < 100 ? 40 : 5000));
    const auto [from, src] = random_any(n, nprocs, rng);
    const auto [to, dst] = random_any(n, nprocs, rng);
    const AnyDist::mapping mf(from, n, nprocs), mt(to, n, nprocs);
    INFO("n = " << n << ", P = " << nprocs << ", kinds " << from.get().index() << " -> " << to.get().index());
    // Every element where the oracle puts it, and back.
    for (int p = 0; p < nprocs; ++p) {
      REQUIRE(mf.local_size(p) == static_cast<index_t>(src.globals[p].size()));
      for (std::size_t l = 0; l < src.globals[p].size(); ++l) {
        const index_t g = src.globals[p][l];
        REQUIRE(mf.owner(g) == p);
        REQUIRE(mf.local_index(g) == static_cast<index_t>(l));
        REQUIRE(mf.global_index(p, static_cast<index_t>(l)) == g);
      }
    }
    const auto res = redist::test::simulate(mf, mt, src, dst);
    INFO(res.failure);
    REQUIRE(res.ok);
  }
}

}  // namespace unit_test_simulate
