// Serial tests of the basic-cycle calculation (seed 000): templates against the brute-force oracle,
// the static and the plan-time tables against each other, virtual-rank property tests of the plans
// (run order and the one-pass order, in rounds), schedules, the piece rule, the multi-phase phases.
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <redist/index/basic_cycle.hpp>
#include <redist/plan/automatic.hpp>
#include <redist/plan/basic_cycle.hpp>
#include <redist/plan/multiphase.hpp>
#include <redist/runtime/pack_cycles.hpp>
#include <redist/schedule/basic_cycle.hpp>
#include <redist/schedule/multiphase.hpp>

#include "../support/oracle.hpp"
#include "../support/simulator.hpp"

using namespace redist;
using redist::test::Layout;

namespace {

using CycMap = Cyclic<dynamic>::mapping;

struct MakeBcc {
  bool contention_free = false;
  Plan operator()(const CycMap& from, const CycMap& to, int rank) const {
    return (contention_free ? plan_with(from, to, rank, schedule::bcc_contention_free) : plan_with(from, to, rank, schedule::bcc))
        .general;
  }
};

std::vector<CyclePlan> all_plans(const CycMap& from, const CycMap& to, bool contention_free) {
  std::vector<CyclePlan> plans;
  for (int r = 0; r < from.nprocs(); ++r)
    plans.push_back(contention_free ? plan_with(from, to, r, schedule::bcc_contention_free)
                                    : plan_with(from, to, r, schedule::bcc));
  return plans;
}

/// The one-pass path in memory: every rank packs the cycle slots [a, a + per_round) of its source
/// into one buffer per message (pack_cycles), the pieces are delivered, every rank unpacks them
/// (unpack_cycles); checked against the oracle. Also checks that the piece sizes both sides
/// compute (elements_in) agree and that each round's scratch is what it says.
std::string simulate_one_pass(const std::vector<CyclePlan>& plans, const Layout& src, const Layout& dst,
                              index_t per_round) {
  const int nprocs = static_cast<int>(plans.size());
  std::vector<std::vector<index_t>> out(static_cast<std::size_t>(nprocs));
  for (int p = 0; p < nprocs; ++p) out[p].assign(dst.globals[p].size(), -1);
  const index_t slots = plans.empty() ? 0 : plans[0].slots;
  for (index_t a = 0; a < slots; a += per_round) {
    const index_t b = std::min(slots, a + per_round);
    std::map<std::pair<int, int>, std::vector<index_t>> wire;
    for (int r = 0; r < nprocs; ++r) {
      const CyclePlan& pl = plans[r];
      if (pl.slots != slots) return "ranks disagree on the number of cycles";
      std::vector<std::vector<index_t>> bufs(pl.general.sends.size());
      std::vector<index_t*> ptr(pl.general.sends.size());
      for (std::size_t i = 0; i < pl.general.sends.size(); ++i) {
        bufs[i].assign(static_cast<std::size_t>(pl.elements_in(pl.send_per_cycle[i], pl.general.sends[i].size, a, b)), -7);
        ptr[i] = bufs[i].data();
      }
      runtime::pack_cycles<index_t>(pl.send_pattern, pl.cycle, a, b, src.globals[r].data(),
                                    static_cast<index_t>(src.globals[r].size()), ptr.data(), out[r].data());
      for (std::size_t i = 0; i < pl.general.sends.size(); ++i) {
        if (ptr[i] != bufs[i].data() + bufs[i].size())
          return "rank " + std::to_string(r) + " packs " + std::to_string(ptr[i] - bufs[i].data()) +
                 " elements for a piece of " + std::to_string(bufs[i].size());
        wire[{r, pl.general.sends[i].peer}] = std::move(bufs[i]);
      }
    }
    for (int q = 0; q < nprocs; ++q) {
      const CyclePlan& pl = plans[q];
      std::vector<const index_t*> ptr(pl.general.recvs.size());
      std::vector<const index_t*> ends(pl.general.recvs.size());
      for (std::size_t i = 0; i < pl.general.recvs.size(); ++i) {
        auto it = wire.find({pl.general.recvs[i].peer, q});
        if (it == wire.end()) return "rank " + std::to_string(q) + " expects a message never sent";
        const index_t want = pl.elements_in(pl.recv_per_cycle[i], pl.general.recvs[i].size, a, b);
        if (static_cast<index_t>(it->second.size()) != want) return "piece sizes disagree between sender and receiver";
        ptr[i] = it->second.data();
        ends[i] = it->second.data() + it->second.size();
      }
      runtime::unpack_cycles<index_t>(pl.recv_pattern, pl.cycle, a, b, ptr.data(), out[q].data(),
                                      static_cast<index_t>(out[q].size()));
      for (std::size_t i = 0; i < pl.general.recvs.size(); ++i)
        if (ptr[i] != ends[i]) return "rank " + std::to_string(q) + " does not unpack a whole piece";
    }
  }
  for (int p = 0; p < nprocs; ++p)
    for (std::size_t l = 0; l < out[p].size(); ++l)
      if (out[p][l] != dst.globals[p][l])
        return "rank " + std::to_string(p) + " local " + std::to_string(l) + " holds " + std::to_string(out[p][l]) +
               ", expected " + std::to_string(dst.globals[p][l]);
  return {};
}

bool same_plan(const CyclePlan& a, const CyclePlan& b) {
  const Plan &ga = a.general, &gb = b.general;
  return ga.rank == gb.rank && ga.nprocs == gb.nprocs && ga.runs == gb.runs && ga.sends == gb.sends &&
         ga.recvs == gb.recvs && ga.local == gb.local && ga.schedule == gb.schedule &&
         ga.send_scratch == gb.send_scratch && ga.recv_scratch == gb.recv_scratch && a.shape == b.shape &&
         a.cycle == b.cycle && a.full_cycles == b.full_cycles && a.slots == b.slots &&
         a.send_pattern == b.send_pattern && a.recv_pattern == b.recv_pattern &&
         a.send_per_cycle == b.send_per_cycle && a.recv_per_cycle == b.recv_per_cycle && a.quantum == b.quantum;
}

/// Sizes from "small" to a few periods, ragged or not.
index_t random_n(index_t period, std::mt19937_64& rng) {
  switch (rng() % 4) {
    case 0: return static_cast<index_t>(rng() % static_cast<std::uint64_t>(std::min<index_t>(period, 2000) + 1));
    case 1: return period * static_cast<index_t>(1 + rng() % 3);
    case 2: return period * static_cast<index_t>(1 + rng() % 3) + static_cast<index_t>(rng() % 97) + 1;
    default: return static_cast<index_t>(rng() % 60000);
  }
}

}  // namespace

