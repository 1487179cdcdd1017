/// @file Defines the virtual-rank simulator: all P plans built in one process, their stages run step by step in memory (relays and intermediate arrays included), checked against the oracle.
#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <redist/plan/plan.hpp>
#include <redist/plan/transfers.hpp>
#include <redist/runtime/pack.hpp>
#include <redist/runtime/store.hpp>

#include "oracle.hpp"

namespace redist::test {

struct SimResult {
  bool ok = true;
  std::string failure;    ///< first problem found
  index_t messages = 0;   ///< remote messages of all ranks
  index_t moved = 0;      ///< elements sent remotely
  index_t max_moved = 0;  ///< most elements one rank sent
  std::size_t max_steps = 0;  ///< most steps of one rank's plan (all stages)
  int unwalked = 0;       ///< sides (a rank's sends or receives of a stage) with packed messages but no valid walk
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

/// The plan maker of N-D layouts: the general plan of the grid builder.
struct BuildGridPlan {
  template <class From, class To>
  auto operator()(const From& from, const To& to, int rank) const {
    return build_grid_plan(from, to, rank);
  }
};

/// The plan maker of a schedule policy: plan_with(from, to, rank, Policy{}).
template <class Policy>
struct PlanUnder {
  template <class From, class To>
  auto operator()(const From& from, const To& to, int rank) const {
    return plan_with(from, to, rank, Policy{});
  }
};

/// Whether grid_transfers(from, to) is the communication table of the plans of all nprocs ranks:
/// per (sender, receiver) the elements of its message (the local copy for sender = receiver).
template <class From, class To>
bool transfers_are_plans(const From& from, const To& to, int nprocs) {
  std::map<std::pair<int, int>, index_t> from_plans, from_table;
  for (int r = 0; r < nprocs; ++r) {
    const auto whole = build_grid_plan(from, to, r);
    const auto& p = whole.only();
    for (const Message& m : p.sends) from_plans[{r, m.peer}] = m.size;
    if (p.local.size > 0) from_plans[{r, r}] = p.local.size;
  }
  for (const auto& tr : grid_transfers(from, to)) from_table[{tr.sender, tr.receiver}] = tr.size;
  return from_plans == from_table;
}

/// Checks the schedules of all ranks' stages s as SimChecks asks; calls fail with the first problem.
template <class PlanT, class Fail>
void check_steps(const std::vector<PlanT>& plans, std::size_t s, SimChecks checks, Fail&& fail) {
  const int nprocs = static_cast<int>(plans.size());
  auto has = [&](int q, std::size_t k, int peer, bool send) {
    const auto& st = plans[q].stages[s];
    if (k >= st.schedule.size()) return false;
    const schedule::Step& step = st.schedule.steps[k];
    for (std::size_t i : send ? step.sends : step.recvs)
      if ((send ? st.sends[i].peer : st.recvs[i].peer) == peer) return true;
    return false;
  };
  for (int r = 0; r < nprocs; ++r) {
    const auto& pl = plans[r].stages[s];
    std::vector<int> sent(pl.sends.size(), 0), received(pl.recvs.size(), 0);
    for (std::size_t k = 0; k < pl.schedule.size(); ++k) {
      const schedule::Step& st = pl.schedule.steps[k];
      const std::string where = "rank " + std::to_string(r) + " stage " + std::to_string(s) + " step " + std::to_string(k);
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

/// Runs stage s of every rank's plan in memory: from[r] -> to[r] through rank r's relay area. Per
/// step, every rank packs its sends (from its `from` buffer, or its relay area), then every rank
/// unpacks its receives (into `to`, or keeps them in its relay area), so that a block relayed in a
/// step is forwarded in a later one; the local runs are copied first. Checks that every message
/// is received, in the same step, by the peer it was sent to, with the same size, and that nobody
/// sends to itself. writes[q] counts the elements written into q's `to` buffer.
template <class PlanT, class Fail>
void run_stage(const std::vector<PlanT>& plans, std::size_t s, const std::vector<std::vector<index_t>>& from,
               std::vector<std::vector<index_t>>& to, std::vector<index_t>& writes, SimResult& res, Fail&& fail) {
  const int nprocs = static_cast<int>(plans.size());
  std::vector<std::vector<index_t>> relay(static_cast<std::size_t>(nprocs));
  std::size_t nsteps = 0;
  for (int r = 0; r < nprocs; ++r) {
    const auto& st = plans[r].stages[s];
    relay[r].assign(static_cast<std::size_t>(st.relay), -7);
    nsteps = std::max(nsteps, st.schedule.size());
    runtime::copy_message(st, st.local, from[r].data(), to[r].data());
    writes[r] += st.local.size;
    res.messages += static_cast<index_t>(st.sends.size());
    index_t sent = 0;
    for (const Message& m : st.sends) sent += m.size;
    res.moved += sent;
    res.max_moved = std::max(res.max_moved, sent);
  }
  // Messages a stage's schedule does not place (a plan without steps) all go in one step.
  std::vector<std::vector<char>> done_send(static_cast<std::size_t>(nprocs)), done_recv(static_cast<std::size_t>(nprocs));
  for (int r = 0; r < nprocs; ++r) {
    done_send[r].assign(plans[r].stages[s].sends.size(), 0);
    done_recv[r].assign(plans[r].stages[s].recvs.size(), 0);
  }
  auto step_of = [&](int r, std::size_t k, bool send) {
    std::vector<std::size_t> out;
    const auto& st = plans[r].stages[s];
    if (k < st.schedule.size()) out = send ? st.schedule.steps[k].sends : st.schedule.steps[k].recvs;
    return out;
  };
  for (std::size_t k = 0; k <= nsteps; ++k) {
    // Step nsteps: whatever no step placed (an error unless both sides left it out alike).
    std::map<std::tuple<int, int>, std::vector<index_t>> wire;
    for (int r = 0; r < nprocs; ++r) {
      const auto& st = plans[r].stages[s];
      std::vector<std::size_t> sends = step_of(r, k, true);
      if (k == nsteps)
        for (std::size_t i = 0; i < st.sends.size(); ++i)
          if (!done_send[r][i]) sends.push_back(i);
      for (std::size_t i : sends) {
        if (i >= st.sends.size()) { fail("a step names a send that does not exist"); continue; }
        done_send[r][i] = 1;
        const Message& m = st.sends[i];
        if (m.peer == r) fail("rank " + std::to_string(r) + " sends to itself");
        std::vector<index_t> buf(static_cast<std::size_t>(m.size));
        runtime::pack_message(st, i, from[r].data(), buf.data(), 0, -1, relay[r].data());
        if (!wire.emplace(std::tuple{r, m.peer}, std::move(buf)).second) fail("two messages on one pair in one step");
      }
    }
    for (int q = 0; q < nprocs; ++q) {
      const auto& st = plans[q].stages[s];
      std::vector<std::size_t> recvs = step_of(q, k, false);
      if (k == nsteps)
        for (std::size_t i = 0; i < st.recvs.size(); ++i)
          if (!done_recv[q][i]) recvs.push_back(i);
      for (std::size_t i : recvs) {
        if (i >= st.recvs.size()) { fail("a step names a receive that does not exist"); continue; }
        done_recv[q][i] = 1;
        const Message& m = st.recvs[i];
        auto it = wire.find({m.peer, q});
        if (it == wire.end()) {
          fail("rank " + std::to_string(q) + " waits for a message from " + std::to_string(m.peer) + " never sent (stage " +
               std::to_string(s) + ", step " + std::to_string(k) + ")");
          continue;
        }
        if (static_cast<index_t>(it->second.size()) != m.size) {
          fail("message size mismatch");
        } else if (m.relay_at >= 0) {
          if (m.relay_at + m.size > st.relay) fail("a receive overflows the relay area");
          std::copy(it->second.begin(), it->second.end(), relay[q].begin() + m.relay_at);
          runtime::unpack_message(st, i, relay[q].data() + m.relay_at, to[q].data(), 0, -1, runtime::assign_op{},
                                  relay[q].data());
        } else {
          runtime::unpack_message(st, i, it->second.data(), to[q].data(), 0, -1, runtime::assign_op{}, relay[q].data());
        }
        if (m.listed()) writes[q] += m.size;
        for (std::size_t j = m.first; j < m.first + m.nruns; ++j)
          if (!st.relayed(j)) writes[q] += st.runs[j].size();
        wire.erase(it);
      }
    }
    if (!wire.empty()) fail(std::to_string(wire.size()) + " messages sent but never received (stage " + std::to_string(s) + ")");
  }
}

/// Plans built from layouts pack in the order of their walks: counts the sides of stages that have
/// packed messages but no walk.
template <class PlanT>
int count_unwalked(const std::vector<PlanT>& plans) {
  int n = 0;
  auto packed = [](const std::vector<Message>& ms) {
    return std::any_of(ms.begin(), ms.end(), [](const Message& m) { return !m.direct; });
  };
  for (const auto& p : plans)
    for (const auto& st : p.stages) n += (!st.send_walk && packed(st.sends)) + (!st.recv_walk && packed(st.recvs));
  return n;
}

/// Runs every stage of all ranks' plans in memory (in: every rank's source elements, out: its
/// destination elements; intermediate arrays of plan.intermediate elements in between), checking
/// each stage's schedule as `checks` asks. writes[q] counts the elements written into q's destination.
template <class PlanT, class Fail>
void deliver(const std::vector<PlanT>& plans, const std::vector<std::vector<index_t>>& in,
             std::vector<std::vector<index_t>>& out, std::vector<index_t>& writes, SimResult& res, SimChecks checks,
             Fail&& fail) {
  const int nprocs = static_cast<int>(plans.size());
  writes.assign(static_cast<std::size_t>(nprocs), 0);
  std::size_t nstages = plans.empty() ? 0 : plans[0].stages.size();
  for (int r = 0; r < nprocs; ++r) {
    if (plans[r].stages.size() != nstages) fail("ranks disagree on the number of stages");
    res.max_steps = std::max(res.max_steps, plans[r].steps());
  }
  if (!res.ok) return;
  res.unwalked += count_unwalked(plans);
  std::vector<std::vector<index_t>> cur = in;
  for (std::size_t s = 0; s < nstages; ++s) {
    check_steps(plans, s, checks, fail);
    const bool last = s + 1 == nstages;
    std::vector<std::vector<index_t>> next(static_cast<std::size_t>(nprocs));
    std::vector<index_t> w(static_cast<std::size_t>(nprocs), 0);
    for (int r = 0; r < nprocs; ++r) {
      if (plans[r].stages[s].to != (last ? Buffer::destination : Buffer::intermediate)) fail("a stage writes the wrong buffer");
      next[r] = last ? out[r] : std::vector<index_t>(static_cast<std::size_t>(plans[r].intermediate), -1);
    }
    run_stage(plans, s, cur, next, w, res, fail);
    if (last) {
      out = std::move(next);
      writes = w;
    } else {
      cur = std::move(next);
    }
  }
}

/// The fail function of a SimResult: records the first problem and marks it failed.
inline auto failer(SimResult& res) {
  return [&res](std::string why) {
    if (res.ok) res.failure = std::move(why);
    res.ok = false;
  };
}

/// The plans of all ranks for from -> to (make_plan(from, to, rank)).
template <class From, class To, class MakePlan>
auto all_rank_plans(const From& from, const To& to, const MakePlan& make_plan) {
  std::vector<decltype(make_plan(from, to, 0))> plans;
  for (int r = 0; r < from.nprocs(); ++r) plans.push_back(make_plan(from, to, r));
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

/// Runs the plans of all ranks (given) in memory, every source element filled with its global
/// index (from the oracle layout src), and checks against the oracle of the target that every
/// destination element holds its own global index and was written exactly once, that every
/// message is received by the peer it was sent to with the same size in the same step, and that
/// nobody sends to itself; and the schedules, as `checks` asks.
template <class PlanT>
SimResult simulate_plans(const std::vector<PlanT>& plans, const Layout& src, const Layout& dst, SimChecks checks = {}) {
  SimResult res;
  const auto fail = failer(res);
  const int nprocs = static_cast<int>(plans.size());
  std::vector<std::vector<index_t>> in(nprocs), out(nprocs);
  std::vector<index_t> writes, places(nprocs);
  for (int p = 0; p < nprocs; ++p) {
    in[p] = src.globals[p];
    out[p].assign(dst.globals[p].size(), -1);
    // Places: every local element but padding (global index -1, never written).
    places[p] = std::count_if(dst.globals[p].begin(), dst.globals[p].end(), [](index_t g) { return g >= 0; });
  }
  deliver(plans, in, out, writes, res, checks, fail);
  if (res.ok) check_delivered(out, dst.globals, writes, places, fail);
  return res;
}

/// Builds the plans of all ranks for from -> to (with make_plan(from, to, rank)) and runs them in
/// memory (simulate_plans).
template <class From, class To, class MakePlan = BuildPlan>
SimResult simulate(const From& from, const To& to, const Layout& src, const Layout& dst, SimChecks checks = {},
                   MakePlan make_plan = {}) {
  return simulate_plans(all_rank_plans(from, to, make_plan), src, dst, checks);
}

/// Runs all ranks' plans out of partial values (a Partial<Op> source: every holder of an element
/// sends its value, the receiver adds them), one stage of direct messages each: holder q of element
/// g holds g * 64 + q (at most 64 ranks), every destination place starts at 0, the local copy and
/// each message (packed from its sender's source as the sender's plan says) are added in. Checks
/// that every place of src -> dst holds the sum over the holders of its element (each holder once:
/// a missing or repeated one changes the sum), that the places the destination does not receive
/// (the others of a Partial dimension, padding) stay 0, and that every message is received by the
/// peer it was sent to with the same size.
template <class PlanT>
SimResult simulate_fold(const std::vector<PlanT>& plans, const Layout& src, const Layout& dst) {
  SimResult res;
  const auto fail = failer(res);
  const auto P = plans.size();
  if (P > 64) {
    fail("simulate_fold: at most 64 ranks");
    return res;
  }
  std::vector<std::vector<index_t>> in(P), out(P);
  std::map<index_t, index_t> sum;
  for (std::size_t q = 0; q < P; ++q) {
    in[q].assign(src.globals[q].size(), 0);
    for (std::size_t l = 0; l < in[q].size(); ++l)
      if (const index_t g = src.globals[q][l]; g >= 0) sum[g] += in[q][l] = g * 64 + static_cast<index_t>(q);
    out[q].assign(dst.globals[q].size(), 0);
  }
  const runtime::fold_op<std::plus<>> add{};
  for (std::size_t r = 0; r < P && res.ok; ++r) {
    if (plans[r].stages.size() != 1 || !plans[r].direct()) {
      fail("rank " + std::to_string(r) + "'s plan out of partial values is not one stage of direct messages");
      break;
    }
    const auto& st = plans[r].stages[0];
    std::vector<index_t> buf;
    runtime::copy_message(st, st.local, in[r].data(), out[r].data(), add);
    for (const Message& m : st.recvs) {
      const auto s = static_cast<std::size_t>(m.peer);
      const Message* sent = nullptr;
      if (s < P && s != r && plans[s].stages.size() == 1)
        for (const Message& x : plans[s].stages[0].sends)
          if (x.peer == static_cast<int>(r)) sent = &x;
      if (sent == nullptr || sent->size != m.size) {
        fail("rank " + std::to_string(r) + " receives " + std::to_string(m.size) + " elements from " +
             std::to_string(m.peer) + ", who does not send them");
        break;
      }
      buf.assign(static_cast<std::size_t>(m.size), 0);
      const auto& sst = plans[s].stages[0];
      runtime::pack_message(sst, static_cast<std::size_t>(sent - sst.sends.data()), in[s].data(), buf.data());
      runtime::unpack_message(st, static_cast<std::size_t>(&m - st.recvs.data()), buf.data(), out[r].data(), 0, -1, add);
      ++res.messages;
      res.moved += m.size;
    }
  }
  for (std::size_t r = 0; r < P && res.ok; ++r)
    for (std::size_t l = 0; l < out[r].size(); ++l) {
      const index_t g = dst.globals[r][l];
      const index_t want = g >= 0 ? sum[g] : 0;
      if (out[r][l] != want) {
        fail("rank " + std::to_string(r) + " local " + std::to_string(l) + " (element " + std::to_string(g) + ") holds " +
             std::to_string(out[r][l]) + ", expected " + std::to_string(want));
        break;
      }
    }
  return res;
}

}  // namespace redist::test
