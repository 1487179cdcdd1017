/// @file Defines schedule::Transfer (the message type of index/transfer.hpp, as a scheduler sees it) and the degree checks every scheduler shares.
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
/// transfer (sender == receiver) needs no step, and these schedulers leave it out of every step,
/// but it may be listed.
using index::Transfer;

/// The largest number of non-local transfers any rank sends or receives: no contention-free
/// schedule (each rank sends at most one and receives at most one message per step) has fewer
/// steps, and a bipartite edge colouring reaches it (König).
constexpr int max_degree(std::span<const Transfer> transfers, int nprocs) {
  std::vector<int> sent(static_cast<std::size_t>(nprocs), 0), received(static_cast<std::size_t>(nprocs), 0);
  int best = 0;
  for (const Transfer& t : transfers) {
    if (t.local()) continue;
    best = std::max(best, ++sent[static_cast<std::size_t>(t.sender)]);
    best = std::max(best, ++received[static_cast<std::size_t>(t.receiver)]);
  }
  return best;
}

namespace detail {

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

}  // namespace redist::schedule
