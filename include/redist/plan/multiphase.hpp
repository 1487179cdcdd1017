/// @file Defines MultiphasePlan and the planner of schedule::multiphase: Cyclic<s> -> Cyclic<t> in one or two general phases through an intermediate CYCLIC(u) array (seed 000's baseline).
#pragma once

#include <algorithm>

#include <redist/dist/cyclic.hpp>
#include <redist/plan/basic_cycle.hpp>
#include <redist/plan/plan.hpp>
#include <redist/plan/planner.hpp>
#include <redist/schedule/multiphase.hpp>

namespace redist {

/// The multi-phase method of Kaushik et al. for Cyclic<s> -> Cyclic<t>, the baseline of seed 000:
///   one stage (case 3):  CYCLIC(s) |-> CYCLIC(t)                 (first)
///   two stages:          CYCLIC(s) |-> CYCLIC(u) |-> CYCLIC(t)   (first, then second)
/// Each phase is a general all-at-once plan of its own (its own index computation); the
/// intermediate CYCLIC(u) array lives in the workspace (runtime/exchange_multiphase.hpp).
struct MultiphasePlan {
  schedule::Phases phases;     ///< the block sizes s, [u,] t and the number of stages
  Plan first;                  ///< CYCLIC(s) -> CYCLIC(t), or -> CYCLIC(u) with two stages
  Plan second;                 ///< CYCLIC(u) -> CYCLIC(t) with two stages; empty with one
  index_t intermediate = 0;    ///< elements of this rank's CYCLIC(u) array (0 with one stage)

  int stages() const noexcept { return phases.phases; }
  /// The piece size agreed for a scratch budget applies to both phases.
  void set_piece(index_t piece) noexcept { first.piece = second.piece = piece; }
};

/// The piece size for a scratch budget: the smaller nonzero one of the two phases.
inline index_t piece_limit(const MultiphasePlan& plan, index_t budget) {
  const index_t a = piece_limit(plan.first, budget);
  const index_t b = plan.stages() == 2 ? piece_limit(plan.second, budget) : 0;
  return a == 0 ? b : b == 0 ? a : std::min(a, b);
}

/// The workspace of a MultiphasePlan (see WorkspaceNeed): the larger phase's, and the
/// intermediate CYCLIC(u) array.
inline WorkspaceNeed workspace_need(const MultiphasePlan& plan, index_t budget) {
  const index_t a = workspace_need(plan.first, budget).buffer;
  const index_t b = plan.stages() == 2 ? workspace_need(plan.second, budget).buffer : 0;
  return {std::max(a, b), plan.intermediate};
}

template <>
struct planner<schedule::multiphase_t> {
  template <class From, class To>
  static constexpr bool supports = CyclicMapping<From> && CyclicMapping<To>;
  template <class From, class To>
  static constexpr void require() {
    static_assert(supports<From, To>, "redist::schedule::multiphase requires Cyclic<s> source and target distributions");
  }
  template <class From, class To>
  static MultiphasePlan plan(const From& from, const To& to, int rank, schedule::multiphase_t policy) {
    REDIST_EXPECTS(from.size() == to.size() && from.nprocs() == to.nprocs(),
                   "redist::plan_with(from, to, rank, multiphase) requires from and to to have the same size and "
                   "process count");
    MultiphasePlan plan;
    plan.phases = schedule::multiphase_phases(from.block_size(), to.block_size(), from.nprocs(), policy.count);
    if (plan.phases.phases == 1) {
      plan.first = build_plan(from, to, rank);
    } else {
      const Cyclic<dynamic>::mapping mid(Cyclic<dynamic>(plan.phases.sizes[1]), from.size(), from.nprocs());
      plan.first = build_plan(from, mid, rank);
      plan.second = build_plan(mid, to, rank);
      plan.intermediate = mid.local_size(rank);
    }
    return plan;
  }
};

}  // namespace redist
