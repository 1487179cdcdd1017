/// @file Defines Redistribution (planner<Policy>'s plan bound to two layouts, with its workspace) and PlanCache, the plan cache of arrays and gemr2d.
#pragma once

#include <algorithm>
#include <atomic>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <span>
#include <typeinfo>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/mpi/communicator.hpp>

#include <redist/array/access.hpp>
#include <redist/array/consistency.hpp>
#include <redist/array/options.hpp>
#include <redist/array/threads.hpp>
#include <redist/plan/all_at_once.hpp>
#include <redist/plan/automatic.hpp>
#include <redist/plan/basic_cycle.hpp>
#include <redist/plan/circulant.hpp>
#include <redist/plan/gen_block.hpp>
#include <redist/plan/multiphase.hpp>
#include <redist/plan/plan.hpp>
#include <redist/plan/planner.hpp>
#include <redist/plan/stepwise.hpp>
#include <redist/runtime/choose_transport.hpp>
#include <redist/runtime/exchange.hpp>
#include <redist/runtime/exchange_circulant.hpp>
#include <redist/runtime/exchange_cycles.hpp>
#include <redist/runtime/exchange_multiphase.hpp>
#include <redist/runtime/exchange_node.hpp>
#include <redist/runtime/node.hpp>
#include <redist/runtime/tune.hpp>

namespace redist {

namespace detail {
/// Whether an array's layout is the layout a plan was made for: the same, or (for a 1-D array,
/// whose plans are built on its 1-D mapping) a rank-1 layout whose 1-D mapping it is.
template <class A, class M>
bool layout_matches(const A& array_layout, const M& plan_layout) {
  if constexpr (std::is_same_v<A, M>) {
    return array_layout == plan_layout;
  } else if constexpr (requires { array_layout.linear(); } &&
                       std::derived_from<M, std::remove_cvref_t<decltype(array_layout.linear())>>) {
    // A 1-D array's plan is made on its 1-D mapping (or that mapping with a static process count).
    using L = std::remove_cvref_t<decltype(array_layout.linear())>;
    return array_layout.is_linear() && array_layout.linear() == static_cast<const L&>(plan_layout);
  } else {
    return false;
  }
}

/// The plan that runs: a TimedCyclicPlan's current plan, any other plan itself.
template <class P>
const auto& visible_plan(const P& p) noexcept {
  if constexpr (requires { p.plan; p.timed; }) return p.plan;
  else return p;
}
/// Gives a plan the piece size agreed by all ranks: through its set_piece where it has one
/// (CyclePlan, CirculantPlan, MultiphasePlan, TimedCyclicPlan), else as a BasicPlan's piece.
template <class P>
void set_piece(P& p, index_t piece) noexcept {
  if constexpr (requires { p.set_piece(piece); }) p.set_piece(piece);
  else p.piece = piece;
}
}  // namespace detail

namespace detail {
/// A number no Redistribution of this process has had before (of any layouts).
inline std::uint64_t next_plan_id() noexcept {
  static std::atomic<std::uint64_t> last{0};
  return ++last;
}
}  // namespace detail

/// A plan for moving data from the layout `From` to the layout `To` on one rank under the schedule
/// policy `Policy` (planner<Policy>'s plan), with the workspace it reuses. Made by
/// redist::make_plan(a, b[, policy]) and by `b = a` (cached in b); execute(a, b) runs it
/// (collective).
template <class From, class To, class Policy = schedule::automatic_t>
class Redistribution {
  static_assert((planner<Policy>::template require<From, To>(), true));

 public:
  Redistribution(From from, To to, int rank, Policy policy = {}, const options& opts = default_options())
      : from_{std::move(from)}, to_{std::move(to)}, policy_{policy}, options_{opts},
        plan_{planner<Policy>::plan(from_, to_, rank, policy_)} {}

  /// What planner<Policy> builds for these layouts: Plan, GridPlan, CyclePlan, CirculantPlan,
  /// MultiphasePlan, or TimedCyclicPlan (automatic on a Cyclic pair).
  using plan_type = decltype(planner<Policy>::plan(std::declval<const From&>(), std::declval<const To&>(), 0,
                                                   std::declval<const Policy&>()));
  /// The plan that runs (for a TimedCyclicPlan: the model's choice, after the first run the fastest).
  const auto& plan() const noexcept { return detail::visible_plan(plan_); }
  const From& from() const noexcept { return from_; }
  const To& to() const noexcept { return to_; }
  /// The scratch buffer (its capacity() and allocations()) and the bookkeeping the plan reuses.
  const runtime::Scratch& scratch() const noexcept { return workspace_.buffer; }
  /// The most scratch bytes one round has needed so far.
  std::size_t scratch_high_water() const noexcept { return workspace_.high_water; }
  /// The plan's intermediate array (schedule::multiphase with two stages), kept between calls.
  const runtime::Scratch& intermediate() const noexcept { return workspace_.intermediate; }

