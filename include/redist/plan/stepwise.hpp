/// @file Defines the plans whose schedule is a row of a table of every rank's messages: all_at_once (one step), apply_global_schedule (a rank's row of a global schedule of transfers), the caterpillar (seed 004) and relative_group (seed 003) planners, and automatic's rule for N-D layouts.
#pragma once

#include <concepts>
#include <cstddef>
#include <limits>
#include <map>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <redist/config.hpp>
#include <redist/plan/layout.hpp>
#include <redist/plan/plan.hpp>
#include <redist/plan/planner.hpp>
#include <redist/plan/transfers.hpp>
#include <redist/schedule/caterpillar.hpp>
#include <redist/schedule/relative_group.hpp>
#include <redist/schedule/schedule.hpp>
#include <redist/schedule/transfer.hpp>

namespace redist {

/// True for the layout pairs the general plan serves: two 1-D layouts, or an N-D layout (possibly
/// transposed) and an N-D layout.
template <class From, class To>
inline constexpr bool general_pair = (LinearLayout<From> && LinearLayout<To>) || (GridSource<From> && GridLayout<To>);

/// all_at_once: the LDD intersections of every pair of ranks (seed 003; in N-D their Cartesian
/// products, seed 004), one step with every receive and send posted.
template <>
struct planner<schedule::all_at_once_t> {
  template <class From, class To>
  static constexpr bool supports = general_pair<From, To>;
  template <class From, class To>
  static constexpr void require() {
    static_assert(supports<From, To>,
                  "redist::schedule::all_at_once requires two 1-D layouts or two N-D layouts (Dist<...>) of the same rank");
  }
  template <class From, class To>
  static auto plan(const From& from, const To& to, int rank, schedule::all_at_once_t) {
    return build_plan(from, to, rank);
  }
};


/// plan.schedule := plan.rank's row of g, where g's steps hold indices into `transfers`:
///   (step k, transfer (s, r, n))  |->  step k sends the plan's message to r (when s == rank)
///                                      and receives the plan's message from s (when r == rank).
/// Every step of g is a step of the row (possibly empty for this rank), so all ranks run the same
/// number of steps. Local transfers (s == r) are skipped: the plan copies them without MPI. Each
/// transfer is matched to a message with its peer and size; every send and every receive of the
/// plan must be matched exactly once, or report_error says "internal error".
/// The plan must be of one stage (the general plan's).
template <class R>
void apply_global_schedule(BasicPlan<R>& whole, std::span<const schedule::Transfer> transfers, const schedule::GlobalSchedule& g) {
  auto fail = [](const std::string& what) {
    detail::report_error("redist::apply_global_schedule(plan, transfers, g): internal error, " + what);
  };
  const int rank = whole.rank;
  Stage<R>& plan = whole.only();
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
template <class R, StepwisePolicy Policy>
BasicPlan<R> with_global_schedule(BasicPlan<R> plan, const std::vector<schedule::Transfer>& transfers, Policy policy) {
  const std::span<const schedule::Transfer> t(transfers);
  apply_global_schedule(plan, t, global_schedule(t, plan.nprocs, policy));
  plan.schedule_name = std::same_as<Policy, schedule::caterpillar_t> ? "caterpillar" : "relative_group";
  return plan;
}


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

namespace detail {
/// The most elements layout l holds along dimension d at one grid coordinate: by formula for Block,
/// Cyclic<k> and Collapsed (coordinate 0 holds the most), the dimension's extent for other 1-D
/// mappings, and no bound (the largest index_t) for a layout that does not show its mappings.
template <class L>
index_t most_held(const L& l, std::size_t d) {
  index_t most = std::numeric_limits<index_t>::max();
  visit_mapping(l, d, [&](const auto& m, int) {
    using M = std::remove_cvref_t<decltype(m)>;
    if constexpr (std::same_as<M, Block::mapping> || std::same_as<M, Collapsed::mapping> || cyclic_1d<M>)
      most = m.local_size(0);
    else if constexpr (requires { { m.size() } -> std::convertible_to<index_t>; })
      most = m.size();
  });
  return most;
}

/// An upper bound on the elements of any one message of from -> to, in O(N): per dimension the
/// fewer of the most either side holds at one coordinate (most_held), multiplied (saturating).
template <GridSource From, GridLayout To>
index_t message_size_bound(const From& from_view, const To& to) {
  const auto fv = view_of(from_view);
  index_t bound = 1;
  for (std::size_t k = 0; k < To::rank(); ++k) {
    const index_t e = std::min(most_held(fv.m, fv.perm[k]), most_held(to, k));
    if (e == 0) return 0;
    bound = bound > std::numeric_limits<index_t>::max() / e ? std::numeric_limits<index_t>::max() : bound * e;
  }
  return bound;
}
}  // namespace detail

/// automatic on N-D layouts: relative-group scheduling (contention-free, max-degree steps) when
/// some message of the redistribution holds at least stepwise_from_elements elements, every
/// message posted at once otherwise. With messages of megabytes, posting them all at once made
/// the ranks' transfers compete for memory bandwidth and cache (doc/nd_arrays.md). The rule reads
/// every rank's messages (transfers), so every rank makes the same choice; it skips reading them
/// when no message can be that large (detail::message_size_bound), so that a plan of small
/// messages costs what its own messages cost, not O(P²).
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
    if constexpr (detail::indirect_layout<From> || detail::indirect_layout<To>) {
      return plan;  // the directory's moves: no rank knows every rank's messages
    } else {
      if (detail::message_size_bound(from, to) < stepwise_from_elements) return plan;
      const auto t = transfers(from, to);
      bool large = false;
      for (const schedule::Transfer& x : t) large = large || (!x.local() && x.size >= stepwise_from_elements);
      return large ? with_global_schedule(std::move(plan), t, schedule::relative_group) : plan;
    }
  }
};

namespace detail {
/// What automatic gives a 1-D pair that no 1-D schedule serves at plan time (a rank-1 layout on a
/// subset of the communicator, AnyDist holding another kind): the N-D rule for grid layouts, the
/// general plan for 1-D mappings.
template <class From, class To>
auto general_rule(const From& from, const To& to, int rank) {
  if constexpr (Serves<schedule::detail::grid_rule_t, From, To>)
    return planner<schedule::detail::grid_rule_t>::plan(from, to, rank, schedule::detail::grid_rule_t{});
  else
    return build_plan(from, to, rank);
}
}  // namespace detail

}  // namespace redist