TEST_CASE("Send and receive templates match the brute-force oracle", "[bcc][index]") {
  std::mt19937_64 rng(2024);
  for (int trial = 0; trial < 300; ++trial) {
    const index_t s = 1 + static_cast<index_t>(rng() % 64), t = 1 + static_cast<index_t>(rng() % 64);
    const int nprocs = 1 + static_cast<int>(rng() % (trial < 150 ? 8 : 64));
    const index::BasicCycle c(s, t, nprocs);
    if (c.period() * 2 > 400000) continue;  // keep the oracle small
    const index_t n = 2 * c.period();       // two basic cycles on every rank
    const auto o_src = redist::test::oracle(Cyclic<dynamic>(s), n, nprocs);
    const auto o_dst = redist::test::oracle(Cyclic<dynamic>(t), n, nprocs);
    INFO("s = " << s << ", t = " << t << ", P = " << nprocs);
    for (int r = 0; r < nprocs; ++r) {
      std::vector<int> send(static_cast<std::size_t>(c.bc)), recv(static_cast<std::size_t>(c.bc));
      index::send_template(c, r, send);
      index::receive_template(c, r, recv);
      bool ok = true;
      for (index_t e = 0; e < 2 * c.cycle(); ++e) {  // every element of both cycles, every element of a meta-element
        const auto k = static_cast<std::size_t>((e / c.g) % c.bc);
        ok = ok && o_dst.owner[o_src.globals[r][e]] == send[k];
        ok = ok && o_src.owner[o_dst.globals[r][e]] == recv[k];
      }
      REQUIRE(ok);
      // BCC's send order: the destinations in order of first appearance in the template.
      std::vector<int> dests, first;
      index::send_destinations(c, r, [&](int p) { dests.push_back(p); });
      for (int p : send)
        if (std::find(first.begin(), first.end(), p) == first.end()) first.push_back(p);
      REQUIRE(dests == first);
      // Sections: in local order, covering the cycle once, each contiguous on the peer too.
      index_t covered = 0;
      bool contiguous = true;
      index::send_sections(c, r, [&](const index::Section& x) {
        contiguous = contiguous && x.offset == covered;
        covered += x.len;
        const index_t g0 = o_src.globals[r][x.offset * c.g];
        contiguous = contiguous && o_dst.local[g0] == x.peer_offset * c.g && g0 == x.global * c.g;
        for (index_t e = 1; e < x.len * c.g; ++e)
          contiguous = contiguous && o_src.globals[r][x.offset * c.g + e] == g0 + e && o_dst.local[g0 + e] == o_dst.local[g0] + e;
      });
      REQUIRE(contiguous);
      REQUIRE(covered == c.bc);
    }
  }
}

