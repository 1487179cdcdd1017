// Virtual-rank property tests: all P plans in one process, messages delivered in memory, checked against the oracle.
#include <cmath>
#include <random>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>
#include <catch2/catch.hpp>

#include "../support/oracle.hpp"
#include "../support/random_dists.hpp"
#include "../support/simulator.hpp"

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
    const Plan p = build_plan(from, to, r);
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
    CHECK(p.send_scratch == 0);
  }
  // GEN_BLOCK -> BLOCK: every message is one contiguous run on both sides: no packing at all.
  const GenBlock::mapping g(GenBlock{100, 0, 300, 600}, 1000, 4);
  for (int r = 0; r < 4; ++r) {
    const Plan p = build_plan(g, to, r);
    for (const Message& m : p.sends) CHECK(m.direct);
    for (const Message& m : p.recvs) CHECK(m.direct);
    CHECK(p.send_scratch == 0);
    CHECK(p.recv_scratch == 0);
  }
}
