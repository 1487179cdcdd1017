/// @file Defines apply_global_schedule, which replaces a plan's schedule by its rank's row of a global schedule of transfers.
#pragma once

#include <concepts>
#include <cstddef>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <redist/config.hpp>
#include <redist/schedule/caterpillar.hpp>
#include <redist/schedule/relative_group.hpp>
#include <redist/schedule/schedule.hpp>
#include <redist/schedule/transfer.hpp>

namespace redist {

/// plan.schedule := plan.rank's row of g, where g's steps hold indices into `transfers`:
///   (step k, transfer (s, r, n))  |->  step k sends the plan's message to r (when s == rank)
///                                      and receives the plan's message from s (when r == rank).
/// Every step of g is a step of the row (possibly empty for this rank), so all ranks run the same
/// number of steps. Local transfers (s == r) are skipped: the plan copies them without MPI. Each
/// transfer is matched to a message with its peer and size; every send and every receive of the
/// plan must be matched exactly once, or report_error says "internal error".
/// PlanT: any type with members `int rank`, `std::vector<Message> sends, recvs` (Message with
/// `int peer` and `index_t size`) and `schedule::Schedule schedule` (redist::Plan and others).
template <class PlanT>
void apply_global_schedule(PlanT& plan, std::span<const schedule::Transfer> transfers, const schedule::GlobalSchedule& g) {
  auto fail = [](const std::string& what) {
    detail::report_error("redist::apply_global_schedule(plan, transfers, g): internal error, " + what);
  };
  const int rank = plan.rank;
  // peer -> indices of the plan's messages with that peer, in list order, consumed as matched.
  std::map<int, std::vector<std::size_t>> sends_to, recvs_from;
  for (std::size_t i = plan.sends.size(); i-- > 0;) sends_to[plan.sends[i].peer].push_back(i);
  for (std::size_t i = plan.recvs.size(); i-- > 0;) recvs_from[plan.recvs[i].peer].push_back(i);
  auto take = [&](std::map<int, std::vector<std::size_t>>& by_peer, const auto& messages, int peer, index_t size,
                  const char* side) {
    auto it = by_peer.find(peer);
    if (it == by_peer.end() || it->second.empty())
      fail(std::string("a transfer has no ") + side + " in the plan of rank " + std::to_string(rank) + " (peer " +
           std::to_string(peer) + ")");
    const std::size_t i = it->second.back();
    if (messages[i].size != size)
      fail(std::string("a transfer and the plan's ") + side + " disagree on the size (rank " + std::to_string(rank) +
           ", peer " + std::to_string(peer) + ")");
    it->second.pop_back();
    return i;
  };
  std::vector<char> seen(transfers.size(), 0);
  schedule::Schedule row;
  row.steps.resize(g.size());
  for (std::size_t k = 0; k < g.size(); ++k) {
    for (std::size_t m : g.steps[k]) {
      if (m >= transfers.size()) fail("the global schedule names a transfer that is not in the list");
      if (seen[m]++) fail("the global schedule names a transfer twice");
      const schedule::Transfer& t = transfers[m];
      if (t.local()) continue;
      if (t.sender == rank) row.steps[k].sends.push_back(take(sends_to, plan.sends, t.receiver, t.size, "send"));
      if (t.receiver == rank) row.steps[k].recvs.push_back(take(recvs_from, plan.recvs, t.sender, t.size, "receive"));
    }
  }
  for (const auto& [peer, left] : sends_to)
    if (!left.empty()) fail("a send of rank " + std::to_string(rank) + " to " + std::to_string(peer) + " is in no step");
  for (const auto& [peer, left] : recvs_from)
    if (!left.empty()) fail("a receive of rank " + std::to_string(rank) + " from " + std::to_string(peer) + " is in no step");
  plan.schedule = std::move(row);
}

/// The schedule policies computed from every rank's transfers (the communication table):
/// their global schedule, a pure function of the transfers.
template <class Policy>
concept StepwisePolicy = std::same_as<Policy, schedule::caterpillar_t> || std::same_as<Policy, schedule::relative_group_t>;

inline schedule::GlobalSchedule global_schedule(std::span<const schedule::Transfer> t, int nprocs, schedule::caterpillar_t) {
  return schedule::caterpillar_schedule(t, nprocs);
}
inline schedule::GlobalSchedule global_schedule(std::span<const schedule::Transfer> t, int nprocs,
                                                schedule::relative_group_t) {
  return schedule::relative_group_schedule(t, nprocs);
}

/// plan with its schedule replaced by its rank's row of the policy's global schedule of transfers
/// (the messages of every rank of the same redistribution).
template <class PlanT, StepwisePolicy Policy>
PlanT with_global_schedule(PlanT plan, const std::vector<schedule::Transfer>& transfers, Policy policy) {
  const std::span<const schedule::Transfer> t(transfers);
  apply_global_schedule(plan, t, global_schedule(t, plan.nprocs, policy));
  return plan;
}

}  // namespace redist
