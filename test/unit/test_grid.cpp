// N-D layouts on process grids: the seed 003 examples, and virtual-rank property tests of random 2-D and 3-D redistributions against the brute-force oracle.
#include <algorithm>
#include <array>
#include <numeric>
#include <random>
#include <span>
#include <map>
#include <set>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>
#include <catch2/catch.hpp>

#include <redist/dist/block.hpp>
#include <redist/dist/collapsed.hpp>
#include <redist/dist/cyclic.hpp>
#include <redist/dist/dist.hpp>
#include <redist/dist/gen_block.hpp>
#include <redist/plan/automatic.hpp>
#include <redist/plan/plan.hpp>
#include <redist/plan/stepwise.hpp>
#include <redist/plan/transfers.hpp>
#include <redist/runtime/pack.hpp>

#include "../support/oracle_nd.hpp"
#include "../support/random_dists.hpp"
#include "../support/random_grid.hpp"
#include "../support/simulator.hpp"

// This file's names, apart from the other files of its program: meson compiles them together
// (unity build).
namespace unit_test_grid {

using namespace redist;
using redist::test::bind_case;
using redist::test::BuildGridPlan;
using redist::test::PlanUnder;
using redist::test::random_case;
namespace mp11 = boost::mp11;

namespace {

template <class A, class B>
void check_pair(const A& a, const B& b) {
  const auto res = test::simulate(a.mapping, b.mapping, a.layout, b.layout, {}, BuildGridPlan{});
  INFO(res.failure);
  REQUIRE(res.ok);
  REQUIRE(res.unwalked == 0);  // every rank packs and unpacks along its walks
}

}  // namespace

TEST_CASE("Seed 003 Fig. 10: (BLOCK, BLOCK) on 2x4 -> 4x2, COM = COM1 AND COM2", "[grid][seed003]") {
  // COM[4 i1 + i2, 2 j1 + j2] = COM1[i1, j1] && COM2[i2, j2]: dimension 1 goes from 2 to 4 blocks
  // (source block i1 covers target blocks 2 i1, 2 i1 + 1), dimension 2 from 4 to 2 (source
  // blocks 2 j2, 2 j2 + 1 make target block j2). Grids number ranks row-major, as the paper does.
  using D = Dist<Block, Block>;
  const D::mapping from(D{}, {16, 16}, Grid{2, 4}, {0, 0}, Storage{}, 8);
  const D::mapping to(D{}, {16, 16}, Grid{4, 2}, {0, 0}, Storage{}, 8);
  for (int i = 0; i < 8; ++i) {
    const int i1 = i / 4, i2 = i % 4;
    const GridPlan p_whole = build_grid_plan(from, to, i);
    const auto& p = p_whole.only();
    std::set<int> targets;
    for (const Message& m : p.sends) targets.insert(m.peer);
    if (p.local.size > 0) targets.insert(i);
    std::set<int> expected;
    for (int j1 = 0; j1 < 4; ++j1)
      for (int j2 = 0; j2 < 2; ++j2)
        if (j1 / 2 == i1 && i2 / 2 == j2) expected.insert(2 * j1 + j2);
    CHECK(targets == expected);
    // Each message is a 4 x 4 block: rows j1's 4 rows, columns i2's 4 columns.
    for (const Message& m : p.sends) CHECK(m.size == 16);
  }
  const test::Layout a = bind_case(D{}, test::GridSpec<2>{{16, 16}, {2, 4}, Order::row_major, 0, {0, 0}, Order::column_major, 0, 8, {}},
                             std::index_sequence<0, 1>{}).layout;
  const test::Layout b = bind_case(D{}, test::GridSpec<2>{{16, 16}, {4, 2}, Order::row_major, 0, {0, 0}, Order::column_major, 0, 8, {}},
                             std::index_sequence<0, 1>{}).layout;
  const auto res = test::simulate(from, to, a, b, {}, BuildGridPlan{});
  INFO(res.failure);
  CHECK(res.ok);
  CHECK(res.messages == 12);  // 8 sources x 2 targets, 4 of them local (i == 2 j1 + j2 for i = 0, 3, 4, 7)
}

TEST_CASE("Seed 003 Fig. 3: (BLOCK, *) on 4x1 -> (BLOCK, BLOCK) on 2x2", "[grid][seed003]") {
  // Source P_i owns rows [4i, 4i+4) of a 16 x 16 array; target (j1, j2) owns rows [8 j1, 8 j1 + 8)
  // and columns [8 j2, 8 j2 + 8): P_i sends to (i / 2, 0) and (i / 2, 1), 4 x 8 each.
  using S = Dist<Block, Collapsed>;
  using T = Dist<Block, Block>;
  const S::mapping from(S{}, {16, 16}, Grid{4, 1}, {0, 0}, Storage{}, 4);
  const T::mapping to(T{}, {16, 16}, Grid{2, 2}, {0, 0}, Storage{}, 4);
  for (int i = 0; i < 4; ++i) {
    const GridPlan p_whole = build_grid_plan(from, to, i);
    const auto& p = p_whole.only();
    std::map<int, index_t> got;
    for (const Message& m : p.sends) got[m.peer] = m.size;
    if (p.local.size > 0) got[i] = p.local.size;
    CHECK(got == std::map<int, index_t>{{2 * (i / 2), 32}, {2 * (i / 2) + 1, 32}});
  }
}

using Dists2D = mp11::mp_list<Dist<Cyclic<>, Cyclic<>>, Dist<Block, GenBlock>, Dist<GenBlock, Cyclic<>>,
                              Dist<Block, Collapsed>, Dist<Collapsed, Cyclic<>>>;
using Pairs2D = mp11::mp_product<mp11::mp_list, Dists2D, Dists2D>;

TEMPLATE_LIST_TEST_CASE("Random 2-D redistributions are exact in the virtual-rank simulation", "[grid][simulate][2d]",
                        Pairs2D) {
  using A = mp11::mp_first<TestType>;
  using B = mp11::mp_second<TestType>;
  std::mt19937_64 rng(2024);
  for (int t = 0; t < 10; ++t) {
    const int nprocs = 1 + static_cast<int>(rng() % 64);
    const std::array<index_t, 2> ext{static_cast<index_t>(rng() % 40), static_cast<index_t>(rng() % 40)};
    auto a = [&]<class... D>(mp11::mp_list<D...>*) { return random_case<D...>(ext, nprocs, rng); }(
        static_cast<mp11::mp_rename<A, mp11::mp_list>*>(nullptr));
    auto b = [&]<class... D>(mp11::mp_list<D...>*) { return random_case<D...>(ext, nprocs, rng); }(
        static_cast<mp11::mp_rename<B, mp11::mp_list>*>(nullptr));
    INFO("trial " << t << ", P = " << nprocs << ", extents " << ext[0] << " x " << ext[1]);
    check_pair(a, b);
  }
}

TEMPLATE_LIST_TEST_CASE("message_size_bound bounds every message of random 2-D and transposed pairs", "[grid][schedule][automatic]",
                        Pairs2D) {
  using A = mp11::mp_first<TestType>;
  using B = mp11::mp_second<TestType>;
  std::mt19937_64 rng(2026);
  for (int t = 0; t < 20; ++t) {
    const int nprocs = 1 + static_cast<int>(rng() % 64);
    const std::array<index_t, 2> ext{static_cast<index_t>(rng() % 60), static_cast<index_t>(rng() % 60)};
    auto a = [&]<class... D>(mp11::mp_list<D...>*) { return random_case<D...>(ext, nprocs, rng); }(
        static_cast<mp11::mp_rename<A, mp11::mp_list>*>(nullptr));
    auto b = [&]<class... D>(mp11::mp_list<D...>*) { return random_case<D...>(ext, nprocs, rng); }(
        static_cast<mp11::mp_rename<B, mp11::mp_list>*>(nullptr));
    auto bt = [&]<class... D>(mp11::mp_list<D...>*) { return random_case<D...>({ext[1], ext[0]}, nprocs, rng); }(
        static_cast<mp11::mp_rename<B, mp11::mp_list>*>(nullptr));
    INFO("trial " << t << ", P = " << nprocs << ", extents " << ext[0] << " x " << ext[1]);
    index_t most = 0, most_t = 0;
    for (const schedule::Transfer& x : grid_transfers(a.mapping, b.mapping)) most = std::max(most, x.size);
    const Transposed<decltype(a.mapping)> at{a.mapping};
    for (const schedule::Transfer& x : grid_transfers(at, bt.mapping)) most_t = std::max(most_t, x.size);
    CHECK(detail::message_size_bound(a.mapping, b.mapping) >= most);
    CHECK(detail::message_size_bound(at, bt.mapping) >= most_t);
    // Tight for the whole array on one rank.
    if (nprocs == 1) CHECK(detail::message_size_bound(a.mapping, b.mapping) == ext[0] * ext[1]);
  }
}

TEST_CASE("Arrays of rank 5 and 6 redistribute exactly: no rank limit", "[grid][simulate][nd]") {
  std::mt19937_64 rng(2026);
  for (int t = 0; t < 12; ++t) {
    const int nprocs = 1 + static_cast<int>(rng() % 48);
    std::array<index_t, 6> e6{};
    for (auto& x : e6) x = static_cast<index_t>(1 + rng() % 4);
    const std::array<index_t, 5> e5{e6[0], e6[1], e6[2], e6[3], e6[4]};
    INFO("trial " << t << ", P = " << nprocs);
    auto a5 = random_case<Cyclic<>, Block, Collapsed, GenBlock, Cyclic<>>(e5, nprocs, rng);
    auto b5 = random_case<Block, Cyclic<>, Cyclic<>, Collapsed, GenBlock>(e5, nprocs, rng);
    check_pair(a5, b5);
    auto a6 = random_case<Cyclic<>, Block, Cyclic<>, GenBlock, Collapsed, Cyclic<>>(e6, nprocs, rng);
    auto b6 = random_case<Block, Cyclic<>, GenBlock, Cyclic<>, Cyclic<>, Block>(e6, nprocs, rng);
    static_assert(std::is_same_v<decltype(build_grid_plan(a6.mapping, b6.mapping, 0)), BasicPlan<BasicSection<12>>>);
    check_pair(a6, b6);
  }
}


TEST_CASE("N-D plans under caterpillar and relative-group schedules are contention-free and exact", "[grid][schedule]") {
  std::mt19937_64 rng(77);
  const test::SimChecks strict{true, true};
  for (int t = 0; t < 40; ++t) {
    const int nprocs = 1 + static_cast<int>(rng() % 24);
    const std::array<index_t, 2> ext{static_cast<index_t>(1 + rng() % 30), static_cast<index_t>(1 + rng() % 30)};
    auto a = random_case<Cyclic<>, Cyclic<>>(ext, nprocs, rng);
    auto b = random_case<Block, GenBlock>(ext, nprocs, rng);
    INFO("trial " << t << ", P = " << nprocs);
    const auto cat = test::simulate(a.mapping, b.mapping, a.layout, b.layout, strict, PlanUnder<schedule::caterpillar_t>{});
    INFO(cat.failure);
    REQUIRE(cat.ok);
    CHECK(cat.max_steps <= static_cast<std::size_t>(nprocs));
    const auto rg = test::simulate(a.mapping, b.mapping, a.layout, b.layout, strict, PlanUnder<schedule::relative_group_t>{});
    INFO(rg.failure);
    REQUIRE(rg.ok);
    const auto transfers = grid_transfers(a.mapping, b.mapping);
    CHECK(rg.max_steps == static_cast<std::size_t>(schedule::max_degree(transfers, nprocs)));
  }
}

TEST_CASE("grid_transfers is the communication table of the plans", "[grid][schedule]") {
  std::mt19937_64 rng(78);
  for (int t = 0; t < 20; ++t) {
    const int nprocs = 1 + static_cast<int>(rng() % 16);
    const std::array<index_t, 2> ext{static_cast<index_t>(rng() % 25), static_cast<index_t>(rng() % 25)};
    auto a = random_case<GenBlock, Cyclic<>>(ext, nprocs, rng);
    auto b = random_case<Cyclic<>, Collapsed>(ext, nprocs, rng);
    CHECK(test::transfers_are_plans(a.mapping, b.mapping, nprocs));
  }
}

TEST_CASE("1-D general plans under caterpillar and relative-group schedules", "[schedule][1d]") {
  std::mt19937_64 rng(79);
  const test::SimChecks strict{true, true};
  for (int t = 0; t < 30; ++t) {
    const int nprocs = 1 + static_cast<int>(rng() % 40);
    const index_t n = static_cast<index_t>(rng() % 3000);
    const Cyclic<> df(test::random_block(n, rng));
    const GenBlock dt(test::random_parts(n, nprocs, rng));
    const Cyclic<>::mapping mf(df, n, nprocs);
    const GenBlock::mapping mt(dt, n, nprocs);
    const auto of = test::oracle(df, n, nprocs), ot = test::oracle(dt, n, nprocs);
    const auto cat = test::simulate(mf, mt, of, ot, strict, PlanUnder<schedule::caterpillar_t>{});
    INFO(cat.failure);
    REQUIRE(cat.ok);
    const auto rg = test::simulate(mf, mt, of, ot, strict, PlanUnder<schedule::relative_group_t>{});
    INFO(rg.failure);
    REQUIRE(rg.ok);
    CHECK(rg.max_steps == static_cast<std::size_t>(schedule::max_degree(transfers(mf, mt), nprocs)));
  }
}

using Dists3D = mp11::mp_list<Dist<Cyclic<>, Block, Cyclic<>>, Dist<Collapsed, Cyclic<>, GenBlock>,
                              Dist<Block, Collapsed, Cyclic<>>>;
using Pairs3D = mp11::mp_product<mp11::mp_list, Dists3D, Dists3D>;

TEMPLATE_LIST_TEST_CASE("Random 3-D redistributions are exact in the virtual-rank simulation", "[grid][simulate][3d]",
                        Pairs3D) {
  using A = mp11::mp_first<TestType>;
  using B = mp11::mp_second<TestType>;
  std::mt19937_64 rng(3003);
  for (int t = 0; t < 8; ++t) {
    const int nprocs = 1 + static_cast<int>(rng() % 64);
    const std::array<index_t, 3> ext{static_cast<index_t>(rng() % 14), static_cast<index_t>(rng() % 14),
                                     static_cast<index_t>(rng() % 14)};
    auto a = [&]<class... D>(mp11::mp_list<D...>*) { return random_case<D...>(ext, nprocs, rng); }(
        static_cast<mp11::mp_rename<A, mp11::mp_list>*>(nullptr));
    auto b = [&]<class... D>(mp11::mp_list<D...>*) { return random_case<D...>(ext, nprocs, rng); }(
        static_cast<mp11::mp_rename<B, mp11::mp_list>*>(nullptr));
    INFO("trial " << t << ", P = " << nprocs << ", extents " << ext[0] << " x " << ext[1] << " x " << ext[2]);
    check_pair(a, b);
  }
}

TEST_CASE("Packing along walks is exact with several families per dimension and ragged blocks",
          "[grid][simulate][walk]") {
  // Small cyclic blocks on larger extents: a pair's list of families in one dimension has several
  // members, whose bands (plan/walk.hpp) interleave, repeat with shifted phases after ragged
  // blocks, and merge where source blocks meet inside a destination block.
  std::mt19937_64 rng(5005);
  for (int t = 0; t < 40; ++t) {
    const int nprocs = 1 + static_cast<int>(rng() % 16);
    const std::array<index_t, 2> e2{40 + static_cast<index_t>(rng() % 110), 40 + static_cast<index_t>(rng() % 110)};
    INFO("trial " << t << ", P = " << nprocs << ", extents " << e2[0] << " x " << e2[1]);
    check_pair(random_case<Cyclic<>, Cyclic<>>(e2, nprocs, rng), random_case<Cyclic<>, Cyclic<>>(e2, nprocs, rng));
    check_pair(random_case<Cyclic<>, GenBlock>(e2, nprocs, rng), random_case<Block, Cyclic<>>(e2, nprocs, rng));
    const std::array<index_t, 3> e3{10 + static_cast<index_t>(rng() % 30), 10 + static_cast<index_t>(rng() % 30),
                                    10 + static_cast<index_t>(rng() % 30)};
    check_pair(random_case<Cyclic<>, Cyclic<>, Cyclic<>>(e3, nprocs, rng),
               random_case<Cyclic<>, Block, Cyclic<>>(e3, nprocs, rng));
  }
}

namespace {
/// Every message of rank r's plan a -> b: packed along its walk whole, in storage order (the
/// source holds its local offsets: they ascend), the same elements as its runs, and piece by
/// piece (random lengths) the same as whole; unpacked piece by piece the same as whole. Returns
/// how many messages it packed along a walk (a rank without messages, or outside a grid, has none).
template <class A, class B>
int check_walk_pieces(const A& a, const B& b, int r, std::mt19937_64& rng) {
  const auto built = build_plan(a.mapping, b.mapping, r);
  const auto& st = built.only();
  std::vector<index_t> src(a.layout.globals[static_cast<std::size_t>(r)].size());
  std::iota(src.begin(), src.end(), 0);
  int packed = 0;
  for (std::size_t i = 0; i < st.sends.size(); ++i) {
    const Message& m = st.sends[i];
    std::vector<index_t> whole(static_cast<std::size_t>(m.size)), pieces(whole.size(), -1), runs(whole.size());
    runtime::pack_message(st, i, src.data(), whole.data());
    REQUIRE(std::is_sorted(whole.begin(), whole.end()));
    runtime::pack(st.runs_of(m), src.data(), runs.data());
    std::sort(runs.begin(), runs.end());
    REQUIRE(whole == runs);
    const index_t piece = 1 + static_cast<index_t>(rng() % 60);
    for (index_t lo = 0; lo < m.size; lo += piece)
      runtime::pack_message(st, i, src.data(), pieces.data() + lo, lo, std::min(m.size, lo + piece));
    REQUIRE(pieces == whole);
    packed += st.send_walk ? 1 : 0;
  }
  for (std::size_t i = 0; i < st.recvs.size(); ++i) {
    const Message& m = st.recvs[i];
    std::vector<index_t> in(static_cast<std::size_t>(m.size));
    std::iota(in.begin(), in.end(), 1);
    std::vector<index_t> whole(b.layout.globals[static_cast<std::size_t>(r)].size(), 0), pieces = whole;
    runtime::unpack_message(st, i, in.data(), whole.data());
    const index_t piece = 1 + static_cast<index_t>(rng() % 60);
    for (index_t lo = 0; lo < m.size; lo += piece)
      runtime::unpack_message(st, i, in.data() + lo, pieces.data(), lo, std::min(m.size, lo + piece));
    REQUIRE(pieces == whole);
  }
  return packed;
}
}  // namespace

TEST_CASE("N-D messages packed along walks piece by piece equal them packed whole, in storage order",
          "[grid][walk][pieces]") {
  // Block and Collapsed inner dimensions (one piece per line of the message: pack_message copies
  // a whole outer line of them at once), rows, short and long cyclic ones, padded storage, orders.
  std::mt19937_64 rng(6006);
  int packed = 0;
  for (int t = 0; t < 60; ++t) {
    const int nprocs = 1 + static_cast<int>(rng() % 12);
    const std::array<index_t, 2> e2{1 + static_cast<index_t>(rng() % 50), 1 + static_cast<index_t>(rng() % 50)};
    const std::array<index_t, 3> e3{1 + static_cast<index_t>(rng() % 16), 1 + static_cast<index_t>(rng() % 16),
                                    1 + static_cast<index_t>(rng() % 16)};
    INFO("trial " << t << ", P = " << nprocs);
    const auto a2 = random_case<Block, Cyclic<>>(e2, nprocs, rng);
    const auto b2 = random_case<Collapsed, Block>(e2, nprocs, rng);
    const auto c2 = random_case<Cyclic<>, GenBlock>(e2, nprocs, rng);
    const auto a3 = random_case<Collapsed, Collapsed, Block>(e3, nprocs, rng);
    const auto b3 = random_case<Block, Collapsed, Cyclic<>>(e3, nprocs, rng);
    const auto c3 = random_case<Cyclic<>, Block, GenBlock>(e3, nprocs, rng);
    // 1 x n rows: one element per line of the first dimension (the row's pieces walked as a line).
    const std::array<index_t, 2> row{1, 1 + static_cast<index_t>(rng() % 400)};
    const auto r1 = random_case<Collapsed, Cyclic<>>(row, nprocs, rng);
    const auto r2 = random_case<Block, Cyclic<>>(row, nprocs, rng);
    for (int r = 0; r < nprocs; ++r) {
      packed += check_walk_pieces(r1, r2, r, rng) + check_walk_pieces(r2, r1, r, rng);
      packed += check_walk_pieces(a2, b2, r, rng) + check_walk_pieces(b2, a2, r, rng) + check_walk_pieces(c2, b2, r, rng);
      packed += check_walk_pieces(a3, b3, r, rng) + check_walk_pieces(b3, a3, r, rng) + check_walk_pieces(b3, c3, r, rng);
    }
  }
  CHECK(packed > 1000);
}

TEST_CASE("Transposed layouts are exact in the virtual-rank simulation", "[grid][simulate][transpose]") {
  std::mt19937_64 rng(4004);
  for (int t = 0; t < 30; ++t) {
    const int nprocs = 1 + static_cast<int>(rng() % 20);
    const std::array<index_t, 2> ext{static_cast<index_t>(rng() % 30), static_cast<index_t>(rng() % 30)};
    auto a = random_case<Cyclic<>, GenBlock>(ext, nprocs, rng);
    auto b = random_case<Block, Cyclic<>>({ext[1], ext[0]}, nprocs, rng);
    // a's element (i, j) is b's (j, i): relabel a's layout with b's global ids.
    test::Layout at = a.layout;
    for (auto& ids : at.globals)
      for (index_t& id : ids)
        if (id >= 0) id = (id / ext[0]) + ext[1] * (id % ext[0]);
    const auto res = test::simulate(Transposed<decltype(a.mapping)>{a.mapping}, b.mapping, at, b.layout, {}, BuildGridPlan{});
    INFO(res.failure);
    REQUIRE(res.ok);
    REQUIRE(res.unwalked == 0);
  }
}

TEST_CASE("automatic on N-D layouts: contention-free steps for large messages, all at once for small ones",
          "[grid][schedule][automatic]") {
  using S = Dist<Cyclic<2>, Cyclic<2>>;
  using T = Dist<Block, Collapsed>;
  for (index_t n : {40, 2048}) {
    const S::mapping from(S{}, {n, n}, Grid{2, 2}, {0, 0}, Storage{}, 4);
    const T::mapping to(T{}, {n, n}, Grid{4, 1}, {0, 0}, Storage{}, 4);
    const auto transfers = grid_transfers(from, to);
    const bool large = n * n / 16 >= stepwise_from_elements;
    for (int r = 0; r < 4; ++r) {
      const GridPlan p_whole = plan_with(from, to, r, schedule::automatic);
      const auto& p = p_whole.only();
      if (!large) {
        CHECK(p.schedule.size() == 1);
        continue;
      }
      CHECK(p.schedule.size() == static_cast<std::size_t>(schedule::max_degree(transfers, 4)));
      for (const auto& step : p.schedule.steps) CHECK((step.sends.size() <= 1 && step.recvs.size() <= 1));
    }
  }
}

TEST_CASE("Grid::with_ranks places a grid's processes on any ranks (a general Cblacs_gridmap)", "[grid][ranks]") {
  // Position k (in the grid's order) on ranks[k]: (0, 0) -> 5, (0, 1) -> 2, (1, 0) -> 0, (1, 1) -> 3.
  const std::array<int, 4> ranks{5, 2, 0, 3};
  const auto g = Grid{2, 2}.with_ranks(ranks);
  CHECK(g.rank_of({0, 0}) == 5);
  CHECK(g.rank_of({0, 1}) == 2);
  CHECK(g.rank_of({1, 0}) == 0);
  CHECK(g.rank_of({1, 1}) == 3);
  CHECK(g.coords_of(3) == std::array<int, 2>{1, 1});
  CHECK(!g.coords_of(1));
  CHECK(!g.coords_of(4));
  CHECK(!g.coords_of(6));
  CHECK(!g.coords_of(-1));
  CHECK(g.end_rank() == 6);
  CHECK(g.first() == 5);
  // Column-major numbering: position k is (k % 2, k / 2).
  const auto gc = Grid{2, 2}.with_order(column_major).with_ranks(ranks);
  CHECK(gc.rank_of({1, 0}) == 2);
  CHECK(gc.rank_of({0, 1}) == 0);
  // Interned: equal maps compare equal, different ones do not; consecutive ranks are no map.
  const std::array<int, 4> same{5, 2, 0, 3}, other{5, 2, 3, 0}, consecutive{3, 4, 5, 6};
  CHECK(Grid{2, 2}.with_ranks(same) == g);
  CHECK(Grid{2, 2}.with_ranks(other) != g);
  CHECK(Grid{2, 2}.with_ranks(consecutive) == Grid{2, 2}.with_first(3));
  CHECK(Grid{2, 2}.with_ranks(consecutive).rank_map().empty());
  CHECK(g.to_dynamic() == g);
  CHECK(Grid<2, 2>{}.with_ranks(ranks).to_dynamic() == g);
  // The layout checks the map against its communicator, and its fingerprint sees the map.
  using D = Dist<Block, Cyclic<>>;
  const D dist{Block{}, Cyclic<>{2}};
  CHECK_THROWS_WITH(D::mapping(dist, {8, 8}, g, {0, 0}, Storage{}, 5), Catch::Contains("up to rank 5, communicator of 5"));
  const D::mapping a(dist, {8, 8}, g, {0, 0}, Storage{}, 6), b(dist, {8, 8}, Grid{2, 2}.with_ranks(other), {0, 0}, Storage{}, 6);
  CHECK(a.fingerprint() != b.fingerprint());
  CHECK(a.owner({0, 0}) == 5);
  CHECK(a.owner({7, 7}) == 3);
  CHECK(a.local_size(1) == 0);
  // Bad maps name the parameter.
  const std::array<int, 3> short_map{0, 1, 2};
  const std::array<int, 4> repeated{0, 1, 1, 2}, negative{0, -1, 2, 3};
  CHECK_THROWS_WITH((Grid{2, 2}.with_ranks(short_map)), Catch::Contains("one rank per grid process (4, got 3)"));
  CHECK_THROWS_WITH((Grid{2, 2}.with_ranks(repeated)), Catch::Contains("distinct (rank 1 appears twice)"));
  CHECK_THROWS_WITH((Grid{2, 2}.with_ranks(negative)), Catch::Contains("ranks[1] = -1"));
}

TEST_CASE("Layouts on grids placed by rank maps redistribute exactly in the simulation", "[grid][simulate][ranks]") {
  // Two 2 x 3 grids on 7 ranks, each placed by its own scrambled map, and a 1-D grid too.
  using D = Dist<Cyclic<>, GenBlock>;
  const std::array<int, 6> ra{6, 0, 3, 1, 5, 2}, rb{2, 4, 6, 0, 1, 3};
  test::GridSpec<2> sa{{13, 11}, {2, 3}, Order::row_major, 0, {1, 2}, Order::column_major, 0, 7,
                       std::vector<int>(ra.begin(), ra.end())};
  test::GridSpec<2> sb{{13, 11}, {3, 2}, Order::column_major, 0, {0, 1}, Order::row_major, 0, 7,
                       std::vector<int>(rb.begin(), rb.end())};
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 20; ++trial) {
    const D da{Cyclic<>{1 + static_cast<index_t>(rng() % 4)}, test::make_dist<GenBlock>(11, 3, rng)};
    const D db{Cyclic<>{1 + static_cast<index_t>(rng() % 4)}, test::make_dist<GenBlock>(11, 2, rng)};
    check_pair(bind_case(da, sa, std::index_sequence<0, 1>{}), bind_case(db, sb, std::index_sequence<0, 1>{}));
  }
}

