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
#include <redist/dist/any.hpp>
#include <redist/dist/dist.hpp>
#include <redist/plan/automatic.hpp>
#include <redist/plan/basic_cycle.hpp>
#include <redist/plan/multiphase.hpp>
#include <redist/runtime/pack.hpp>
#include <redist/schedule/basic_cycle.hpp>
#include <redist/schedule/multiphase.hpp>

#include "../support/oracle.hpp"
#include "../support/sanitized.hpp"
#include "../support/simulator.hpp"

using namespace redist;
using redist::test::Layout;

namespace {

using CycMap = Cyclic<dynamic>::mapping;

struct MakeBcc {
  bool contention_free = false;
  Plan operator()(const CycMap& from, const CycMap& to, int rank) const {
    return contention_free ? plan_with(from, to, rank, schedule::bcc_contention_free) : plan_with(from, to, rank, schedule::bcc);
  }
};

std::vector<Plan> all_plans(const CycMap& from, const CycMap& to, bool contention_free) {
  std::vector<Plan> plans;
  for (int r = 0; r < from.nprocs(); ++r)
    plans.push_back(contention_free ? plan_with(from, to, r, schedule::bcc_contention_free)
                                    : plan_with(from, to, r, schedule::bcc));
  return plans;
}

/// The one-pass path in memory: every rank packs the cycle slots [a, a + per_round) of its source
/// into one buffer per message (pack_cycles), the pieces are delivered, every rank unpacks them
/// (unpack_cycles), each by either of their two orders of work; checked against the oracle. Also checks that the piece sizes both sides
/// compute (elements_in) agree and that each round's scratch is what it says.
std::string simulate_one_pass(const std::vector<Plan>& plans, const Layout& src, const Layout& dst,
                              index_t per_round) {
  const int nprocs = static_cast<int>(plans.size());
  std::vector<std::vector<index_t>> out(static_cast<std::size_t>(nprocs));
  for (int p = 0; p < nprocs; ++p) out[p].assign(dst.globals[p].size(), -1);
  const index_t slots = plans.empty() ? 0 : plans[0].only().cycles.slots;
  for (index_t a = 0; a < slots; a += per_round) {
    const index_t b = std::min(slots, a + per_round);
    std::map<std::pair<int, int>, std::vector<index_t>> wire;
    for (int r = 0; r < nprocs; ++r) {
      const Stage<Run>& pl = plans[r].only();
      const Cycles& cy = pl.cycles;
      if (cy.slots != slots) return "ranks disagree on the number of cycles";
      std::vector<std::vector<index_t>> bufs(pl.sends.size());
      std::vector<index_t*> ptr(pl.sends.size());
      for (std::size_t i = 0; i < pl.sends.size(); ++i) {
        bufs[i].assign(static_cast<std::size_t>(cy.elements_in(cy.send_per_cycle[i], pl.sends[i].size, a, b)), -7);
        ptr[i] = bufs[i].data();
      }
      // Cycle by cycle (the pattern) and, for the whole cycles, section by section (the Cycles
      // overload the executor calls), alternating between ranks and rounds: the same packed order,
      // or the other side's unpack fails the oracle.
      if ((r + a) % 2 == 0)
        runtime::pack_cycles<index_t>(cy, a, b, src.globals[r].data(), static_cast<index_t>(src.globals[r].size()),
                                      ptr.data(), out[r].data());
      else
        runtime::pack_cycles<index_t>(cy.send_pattern, cy.cycle, a, b, src.globals[r].data(),
                                      static_cast<index_t>(src.globals[r].size()), ptr.data(), out[r].data());
      for (std::size_t i = 0; i < pl.sends.size(); ++i) {
        if (ptr[i] != bufs[i].data() + bufs[i].size())
          return "rank " + std::to_string(r) + " packs " + std::to_string(ptr[i] - bufs[i].data()) +
                 " elements for a piece of " + std::to_string(bufs[i].size());
        wire[{r, pl.sends[i].peer}] = std::move(bufs[i]);
      }
    }
    for (int q = 0; q < nprocs; ++q) {
      const Stage<Run>& pl = plans[q].only();
      const Cycles& cy = pl.cycles;
      std::vector<const index_t*> ptr(pl.recvs.size());
      std::vector<const index_t*> ends(pl.recvs.size());
      for (std::size_t i = 0; i < pl.recvs.size(); ++i) {
        auto it = wire.find({pl.recvs[i].peer, q});
        if (it == wire.end()) return "rank " + std::to_string(q) + " expects a message never sent";
        const index_t want = cy.elements_in(cy.recv_per_cycle[i], pl.recvs[i].size, a, b);
        if (static_cast<index_t>(it->second.size()) != want) return "piece sizes disagree between sender and receiver";
        ptr[i] = it->second.data();
        ends[i] = it->second.data() + it->second.size();
      }
      if ((q + a) % 2 == 1)
        runtime::unpack_cycles<index_t>(cy, a, b, ptr.data(), out[q].data(), static_cast<index_t>(out[q].size()));
      else
        runtime::unpack_cycles<index_t>(cy.recv_pattern, cy.cycle, a, b, ptr.data(), out[q].data(),
                                        static_cast<index_t>(out[q].size()));
      for (std::size_t i = 0; i < pl.recvs.size(); ++i)
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

bool same_plan(const Plan& a, const Plan& b) {
  const Stage<Run> &ga = a.only(), &gb = b.only();
  return a.rank == b.rank && a.nprocs == b.nprocs && a.schedule_name == b.schedule_name && ga.runs == gb.runs &&
         ga.sends == gb.sends && ga.recvs == gb.recvs && ga.local == gb.local && ga.schedule == gb.schedule &&
         ga.cycles == gb.cycles;
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
  CHECK(same_plan(plan_with(f, g, 1, schedule::bcc_contention_free), B::plan(1000, 1, schedule::bcc_contention_free)));
}

TEST_CASE("BCC plans are exact in the virtual-rank simulation, s, t <= 64, P <= 64", "[bcc][simulate]") {
  std::mt19937_64 rng(77);
  int cases = 0;
  for (int trial = 0; trial < redist::test::trials(400); ++trial) {
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
      for (index_t per_round : {std::max<index_t>(plans[0].only().cycles.slots, 1), index_t{1}, index_t{3}}) {
        const std::string why = simulate_one_pass(plans, o_src, o_dst, per_round);
        INFO("one pass, " << per_round << " cycles per round: " << why);
        REQUIRE(why.empty());
      }
      // Contention-free: as many steps as the most messages one rank sends or receives.
      if (cf) {
        std::size_t degree = 0;
        for (const auto& p : plans) {
          degree = std::max(degree, p.only().sends.size());
          degree = std::max(degree, p.only().recvs.size());
        }
        CHECK(res.max_steps == degree);
      }
      // Everyone agrees on the quantum and the number of cycles.
      for (const auto& p : plans) {
        REQUIRE(p.only().cycles.quantum == plans[0].only().cycles.quantum);
        REQUIRE(p.only().cycles.slots == plans[0].only().cycles.slots);
      }
    }
  }
  CHECK(cases > redist::test::trials(400) * 3 / 4);
}

TEST_CASE("BCC's send order follows the appearance order of each send template", "[bcc][schedule]") {
  // Figure 4: P2's template is P3 P3 P0 P1 P1 P2, so it sends to P3, P0, P1 in steps 1, 2, 3
  // (step 4 is its own part: no message).
  const CycMap from(Cyclic<dynamic>(3), 48, 4), to(Cyclic<dynamic>(2), 48, 4);
  const Plan p = plan_with(from, to, 2, schedule::bcc);
  CHECK(p.schedule_name == "bcc");
  std::vector<int> order;
  for (const auto& step : p.only().schedule.steps) {
    REQUIRE(step.sends.size() <= 1);
    for (std::size_t i : step.sends) order.push_back(p.only().sends[i].peer);
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
      const Plan p1 = plan_with(a1, b1, r, schedule::bcc), p2 = plan_with(a2, b2, r, schedule::bcc);
      CHECK(p1.only().runs.size() == p2.only().runs.size());
      CHECK(p1.only().cycles.send_pattern == p2.only().cycles.send_pattern);
      CHECK(p1.only().cycles.recv_pattern == p2.only().cycles.recv_pattern);
      CHECK(p1.only().schedule == p2.only().schedule);
      CHECK(p2.only().cycles.full_cycles == 100000);
      // Sections per cycle: at most (s + t)/g + 1 per side, not BC.
      CHECK(static_cast<index_t>(p1.only().cycles.send_pattern.size()) <= c.sm + c.tm);
    }
  }
}

TEST_CASE("piece_limit of a BCC plan: one pass when it fits, rounds of cycles, or message by message", "[bcc][budget]") {
  const CycMap from(Cyclic<dynamic>(3), 20011, 4), to(Cyclic<dynamic>(7), 20011, 4);
  const auto plans = all_plans(from, to, false);
  const Plan& p = plans[1];
  const Cycles& pc = p.only().cycles;
  CHECK(piece_limit(p, p.only().elements_sent() + p.only().elements_received()) == 0);
  // A budget of 5 cycles: rounds of 5 cycles (the agreed piece is the smallest over the ranks).
  index_t agreed = std::numeric_limits<index_t>::max();
  for (const auto& q : plans) agreed = std::min(agreed, piece_limit(q, 5 * q.only().cycles.scratch_per_cycle()));
  REQUIRE(agreed >= pc.quantum);
  const index_t per_round = agreed / pc.quantum;
  CHECK(per_round == 5);
  for (const auto& q : plans) {  // every round of every rank within its budget
    const Cycles& qc = q.only().cycles;
    for (index_t a = 0; a < qc.slots; a += per_round) {
      index_t used = 0;
      const Stage<Run>& g = q.only();
      for (std::size_t i = 0; i < g.sends.size(); ++i) used += qc.elements_in(qc.send_per_cycle[i], g.sends[i].size, a, a + per_round);
      for (std::size_t i = 0; i < g.recvs.size(); ++i) used += qc.elements_in(qc.recv_per_cycle[i], g.recvs[i].size, a, a + per_round);
      CHECK(used <= 5 * qc.scratch_per_cycle());
    }
  }
  // Less than a cycle: message by message, with pieces below the quantum.
  const index_t small = piece_limit(p, pc.scratch_per_cycle() / 2);
  CHECK(small >= 1);
  CHECK(small < pc.quantum);
  // Not one element per message of a step: the general path's error.
  CHECK_THROWS_AS(piece_limit(p, 1), redist::error);
}

TEST_CASE("The multi-phase method's phases and its errors", "[bcc][multiphase]") {
  using schedule::stages;
  CHECK(schedule::multiphase_phases(8, 5, 4, stages::by_case) == schedule::Phases{{8, 40, 5}, 2});
  CHECK(schedule::multiphase_phases(3, 60, 20, stages::two) == schedule::Phases{{3, 12, 60}, 2});
  CHECK(schedule::multiphase_phases(7, 7, 4, stages::by_case) == schedule::Phases{{7, 7, 0}, 1});
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
      const Plan bcc = plan_with(from, to, r, schedule::bcc);
      const Stage<Run>& g = bcc.only();
      CHECK(g.elements_sent() + g.local.size == n / c.m);
      const Plan mp = plan_with(from, to, r, schedule::multiphase);
      REQUIRE(static_cast<int>(mp.stages.size()) == c.phases);
      index_t moved = 0;
      for (const Stage<Run>& st : mp.stages) moved += st.elements_sent() + st.local.size;
      CHECK(moved == c.phases * n / c.m);
    }
  }
}

