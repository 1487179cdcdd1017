/// @file Defines the virtual-rank simulator: all P plans built in one process, messages delivered in memory.
#pragma once

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <redist/plan/plan.hpp>
#include <redist/runtime/pack.hpp>

#include "oracle.hpp"

namespace redist::test {

struct SimResult {
  bool ok = true;
  std::string failure;    ///< first problem found
  index_t messages = 0;   ///< remote messages of all ranks
  index_t moved = 0;      ///< elements sent remotely
  std::size_t max_steps = 0;
  int unwalked = 0;       ///< sides (a rank's sends or receives) with packed messages but no valid walk
};

/// What simulate checks of the plans' schedules, besides the data.
struct SimChecks {
  /// Every message is in exactly one step of its rank's schedule, and rank r's step-k send to q
  /// is q's step-k receive from r (and the other way round).
  bool steps_pair = false;
  /// At most one send and one receive per rank per step.
  bool contention_free = false;
};

/// The plan maker simulate uses by default: the general plan.
struct BuildPlan {
  template <class From, class To>
  Plan operator()(const From& from, const To& to, int rank) const {
    return build_plan(from, to, rank);
  }
};

/// Checks the schedules of all ranks' plans as SimChecks asks; calls fail with the first problem.
template <class PlanT, class Fail>
void check_steps(const std::vector<PlanT>& plans, SimChecks checks, Fail&& fail) {
  const int nprocs = static_cast<int>(plans.size());
  auto has = [&](int q, std::size_t k, int peer, bool send) {
    if (k >= plans[q].schedule.size()) return false;
    const schedule::Step& st = plans[q].schedule.steps[k];
    for (std::size_t i : send ? st.sends : st.recvs)
      if ((send ? plans[q].sends[i].peer : plans[q].recvs[i].peer) == peer) return true;
    return false;
  };
  for (int r = 0; r < nprocs; ++r) {
    const PlanT& pl = plans[r];
    std::vector<int> sent(pl.sends.size(), 0), received(pl.recvs.size(), 0);
    for (std::size_t k = 0; k < pl.schedule.size(); ++k) {
      const schedule::Step& st = pl.schedule.steps[k];
      const std::string where = "rank " + std::to_string(r) + " step " + std::to_string(k);
      if (checks.contention_free && (st.sends.size() > 1 || st.recvs.size() > 1))
        fail(where + " sends " + std::to_string(st.sends.size()) + " and receives " + std::to_string(st.recvs.size()));
      if (!checks.steps_pair) continue;
      for (std::size_t i : st.sends) {
        if (i >= pl.sends.size()) { fail(where + " sends a message it does not have"); continue; }
        ++sent[i];
        if (!has(pl.sends[i].peer, k, r, false)) fail(where + " sends to " + std::to_string(pl.sends[i].peer) + ", who does not receive then");
      }
      for (std::size_t i : st.recvs) {
        if (i >= pl.recvs.size()) { fail(where + " receives a message it does not have"); continue; }
        ++received[i];
        if (!has(pl.recvs[i].peer, k, r, true)) fail(where + " receives from " + std::to_string(pl.recvs[i].peer) + ", who does not send then");
      }
    }
    if (!checks.steps_pair) continue;
    for (int n : sent) if (n != 1) fail("rank " + std::to_string(r) + " schedules a send " + std::to_string(n) + " times");
    for (int n : received) if (n != 1) fail("rank " + std::to_string(r) + " schedules a receive " + std::to_string(n) + " times");
  }
}

/// Delivers the messages of all ranks' plans in memory: every rank packs its sends from in[r]
/// (along its walks, or its runs) and copies its local runs into out[r]; every rank unpacks its
/// receives into out[q]. writes[q] counts the elements written on rank q. Checks that every
/// message is received by the peer it was sent to with the same size and that nobody sends to
/// itself (fail); counts messages, elements moved, steps and sides without walks in res.
template <class PlanT, class Fail>
void deliver(const std::vector<PlanT>& plans, const std::vector<std::vector<index_t>>& in,
             std::vector<std::vector<index_t>>& out, std::vector<index_t>& writes, SimResult& res, Fail&& fail) {
  const int nprocs = static_cast<int>(plans.size());
  writes.assign(static_cast<std::size_t>(nprocs), 0);
  // Pack: every send message into its own buffer.
  std::map<std::pair<int, int>, std::vector<index_t>> wire;
  for (int r = 0; r < nprocs; ++r) {
    const auto& pl = plans[r];
    res.max_steps = std::max(res.max_steps, pl.schedule.size());
    for (std::size_t i = 0; i < pl.sends.size(); ++i) {
      const Message& m = pl.sends[i];
      if (m.peer == r) fail("rank " + std::to_string(r) + " sends to itself");
      std::vector<index_t> buf(static_cast<std::size_t>(m.size));
      if constexpr (requires { pl.send_walk; }) runtime::pack_message(pl, i, in[r].data(), buf.data());
      else runtime::pack(pl.runs_of(m), in[r].data(), buf.data());
      if (!wire.emplace(std::pair{r, m.peer}, std::move(buf)).second) fail("two messages on one pair");
      ++res.messages;
      res.moved += m.size;
    }
    runtime::copy(pl.runs_of(pl.local), in[r].data(), out[r].data());
    writes[r] += pl.local.size;
  }
  // Plans built from layouts pack in the order of their walks: count the sides that have none.
  for (int q = 0; q < nprocs; ++q) {
    const auto& pl = plans[q];
    if constexpr (requires { pl.recv_walk; }) {
      auto packed = [](const std::vector<Message>& ms) {
        return std::any_of(ms.begin(), ms.end(), [](const Message& m) { return !m.direct; });
      };
      res.unwalked += (!pl.send_walk && packed(pl.sends)) + (!pl.recv_walk && packed(pl.recvs));
    }
  }
  // Exchange and unpack.
  for (int q = 0; q < nprocs; ++q) {
    for (std::size_t i = 0; i < plans[q].recvs.size(); ++i) {
      const Message& m = plans[q].recvs[i];
      auto it = wire.find({m.peer, q});
      if (it == wire.end()) {
        fail("rank " + std::to_string(q) + " waits for a message from " + std::to_string(m.peer) + " never sent");
        continue;
      }
      if (static_cast<index_t>(it->second.size()) != m.size) fail("message size mismatch");
      else if constexpr (requires { plans[q].recv_walk; }) runtime::unpack_message(plans[q], i, it->second.data(), out[q].data());
      else runtime::unpack(plans[q].runs_of(m), it->second.data(), out[q].data());
      writes[q] += m.size;
      wire.erase(it);
    }
  }
  if (!wire.empty()) fail(std::to_string(wire.size()) + " messages sent but never received");
}

/// The fail function of a SimResult: records the first problem and marks it failed.
inline auto failer(SimResult& res) {
  return [&res](std::string why) {
    if (res.ok) res.failure = std::move(why);
    res.ok = false;
  };
}

/// The plans of all ranks for from -> to (make_plan(from, to, rank)), their schedules checked as
/// `checks` asks.
template <class From, class To, class MakePlan, class Fail>
auto all_rank_plans(const From& from, const To& to, const MakePlan& make_plan, SimChecks checks, Fail&& fail) {
  std::vector<decltype(make_plan(from, to, 0))> plans;
  for (int r = 0; r < from.nprocs(); ++r) plans.push_back(make_plan(from, to, r));
  check_steps(plans, checks, fail);
  return plans;
}

/// Checks what deliver wrote: every rank wrote as many elements as it has places, and holds
/// what it is expected to hold everywhere (written places and untouched rest alike).
template <class Fail>
void check_delivered(const std::vector<std::vector<index_t>>& out, const std::vector<std::vector<index_t>>& expected,
                     const std::vector<index_t>& writes, const std::vector<index_t>& places, Fail&& fail) {
  for (std::size_t p = 0; p < out.size(); ++p) {
    if (writes[p] != places[p])
      fail("rank " + std::to_string(p) + " receives " + std::to_string(writes[p]) + " elements for " +
           std::to_string(places[p]) + " places");
    for (std::size_t l = 0; l < out[p].size(); ++l)
      if (out[p][l] != expected[p][l]) {
        fail("rank " + std::to_string(p) + " local " + std::to_string(l) + " holds " + std::to_string(out[p][l]) +
             ", expected " + std::to_string(expected[p][l]));
        break;
      }
  }
}

/// Builds the plans of all ranks for from -> to (with make_plan(from, to, rank)), fills every
/// source element with its global index (from the oracle of the source), delivers every message
/// in memory, and checks against the oracle of the target that every destination element holds
/// its own global index and was written exactly once, that every message is received by the
/// peer it was sent to with the same size, and that nobody sends to itself; and the schedules,
/// as `checks` asks.
template <class From, class To, class MakePlan = BuildPlan>
SimResult simulate(const From& from, const To& to, const Layout& src, const Layout& dst, SimChecks checks = {},
                   MakePlan make_plan = {}) {
  SimResult res;
  const auto fail = failer(res);
  const auto plans = all_rank_plans(from, to, make_plan, checks, fail);
  const int nprocs = from.nprocs();
  std::vector<std::vector<index_t>> in(nprocs), out(nprocs);
  std::vector<index_t> writes, places(nprocs);
  for (int p = 0; p < nprocs; ++p) {
    in[p] = src.globals[p];
    out[p].assign(dst.globals[p].size(), -1);
    // Places: every local element but padding (global index -1, never written).
    places[p] = std::count_if(dst.globals[p].begin(), dst.globals[p].end(), [](index_t g) { return g >= 0; });
  }
  deliver(plans, in, out, writes, res, fail);
  check_delivered(out, dst.globals, writes, places, fail);
  return res;
}

}  // namespace redist::test