  /// src -> dst with this plan. Requires src and dst to have the layouts the plan was made for.
  template <class A, class B>
  void execute(const A& src, B& dst) {
    REDIST_EXPECTS(detail::layout_matches(src.mapping(), from_) && detail::layout_matches(dst.mapping(), to_),
                   "redist::Redistribution::execute(src, dst) requires src and dst to have the layouts the plan was made for");
    run(src.comm(), std::span<const typename A::value_type>(src.local()), dst.local(), detail::array_access::segment(src));
  }

  /// Runs the plan (collective). The first run checks, with options().check_consistency, that
  /// every rank has the same layouts, element size, policy and options, and agrees on the piece
  /// size of the scratch budget; a plan that tunes itself (TimedCyclicPlan) then does so.
  template <class T>
  void run(const boost::mpi::communicator& comm, std::span<const T> src, std::span<T> dst) {
    const detail::CallGuard guard(static_cast<MPI_Comm>(comm), "redist::redistribute(src, dst)");
    first_run(comm, src, dst);
    runtime::execute(plan_, comm, src, dst, workspace_, options_.max_message_bytes);
    choose_transport_once(comm, src, dst);
  }
  /// Runs the plan with src the local storage of an array (collective): with
  /// options().shared_memory, the ranks of a node whose source storage is `source`'s window read
  /// each other's source in place (runtime::execute_on_node); messages otherwise.
  template <class T>
  void run(const boost::mpi::communicator& comm, std::span<const T> src, std::span<T> dst,
           const runtime::SharedSegment* source) {
    const detail::CallGuard guard(static_cast<MPI_Comm>(comm), "redist::redistribute(src, dst)");
    first_run(comm, src, dst);
    if (options_.shared_memory && comm.size() > 1) {
      const auto node = runtime::node_of(static_cast<MPI_Comm>(comm), options_.node_size);
      on_node_ = runtime::execute_on_node(plan_, comm, *node, source, declared_ld(from_), src, dst, workspace_,
                                          options_.max_message_bytes);
      // One node holding every rank exchanges no messages: nothing to choose.
      if (!(on_node_ && node->whole())) choose_transport_once(comm, src, dst);
    } else {
      runtime::execute(plan_, comm, src, dst, workspace_, options_.max_message_bytes);
      on_node_ = false;
      choose_transport_once(comm, src, dst);
    }
  }
  /// The collective first-run work (agreement, piece size, tuning) without running: what a
  /// started or fused exchange does before it posts its messages. Nothing after the first call.
  template <class T>
  void prepare(const boost::mpi::communicator& comm, std::span<const T> src, std::span<T> dst) {
    const detail::CallGuard guard(static_cast<MPI_Comm>(comm), "redist::start(...)");
    first_run(comm, src, dst);
  }
  /// A number no other Redistribution of this process has had (fused exchanges find their
  /// message layout by their plans' ids).
  std::uint64_t id() const noexcept { return id_; }
  /// The leading dimension the source layout was declared with on this rank (0: none).
  index_t source_ld() const noexcept { return declared_ld(from_); }
  /// Runs the plan storing every element by op, a scaled update (runtime/store.hpp): b = alpha *
  /// op(a) [+ beta * b] computed inside the unpack and the local copy. Collective; by messages
  /// (no shared memory, no datatypes). Plans of messages only (BasicPlan: detail::update_policy).
  template <class T, class Op>
  void run_update(const boost::mpi::communicator& comm, std::span<const T> src, std::span<T> dst, const Op& op) {
    const detail::CallGuard guard(static_cast<MPI_Comm>(comm), "redist::redistribute(src, dst)");
    first_run(comm, src, dst, Op::assigns);
    runtime::execute(plan_, comm, src, dst, workspace_, options_.max_message_bytes, nullptr, op);
  }
  /// True until the first run (which agrees on the plan across ranks) has happened.
  bool before_first_run() const noexcept { return !checked_; }
  /// True when the last run copied from node peers' shared memory (run with an array's source).
  bool used_shared_memory() const noexcept { return on_node_; }
  /// True when the plan's messages go as MPI derived datatypes over the arrays (no pack or
  /// unpack): the first run that exchanged messages timed both ways (options().tune_reps rounds)
  /// and this was faster on the slowest rank. Plans of direct messages only (BasicPlan).
  bool uses_datatypes() const noexcept { return workspace_.typed; }
  /// The medians (seconds) of that timing, packed and typed; zeros when nothing was timed (small
  /// messages, tune_reps = 0, no messages yet, or a plan that forwards messages).
  std::pair<double, double> transport_medians() const noexcept { return transport_times_; }

