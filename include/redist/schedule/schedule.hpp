/// @file Defines the schedule policies, Schedule (one rank's row of a steps × ranks table) and GlobalSchedule (steps × messages).
#pragma once

#include <cstddef>
#include <vector>

namespace redist::schedule {

/// Let redist choose (at compile time when the types decide it, at plan time otherwise).
struct automatic_t {
  friend constexpr bool operator==(automatic_t, automatic_t) noexcept { return true; }
};
/// One step: every receive and every send posted at once (the general plan's exchange).
struct all_at_once_t {
  friend constexpr bool operator==(all_at_once_t, all_at_once_t) noexcept { return true; }
};

inline constexpr automatic_t automatic{};
inline constexpr all_at_once_t all_at_once{};

/// True for the types that name a schedule policy.
template <class S>
inline constexpr bool is_policy = false;
template <>
inline constexpr bool is_policy<automatic_t> = true;
template <>
inline constexpr bool is_policy<all_at_once_t> = true;

/// One step of one rank: the messages (indices into the plan's send and receive lists) that
/// this rank sends and receives in the step. In a contention-free step each list has at most
/// one entry; all_at_once has a single step with every message.
struct Step {
  std::vector<std::size_t> sends;
  std::vector<std::size_t> recvs;
  /// Posted together with the step before it (seed 001's asynchronous variant: steps that depend
  /// on no earlier one of theirs), as one group: every rank groups its steps alike.
  bool joins_previous = false;
  friend bool operator==(const Step&, const Step&) = default;
};

/// One rank's row of the steps × ranks schedule table.
struct Schedule {
  std::vector<Step> steps;
  std::size_t size() const noexcept { return steps.size(); }
  friend bool operator==(const Schedule&, const Schedule&) = default;
};

/// The global schedule of a redistribution, shared by every scheduler: steps[k] holds the
/// indices (into the scheduler's message or transfer list) of the messages of step k + 1.
/// Every rank computes the same table from the same inputs; no communication is needed.
struct GlobalSchedule {
  std::vector<std::vector<std::size_t>> steps;
  constexpr std::size_t size() const noexcept { return steps.size(); }
  friend constexpr bool operator==(const GlobalSchedule&, const GlobalSchedule&) = default;
};

/// all_at_once: a single step that holds every send and every receive.
inline Schedule make_all_at_once(std::size_t nsends, std::size_t nrecvs) {
  Step step;
  for (std::size_t i = 0; i < nsends; ++i) step.sends.push_back(i);
  for (std::size_t i = 0; i < nrecvs; ++i) step.recvs.push_back(i);
  Schedule s;
  if (nsends + nrecvs > 0) s.steps.push_back(std::move(step));
  return s;
}

}  // namespace redist::schedule