TEST_CASE("1-D AnyDist layouts get their typed equivalents' schedules, decided at plan time", "[bcc][any]") {
  // What a C, Fortran or Python caller's 1-D layout is (Dist<AnyDist> on a rank-1 grid): the
  // planners look through it (as_cyclic, as_gen_block) to the schedules of the distribution it
  // holds, and every plan is exact in the virtual-rank simulation.
  using A = Dist<AnyDist>::mapping;
  auto layout = [](AnyDist d, index_t n, int p, int first = 0) {
    return A(Dist<AnyDist>{std::move(d)}, {n}, DynamicGrid<1>(p).with_first(first), {0}, Storage{}, p + first);
  };
  auto automatic = [](const auto& f, const auto& t, int r) { return plan_with(f, t, r, schedule::automatic); };
  for (int p : {1, 3, 4, 7})
    for (index_t n : {index_t{0}, index_t{1000}, index_t{4099}}) {
      INFO("P = " << p << ", n = " << n);
      const A c8 = layout(Cyclic<>{8}, n, p), c5 = layout(Cyclic<>{5}, n, p), blk = layout(Block{}, n, p);
      const CycMap t8(Cyclic<>{8}, n, p), t5(Cyclic<>{5}, n, p);
      for (int r = 0; r < p; ++r) {
        const Plan any = plan_with(c8, c5, r, schedule::automatic), typed = plan_with(t8, t5, r, schedule::automatic);
        CHECK(any.schedule_name == typed.schedule_name);
        REQUIRE(any.stages.size() == typed.stages.size());
        for (std::size_t s = 0; s < any.stages.size(); ++s) CHECK(any.stages[s].sends == typed.stages[s].sends);
        CHECK(plan_with(c8, c5, r, schedule::bcc).only().cycles == plan_with(t8, t5, r, schedule::bcc).only().cycles);
      }
      const auto o8 = redist::test::oracle(Cyclic<>{8}, n, p), o5 = redist::test::oracle(Cyclic<>{5}, n, p);
      auto res = redist::test::simulate(c8, c5, o8, o5, redist::test::SimChecks{true, false}, automatic);
      INFO(res.failure);
      CHECK(res.ok);
      // GEN_BLOCK: the GEN_BLOCK rule's choice.
      std::vector<index_t> sizes(static_cast<std::size_t>(p)), other(sizes);
      for (int q = 0; q < p; ++q) sizes[q] = other[p - 1 - q] = n / p + (q < n % p ? 1 : 0);
      const A g1 = layout(GenBlock(sizes), n, p), g2 = layout(GenBlock(other), n, p);
      const GenBlock::mapping tg1(GenBlock(sizes), n, p), tg2(GenBlock(other), n, p);
      for (int r = 0; r < p; ++r) CHECK(plan_with(g1, g2, r, schedule::automatic).schedule_name == plan_with(tg1, tg2, r, schedule::automatic).schedule_name);
      res = redist::test::simulate(g1, g2, redist::test::oracle(GenBlock(sizes), n, p), redist::test::oracle(GenBlock(other), n, p),
                                   redist::test::SimChecks{true, false}, automatic);
      INFO(res.failure);
      CHECK(res.ok);
      // Other kinds, and a Cyclic pair on a subset of the communicator: the general plan.
      for (int r = 0; r < p; ++r) CHECK(plan_with(blk, c5, r, schedule::automatic).schedule_name == "all_at_once");
      const A s8 = layout(Cyclic<>{8}, n, p, 1), s5 = layout(Cyclic<>{5}, n, p, 1);
      for (int r = 0; r <= p; ++r) CHECK(plan_with(s8, s5, r, schedule::automatic).schedule_name == "all_at_once");
      CHECK_THROWS_WITH(plan_with(blk, c5, 0, schedule::bcc), Catch::Contains("requires CYCLIC(k) layouts"));
    }
}