  /// The candidate schedules schedule::automatic timed on the first run of a Cyclic pair's plan,
  /// each with its median time (CyclicChoice::measured), in the order of the model's
  /// predictions; empty when nothing was timed (other layouts or policies, tune_reps = 0, a
  /// single candidate). plan().choice is the one that runs.
  const std::vector<schedule::CyclicChoice>& timed_candidates() const noexcept {
    if constexpr (requires { plan_.timed; }) {
      return plan_.timed;
    } else {
      static const std::vector<schedule::CyclicChoice> none;
      return none;
    }
  }

  bool matches(const From& from, const To& to, const Policy& policy, const options& opts) const {
    return from == from_ && to == to_ && policy == policy_ && opts == options_;
  }
  const options& opts() const noexcept { return options_; }

 private:
  /// Collective, once per plan: the scratch budget becomes a piece size that all ranks share
  /// (the smallest of their limits), and with check_consistency all ranks verify that they
  /// have the same layouts, element size, policy and options — in the same all-reduce. The
  /// workspace the plan's runs need on this rank (workspace_need) is allocated before it, so
  /// that a rank without the memory makes every rank throw. Returns the budget in elements.
  template <class T>
  index_t agree_on_first_run(const boost::mpi::communicator& comm, std::size_t src_elems, std::size_t dst_elems,
                             bool in_place_receives) {
    const std::size_t budget_bytes =
        options_.max_scratch_bytes != 0 ? options_.max_scratch_bytes : std::max(src_elems, dst_elems) * sizeof(T);
    const auto budget = static_cast<index_t>(budget_bytes / sizeof(T));
    std::optional<std::string> failure;
    index_t piece = 0;
    try {
      piece = piece_limit(plan_, budget);
      WorkspaceNeed need;
      if constexpr (requires { workspace_need(plan_, budget, in_place_receives); })
        need = workspace_need(plan_, budget, in_place_receives);
      else if constexpr (requires { workspace_need(plan_, budget); })
        need = workspace_need(plan_, budget);
      failure = reserve_workspace<T>(need, comm.rank());
    } catch (const error& e) {
      failure = e.what();
    }
    const auto mine = static_cast<std::uint64_t>(piece == 0 ? index_t{-1} >> 1 : piece);  // 0: no limit
    std::uint64_t shared = 0;
    if (options_.check_consistency) {
      std::uint64_t opts_hash = detail::hash_seed;
      for (std::uint64_t x : {std::uint64_t{options_.max_scratch_bytes}, std::uint64_t{options_.max_message_bytes},
                              static_cast<std::uint64_t>(options_.tune_reps), std::uint64_t{options_.shared_memory},
                              static_cast<std::uint64_t>(options_.node_size)})
        opts_hash = detail::hash_mix(opts_hash, x);
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
    detail::set_piece(plan_, shared == static_cast<std::uint64_t>(index_t{-1} >> 1) ? 0 : static_cast<index_t>(shared));
    checked_ = true;
    return static_cast<index_t>(budget_bytes / sizeof(T));
  }

  /// The leading dimension the source layout was declared with on this rank (0: none), with
  /// which the plan computes its peers' source offsets.
  template <class L>
  static index_t declared_ld(const L& l) noexcept {
    if constexpr (requires { l.base.storage(); }) return l.base.storage().ld;
    else if constexpr (requires { l.storage(); }) return l.storage().ld;
    else return 0;
  }
  template <class T>
  void choose_transport_once(const boost::mpi::communicator& comm, std::span<const T> src, std::span<T> dst) {
    if (transport_chosen_) return;
    transport_chosen_ = true;
    if constexpr (requires { runtime::choose_transport(plan_, comm, src, dst, workspace_, 0, std::size_t{}); })
      transport_times_ =
          runtime::choose_transport(plan_, comm, src, dst, workspace_, options_.tune_reps, options_.max_message_bytes);
  }
  /// Allocates the workspace `need` (elements of T), or says why this rank cannot.
  template <class T>
  std::optional<std::string> reserve_workspace(const WorkspaceNeed& need, int rank) {
    const index_t elements = need.buffer + need.intermediate;
    const std::string what = std::to_string(elements) + " elements of " + std::to_string(sizeof(T)) +
                             (sizeof(T) == 1 ? " byte" : " bytes");
    if (static_cast<std::uint64_t>(elements) > static_cast<std::uint64_t>(std::numeric_limits<std::ptrdiff_t>::max()) / sizeof(T))
      return "redist::redistribute(src, dst) requires this rank's workspace to fit in memory (" + what + " on rank " +
             std::to_string(rank) + ": the bytes overflow)";
    try {
      workspace_.buffer.reserve(static_cast<std::size_t>(need.buffer) * sizeof(T));
      workspace_.intermediate.reserve(static_cast<std::size_t>(need.intermediate) * sizeof(T));
    } catch (const std::bad_alloc&) {
      return "redist::redistribute(src, dst) could not allocate this rank's workspace (" + what + ", " +
             std::to_string(static_cast<std::uint64_t>(elements) * sizeof(T)) + " bytes, on rank " + std::to_string(rank) + ")";
    }
    return std::nullopt;
  }
  template <class T>
  void first_run(const boost::mpi::communicator& comm, std::span<const T> src, std::span<T> dst,
                 bool in_place_receives = true) {
    if (checked_) return;
    const index_t budget = agree_on_first_run<T>(comm, src.size(), dst.size(), in_place_receives);
    if constexpr (requires { runtime::tune(plan_, comm, src, dst, workspace_, budget, 0, std::size_t{}); })
      runtime::tune(plan_, comm, src, dst, workspace_, budget, options_.tune_reps, options_.max_message_bytes);
  }
  From from_;
  To to_;
  Policy policy_;
  options options_;
  bool checked_ = false;
  bool on_node_ = false;
  bool transport_chosen_ = false;
  std::pair<double, double> transport_times_{};
  plan_type plan_;
  runtime::Workspace workspace_;
  std::uint64_t id_ = detail::next_plan_id();
};

namespace detail {
/// Plans kept by their owner, most recently used first, at most `capacity` of them: a
/// destination array keeps one (its last source layout and policy), gemr2d keeps eight per
/// process. An entry is a Redistribution with what its owner finds it by, type-erased over
/// the layouts; copying a cache (an array) does not copy its plans.
class PlanCache {
 public:
  /// The base of every entry.
  struct entry_base {
    virtual ~entry_base() = default;
  };

