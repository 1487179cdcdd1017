/// @file Defines the planner of schedule::automatic, an ordered compile-time list of candidate policies, and of schedule::modeled; and TimedCyclicPlan, a Cyclic pair's plan that its first run tunes.
#pragma once

#include <type_traits>
#include <utility>
#include <vector>

#include <boost/hana/bool.hpp>
#include <boost/hana/find_if.hpp>
#include <boost/hana/optional.hpp>
#include <boost/hana/tuple.hpp>
#include <boost/hana/type.hpp>

#include <redist/plan/all_at_once.hpp>
#include <redist/plan/basic_cycle.hpp>
#include <redist/plan/circulant.hpp>
#include <redist/plan/gen_block.hpp>
#include <redist/plan/plan.hpp>
#include <redist/plan/planner.hpp>
#include <redist/plan/stepwise.hpp>
#include <redist/schedule/cost.hpp>
#include <redist/schedule/schedule.hpp>

namespace redist {

/// schedule::automatic's plan of a Cyclic pair: the GDM model's choice (plan), which the plan's
/// first run replaces by the fastest of the model's candidates, timed on the machine
/// (runtime::tune, runtime/tune.hpp). It keeps the layouts to build the candidates then.
template <class From, class To>
struct TimedCyclicPlan {
  CirculantPlan plan;
  From from;
  To to;
  /// The candidates the first run timed, with their medians (empty before it, or when nothing was
  /// timed: a single candidate, options::tune_reps = 0).
  std::vector<schedule::CyclicChoice> timed;
  bool tuned = false;

  void set_piece(index_t piece) noexcept { plan.set_piece(piece); }
};

/// The piece size for a scratch budget: the model's plan's (see piece_limit(const CirculantPlan&)).
template <class From, class To>
index_t piece_limit(const TimedCyclicPlan<From, To>& p, index_t budget) {
  return piece_limit(p.plan, budget);
}

/// The workspace of the model's plan (see WorkspaceNeed). The candidates the first run times
/// grow it, within the budget, if they need more.
template <class From, class To>
WorkspaceNeed workspace_need(const TimedCyclicPlan<From, To>& p, index_t budget) {
  return workspace_need(p.plan, budget);
}

/// The messages of its current plan (see messages_of(const CirculantPlan&)).
template <class From, class To>
const Plan& messages_of(const TimedCyclicPlan<From, To>& p) noexcept {
  return messages_of(p.plan);
}

namespace schedule::detail {
/// automatic's candidate for Cyclic pairs (see planner below).
struct cyclic_rule_t {};
}  // namespace schedule::detail

/// automatic on Cyclic<s> -> Cyclic<t>: the basic-cycle calculation or a circulant hybrid(d), as
/// the GDM model with schedule::default_machine predicts, then timed on the first run.
template <>
struct planner<schedule::detail::cyclic_rule_t> {
  template <class From, class To>
  static constexpr bool supports = CyclicMapping<From> && CyclicMapping<To>;
  template <class From, class To>
  static constexpr void require() {
    static_assert(supports<From, To>, "redist::schedule::automatic's Cyclic rule requires Cyclic<s> -> Cyclic<t>");
  }
  template <class From, class To>
  static TimedCyclicPlan<From, To> plan(const From& from, const To& to, int rank, schedule::detail::cyclic_rule_t) {
    return {detail::plan_modeled(from, to, rank, schedule::modeled_t{}), from, to, {}, false};
  }
};

/// schedule::automatic: the first of `candidates` that serves the layout pair, decided from the
/// types at compile time; each candidate then decides what depends on n, P and the messages at
/// plan time (the GDM model for Cyclic pairs, timed on the first run; the GEN_BLOCK cost model;
/// the message-size rule of N-D layouts). Adding a schedule to automatic is adding its policy here.
template <>
struct planner<schedule::automatic_t> {
  static constexpr auto candidates =
      boost::hana::tuple_t<schedule::detail::cyclic_rule_t, schedule::detail::gen_block_rule_t,
                           schedule::detail::grid_rule_t, schedule::all_at_once_t>;

  /// hana::just(type_c<the first candidate that serves From -> To>), or hana::nothing.
  template <class From, class To>
  static constexpr auto choice() {
    return boost::hana::find_if(candidates, [](auto c) {
      return boost::hana::bool_c<Serves<typename decltype(c)::type, From, To>>;
    });
  }
  template <class From, class To>
  using choice_t = typename std::remove_cvref_t<decltype(choice<From, To>().value())>::type;

  template <class From, class To>
  static constexpr bool supports = decltype(boost::hana::is_just(choice<From, To>()))::value;
  template <class From, class To>
  static constexpr void require() {
    static_assert(supports<From, To>,
                  "redist::schedule::automatic requires two 1-D layouts or two N-D layouts (Dist<...>) of the same rank");
  }
  template <class From, class To>
  static auto plan(const From& from, const To& to, int rank, schedule::automatic_t) {
    using C = choice_t<From, To>;
    return planner<C>::plan(from, to, rank, C{});
  }
};

/// schedule::modeled(machine): on Cyclic<s> -> Cyclic<t> the basic-cycle calculation or the
/// circulant hybrid(d) (d = 0: direct, the indirect depth: indirect) the GDM model of `machine`
/// predicts fastest (schedule::choose_cyclic), untimed; a pure function of the layouts and the
/// policy, so every rank that passes the same machine chooses the same. On other layouts,
/// automatic's plan.
template <>
struct planner<schedule::modeled_t> {
  template <class From, class To>
  static constexpr bool supports = planner<schedule::automatic_t>::supports<From, To>;
  template <class From, class To>
  static constexpr void require() {
    planner<schedule::automatic_t>::require<From, To>();
  }
  template <class From, class To>
  static auto plan(const From& from, const To& to, int rank, const schedule::modeled_t& m) {
    if constexpr (CyclicMapping<From> && CyclicMapping<To>) return detail::plan_modeled(from, to, rank, m);
    else return planner<schedule::automatic_t>::plan(from, to, rank, schedule::automatic);
  }
};

}  // namespace redist