TEST_CASE("Static tables and plan-time tables give the same templates and plans", "[bcc][static]") {
  using B = BasicCyclePlan<3, 2, 4>;
  static_assert(B::tabulated);
  const index::BasicCycle c(3, 2, 4);
  for (int r = 0; r < 4; ++r) {
    std::vector<int> send(6), recv(6);
    index::send_template(c, r, send);
    index::receive_template(c, r, recv);
    CHECK(std::equal(send.begin(), send.end(), B::send_templates[r].begin()));
    CHECK(std::equal(recv.begin(), recv.end(), B::receive_templates[r].begin()));
  }
  auto agree = [](auto plan_type, index_t s, index_t t, int nprocs) {
    using PT = decltype(plan_type);
    for (index_t n : {index_t{0}, index_t{1}, index_t{5}, index_t{47}, index_t{48}, index_t{1000}, index_t{100003}}) {
      const CycMap from(Cyclic<dynamic>(s), n, nprocs), to(Cyclic<dynamic>(t), n, nprocs);
      for (int r = 0; r < nprocs; ++r) {
        INFO("n = " << n << ", rank " << r);
        CHECK(same_plan(PT::plan(n, r), plan_with(from, to, r, schedule::bcc)));
        CHECK(same_plan(PT::plan(n, r, schedule::bcc_contention_free), plan_with(from, to, r, schedule::bcc_contention_free)));
      }
    }
  };
  agree(BasicCyclePlan<3, 2, 4>{}, 3, 2, 4);
  agree(BasicCyclePlan<6, 4, 4>{}, 6, 4, 4);
  agree(BasicCyclePlan<8, 5, 20>{}, 8, 5, 20);
  // Above the bound (BC·P = 32256 > 16384): the same plans, from templates built at plan time.
  static_assert(!BasicCyclePlan<64, 63, 8>::tabulated);
  agree(BasicCyclePlan<64, 63, 8>{}, 64, 63, 8);
  // The Cyclic<S> static types take the same path as Cyclic<dynamic>.
  const Cyclic<3>::mapping f(Cyclic<3>{}, 1000, 4);
  const Cyclic<2>::mapping g(Cyclic<2>{}, 1000, 4);
  CHECK(same_plan(plan_with(f, g, 1, schedule::automatic).plan.bcc, B::plan(1000, 1, schedule::bcc_contention_free)));
}

TEST_CASE("BCC plans are exact in the virtual-rank simulation, s, t <= 64, P <= 64", "[bcc][simulate]") {
  std::mt19937_64 rng(77);
  int cases = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const index_t s = 1 + static_cast<index_t>(rng() % 64), t = 1 + static_cast<index_t>(rng() % 64);
    const int nprocs = 1 + static_cast<int>(rng() % 64);
    const index::BasicCycle c(s, t, nprocs);
    const index_t n = random_n(c.period(), rng);
    if (n > 400000) continue;
    ++cases;
    const Cyclic<dynamic> ds(s), dt(t);
    const CycMap from(ds, n, nprocs), to(dt, n, nprocs);
    const auto o_src = redist::test::oracle(ds, n, nprocs), o_dst = redist::test::oracle(dt, n, nprocs);
    INFO("s = " << s << ", t = " << t << ", P = " << nprocs << ", n = " << n);
    for (bool cf : {false, true}) {
      INFO((cf ? "contention-free" : "BCC order"));
      const auto res = redist::test::simulate(from, to, o_src, o_dst, redist::test::SimChecks{true, cf}, MakeBcc{cf});
      INFO(res.failure);
      REQUIRE(res.ok);
      const auto plans = all_plans(from, to, cf);
      // The one-pass order, all cycles in one round and in rounds of 1 and 3 cycles.
      for (index_t per_round : {std::max<index_t>(plans[0].slots, 1), index_t{1}, index_t{3}}) {
        const std::string why = simulate_one_pass(plans, o_src, o_dst, per_round);
        INFO("one pass, " << per_round << " cycles per round: " << why);
        REQUIRE(why.empty());
      }
      // Contention-free: as many steps as the most messages one rank sends or receives.
      if (cf) {
        std::size_t degree = 0;
        for (const auto& p : plans) {
          degree = std::max(degree, p.general.sends.size());
          degree = std::max(degree, p.general.recvs.size());
        }
        CHECK(res.max_steps == degree);
      }
      // Everyone agrees on the quantum and the number of cycles.
      for (const auto& p : plans) {
        REQUIRE(p.quantum == plans[0].quantum);
        REQUIRE(p.slots == plans[0].slots);
      }
    }
  }
  CHECK(cases > 300);
}

