/// @file Defines the plan_with overloads of GenBlock -> GenBlock under the GEN_BLOCK schedules (TPDR, E-TPDR, list, automatic).
#pragma once

#include <cstddef>
#include <span>
#include <type_traits>
#include <vector>

#include <redist/dist/gen_block.hpp>
#include <redist/index/gen_block.hpp>
#include <redist/plan/plan.hpp>
#include <redist/plan/scheduled.hpp>
#include <redist/schedule/gen_block.hpp>
#include <redist/schedule/transfer.hpp>

namespace redist {

namespace detail {

/// The general plan of `rank` with its schedule replaced by this rank's row of the global
/// schedule g (apply_global_schedule):  (step k, messages m) |-> Step{sends to m.receiver,
/// receives from m.sender}. Every step of g is a step of the row (possibly empty for this rank),
/// so all ranks run the same number of steps; a local message needs no MPI (runtime copies it).
inline Plan plan_from_global(const GenBlock::mapping& from, const GenBlock::mapping& to, int rank,
                             const std::vector<index::GenBlockMessage>& msgs, const schedule::GlobalSchedule& g) {
  Plan plan = build_plan(from, to, rank);
  std::vector<schedule::Transfer> transfers;
  transfers.reserve(msgs.size());
  for (const index::GenBlockMessage& m : msgs) transfers.push_back({m.sender, m.receiver, m.size});
  apply_global_schedule(plan, std::span<const schedule::Transfer>(transfers), g);
  return plan;
}

template <class M>
inline constexpr bool is_gen_block_mapping = std::is_same_v<std::remove_cvref_t<M>, GenBlock::mapping>;

template <class>
inline constexpr bool gen_block_policy_false = false;

}  // namespace detail

/// GenBlock -> GenBlock under TPDR: the general plan, scheduled in max-degree contention-free steps.
inline Plan plan_with(const GenBlock::mapping& from, const GenBlock::mapping& to, int rank, schedule::tpdr_t policy) {
  const auto msgs = index::gen_block_messages(from, to);
  return detail::plan_from_global(from, to, rank, msgs,
                                  schedule::tpdr_schedule(msgs, from.nprocs(), {policy.lmr_ratio}));
}

/// GenBlock -> GenBlock under E-TPDR.
inline Plan plan_with(const GenBlock::mapping& from, const GenBlock::mapping& to, int rank, schedule::etpdr_t policy) {
  const auto msgs = index::gen_block_messages(from, to);
  return detail::plan_from_global(from, to, rank, msgs,
                                  schedule::etpdr_schedule(msgs, from.nprocs(), {policy.lmr_ratio}));
}

/// GenBlock -> GenBlock under list scheduling.
inline Plan plan_with(const GenBlock::mapping& from, const GenBlock::mapping& to, int rank, schedule::list_t policy) {
  const auto msgs = index::gen_block_messages(from, to);
  return detail::plan_from_global(from, to, rank, msgs,
                                  schedule::list_schedule(msgs, from.nprocs(), {policy.lmr_ratio}));
}

/// GenBlock -> GenBlock under automatic: E-TPDR with LMR at schedule::default_lmr_ratio, unless
/// the cost model (schedule::CostModel, default constants) predicts all-at-once strictly faster.
/// Every rank makes the same choice from the same layouts.
inline Plan plan_with(const GenBlock::mapping& from, const GenBlock::mapping& to, int rank, schedule::automatic_t) {
  const auto msgs = index::gen_block_messages(from, to);
  const schedule::CostModel model{};
  auto s = schedule::etpdr_schedule(msgs, from.nprocs(), {model.lmr_ratio});
  if (schedule::choose_automatic(msgs, from.nprocs(), s, model) == schedule::automatic_choice::all_at_once)
    return build_plan(from, to, rank);
  return detail::plan_from_global(from, to, rank, msgs, s);
}

/// The GEN_BLOCK schedules need GenBlock on both sides.
template <class From, class To, class Policy>
  requires(std::is_same_v<Policy, schedule::tpdr_t> || std::is_same_v<Policy, schedule::etpdr_t> ||
           std::is_same_v<Policy, schedule::list_t>) &&
          (!(detail::is_gen_block_mapping<From> && detail::is_gen_block_mapping<To>))
Plan plan_with(const From&, const To&, int, Policy) {
  static_assert(detail::gen_block_policy_false<Policy>,
                "redist::schedule::tpdr, etpdr and list require GenBlock -> GenBlock; use automatic or all_at_once for "
                "other layouts");
  return {};
}

}  // namespace redist