namespace {
/// The (source local, destination local) pairs of a list of runs, sorted.
std::vector<std::pair<index_t, index_t>> element_pairs(std::span<const Run> runs) {
  std::vector<std::pair<index_t, index_t>> out;
  for (const Run& r : runs)
    for (index_t j = 0; j < r.count; ++j)
      for (index_t i = 0; i < r.len; ++i)
        out.emplace_back(r.src + j * r.src_stride + i * r.src_step, r.dst + j * r.dst_stride + i * r.dst_step);
  std::sort(out.begin(), out.end());
  return out;
}
}  // namespace

TEST_CASE("A Cyclic to Cyclic dimension's runs from the basic-cycle templates are its LDD intersection", "[grid][bcc]") {
  // index::cycle_table (seed 000's templates), the run provider of such a dimension, against
  // index::intersect (seed 003's LDDs), both sides, every pair of processes, ragged n.
  std::mt19937_64 rng(31);
  for (int trial = 0; trial < 300; ++trial) {
    const index_t s = 1 + static_cast<index_t>(rng() % 12), t = 1 + static_cast<index_t>(rng() % 12);
    const int p = 1 + static_cast<int>(rng() % 7);
    const index_t n = static_cast<index_t>(rng() % 3000);
    const Cyclic<dynamic>::mapping from(Cyclic<dynamic>(s), n, p), to(Cyclic<dynamic>(t), n, p);
    INFO("s = " << s << ", t = " << t << ", P = " << p << ", n = " << n);
    for (int me = 0; me < p; ++me) {
      PeerRuns send, recv;
      index::cycle_table(s, t, p, n, me, index::side::sender, send);
      index::cycle_table(s, t, p, n, me, index::side::receiver, recv);
      for (int q = 0; q < p; ++q) {
        std::vector<Run> a, b;
        index::intersect(from.ldds(me), to.ldds(q), a);
        index::intersect(from.ldds(q), to.ldds(me), b);
        REQUIRE(element_pairs(send.of(q)) == element_pairs(a));
        REQUIRE(element_pairs(recv.of(q)) == element_pairs(b));
      }
    }
  }
}