TEST_CASE("BCC's send order follows the appearance order of each send template", "[bcc][schedule]") {
  // Figure 4: P2's template is P3 P3 P0 P1 P1 P2, so it sends to P3, P0, P1 in steps 1, 2, 3
  // (step 4 is its own part: no message).
  const CycMap from(Cyclic<dynamic>(3), 48, 4), to(Cyclic<dynamic>(2), 48, 4);
  const CyclePlan p = plan_with(from, to, 2, schedule::bcc);
  CHECK(&messages_of(p) == &p.general);
  std::vector<int> order;
  for (const auto& step : p.general.schedule.steps) {
    REQUIRE(step.sends.size() <= 1);
    for (std::size_t i : step.sends) order.push_back(p.general.sends[i].peer);
  }
  CHECK(order == std::vector<int>{3, 0, 1});
}

TEST_CASE("The contention-free order is a partial permutation per step in max-degree steps", "[bcc][schedule]") {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 200; ++trial) {
    const int p = 1 + static_cast<int>(rng() % 40);
    std::vector<std::vector<int>> dests(static_cast<std::size_t>(p));
    std::set<std::pair<int, int>> edges;
    std::vector<int> out(static_cast<std::size_t>(p), 0), in(static_cast<std::size_t>(p), 0);
    for (int q = 0; q < p; ++q) {
      std::vector<int> all(static_cast<std::size_t>(p));
      for (int r = 0; r < p; ++r) all[static_cast<std::size_t>(r)] = r;
      std::shuffle(all.begin(), all.end(), rng);
      all.resize(static_cast<std::size_t>(rng() % static_cast<std::uint64_t>(p + 1)));
      dests[static_cast<std::size_t>(q)] = all;
      for (int r : all)
        if (r != q) {
          edges.insert({q, r});
          ++out[static_cast<std::size_t>(q)];
          ++in[static_cast<std::size_t>(r)];
        }
    }
    const int delta = std::max(*std::max_element(out.begin(), out.end()), *std::max_element(in.begin(), in.end()));
    const auto t = schedule::contention_free_order(dests);
    REQUIRE(static_cast<int>(t.size()) == delta);
    std::set<std::pair<int, int>> seen;
    for (std::size_t k = 0; k < t.size(); ++k) {
      std::vector<int> load(static_cast<std::size_t>(p), 0);
      for (int q = 0; q < p; ++q) {
        const int r = t.send_to[k][static_cast<std::size_t>(q)];
        if (r < 0) continue;
        REQUIRE(r != q);
        REQUIRE(++load[static_cast<std::size_t>(r)] == 1);
        REQUIRE(seen.insert({q, r}).second);
      }
    }
    REQUIRE(seen == edges);
  }
}

TEST_CASE("Index computation does not grow with n", "[bcc][plan]") {
  // Sections, runs and steps are the same for 10 and for 100000 periods: only the counts grow.
  for (auto [s, t] : {std::pair<index_t, index_t>{8, 5}, {100, 3}, {25, 20}, {60, 3}}) {
    const index::BasicCycle c(s, t, 4);
    const CycMap a1(Cyclic<dynamic>(s), 10 * c.period() + 7, 4), b1(Cyclic<dynamic>(t), 10 * c.period() + 7, 4);
    const CycMap a2(Cyclic<dynamic>(s), 100000 * c.period() + 7, 4), b2(Cyclic<dynamic>(t), 100000 * c.period() + 7, 4);
    for (int r = 0; r < 4; ++r) {
      const CyclePlan p1 = plan_with(a1, b1, r, schedule::bcc), p2 = plan_with(a2, b2, r, schedule::bcc);
      CHECK(p1.general.runs.size() == p2.general.runs.size());
      CHECK(p1.send_pattern == p2.send_pattern);
      CHECK(p1.recv_pattern == p2.recv_pattern);
      CHECK(p1.general.schedule == p2.general.schedule);
      CHECK(p2.full_cycles == 100000);
      // Sections per cycle: at most (s + t)/g + 1 per side, not BC.
      CHECK(static_cast<index_t>(p1.send_pattern.size()) <= c.sm + c.tm);
    }
  }
}

