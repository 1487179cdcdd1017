/// @file Defines the planner of schedule::multiphase: Cyclic<s> -> Cyclic<t> in one or two general stages through an intermediate CYCLIC(u) array (seed 000's baseline).
#pragma once

#include <algorithm>
#include <string>
#include <utility>

#include <redist/dist/cyclic.hpp>
#include <redist/plan/basic_cycle.hpp>
#include <redist/plan/plan.hpp>
#include <redist/plan/planner.hpp>
#include <redist/schedule/multiphase.hpp>

namespace redist {

/// The multi-phase method of Kaushik et al. for Cyclic<s> -> Cyclic<t>, the baseline of seed 000,
/// as the stages of one plan:
///   one stage (case 3):  CYCLIC(s) |-> CYCLIC(t)
///   two stages:          CYCLIC(s) |-> CYCLIC(u) |-> CYCLIC(t)   through the intermediate array
/// Each stage is a general all-at-once plan of its own (its own index computation).
template <>
struct planner<schedule::multiphase_t> {
  template <class From, class To>
  static constexpr bool supports = CyclicLayout<From> && CyclicLayout<To>;
  template <class From, class To>
  static constexpr void require() {
    static_assert(supports<From, To>, "redist::schedule::multiphase requires Cyclic<s> source and target distributions");
  }
  template <class From, class To>
  static Plan plan(const From& from_layout, const To& to_layout, int rank, schedule::multiphase_t policy) {
    const auto [from, to] = detail::cyclic_pair(from_layout, to_layout, "multiphase");
    REDIST_EXPECTS(from.size() == to.size() && from.nprocs() == to.nprocs(),
                   "redist::plan_with(from, to, rank, multiphase) requires from and to to have the same size and "
                   "process count");
    const schedule::Phases phases = schedule::multiphase_phases(from.block_size(), to.block_size(), from.nprocs(), policy.count);
    Plan plan;
    if (phases.phases == 1) {
      plan = build_plan(from, to, rank);
    } else {
      const Cyclic<dynamic>::mapping mid(Cyclic<dynamic>(phases.sizes[1]), from.size(), from.nprocs());
      plan = build_plan(from, mid, rank);
      Stage<Run> second = std::move(build_plan(mid, to, rank).stages.front());
      plan.stages.front().to = Buffer::intermediate;
      second.from = Buffer::intermediate;
      plan.stages.push_back(std::move(second));
      plan.intermediate = mid.local_size(rank);
    }
    plan.schedule_name = "multiphase(" + std::to_string(phases.phases) + ")";
    return plan;
  }
};

}  // namespace redist