  explicit PlanCache(std::size_t capacity = 1) noexcept : capacity_{capacity} {}
  PlanCache(const PlanCache& o) noexcept : capacity_{o.capacity_} {}
  PlanCache& operator=(const PlanCache&) noexcept { return *this; }
  PlanCache(PlanCache&&) noexcept = default;
  PlanCache& operator=(PlanCache&&) noexcept = default;

  /// The first entry of type E for which match(entry) holds, or nullptr. Does not reorder.
  template <class E, class Match>
  E* find(Match&& match) const {
    for (const auto& p : entries_)
      if (auto* e = dynamic_cast<E*>(p.get()); e != nullptr && match(*e)) return e;
    return nullptr;
  }
  /// Makes e the most recently used entry.
  void touch(const entry_base* e) {
    auto it = position(e);
    if (it != entries_.end()) std::rotate(entries_.begin(), it, std::next(it));
  }
  void erase(const entry_base* e) {
    auto it = position(e);
    if (it != entries_.end()) entries_.erase(it);
  }
  /// A new entry E(args...) in front; the least recently used one is released first when the
  /// cache is full (so that its plan and scratch are freed before the new plan is built).
  template <class E, class... Args>
  E& emplace(Args&&... args) {
    if (entries_.size() >= capacity_) entries_.pop_back();
    auto e = std::make_unique<E>(std::forward<Args>(args)...);
    E& ref = *e;
    entries_.insert(entries_.begin(), std::move(e));
    return ref;
  }
  void clear() noexcept { entries_.clear(); }
  std::size_t size() const noexcept { return entries_.size(); }

  /// The cached Redistribution of (from, to, policy, opts) on comm, or a new one in its place.
  template <class From, class To, class Policy>
  Redistribution<From, To, Policy>& get(const From& from, const To& to, const Policy& policy, const options& opts,
                                        const boost::mpi::communicator& comm) {
    using E = layouts_entry<From, To, Policy>;
    const MPI_Comm c = static_cast<MPI_Comm>(comm);
    E* e = find<E>([&](const E& x) { return x.comm == c && x.r.matches(from, to, policy, opts); });
    if (e == nullptr) return emplace<E>(c, from, to, comm.rank(), policy, opts).r;
    touch(e);
    return e->r;
  }

 private:
  template <class From, class To, class Policy>
  struct layouts_entry : entry_base {
    layouts_entry(MPI_Comm c, const From& from, const To& to, int rank, const Policy& policy, const options& opts)
        : comm{c}, r{from, to, rank, policy, opts} {}
    MPI_Comm comm;
    Redistribution<From, To, Policy> r;
  };

  std::vector<std::unique_ptr<entry_base>>::iterator position(const entry_base* e) {
    return std::find_if(entries_.begin(), entries_.end(), [&](const auto& p) { return p.get() == e; });
  }

  std::size_t capacity_;
  std::vector<std::unique_ptr<entry_base>> entries_;
};
}  // namespace detail

}  // namespace redist
