/// @file Defines the planners of GenBlock -> GenBlock under the GEN_BLOCK schedules (TPDR, E-TPDR, list) and automatic's rule for GenBlock pairs.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <span>
#include <type_traits>
#include <vector>

#include <redist/dist/any.hpp>
#include <redist/dist/gen_block.hpp>
#include <redist/index/gen_block.hpp>
#include <redist/plan/layout.hpp>
#include <redist/plan/plan.hpp>
#include <redist/plan/planner.hpp>
#include <redist/plan/stepwise.hpp>
#include <redist/schedule/gen_block.hpp>
#include <redist/schedule/transfer.hpp>

namespace redist {

namespace detail {

/// The general plan of `rank` with its schedule replaced by this rank's row of the global
/// schedule g (apply_global_schedule):  (step k, messages m) |-> Step{sends to m.receiver,
/// receives from m.sender}. Every step of g is a step of the row (possibly empty for this rank),
/// so all ranks run the same number of steps; a local message needs no MPI (runtime copies it).
inline Plan plan_from_global(const GenBlock::mapping& from, const GenBlock::mapping& to, int rank,
                             std::span<const schedule::Transfer> msgs, const schedule::GlobalSchedule& g,
                             const char* name) {
  Plan plan = build_plan(from, to, rank);
  apply_global_schedule(plan, msgs, g);
  plan.schedule_name = name;
  return plan;
}

template <class M>
inline constexpr bool is_gen_block_mapping = std::is_same_v<std::remove_cvref_t<M>, GenBlock::mapping>;
}  // namespace detail

/// A layout that is, or may be at run time, a 1-D GEN_BLOCK layout on every process from rank 0:
/// GenBlock::mapping, or a rank-1 grid layout (a 1-D array's) of GenBlock or of AnyDist.
template <class M>
concept GenBlockLayout = detail::is_gen_block_mapping<M> || std::same_as<detail::rank_one_distribution_t<M>, GenBlock> ||
                         std::same_as<detail::rank_one_distribution_t<M>, AnyDist>;

/// The GenBlock::mapping a layout is, or nothing (see as_cyclic).
template <GenBlockLayout M>
std::optional<GenBlock::mapping> as_gen_block(const M& m) {
  if constexpr (detail::is_gen_block_mapping<M>) {
    return m;
  } else if constexpr (std::same_as<detail::rank_one_distribution_t<M>, AnyDist>) {
    const GenBlock::mapping* g = m.is_linear() ? m.linear().template get_if<GenBlock::mapping>() : nullptr;
    return g != nullptr ? std::optional<GenBlock::mapping>(*g) : std::nullopt;
  } else {
    return m.is_linear() ? std::optional<GenBlock::mapping>(m.linear()) : std::nullopt;
  }
}

namespace detail {

constexpr const char* gen_block_name(schedule::tpdr_t) { return "tpdr"; }
constexpr const char* gen_block_name(schedule::etpdr_t) { return "etpdr"; }
constexpr const char* gen_block_name(schedule::list_t) { return "list"; }

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
  static constexpr bool supports = GenBlockLayout<From> && GenBlockLayout<To>;
  template <class From, class To>
  static constexpr void require() {
    static_assert(supports<From, To>,
                  "redist::schedule::tpdr, etpdr and list require GenBlock -> GenBlock; use automatic or all_at_once for "
                  "other layouts");
  }
  template <class From, class To>
  static Plan plan(const From& from_layout, const To& to_layout, int rank, Policy policy) {
    const auto from = as_gen_block(from_layout), to = as_gen_block(to_layout);
    if (!from || !to)
      report_error(std::string("redist::schedule::") + gen_block_name(policy) +
                   " requires GEN_BLOCK layouts of every process of the communicator from rank 0; use schedule::automatic "
                   "or all_at_once for this pair");
    const auto msgs = index::gen_block_messages(*from, *to);
    return plan_from_global(*from, *to, rank, msgs, gen_block_schedule(msgs, from->nprocs(), policy), gen_block_name(policy));
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

/// Largest P for which automatic builds GEN_BLOCK's E-TPDR schedule. That schedule is global:
/// every rank lists the messages of all P ranks (about 2P) and colours them, O(P log P) per rank
/// (2.6 ms at P = 16384, 9.9 ms at 65536, bench/plan_scaling_procs.csv before this bound). Above
/// it, the messages are posted at once (the general plan, from this rank's own: O(its messages ·
/// log P)), as BCC's are above max_bcc_schedule_work.
inline constexpr int max_gen_block_schedule_procs = 4096;

/// automatic on GenBlock -> GenBlock: E-TPDR with LMR at schedule::default_lmr_ratio, unless the
/// cost model (schedule::CostModel, default constants) predicts all-at-once strictly faster, or
/// P exceeds max_gen_block_schedule_procs (then all at once, unscheduled). Every rank makes the
/// same choice from the same layouts.
template <>
struct planner<schedule::detail::gen_block_rule_t> {
  template <class From, class To>
  static constexpr bool supports = GenBlockLayout<From> && GenBlockLayout<To>;
  template <class From, class To>
  static constexpr void require() {
    static_assert(supports<From, To>, "redist::schedule::automatic's GEN_BLOCK rule requires GenBlock -> GenBlock");
  }
  /// A pair that is not GEN_BLOCK at plan time (AnyDist holding another kind, a layout on a subset)
  /// takes detail::general_rule.
  template <class From, class To>
  static Plan plan(const From& from_layout, const To& to_layout, int rank, schedule::detail::gen_block_rule_t) {
    const auto from = as_gen_block(from_layout), to = as_gen_block(to_layout);
    if (!from || !to) return detail::general_rule(from_layout, to_layout, rank);
    if (std::max(from->nprocs(), to->nprocs()) > max_gen_block_schedule_procs) return build_plan(*from, *to, rank);
    const auto msgs = index::gen_block_messages(*from, *to);
    const schedule::CostModel model{};
    auto s = schedule::etpdr_schedule(msgs, from->nprocs(), {model.lmr_ratio});
    if (schedule::choose_automatic(msgs, from->nprocs(), s, model) == schedule::automatic_choice::one_exchange)
      return build_plan(*from, *to, rank);
    return detail::plan_from_global(*from, *to, rank, msgs, s, "etpdr");
  }
};

}  // namespace redist
