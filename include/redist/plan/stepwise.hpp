/// @file Defines the planners of the schedules computed from every rank's messages: caterpillar (seed 004), relative_group (seed 003), and automatic's rule for N-D layouts.
#pragma once

#include <utility>

#include <redist/plan/all_at_once.hpp>
#include <redist/plan/layout.hpp>
#include <redist/plan/plan.hpp>
#include <redist/plan/planner.hpp>
#include <redist/plan/scheduled.hpp>
#include <redist/plan/transfers.hpp>
#include <redist/schedule/caterpillar.hpp>
#include <redist/schedule/relative_group.hpp>
#include <redist/schedule/transfer.hpp>

namespace redist {

namespace detail {
/// The general plan in the steps of the policy's global schedule of every rank's messages:
///   plan(from, to, rank) |-> its rank's row of Policy's schedule of transfers(from, to).
template <class Policy>
struct stepwise_planner {
  template <class From, class To>
  static constexpr bool supports = general_pair<From, To>;
  template <class From, class To>
  static constexpr void require() {
    static_assert(supports<From, To>,
                  "redist::schedule::caterpillar and relative_group require two 1-D layouts or two N-D layouts (Dist<...>)");
  }
  template <class From, class To>
  static auto plan(const From& from, const To& to, int rank, Policy policy) {
    return with_global_schedule(planner<schedule::all_at_once_t>::plan(from, to, rank, schedule::all_at_once),
                                transfers(from, to), policy);
  }
};
}  // namespace detail

/// The caterpillar (seed 004, extended to different sender and receiver sets): P steps.
template <>
struct planner<schedule::caterpillar_t> : detail::stepwise_planner<schedule::caterpillar_t> {};

/// Relative-group scheduling (seed 003): contention-free, max-degree steps.
template <>
struct planner<schedule::relative_group_t> : detail::stepwise_planner<schedule::relative_group_t> {};

namespace schedule::detail {
/// automatic's candidate for N-D layouts (see planner below).
struct grid_rule_t {};
}  // namespace schedule::detail

/// The message size (elements) from which automatic schedules N-D plans in contention-free steps.
inline constexpr index_t stepwise_from_elements = index_t{1} << 17;

/// automatic on N-D layouts: relative-group scheduling (contention-free, max-degree steps) when
/// some message of the redistribution holds at least stepwise_from_elements elements, every
/// message posted at once otherwise. With messages of megabytes, posting them all at once made
/// the ranks' transfers compete for memory bandwidth and cache (doc/nd_arrays.md). The rule reads
/// every rank's messages (transfers), so every rank makes the same choice.
template <>
struct planner<schedule::detail::grid_rule_t> {
  template <class From, class To>
  static constexpr bool supports = GridSource<From> && GridLayout<To>;
  template <class From, class To>
  static constexpr void require() {
    static_assert(supports<From, To>, "redist::schedule::automatic's N-D rule requires two N-D layouts");
  }
  template <class From, class To>
  static auto plan(const From& from, const To& to, int rank, schedule::detail::grid_rule_t) {
    auto plan = build_plan(from, to, rank);
    const auto t = transfers(from, to);
    bool large = false;
    for (const schedule::Transfer& x : t) large = large || (!x.local() && x.size >= stepwise_from_elements);
    return large ? with_global_schedule(std::move(plan), t, schedule::relative_group) : plan;
  }
};

}  // namespace redist
