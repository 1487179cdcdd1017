/// @file Defines transfers(from, to), every message of a 1-D redistribution, and the plan_with overloads of 1-D layouts under the caterpillar and relative-group schedules.
#pragma once

#include <span>
#include <vector>

#include <redist/index/intersect.hpp>
#include <redist/plan/plan.hpp>
#include <redist/plan/scheduled.hpp>
#include <redist/schedule/caterpillar.hpp>
#include <redist/schedule/relative_group.hpp>
#include <redist/schedule/transfer.hpp>

namespace redist {

/// A bound 1-D layout (the mapping of Block, Cyclic<X>, GenBlock, or a user distribution).
template <class M>
concept LinearLayout = requires(const M& m, int p) {
  { m.ldds(p) } -> std::same_as<LddSet>;
  { m.nprocs() } -> std::same_as<int>;
};

/// Every message of the 1-D redistribution from -> to, of every rank (local copies included),
/// computed without communication: O(P² · period).
template <LinearLayout From, LinearLayout To>
std::vector<schedule::Transfer> transfers(const From& from, const To& to) {
  std::vector<schedule::Transfer> out;
  std::vector<Run> runs;
  for (int s = 0; s < from.nprocs(); ++s) {
    const LddSet a = from.ldds(s);
    for (int r = 0; r < to.nprocs(); ++r) {
      runs.clear();
      index::intersect(a, to.ldds(r), runs);
      index_t n = 0;
      for (const Run& run : runs) n += run.size();
      if (n > 0) out.push_back({s, r, n});
    }
  }
  return out;
}

/// The general 1-D plan under the caterpillar schedule (seed 004).
template <LinearLayout From, LinearLayout To>
Plan plan_with(const From& from, const To& to, int rank, schedule::caterpillar_t) {
  Plan plan = build_plan(from, to, rank);
  const auto t = transfers(from, to);
  apply_global_schedule(plan, std::span<const schedule::Transfer>(t), schedule::caterpillar_schedule(t, plan.nprocs));
  return plan;
}

/// The general 1-D plan under relative-group scheduling (seed 003): max-degree contention-free steps.
template <LinearLayout From, LinearLayout To>
Plan plan_with(const From& from, const To& to, int rank, schedule::relative_group_t) {
  Plan plan = build_plan(from, to, rank);
  const auto t = transfers(from, to);
  apply_global_schedule(plan, std::span<const schedule::Transfer>(t), schedule::relative_group_schedule(t, plan.nprocs));
  return plan;
}

}  // namespace redist
