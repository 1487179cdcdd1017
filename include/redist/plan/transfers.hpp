/// @file Defines transfers(from, to), every message of a 1-D redistribution, and the plan_with overloads of 1-D layouts under the caterpillar and relative-group schedules.
#pragma once

#include <concepts>
#include <span>
#include <vector>

#include <redist/index/intersect.hpp>
#include <redist/plan/plan.hpp>
#include <redist/plan/scheduled.hpp>
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

/// The general 1-D plan under a schedule computed from every rank's messages: the caterpillar
/// (seed 004) or relative-group scheduling (seed 003: contention-free, max-degree steps).
template <LinearLayout From, LinearLayout To, StepwisePolicy Policy>
Plan plan_with(const From& from, const To& to, int rank, Policy policy) {
  return with_global_schedule(build_plan(from, to, rank), transfers(from, to), policy);
}

}  // namespace redist
