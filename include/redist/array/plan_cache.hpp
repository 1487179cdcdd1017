/// @file Defines Redistribution (a plan bound to two layouts, with its scratch) and the plan cache of DistArray.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <memory>
#include <optional>
#include <typeinfo>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/mpi/communicator.hpp>

#include <redist/array/consistency.hpp>
#include <redist/array/options.hpp>
#include <redist/plan/circulant.hpp>
#include <redist/plan/plan.hpp>
#include <redist/runtime/exchange.hpp>
#include <redist/runtime/exchange_circulant.hpp>
#include <redist/runtime/exchange_cycles.hpp>
#include <redist/runtime/time_plans.hpp>

namespace redist {

namespace detail {
/// Whether an array's layout is the layout a plan was made for: the same, or (for a 1-D array,
/// whose plans are built on its 1-D mapping) a rank-1 layout whose 1-D mapping it is.
template <class A, class M>
bool layout_matches(const A& array_layout, const M& plan_layout) {
  if constexpr (std::is_same_v<A, M>) {
    return array_layout == plan_layout;
  } else if constexpr (requires { { array_layout.linear() } -> std::same_as<const M&>; }) {
    return array_layout.is_linear() && array_layout.linear() == plan_layout;
  } else {
    return false;
  }
}
}  // namespace detail

/// A plan for moving data from the layout `From` to the layout `To` on one rank under the schedule
/// policy `Policy`, with the scratch buffer it reuses. Made by redist::make_plan(a, b[, policy]);
/// execute(a, b) runs it (collective).
template <class From, class To, class Policy = schedule::automatic_t>
class Redistribution {
 public:
  Redistribution(From from, To to, int rank, Policy policy = {}, const options& opts = default_options())
      : from_{std::move(from)}, to_{std::move(to)}, policy_{policy}, options_{opts} {
    plan_ = plan_with(from_, to_, rank, policy_);
  }
  /// What plan_with returns for these layouts and policy: Plan, or a type derived from it that
  /// carries more (CyclePlan); runtime::execute and piece_limit are overloaded on it.
  using plan_type = decltype(plan_with(std::declval<const From&>(), std::declval<const To&>(), 0,
                                       std::declval<const Policy&>()));
  const plan_type& plan() const noexcept { return plan_; }
  const From& from() const noexcept { return from_; }
  const To& to() const noexcept { return to_; }
  /// The scratch buffer (its capacity() and allocations()) and the bookkeeping the plan reuses.
  const runtime::Scratch& scratch() const noexcept { return workspace_.buffer; }
  /// The most scratch bytes one round has needed so far.
  std::size_t scratch_high_water() const noexcept { return workspace_.high_water; }

  /// src -> dst with this plan. Requires src and dst to have the layouts the plan was made for.
  template <class A, class B>
  void execute(const A& src, B& dst) {
    REDIST_EXPECTS(detail::layout_matches(src.mapping(), from_) && detail::layout_matches(dst.mapping(), to_),
                   "redist::Redistribution::execute(src, dst) requires src and dst to have the layouts the plan was made for");
    run(src.comm(), src.local(), dst.local());
  }

  /// Runs the plan (collective). The first run checks, with options().check_consistency, that
  /// every rank has the same layouts, element size, policy and options.
  template <class T>
  void run(const boost::mpi::communicator& comm, std::span<const T> src, std::span<T> dst) {
    if (!checked_) {
      const index_t budget = agree_on_first_run<T>(comm, src.size(), dst.size());
      if constexpr (std::is_same_v<plan_type, CirculantPlan> && std::is_same_v<Policy, schedule::automatic_t>)
        tune_on_first_run(comm, src, dst, budget);
    }
    runtime::execute(plan_, comm, src, dst, workspace_, options_.max_message_bytes);
  }

  /// The candidate schedules schedule::automatic timed on the first run of a Cyclic pair's plan,
  /// each with its median time (CyclicChoice::measured), in the order of the model's
  /// predictions; empty when nothing was timed (other layouts or policies, tune_reps = 0, a
  /// single candidate). plan().choice is the one that runs.
  const std::vector<schedule::CyclicChoice>& timed_candidates() const noexcept { return timed_; }

  bool matches(const From& from, const To& to, const Policy& policy, const options& opts) const {
    return from == from_ && to == to_ && policy == policy_ && opts == options_;
  }
  const options& opts() const noexcept { return options_; }

