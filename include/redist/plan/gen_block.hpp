/// @file Defines the planners of GenBlock -> GenBlock under the GEN_BLOCK schedules (TPDR, E-TPDR, list) and automatic's rule for GenBlock pairs.
#pragma once

#include <cstddef>
#include <span>
#include <type_traits>
#include <vector>

#include <redist/dist/gen_block.hpp>
#include <redist/index/gen_block.hpp>
#include <redist/plan/plan.hpp>
#include <redist/plan/planner.hpp>
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
                             std::span<const schedule::Transfer> msgs, const schedule::GlobalSchedule& g) {
  Plan plan = build_plan(from, to, rank);
  apply_global_schedule(plan, msgs, g);
  return plan;
}

template <class M>
inline constexpr bool is_gen_block_mapping = std::is_same_v<std::remove_cvref_t<M>, GenBlock::mapping>;

inline schedule::GlobalSchedule gen_block_schedule(std::span<const schedule::Transfer> msgs, int nprocs,
                                                   schedule::tpdr_t p) {
  return schedule::tpdr_schedule(msgs, nprocs, {p.lmr_ratio});
}
inline schedule::GlobalSchedule gen_block_schedule(std::span<const schedule::Transfer> msgs, int nprocs,
                                                   schedule::etpdr_t p) {
  return schedule::etpdr_schedule(msgs, nprocs, {p.lmr_ratio});
}
inline schedule::GlobalSchedule gen_block_schedule(std::span<const schedule::Transfer> msgs, int nprocs,
                                                   schedule::list_t p) {
  return schedule::list_schedule(msgs, nprocs, {p.lmr_ratio});
}

/// GenBlock -> GenBlock under TPDR, E-TPDR or list scheduling: the general plan, scheduled in
/// contention-free steps (seed 002).
template <class Policy>
struct gen_block_planner {
  template <class From, class To>
  static constexpr bool supports = is_gen_block_mapping<From> && is_gen_block_mapping<To>;
  template <class From, class To>
  static constexpr void require() {
    static_assert(supports<From, To>,
                  "redist::schedule::tpdr, etpdr and list require GenBlock -> GenBlock; use automatic or all_at_once for "
                  "other layouts");
  }
  static Plan plan(const GenBlock::mapping& from, const GenBlock::mapping& to, int rank, Policy policy) {
    const auto msgs = index::gen_block_messages(from, to);
    return plan_from_global(from, to, rank, msgs, gen_block_schedule(msgs, from.nprocs(), policy));
  }
};

}  // namespace detail

template <>
struct planner<schedule::tpdr_t> : detail::gen_block_planner<schedule::tpdr_t> {};
template <>
struct planner<schedule::etpdr_t> : detail::gen_block_planner<schedule::etpdr_t> {};
template <>
struct planner<schedule::list_t> : detail::gen_block_planner<schedule::list_t> {};

namespace schedule::detail {
/// automatic's candidate for GenBlock pairs (see planner below).
struct gen_block_rule_t {};
}  // namespace schedule::detail

/// automatic on GenBlock -> GenBlock: E-TPDR with LMR at schedule::default_lmr_ratio, unless the
/// cost model (schedule::CostModel, default constants) predicts all-at-once strictly faster.
/// Every rank makes the same choice from the same layouts.
template <>
struct planner<schedule::detail::gen_block_rule_t> {
  template <class From, class To>
  static constexpr bool supports = detail::is_gen_block_mapping<From> && detail::is_gen_block_mapping<To>;
  template <class From, class To>
  static constexpr void require() {
    static_assert(supports<From, To>, "redist::schedule::automatic's GEN_BLOCK rule requires GenBlock -> GenBlock");
  }
  static Plan plan(const GenBlock::mapping& from, const GenBlock::mapping& to, int rank, schedule::detail::gen_block_rule_t) {
    const auto msgs = index::gen_block_messages(from, to);
    const schedule::CostModel model{};
    auto s = schedule::etpdr_schedule(msgs, from.nprocs(), {model.lmr_ratio});
    if (schedule::choose_automatic(msgs, from.nprocs(), s, model) == schedule::automatic_choice::all_at_once)
      return build_plan(from, to, rank);
    return detail::plan_from_global(from, to, rank, msgs, s);
  }
};

}  // namespace redist