TEST_CASE("piece_limit of a CyclePlan: one pass when it fits, rounds of cycles, or the general path", "[bcc][budget]") {
  const CycMap from(Cyclic<dynamic>(3), 20011, 4), to(Cyclic<dynamic>(7), 20011, 4);
  const auto plans = all_plans(from, to, false);
  const CyclePlan& p = plans[1];
  CHECK(piece_limit(p, p.general.send_scratch + p.general.recv_scratch) == 0);
  // A budget of 5 cycles: rounds of 5 cycles (the agreed piece is the smallest over the ranks).
  index_t agreed = std::numeric_limits<index_t>::max();
  for (const auto& q : plans) agreed = std::min(agreed, piece_limit(q, 5 * q.scratch_per_cycle()));
  REQUIRE(agreed >= p.quantum);
  const index_t per_round = agreed / p.quantum;
  CHECK(per_round == 5);
  for (const auto& q : plans) {  // every round of every rank within its budget
    for (index_t a = 0; a < q.slots; a += per_round) {
      index_t used = 0;
      const Plan& g = q.general;
      for (std::size_t i = 0; i < g.sends.size(); ++i) used += q.elements_in(q.send_per_cycle[i], g.sends[i].size, a, a + per_round);
      for (std::size_t i = 0; i < g.recvs.size(); ++i) used += q.elements_in(q.recv_per_cycle[i], g.recvs[i].size, a, a + per_round);
      CHECK(used <= 5 * q.scratch_per_cycle());
    }
  }
  // Less than a cycle: the general path, with pieces below the quantum.
  const index_t small = piece_limit(p, p.scratch_per_cycle() / 2);
  CHECK(small >= 1);
  CHECK(small < p.quantum);
  // Not one element per message of a step: the general path's error.
  CHECK_THROWS_AS(piece_limit(p, 1), redist::error);
}

TEST_CASE("The multi-phase method's phases and its errors", "[bcc][multiphase]") {
  using schedule::stages;
  CHECK(schedule::multiphase_phases(8, 5, 4, stages::automatic) == schedule::Phases{{8, 40, 5}, 2});
  CHECK(schedule::multiphase_phases(3, 60, 20, stages::two) == schedule::Phases{{3, 12, 60}, 2});
  CHECK(schedule::multiphase_phases(7, 7, 4, stages::automatic) == schedule::Phases{{7, 7, 0}, 1});
  CHECK_THROWS_WITH(schedule::multiphase_phases(8, 5, 4, stages::one), Catch::Contains("requires s to divide t or t to divide s"));
  CHECK_THROWS_WITH(schedule::multiphase_phases(21, 3, 4, stages::two), Catch::Contains("to have a factor"));
  CHECK_THROWS_AS(index::BasicCycle(0, 3, 4), redist::error);
}

// Eq. (4) and (6), the data terms: the basic-cycle calculation moves each element once, (N/M) Td;
// the multi-phase method once per phase, Σ (N/M) Td. Counted from the plans of every rank (elements
// sent plus copied locally) on case 1, 2 and 3 pairs of Sec. 4 with N a multiple of lcm(s, t) · M.
TEST_CASE("Eq. (4) and (6): BCC moves N/M elements per process, the multi-phase method N/M per phase", "[bcc][model]") {
  struct Pair {
    index_t s, t;
    int m;
    int phases;  // of the multi-phase method (automatic)
  };
  for (const Pair& c : {Pair{8, 5, 4, 2}, Pair{3, 2, 4, 2}, Pair{6, 4, 4, 2}, Pair{25, 20, 8, 2}, Pair{60, 3, 20, 1},
                        Pair{3, 60, 20, 1}, Pair{4, 2, 4, 1}}) {
    const index_t n = 2 * std::lcm(c.s, c.t) * c.m;
    const CycMap from(Cyclic<dynamic>(c.s), n, c.m), to(Cyclic<dynamic>(c.t), n, c.m);
    for (int r = 0; r < c.m; ++r) {
      const CyclePlan bcc = plan_with(from, to, r, schedule::bcc);
      const Plan& g = bcc.general;
      CHECK(g.elements_sent() + g.local.size == n / c.m);
      const MultiphasePlan mp = plan_with(from, to, r, schedule::multiphase);
      REQUIRE(mp.stages() == c.phases);
      index_t moved = mp.first.elements_sent() + mp.first.local.size;
      if (mp.stages() == 2) moved += mp.second.elements_sent() + mp.second.local.size;
      CHECK(moved == c.phases * n / c.m);
    }
  }
}