 private:
  /// Collective, once per plan: the scratch budget becomes a piece size that all ranks share
  /// (the smallest of their limits), and with check_consistency all ranks verify that they
  /// have the same layouts, element size, policy and options — in the same all-reduce.
  /// Returns the budget in elements.
  template <class T>
  index_t agree_on_first_run(const boost::mpi::communicator& comm, std::size_t src_elems, std::size_t dst_elems) {
    const std::size_t budget_bytes =
        options_.max_scratch_bytes != 0 ? options_.max_scratch_bytes : std::max(src_elems, dst_elems) * sizeof(T);
    std::optional<std::string> failure;
    index_t piece = 0;
    try {
      piece = piece_limit(plan_, static_cast<index_t>(budget_bytes / sizeof(T)));
    } catch (const error& e) {
      failure = e.what();
    }
    const auto mine = static_cast<std::uint64_t>(piece == 0 ? index_t{-1} >> 1 : piece);  // 0: no limit
    std::uint64_t shared = 0;
    if (options_.check_consistency) {
      const std::uint64_t opts_hash = detail::hash_mix(
          detail::hash_mix(detail::hash_mix(detail::hash_seed, options_.max_scratch_bytes), options_.max_message_bytes),
          static_cast<std::uint64_t>(options_.tune_reps));
      const detail::Parameter params[] = {
          {"global size", static_cast<std::uint64_t>(from_.size())},
          {"element size", sizeof(T)},
          {"source layout", detail::layout_fingerprint(from_)},
          {"destination layout", detail::layout_fingerprint(to_)},
          {"schedule policy and its parameters", detail::policy_fingerprint(policy_)},
          {"options", opts_hash}};
      shared = detail::agree(comm, "redist::redistribute(src, dst)", params, failure, mine);
    } else {
      shared = detail::agree(comm, "redist::redistribute(src, dst)", {}, failure, mine);
    }
    plan_.piece = shared == static_cast<std::uint64_t>(index_t{-1} >> 1) ? 0 : static_cast<index_t>(shared);
    checked_ = true;
    return static_cast<index_t>(budget_bytes / sizeof(T));
  }

  /// schedule::automatic on a Cyclic pair (collective, once per plan): the candidates of
  /// automatic_candidates whose workspace fits the budget on every rank (BCC always does, in
  /// rounds of a piece agreed by all ranks) are timed by runtime::time_plans, and the plan
  /// switches to the fastest. Every rank sees the same times, so every rank switches alike.
  /// The workspace is then released, so that it is sized for the plan that runs.
  static constexpr double tune_min_seconds = 0.01;  ///< least time of a stage's rounds (time_plans)
  template <class T>
  void tune_on_first_run(const boost::mpi::communicator& comm, std::span<const T> src, std::span<T> dst,
                         index_t budget) {
    if (options_.tune_reps <= 0) return;
    constexpr std::size_t most = 32;
    std::vector<schedule::CyclicChoice> choices =
        automatic_candidates(from_, to_, schedule::modeled_t{schedule::default_machine, static_cast<index_t>(sizeof(T))});
    if (choices.size() < 2) return;
    // BCC, always among the candidates, stays in the list when it is cut to the first `most`.
    if (choices.size() > most) {
      const auto bcc = std::find_if(choices.begin(), choices.end(), [](const schedule::CyclicChoice& c) {
        return c.kind == schedule::CyclicChoice::method::bcc;
      });
      if (bcc >= choices.begin() + static_cast<std::ptrdiff_t>(most))
        std::rotate(choices.begin() + static_cast<std::ptrdiff_t>(most) - 1, bcc, bcc + 1);
      choices.resize(most);
    }
    std::vector<CirculantPlan> plans;
    plans.reserve(choices.size());
    for (const schedule::CyclicChoice& c : choices) plans.push_back(with_choice(plan_, from_, to_, c));
    // One all-reduce (minimum): BCC's piece for the budget, and per candidate whether it fits.
    std::vector<std::uint64_t> mine(choices.size() + 1), all(choices.size() + 1);
    const index_t bcc_piece = piece_limit(static_cast<const CyclePlan&>(plan_), budget);
    constexpr auto no_limit = static_cast<std::uint64_t>(index_t{-1} >> 1);
    mine[0] = bcc_piece == 0 ? no_limit : static_cast<std::uint64_t>(bcc_piece);
    for (std::size_t i = 0; i < plans.size(); ++i)
      mine[i + 1] = plans[i].kind == CirculantPlan::method::bcc || plans[i].scratch_elements() <= budget ? 1 : 0;
    runtime::detail::check(MPI_Allreduce(mine.data(), all.data(), static_cast<int>(mine.size()), MPI_UINT64_T, MPI_MIN,
                                         static_cast<MPI_Comm>(comm)),
                           "MPI_Allreduce");
    std::vector<CirculantPlan> viable;
    std::vector<schedule::CyclicChoice> viable_choices;
    for (std::size_t i = 0; i < plans.size(); ++i) {
      if (all[i + 1] == 0) continue;
      // A circulant candidate that fits everywhere runs its phases (piece 0); BCC its rounds.
      plans[i].piece = plans[i].kind == CirculantPlan::method::bcc && all[0] != no_limit ? static_cast<index_t>(all[0]) : 0;
      viable.push_back(std::move(plans[i]));
      viable_choices.push_back(choices[i]);
    }
    if (viable.size() >= 2) {
      // Two stages: every candidate for tune_reps rounds; then those within 20 % of the fastest
      // median for twice as many more, so that the close ones get the most samples.
      const std::span<const CirculantPlan> cands(viable);
      std::vector<std::vector<double>> samples;
      std::vector<std::size_t> which(viable.size());
      for (std::size_t i = 0; i < which.size(); ++i) which[i] = i;
      auto fastest = [&] {
        std::size_t best = which.front();
        for (std::size_t i : which) {
          viable_choices[i].measured = runtime::median_of(samples[i]);
          if (viable_choices[i].measured < viable_choices[best].measured) best = i;
        }
        return best;
      };
      runtime::time_plans(cands, std::span<const std::size_t>(which), comm, src, dst, workspace_,
                          options_.max_message_bytes, options_.tune_reps, tune_min_seconds, samples);
      const double lead = viable_choices[fastest()].measured;
      std::erase_if(which, [&](std::size_t i) { return viable_choices[i].measured > 1.2 * lead; });
      if (which.size() >= 2)
        runtime::time_plans(cands, std::span<const std::size_t>(which), comm, src, dst, workspace_,
                            options_.max_message_bytes, 2 * options_.tune_reps, tune_min_seconds, samples);
      const std::size_t best = fastest();
      for (std::size_t i = 0; i < viable.size(); ++i) viable[i].choice.measured = viable_choices[i].measured;
      timed_ = std::move(viable_choices);
      plan_ = std::move(viable[best]);
    } else {
      plan_ = std::move(viable.front());
    }
    workspace_ = runtime::Workspace{};
  }

