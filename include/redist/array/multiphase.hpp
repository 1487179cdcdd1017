/// @file Defines Redistribution under schedule::multiphase: Cyclic<s> -> Cyclic<t> in one or two phases through an intermediate array (seed 000's baseline).
#pragma once

#include <algorithm>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>

#include <boost/mpi/communicator.hpp>

#include <redist/array/options.hpp>
#include <redist/array/plan_cache.hpp>
#include <redist/dist/cyclic.hpp>
#include <redist/plan/basic_cycle.hpp>
#include <redist/runtime/scratch.hpp>
#include <redist/schedule/multiphase.hpp>

namespace redist {

namespace detail {
template <class>
inline constexpr bool multiphase_false = false;
}  // namespace detail

/// schedule::multiphase is defined for Cyclic<s> -> Cyclic<t> only (the Redistribution below).
template <class From, class To>
Plan plan_with(const From&, const To&, int, schedule::multiphase_t) {
  static_assert(detail::multiphase_false<From>,
                "redist::schedule::multiphase requires Cyclic<s> source and target distributions");
  return {};
}

/// The multi-phase method of Kaushik et al. for Cyclic<s> -> Cyclic<t>, the baseline of seed 000:
///   one stage (case 3):  CYCLIC(s) |-> CYCLIC(t)
///   two stages:          CYCLIC(s) |-> CYCLIC(u) |-> CYCLIC(t), u from schedule::multiphase_phases
/// Each phase is a general all-at-once plan of its own (its own index computation); the
/// intermediate array CYCLIC(u) is a buffer kept between calls, like the scratch.
template <class From, class To>
  requires CyclicMapping<From> && CyclicMapping<To>
class Redistribution<From, To, schedule::multiphase_t> {
 public:
  using mid_type = Cyclic<dynamic>::mapping;
  using plan_type = Plan;

  Redistribution(From from, To to, int rank, schedule::multiphase_t policy = {},
                 const options& opts = default_options())
      : from_{std::move(from)}, to_{std::move(to)}, policy_{policy}, options_{opts} {
    REDIST_EXPECTS(from_.size() == to_.size() && from_.nprocs() == to_.nprocs(),
                   "redist::Redistribution(from, to, rank, multiphase) requires from and to to have the same size and "
                   "process count");
    phases_ = schedule::multiphase_phases(from_.block_size(), to_.block_size(), from_.nprocs(), policy.count);
    if (phases_.phases == 1) {
      direct_.emplace(from_, to_, rank, schedule::all_at_once, opts);
    } else {
      mid_.emplace(Cyclic<dynamic>(phases_.sizes[1]), from_.size(), from_.nprocs());
      first_.emplace(from_, *mid_, rank, schedule::all_at_once, opts);
      second_.emplace(*mid_, to_, rank, schedule::all_at_once, opts);
    }
  }

  /// 1 or 2.
  int phases() const noexcept { return phases_.phases; }
  /// The block sizes s, [u,] t of the phases.
  const schedule::Phases& phase_sizes() const noexcept { return phases_; }
  /// The plan of phase i (0-based).
  const Plan& plan(int phase = 0) const {
    REDIST_EXPECTS(phase >= 0 && phase < phases_.phases, "redist::Redistribution::plan(phase) requires phase to be in [0, phases())");
    if (direct_) return direct_->plan();
    return phase == 0 ? first_->plan() : second_->plan();
  }
  const From& from() const noexcept { return from_; }
  const To& to() const noexcept { return to_; }
  const options& opts() const noexcept { return options_; }
  /// The intermediate array's storage (empty for one stage).
  const runtime::Scratch& intermediate() const noexcept { return middle_; }
  /// The most scratch bytes one round of either phase has needed (the intermediate array not counted).
  std::size_t scratch_high_water() const noexcept {
    if (direct_) return direct_->scratch_high_water();
    return std::max(first_->scratch_high_water(), second_->scratch_high_water());
  }

  template <class A, class B>
  void execute(const A& src, B& dst) {
    REDIST_EXPECTS(detail::layout_matches(src.mapping(), from_) && detail::layout_matches(dst.mapping(), to_),
                   "redist::Redistribution::execute(src, dst) requires src and dst to have the layouts the plan was made for");
    run(src.comm(), src.local(), dst.local());
  }

  /// Runs the phases (collective).
  template <class T>
  void run(const boost::mpi::communicator& comm, std::span<const T> src, std::span<T> dst) {
    if (direct_) {
      direct_->run(comm, src, dst);
      return;
    }
    const auto n = static_cast<std::size_t>(mid_->local_size(comm.rank()));
    T* mid = reinterpret_cast<T*>(middle_.reserve(n * sizeof(T)));
    // Phase 1: CYCLIC(s) -> CYCLIC(u), into the intermediate array.
    first_->run(comm, src, std::span<T>(mid, n));
    // Phase 2: CYCLIC(u) -> CYCLIC(t).
    second_->run(comm, std::span<const T>(mid, n), dst);
  }

  bool matches(const From& from, const To& to, const schedule::multiphase_t& policy, const options& opts) const {
    return from == from_ && to == to_ && policy == policy_ && opts == options_;
  }

 private:
  From from_;
  To to_;
  schedule::multiphase_t policy_;
  options options_;
  schedule::Phases phases_;
  std::optional<mid_type> mid_;
  std::optional<Redistribution<From, To, schedule::all_at_once_t>> direct_;
  std::optional<Redistribution<From, mid_type, schedule::all_at_once_t>> first_;
  std::optional<Redistribution<mid_type, To, schedule::all_at_once_t>> second_;
  runtime::Scratch middle_;
};

}  // namespace redist