TEST_CASE("Dist<Cyclic<8>, Cyclic<8>> on Grid<2, 2> -> Dist<Cyclic<5>, Cyclic<5>> on Grid<2, 2>: static tables, exact", "[grid][bcc][static]") {
  // Each dimension of the pair is Cyclic to Cyclic on two processes: planned with the basic-cycle
  // templates, from BasicCyclePlan's static tables when block sizes and grid extents are in the
  // types (tables_built() does not move), computed at plan time when they are not (it moves).
  using S = Dist<Cyclic<8>, Cyclic<8>>;
  using T = Dist<Cyclic<5>, Cyclic<5>>;
  using SM = S::basic_mapping<Grid<2, 2>>;
  using TM = T::basic_mapping<Grid<2, 2>>;
  const std::array<index_t, 2> ext{101, 77};
  const SM from(S{}, ext, Grid<2, 2>{}, {0, 0}, Storage{}, 4);
  const TM to(T{}, ext, Grid<2, 2>{}, {0, 0}, Storage{}, 4);
  const test::GridSpec<2> spec{ext, {2, 2}, Order::row_major, 0, {0, 0}, Order::column_major, 0, 4, {}};
  const test::Layout a = bind_case(S{}, spec, std::index_sequence<0, 1>{}).layout;
  const test::Layout b = bind_case(T{}, spec, std::index_sequence<0, 1>{}).layout;
  const std::size_t tables = tables_built();
  const auto res = test::simulate(from, to, a, b, {}, BuildGridPlan{});
  INFO(res.failure);
  CHECK(res.ok);
  CHECK(res.unwalked == 0);
  CHECK(tables_built() == tables);
  // The same layouts with dynamic block sizes and grid, and offsets: templates computed, still exact.
  using D = Dist<Cyclic<>, Cyclic<>>;
  for (const std::array<int, 2> off : {std::array<int, 2>{0, 0}, std::array<int, 2>{1, 0}, std::array<int, 2>{1, 1}}) {
    const test::GridSpec<2> so{ext, {2, 2}, Order::row_major, 0, off, Order::column_major, 0, 4, {}};
    const test::GridSpec<2> to_spec{ext, {2, 2}, Order::column_major, 0, {off[1], off[0]}, Order::row_major, 0, 4, {}};
    const auto x = bind_case(D{Cyclic<>{8}, Cyclic<>{8}}, so, std::index_sequence<0, 1>{});
    const auto y = bind_case(D{Cyclic<>{5}, Cyclic<>{5}}, to_spec, std::index_sequence<0, 1>{});
    const std::size_t before = tables_built();
    const auto r = test::simulate(x.mapping, y.mapping, x.layout, y.layout, {}, BuildGridPlan{});
    INFO(r.failure);
    CHECK(r.ok);
    CHECK(tables_built() > before);
  }
}

}  // namespace unit_test_grid
