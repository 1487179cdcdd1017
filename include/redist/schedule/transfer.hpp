/// @file Defines schedule::Transfer (the message type of index/transfer.hpp, as a scheduler sees it), LocalMessages, max_degree and the checks and step tables every scheduler shares.
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include <redist/config.hpp>
#include <redist/index/transfer.hpp>
#include <redist/schedule/schedule.hpp>

namespace redist::schedule {

/// One message of a redistribution (index/transfer.hpp): the schedulers' name for it. A local
/// transfer (sender == receiver) may be listed; LocalMessages says whether a scheduler gives it
/// a step.
using index::Transfer;

/// Whether a local transfer (sender == receiver) counts in a rank's degree. The general
/// schedulers (caterpillar, relative group, multiphase, ...) copy it outside every step:
/// `skipped`. Seed 002's GEN_BLOCK schedules put it into a step, where it occupies its source
/// part and its destination part like any other message: `counted`.
enum class LocalMessages { skipped, counted };

namespace detail {

/// The degree of every node of the bipartite message graph: node r < nprocs is rank r as a
/// sender (seed 002's SP_r), node nprocs + r is rank r as a receiver (DP_r).
///   transfers |-> deg[v] = |{t : v is t.sender or nprocs + t.receiver}|, local t only if counted.
constexpr std::vector<int> node_degrees(std::span<const Transfer> transfers, int nprocs, LocalMessages locals) {
  const auto np = static_cast<std::size_t>(nprocs);
  std::vector<int> deg(2 * np, 0);
  for (const Transfer& t : transfers) {
    if (locals == LocalMessages::skipped && t.local()) continue;
    ++deg[static_cast<std::size_t>(t.sender)];
    ++deg[np + static_cast<std::size_t>(t.receiver)];
  }
  return deg;
}

/// Checks the arguments every scheduler shares: nprocs > 0, every rank in [0, nprocs), every
/// size >= 0. `call` is the scheduler's name, e.g. "caterpillar_schedule".
constexpr void check_transfers(std::span<const Transfer> transfers, int nprocs, const char* call) {
  const std::string where = std::string("redist::schedule::") + call + "(transfers, nprocs) requires ";
  if (nprocs <= 0) redist::detail::report_error(where + "nprocs to be > 0");
  for (const Transfer& t : transfers) {
    if (t.sender < 0 || t.sender >= nprocs || t.receiver < 0 || t.receiver >= nprocs)
      redist::detail::report_error(where + "every sender and receiver to be a rank in [0, nprocs)");
    if (t.size < 0) redist::detail::report_error(where + "every size to be >= 0");
  }
}

/// step_of[i] (or -1: local, in no step) -> GlobalSchedule with the empty steps dropped, each
/// step's transfers in increasing index order.
constexpr GlobalSchedule steps_from_colours(const std::vector<int>& step_of, int nsteps) {
  std::vector<std::vector<std::size_t>> steps(static_cast<std::size_t>(nsteps));
  for (std::size_t i = 0; i < step_of.size(); ++i)
    if (step_of[i] >= 0) steps[static_cast<std::size_t>(step_of[i])].push_back(i);
  GlobalSchedule g;
  for (auto& s : steps)
    if (!s.empty()) g.steps.push_back(std::move(s));
  return g;
}

}  // namespace detail

/// The largest number of transfers any rank sends or receives, its local ones counted or
/// skipped: no contention-free schedule (each rank sends at most one and receives at most one
/// message per step, a counted local transfer taking one of each) has fewer steps, and a
/// bipartite edge colouring reaches it (König). `skipped` (the default) is the bound of the
/// general schedulers; `counted` is seed 002's (Sec. 3: the minimum number of steps is the
/// maximum degree of the message graph, local messages included).
constexpr int max_degree(std::span<const Transfer> transfers, int nprocs,
                         LocalMessages locals = LocalMessages::skipped) {
  const std::vector<int> deg = detail::node_degrees(transfers, nprocs, locals);
  return deg.empty() ? 0 : *std::max_element(deg.begin(), deg.end());
}

}  // namespace redist::schedule