  From from_;
  To to_;
  Policy policy_;
  options options_;
  bool checked_ = false;
  plan_type plan_;
  runtime::Workspace workspace_;
  std::vector<schedule::CyclicChoice> timed_;
};

namespace detail {
/// One cached Redistribution of a destination array, type-erased over the source layout.
/// Copying an array does not copy its cache.
class PlanCache {
 public:
  PlanCache() = default;
  PlanCache(const PlanCache&) noexcept {}
  PlanCache& operator=(const PlanCache&) noexcept { return *this; }
  PlanCache(PlanCache&&) noexcept = default;
  PlanCache& operator=(PlanCache&&) noexcept = default;

  /// The cached plan for (from, to, policy) on comm, or a new one replacing it.
  template <class From, class To, class Policy>
  Redistribution<From, To, Policy>& get(const From& from, const To& to, const Policy& policy, const options& opts,
                                        const boost::mpi::communicator& comm) {
    using E = entry<From, To, Policy>;
    auto* e = dynamic_cast<E*>(entry_.get());
    if (e == nullptr || e->comm != static_cast<MPI_Comm>(comm) || !e->r.matches(from, to, policy, opts)) {
      entry_.reset();  // release the old plan and scratch first
      entry_ = std::make_unique<E>(static_cast<MPI_Comm>(comm), from, to, comm.rank(), policy, opts);
      e = static_cast<E*>(entry_.get());
    }
    return e->r;
  }

 private:
  struct entry_base {
    virtual ~entry_base() = default;
  };
  template <class From, class To, class Policy>
  struct entry : entry_base {
    entry(MPI_Comm c, const From& from, const To& to, int rank, const Policy& policy, const options& opts)
        : comm{c}, r{from, to, rank, policy, opts} {}
    MPI_Comm comm;
    Redistribution<From, To, Policy> r;
  };
  std::unique_ptr<entry_base> entry_;
};
}  // namespace detail

}  // namespace redist

// Redistribution for schedule::multiphase (two plans through an intermediate array).
#include <redist/array/multiphase.hpp>
