// Replicated and partial placements (issue "Replicated and partial placements"): a dimension every
// process of its grid dimension holds whole, the same values or partial ones. Virtual-rank property tests against the brute-force oracle
// (extended with copies: every holder of an element is checked, and written exactly once), 1-D to
// 3-D, with every other distribution; and the plans' messages: nothing a receiver holds moves,
// and receivers spread over the copies.
#include <array>
#include <cstdint>
#include <map>
#include <random>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>
#include <catch2/catch.hpp>

#include <redist/dist/any.hpp>
#include <redist/dist/block.hpp>
#include <redist/dist/collapsed.hpp>
#include <redist/dist/cyclic.hpp>
#include <redist/dist/dist.hpp>
#include <redist/dist/gen_block.hpp>
#include <redist/dist/partial.hpp>
#include <redist/dist/replicated.hpp>
#include <redist/plan/plan.hpp>
#include <redist/plan/stepwise.hpp>
#include <redist/plan/transfers.hpp>
#include <redist/plan/collective.hpp>
#include <redist/runtime/pack.hpp>

#include "../support/oracle_nd.hpp"
#include "../support/random_dists.hpp"
#include "../support/random_grid.hpp"
#include "../support/simulator.hpp"

// This file's names, apart from the other files of its program: meson compiles them together
// (unity build).
namespace unit_test_replicated {

using namespace redist;
using redist::test::BuildGridPlan;
using redist::test::PlanUnder;
using redist::test::random_case;
namespace mp11 = boost::mp11;

namespace {

template <class A, class B>
test::SimResult check_pair(const A& a, const B& b) {
  const auto res = test::simulate(a.mapping, b.mapping, a.layout, b.layout, {}, BuildGridPlan{});
  INFO(res.failure);
  REQUIRE(res.ok);
  REQUIRE(res.unwalked == 0);
  return res;
}

/// `trials` random layouts of the Dist types A and B (on random grids of at most 40 ranks, extents
/// below max_extent), each pair exact in the simulation (check_pair).
template <class A, class B, std::size_t N>
void random_pairs(std::uint64_t seed, int trials, index_t max_extent) {
  std::mt19937_64 rng(seed);
  for (int t = 0; t < trials; ++t) {
    const int nprocs = 1 + static_cast<int>(rng() % 40);
    std::array<index_t, N> ext{};
    for (index_t& e : ext) e = static_cast<index_t>(rng() % static_cast<std::uint64_t>(max_extent));
    auto a = [&]<class... D>(mp11::mp_list<D...>*) { return random_case<D...>(ext, nprocs, rng); }(
        static_cast<mp11::mp_rename<A, mp11::mp_list>*>(nullptr));
    auto b = [&]<class... D>(mp11::mp_list<D...>*) { return random_case<D...>(ext, nprocs, rng); }(
        static_cast<mp11::mp_rename<B, mp11::mp_list>*>(nullptr));
    INFO("trial " << t << ", P = " << nprocs << ", extents " << ext[0] << " x ... (" << N << "-D)");
    check_pair(a, b);
  }
}

/// The remote messages of every rank's plan, as (sender, receiver) -> elements.
template <class Plans>
std::map<std::pair<int, int>, index_t> traffic(const Plans& plans) {
  std::map<std::pair<int, int>, index_t> t;
  for (const auto& p : plans)
    for (const auto& st : p.stages)
      for (const Message& m : st.sends) t[{p.rank, m.peer}] += m.size;
  return t;
}

}  // namespace

TEST_CASE("Replicated's mapping: every process holds every element at its own index", "[replicated]") {
  const Replicated::mapping m(Replicated{}, 10, 3);
  for (int p = 0; p < 3; ++p) {
    CHECK(m.local_size(p) == 10);
    const LddSet s = m.ldds(p);
    REQUIRE(s.size() == 1);
    CHECK(*s.begin() == Ldd{0, 10, 10, 1, 0});
    CHECK(m.global_index(p, 7) == 7);
  }
  CHECK(m.owner(9) == 0);
  CHECK(m.local_index(9) == 9);
  CHECK(m.local_size(3) == 0);
  CHECK(Replicated::mapping(Replicated{}, 0, 2).ldds(1).size() == 0);
  CHECK_THROWS_WITH(Replicated::mapping(Replicated{}, -1, 2), Catch::Contains("requires n to be >= 0"));
}

using Dists1D = mp11::mp_list<Block, Cyclic<dynamic>, GenBlock, Replicated>;
using Pairs1D = mp11::mp_product<mp11::mp_list, Dists1D, Dists1D>;

TEMPLATE_LIST_TEST_CASE("1-D pairs with Replicated on either side are exact in the simulation", "[replicated][simulate][1d]",
                        Pairs1D) {
  using From = mp11::mp_first<TestType>;
  using To = mp11::mp_second<TestType>;
  if constexpr (!std::is_same_v<From, Replicated> && !std::is_same_v<To, Replicated>) return;
  std::mt19937_64 rng(33);
  for (int t = 0; t < 40; ++t) {
    const int nprocs = 1 + static_cast<int>(rng() % 24);
    const index_t n = static_cast<index_t>(rng() % 200);
    const From df = test::make_dist<From>(n, nprocs, rng);
    const To dt = test::make_dist<To>(n, nprocs, rng);
    const typename From::mapping mf(df, n, nprocs);
    const typename To::mapping mt(dt, n, nprocs);
    INFO("n = " << n << ", P = " << nprocs);
    const auto res = test::simulate(mf, mt, test::oracle(df, n, nprocs), test::oracle(dt, n, nprocs));
    INFO(res.failure);
    REQUIRE(res.ok);
    REQUIRE(res.unwalked == 0);
    // Replicated to anything on the same ranks: every rank holds what it needs.
    if (std::is_same_v<From, Replicated>) CHECK(res.messages == 0);
    // Anything to Replicated: every rank receives all it does not hold, once.
    if (std::is_same_v<To, Replicated> && !std::is_same_v<From, Replicated>) {
      index_t expected = 0;
      for (int p = 0; p < nprocs; ++p) expected += n - mf.local_size(p);
      CHECK(res.moved == expected);
    }
  }
}

TEST_CASE("AnyDist holding Replicated (the C interface's REDIST_REPLICATED) reads one copy, found at run time",
          "[replicated][any]") {
  std::mt19937_64 rng(35);
  for (int t = 0; t < 30; ++t) {
    const int nprocs = 1 + static_cast<int>(rng() % 12);
    const index_t n = static_cast<index_t>(rng() % 100);
    const AnyDist rep{Replicated{}}, cyc{Cyclic<>{1 + static_cast<index_t>(rng() % 5)}};
    const AnyDist::mapping mr(rep, n, nprocs), mc(cyc, n, nprocs);
    const auto o_rep = test::oracle(Replicated{}, n, nprocs);
    const auto o_cyc = test::oracle(std::get<Cyclic<>>(cyc.get()), n, nprocs);
    INFO("n = " << n << ", P = " << nprocs);
    const auto out = test::simulate(mr, mc, o_rep, o_cyc);
    INFO(out.failure);
    REQUIRE(out.ok);
    CHECK(out.messages == 0);
    const auto in = test::simulate(mc, mr, o_cyc, o_rep);
    INFO(in.failure);
    REQUIRE(in.ok);
  }
}

using Dists2D = mp11::mp_list<Dist<Block, Replicated>, Dist<Replicated, Cyclic<>>, Dist<Replicated, Replicated>,
                              Dist<GenBlock, Replicated>, Dist<Cyclic<>, Block>, Dist<Collapsed, Replicated>>;
using Pairs2D = mp11::mp_product<mp11::mp_list, Dists2D, Dists2D>;

TEMPLATE_LIST_TEST_CASE("2-D pairs with Replicated dimensions are exact in the simulation", "[replicated][simulate][2d]",
                        Pairs2D) {
  random_pairs<mp11::mp_first<TestType>, mp11::mp_second<TestType>, 2>(2033, 10, 30);
}

using Dists3D = mp11::mp_list<Dist<Block, Replicated, Cyclic<>>, Dist<Replicated, Cyclic<>, GenBlock>,
                              Dist<Cyclic<>, Block, Replicated>>;
using Pairs3D = mp11::mp_product<mp11::mp_list, Dists3D, Dists3D>;

TEMPLATE_LIST_TEST_CASE("3-D pairs with Replicated dimensions are exact in the simulation", "[replicated][simulate][3d]",
                        Pairs3D) {
  random_pairs<mp11::mp_first<TestType>, mp11::mp_second<TestType>, 3>(3033, 6, 12);
}

namespace {
/// A layout on a grid of the first P ranks, row-major grid, column-major storage, no offsets.
template <class D>
auto on_grid(const D& dist, std::array<index_t, 2> ext, std::array<int, 2> grid, int nprocs) {
  const test::GridSpec<2> s{ext, grid, Order::row_major, 0, {0, 0}, Order::column_major, 0, nprocs, {}};
  return test::bind_case(dist, s, std::index_sequence<0, 1>{});
}
}  // namespace

TEST_CASE("What a receiver holds as a copy stays: (Block, Replicated) -> (Block, Block) on one grid moves nothing",
          "[replicated][messages]") {
  const std::array<index_t, 2> ext{37, 29};
  const auto a = on_grid(Dist<Block, Replicated>{}, ext, {4, 2}, 8);
  const auto b = on_grid(Dist<Block, Block>{}, ext, {4, 2}, 8);
  CHECK(check_pair(a, b).messages == 0);
  const auto c = on_grid(Dist<Replicated, Replicated>{}, ext, {4, 2}, 8);
  CHECK(check_pair(c, b).messages == 0);
  CHECK(check_pair(c, a).messages == 0);
  // And the other way, every grid column receives the row blocks' columns it lacks: from the one
  // rank of its grid row that holds them (a gather along the grid's rows).
  const auto back = check_pair(b, a);
  CHECK(back.messages == 8);
  CHECK(back.moved == ext[0] * ext[1]);
}

TEST_CASE("Receivers outside the copies' grid spread over the copies", "[replicated][messages]") {
  // (Replicated, Replicated) on the grid 1 x 2 of ranks 0-1 -> (Block, Block) on 2 x 3 of ranks 0-5:
  // ranks 0 and 1 read their own copy; ranks 2-5 read copy r mod 2, so each copy serves two of them.
  const std::array<index_t, 2> ext{20, 30};
  const auto a = on_grid(Dist<Replicated, Replicated>{}, ext, {1, 2}, 6);
  const auto b = on_grid(Dist<Block, Block>{}, ext, {2, 3}, 6);
  std::vector<decltype(build_grid_plan(a.mapping, b.mapping, 0))> plans;
  for (int r = 0; r < 6; ++r) plans.push_back(build_grid_plan(a.mapping, b.mapping, r));
  const auto res = test::simulate_plans(plans, a.layout, b.layout);
  INFO(res.failure);
  REQUIRE(res.ok);
  const auto t = traffic(plans);
  CHECK(t.size() == 4);
  for (int r = 2; r < 6; ++r) CHECK(t.count({r % 2, r}) == 1);
  CHECK(plans[0].stages[0].local.size == 10 * 10);
  CHECK(plans[1].stages[0].local.size == 10 * 10);
}

namespace {
/// The elements receiver r gets from a rank of another node while a copy of them is held on r's
/// own node (the copies of sender s's elements: the grid coordinates that differ from s's only
/// along a:s dimensions in copies), over every rank's plan; and the elements sent between nodes.
template <class M, class Plans>
std::pair<index_t, index_t> off_node_reads(const M& m, const Plans& plans, const std::vector<int>& node) {
  index_t avoidable = 0, between = 0;
  constexpr std::size_t N = M::rank();
  for (const auto& p : plans)
    for (const Message& msg : p.stages[0].recvs) {
      const int r = p.rank, s = msg.peer;
      if (node[s] == node[r]) continue;
      between += msg.size;
      const auto cs = m.coords_of(s);
      REQUIRE(cs);
      // Every copy of s's elements, by an odometer over the copy dimensions.
      auto c = *cs;
      for (std::size_t d = 0; d < N; ++d)
        if (redist::detail::held_in_copies(m, d)) c[d] = 0;
      bool on_node = false;
      for (;;) {
        on_node = on_node || node[m.grid().rank_of(c)] == node[r];
        std::size_t d = 0;
        for (; d < N; ++d)
          if (redist::detail::held_in_copies(m, d) && ++c[d] < m.grid().extent(d)) break;
          else if (redist::detail::held_in_copies(m, d)) c[d] = 0;
        if (d == N) break;
      }
      if (on_node) avoidable += msg.size;
    }
  return {avoidable, between};
}

/// Every rank's plan of a -> b, built with the nodes `node` known (detail::replica_nodes_scope)
/// or not (an empty node).
template <class A, class B>
auto plans_by_nodes(const A& a, const B& b, int nprocs, const std::vector<int>& node) {
  const redist::detail::replica_nodes_scope scope(node);
  std::vector<decltype(build_grid_plan(a.mapping, b.mapping, 0))> plans;
  for (int r = 0; r < nprocs; ++r) plans.push_back(build_grid_plan(a.mapping, b.mapping, r));
  return plans;
}
}  // namespace

TEST_CASE("With the nodes known, a reader takes a copy on its own node where there is one", "[replicated][nodes]") {
  // (Block, Replicated) on 4 x 2 (row block i held by ranks 2i and 2i+1) -> (Replicated, Block) on
  // 1 x 8, on nodes of 3 ranks: row block 1's copies are ranks 2 (node 0) and 3 (node 1). Without
  // the nodes, rank 1 (coordinates (0, 1)) reads it from rank 3, on the other node; with them, from
  // rank 2 on its own.
  const std::array<index_t, 2> ext{40, 9};
  const auto a = on_grid(Dist<Block, Replicated>{}, ext, {4, 2}, 8);
  const auto b = on_grid(Dist<Replicated, Block>{}, ext, {1, 8}, 8);
  std::vector<int> node(8);
  for (int r = 0; r < 8; ++r) node[r] = r / 3;
  const auto blind = plans_by_nodes(a, b, 8, {});
  const auto seeing = plans_by_nodes(a, b, 8, node);
  for (const auto* plans : {&blind, &seeing}) {
    const auto res = test::simulate_plans(*plans, a.layout, b.layout);
    INFO(res.failure);
    REQUIRE(res.ok);
  }
  const auto [avoidable_blind, between_blind] = off_node_reads(a.mapping, blind, node);
  const auto [avoidable, between] = off_node_reads(a.mapping, seeing, node);
  CHECK(avoidable_blind > 0);
  CHECK(avoidable == 0);
  CHECK(between < between_blind);
  CHECK(traffic(blind).count({3, 1}) == 1);
  CHECK(traffic(seeing).count({3, 1}) == 0);
  CHECK(traffic(seeing).count({2, 1}) == 1);
  // What a rank holds still stays: the local copies are the same.
  for (int r = 0; r < 8; ++r) CHECK(seeing[r].stages[0].local.size == blind[r].stages[0].local.size);
}

TEMPLATE_LIST_TEST_CASE("With random nodes, every pair with copies is exact and reads no copy across nodes it has on its own",
                        "[replicated][nodes][simulate]", Pairs2D) {
  using A = mp11::mp_first<TestType>;
  using B = mp11::mp_second<TestType>;
  std::mt19937_64 rng(4051);
  for (int t = 0; t < 8; ++t) {
    const int nprocs = 1 + static_cast<int>(rng() % 24);
    const std::array<index_t, 2> ext{static_cast<index_t>(rng() % 30), static_cast<index_t>(rng() % 30)};
    auto a = [&]<class... D>(mp11::mp_list<D...>*) { return random_case<D...>(ext, nprocs, rng); }(
        static_cast<mp11::mp_rename<A, mp11::mp_list>*>(nullptr));
    auto b = [&]<class... D>(mp11::mp_list<D...>*) { return random_case<D...>(ext, nprocs, rng); }(
        static_cast<mp11::mp_rename<B, mp11::mp_list>*>(nullptr));
    // Nodes of random sizes, ranks dealt to them at random (not only consecutive runs).
    const int nodes = 1 + static_cast<int>(rng() % 4);
    std::vector<int> node(static_cast<std::size_t>(nprocs));
    for (int& k : node) k = static_cast<int>(rng() % static_cast<std::uint64_t>(nodes));
    INFO("trial " << t << ", P = " << nprocs << ", " << nodes << " nodes, extents " << ext[0] << " x " << ext[1]);
    const auto plans = plans_by_nodes(a, b, nprocs, node);
    const auto res = test::simulate_plans(plans, a.layout, b.layout);
    INFO(res.failure);
    REQUIRE(res.ok);
    CHECK(off_node_reads(a.mapping, plans, node).first == 0);
    // The transfer list (the cost model's, the global schedules') is the plans' table under the
    // same nodes.
    const redist::detail::replica_nodes_scope scope(node);
    CHECK(test::transfers_are_plans(a.mapping, b.mapping, nprocs));
  }
}

using PartialDsts = mp11::mp_list<Dist<Block, Partial<>>, Dist<Partial<max_op>, Cyclic<>>, Dist<Partial<>, Partial<>>>;
using PartialPairs = mp11::mp_product<mp11::mp_list, Dists2D, PartialDsts>;

TEMPLATE_LIST_TEST_CASE("Into partial values: process 0 of each Partial dimension receives, once, and no other",
                        "[partial][simulate][2d]", PartialPairs) {
  random_pairs<mp11::mp_first<TestType>, mp11::mp_second<TestType>, 2>(2034, 10, 30);
}

TEST_CASE("1-D Block -> Partial: every rank but 0 sends its block to rank 0, and nothing else moves", "[partial][messages]") {
  for (int nprocs : {1, 2, 5, 8})
    for (index_t n : {index_t{0}, index_t{3}, index_t{40}}) {
      const Block::mapping from(Block{}, n, nprocs);
      const Partial<>::mapping to(Partial<>{}, n, nprocs);
      const auto res = test::simulate(from, to, test::oracle(Block{}, n, nprocs), test::oracle(Partial<>{}, n, nprocs));
      INFO("P = " << nprocs << ", n = " << n << ": " << res.failure);
      REQUIRE(res.ok);
      index_t senders = 0;
      for (int p = 1; p < nprocs; ++p) senders += from.local_size(p) > 0 ? 1 : 0;
      CHECK(res.messages == senders);
      CHECK(res.moved == n - from.local_size(0));
    }
}


namespace {
/// The reduction wires of every rank's plan run in memory as MPI defines them, checked against the
/// oracle: source rank s holds, at each place of global id g, the partial value 1000 g + s (exact
/// in doubles); every destination place of g must hold the sum over the places of g in every
/// source (its holders). Every rank's part must be a reduction of kind `expect`
/// (runtime::detail::reduces), the groups (a rank and its peers) the same on each member, and the
/// counts agreed; then per member m: an all-reduce folds every member's contribution (its local
/// copy, packed), a reduce-scatter every member's part for m (its send to m, or m's local copy),
/// element by element, and m unpacks the result through its local copy.
template <class PlanT>
void check_reduction(const std::vector<PlanT>& plans, const test::Layout& src, const test::Layout& dst, Wire expect) {
  const auto P = plans.size();
  for (const auto& p : plans) {
    REQUIRE(p.direct());
    REQUIRE(p.stages.size() == 1);
    REQUIRE(redist::detail::reduces(p.stages[0]) == expect);
  }
  std::vector<std::vector<double>> in(P), out(P);
  std::map<index_t, double> sum;
  for (std::size_t r = 0; r < P; ++r) {
    in[r].assign(src.globals[r].size(), 0.0);
    for (std::size_t l = 0; l < in[r].size(); ++l) {
      const index_t g = src.globals[r][l];
      if (g < 0) continue;
      in[r][l] = 1000.0 * static_cast<double>(g) + static_cast<double>(r);
      sum[g] += in[r][l];
    }
    out[r].assign(dst.globals[r].size(), -1.0);
  }
  auto members_of = [&](std::size_t r) {
    std::vector<int> m{static_cast<int>(r)};
    for (const Message& x : plans[r].stages[0].sends) m.push_back(x.peer);
    std::sort(m.begin(), m.end());
    return m;
  };
  auto packed = [&](std::size_t s, auto runs, index_t size) {
    std::vector<double> v(static_cast<std::size_t>(size));
    runtime::pack(runs, in[s].data(), v.data());
    return v;
  };
  for (std::size_t m = 0; m < P; ++m) {
    const auto& st = plans[m].stages[0];
    const std::vector<int> group = members_of(m);
    std::vector<double> result(static_cast<std::size_t>(st.local.size), 0.0);
    for (int q : group) {
      const auto s = static_cast<std::size_t>(q);
      REQUIRE(members_of(s) == group);
      const auto& sq = plans[s].stages[0];
      std::vector<double> part;
      if (expect == Wire::allreduce || s == m) {
        part = packed(s, sq.runs_of(sq.local), sq.local.size);
      } else {
        for (const Message& x : sq.sends)
          if (x.peer == static_cast<int>(m)) part = packed(s, sq.runs_of(x), x.size);
      }
      REQUIRE(part.size() == result.size());
      for (std::size_t k = 0; k < part.size(); ++k) result[k] += part[k];
    }
    runtime::unpack(st.runs_of(st.local), result.data(), out[m].data());
  }
  for (std::size_t r = 0; r < P; ++r)
    for (std::size_t l = 0; l < out[r].size(); ++l) {
      const index_t g = dst.globals[r][l];
      if (g < 0) continue;
      INFO("rank " << r << ", place " << l << ", element " << g);
      REQUIRE(out[r][l] == sum[g]);
    }
}
}  // namespace

TEST_CASE("Partial values as one reduction per group: every place folds every holder's value (simulated MPI semantics)",
          "[partial][reduce][simulate]") {
  std::mt19937_64 rng(2026);
  SECTION("1-D: Partial -> Block and GenBlock (reduce-scatter), -> Replicated (all-reduce)") {
    for (int t = 0; t < 60; ++t) {
      const int nprocs = 2 + static_cast<int>(rng() % 23);
      const index_t n = static_cast<index_t>(rng() % 400);
      INFO("n = " << n << ", P = " << nprocs);
      const Partial<>::mapping from(Partial<>{}, n, nprocs);
      const test::Layout src = test::oracle(Replicated{}, n, nprocs);  // every rank holds every element
      const auto plans_to = [&](const auto& to) { return test::all_rank_plans(from, to, test::BuildPlan{}); };
      // Into Block: a reduce-scatter where every rank holds a block; a rank without one is no
      // group's member both ways (messages fold).
      const Block::mapping block(Block{}, n, nprocs);
      bool every = true;
      for (int p = 0; p < nprocs; ++p) every = every && block.local_size(p) > 0;
      if (every) check_reduction(plans_to(block), src, test::oracle(Block{}, n, nprocs), Wire::reduce_scatter);
      if (n > 0) {
        const Replicated::mapping all(Replicated{}, n, nprocs);
        check_reduction(plans_to(all), src, test::oracle(Replicated{}, n, nprocs), Wire::allreduce);
      }
      // GenBlock with every part nonempty.
      if (n >= nprocs) {
        std::vector<index_t> sizes(static_cast<std::size_t>(nprocs), 1);
        for (index_t k = nprocs; k < n; ++k) ++sizes[rng() % sizes.size()];
        const GenBlock gb(sizes);
        check_reduction(plans_to(GenBlock::mapping(gb, n, nprocs)), src, test::oracle(gb, n, nprocs), Wire::reduce_scatter);
      }
    }
  }
  SECTION("2-D: (Block, Partial) on r x c into (Block, Block) and (Block, Replicated), any storage order and padding") {
    using From = Dist<Block, Partial<>>;
    for (int t = 0; t < 40; ++t) {
      const int r = 1 + static_cast<int>(rng() % 4), c = 2 + static_cast<int>(rng() % 4), nprocs = r * c;
      const std::array<index_t, 2> ext{static_cast<index_t>(rng() % 40), static_cast<index_t>(c + rng() % 40)};
      const Order order = rng() % 2 == 0 ? Order::column_major : Order::row_major;
      const index_t pad = static_cast<index_t>(rng() % 3);
      auto spec = [&](index_t ld) {
        test::GridSpec<2> s;
        s.extents = ext;
        s.grid = {r, c};
        s.storage = order;
        s.ld = ld;
        s.nprocs = nprocs;
        return s;
      };
      // The padding: beyond the larger local extent of the storage's inner dimension.
      const std::size_t inner = order == Order::column_major ? 0 : 1;
      const int along = inner == 0 ? r : c;
      const index_t ld = pad == 0 ? 0 : (ext[inner] + along - 1) / along + pad;
      INFO("grid " << r << " x " << c << ", extents " << ext[0] << " x " << ext[1] << ", ld " << ld);
      const From::mapping from(From{}, ext, Grid{r, c}, {0, 0}, Storage{order, ld}, nprocs);
      const test::Layout src = test::oracle_nd(spec(ld), {test::oracle(Block{}, ext[0], r), test::oracle(Replicated{}, ext[1], c)});
      bool rows = true;  // every grid row holds rows (else its ranks have nothing: no reduction there)
      for (int p = 0; p < r; ++p) rows = rows && Block::mapping(Block{}, ext[0], r).local_size(p) > 0;
      if (!rows) continue;
      using ToB = Dist<Block, Block>;
      const ToB::mapping tb(ToB{}, ext, Grid{r, c}, {0, 0}, Storage{order, ld}, nprocs);
      bool cols = true;
      for (int q = 0; q < c; ++q) cols = cols && Block::mapping(Block{}, ext[1], c).local_size(q) > 0;
      if (cols)
        check_reduction(test::all_rank_plans(from, tb, BuildGridPlan{}), src,
                        test::oracle_nd(spec(ld), {test::oracle(Block{}, ext[0], r), test::oracle(Block{}, ext[1], c)}),
                        Wire::reduce_scatter);
      using ToR = Dist<Block, Replicated>;
      const ToR::mapping tr(ToR{}, ext, Grid{r, c}, {0, 0}, Storage{order, ld}, nprocs);
      check_reduction(test::all_rank_plans(from, tr, BuildGridPlan{}), src,
                      test::oracle_nd(spec(ld), {test::oracle(Block{}, ext[0], r), test::oracle(Replicated{}, ext[1], c)}),
                      Wire::allreduce);
    }
  }
  SECTION("No reduction: a Partial source into Cyclic, or a Block source") {
    const int nprocs = 4;
    const Partial<>::mapping from(Partial<>{}, 100, nprocs);
    const Cyclic<>::mapping cyc(Cyclic<>(3), 100, nprocs);
    for (const auto& p : test::all_rank_plans(from, cyc, test::BuildPlan{}))
      CHECK(redist::detail::reduces(p.stages[0]) == Wire::point_to_point);
    const Block::mapping blk(Block{}, 100, nprocs);
    const Replicated::mapping all(Replicated{}, 100, nprocs);
    // Block -> Replicated gathers: every rank sends its block, but receives others' into other places.
    for (const auto& p : test::all_rank_plans(blk, all, test::BuildPlan{}))
      CHECK(redist::detail::reduces(p.stages[0]) == Wire::point_to_point);
  }
}

TEST_CASE("grid_transfers of a source in copies is its plans' table; caterpillar and relative-group schedules are exact",
          "[replicated][schedule]") {
  std::mt19937_64 rng(79);
  const test::SimChecks strict{true, true};
  for (int t = 0; t < 30; ++t) {
    const int nprocs = 1 + static_cast<int>(rng() % 20);
    const std::array<index_t, 2> ext{static_cast<index_t>(1 + rng() % 25), static_cast<index_t>(1 + rng() % 25)};
    auto a = random_case<Replicated, Cyclic<>>(ext, nprocs, rng);
    auto b = random_case<Block, Replicated>(ext, nprocs, rng);
    INFO("trial " << t << ", P = " << nprocs);
    CHECK(test::transfers_are_plans(a.mapping, b.mapping, nprocs));
    const auto cat = test::simulate(a.mapping, b.mapping, a.layout, b.layout, strict, PlanUnder<schedule::caterpillar_t>{});
    INFO(cat.failure);
    REQUIRE(cat.ok);
    const auto rg = test::simulate(a.mapping, b.mapping, a.layout, b.layout, strict, PlanUnder<schedule::relative_group_t>{});
    INFO(rg.failure);
    REQUIRE(rg.ok);
  }
}

}  // namespace unit_test_replicated
