/// @file Defines Redistribution (a pair's plan as the decision settles it, bound to two layouts, with its workspace), Explanation (what it does, for explain) and PlanCache, the plan cache of arrays and gemr2d.
#pragma once

#include <algorithm>
#include <array>
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

#include <boost/hana/tuple.hpp>
#include <boost/mpi/communicator.hpp>

#include <redist/array/access.hpp>
#include <redist/array/consistency.hpp>
#include <redist/array/indirect.hpp>
#include <redist/array/options.hpp>
#include <redist/array/partial_values.hpp>
#include <redist/array/threads.hpp>
#include <redist/plan/automatic.hpp>
#include <redist/plan/basic_cycle.hpp>
#include <redist/plan/circulant.hpp>
#include <redist/plan/gen_block.hpp>
#include <redist/plan/multiphase.hpp>
#include <redist/plan/plan.hpp>
#include <redist/plan/planner.hpp>
#include <redist/plan/stepwise.hpp>
#include <redist/runtime/exchange.hpp>
#include <redist/runtime/measure.hpp>
#include <redist/runtime/node.hpp>
#include <redist/runtime/store.hpp>

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

/// The folds of partial values (runtime::fold_op): their destination holds Op's identity first.
template <class Op>
inline constexpr bool is_fold = false;
template <class X>
inline constexpr bool is_fold<runtime::fold_op<X>> = true;

/// The tag of Redistribution's copy of another's plan (make_plan's, of the plan cached in b).
struct fresh_plan_t {
  explicit fresh_plan_t() = default;
};
inline constexpr fresh_plan_t fresh_plan{};

/// The runs of a fold that time the node's copies against the messages on its own runs
/// (Redistribution::run_update): runs 1, 3, 5, 7 by the node's copies, 2, 4, 6, 8 by messages.
inline constexpr int fold_timing_runs = 8;
/// The median of the fold's timed runs by one transport: those at first, first + 2, ... of
/// `seconds` (fold_timing_runs of them; the mean of the middle two).
inline double median_of_alternate(const double (&seconds)[fold_timing_runs], int first) {
  std::array<double, fold_timing_runs / 2> mine{};
  for (std::size_t k = 0; k < mine.size(); ++k) mine[k] = seconds[static_cast<std::size_t>(first) + 2 * k];
  std::sort(mine.begin(), mine.end());
  return (mine[mine.size() / 2 - 1] + mine[mine.size() / 2]) / 2;
}

/// A number no Redistribution of this process has had before (of any layouts).
inline std::uint64_t next_plan_id() noexcept {
  static std::atomic<std::uint64_t> last{0};
  return ++last;
}

/// The leading dimension a layout was declared with on this rank (0: none), with which a plan
/// computes its peers' source offsets.
template <class L>
index_t declared_ld(const L& l) noexcept {
  if constexpr (requires { l.base.storage(); }) return l.base.storage().ld;
  else if constexpr (requires { l.storage(); }) return l.storage().ld;
  else return 0;
}
}  // namespace detail

/// What `b = a` does on this rank, as decided (explain, before the first run) or as it ran.
struct Explanation {
  std::string schedule;       ///< the schedule of the plan: "bcc", "hybrid(2)", "all_at_once", "relative_group", ...
  /// How the messages travel: "messages" (packed, point to point), "persistent", "alltoallv",
  /// "neighbor_alltoallv", with derived datatypes "datatypes", "persistent_datatypes", "alltoallw",
  /// "neighbor_alltoallw" (plan.hpp's wire_name); "shared_memory" when node peers copy and no
  /// message is left; "shared_memory+" and the wire when node peers copy and other pairs exchange.
  std::string transport;
  /// On the node path, how node peers' messages are copied: "pull" (each receiver reads its pieces
  /// from the peers' sources) or "pack_then_pull" (each sender packs them into a node window in one
  /// pass, receivers read those runs; tried when the pieces are shorter than a cache line, from
  /// the run after the node found them so, and kept if it copied faster). Empty off the node path.
  std::string node_copy;
  std::pair<double, double> node_copy_seconds{};  ///< the node's copy timed pulling and packing then pulling (0: not run)
  std::size_t messages = 0;   ///< this rank's messages to other ranks (node-peer copies are not messages; a message
                              ///< the scratch budget cuts into pieces counts once per piece)
  std::size_t bytes = 0;      ///< their bytes
  std::size_t steps = 0;      ///< steps of the schedule (all stages)
  std::size_t stages = 1;     ///< stages of the plan (two through an intermediate array)
  bool ran = false;           ///< false: the decision as planned, before the first run
  std::string reason;         ///< why this schedule
  std::vector<schedule::CyclicChoice> timed;  ///< the candidate schedules timed, with their medians
  std::vector<TransportTiming> transports;    ///< the transports timed, with their medians
  /// A few lines for a person.
  std::string str() const {
    std::string s = "schedule " + schedule + " (" + reason + ")\n";
    s += "transport " + transport + (ran ? "" : " (planned; decided on the first run)") + "\n";
    if (!node_copy.empty()) {
      s += "node peers: " + node_copy;
      if (node_copy_seconds.first > 0 && node_copy_seconds.second > 0)
        s += " (timed: pull " + std::to_string(node_copy_seconds.first * 1e3) + " ms, pack_then_pull " +
             std::to_string(node_copy_seconds.second * 1e3) + " ms)";
      s += "\n";
    }
    for (const TransportTiming& t : transports)
      s += "  timed " + t.name() + ": median " + std::to_string(t.median * 1e3) + " ms\n";
    s += "this rank: " + std::to_string(messages) + " messages, " + std::to_string(bytes) + " bytes to other ranks, in " +
         std::to_string(steps) + (steps == 1 ? " step" : " steps") +
         (stages > 1 ? " of " + std::to_string(stages) + " stages" : std::string()) + "\n";
    for (const schedule::CyclicChoice& c : timed)
      s += "  timed " + std::string(c.kind == schedule::CyclicChoice::method::basic_cycles ? "bcc" : "hybrid(" + std::to_string(c.d) + ")") +
           ": median " + std::to_string(c.measured * 1e3) + " ms (model " + std::to_string(c.predicted * 1e3) + " ms)\n";
    return s;
  }
};

/// A plan for moving data from the layout `From` to the layout `To` on one rank under the schedule
/// policy `Policy` (planner<Policy>'s plan, settled by Decider), with the workspace it reuses.
/// Made by redist::make_plan(a, b[, policy]) and by `b = a` (cached in b); execute(a, b) runs it
/// (collective).
template <class From, class To, class Policy = schedule::automatic_t>
class Redistribution {
  static_assert((planner<Policy>::template require<From, To>(), true));
  using decider = Decider<From, To, Policy>;

 public:
  /// `nodes`: the communicator's nodes (runtime::node_of), by which a source held in copies is
  /// read from a copy on the reader's node where there is one (detail::serves); none: the copy at
  /// the reader's own coordinates.
  Redistribution(From from, To to, int rank, Policy policy = {}, const options& opts = default_options(),
                 std::shared_ptr<const runtime::Node> nodes = {})
      : from_{std::move(from)}, to_{std::move(to)}, policy_{policy}, options_{opts},
        sums_from_{std::is_void_v<typename detail::layout_partial<From>::type> && detail::any_partial(from_)},
        sums_to_{std::is_void_v<typename detail::layout_partial<To>::type> && detail::any_partial(to_)},
        node_keep_{std::move(nodes)}, plan_{plan_by_nodes(rank)} {
    // Whether this rank's local copy (one stage) writes every element of its destination: as many
    // elements as the destination's local ones (each written once).
    if constexpr (requires(const To& t) { t.local_extents(0); })
      if (plan_.stages.size() == 1) {
        index_t n = 1;
        for (index_t e : to_.local_extents(rank)) n *= e;
        local_covers_ = n > 0 && plan_.stages[0].local.size == n;
      }
  }

  /// A plan made as `o`'s was (its layouts, policy, options, nodes and plan), with nothing of
  /// o's runs: its first run agrees, decides and times afresh, in a workspace of its own. Requires
  /// a plan that its runs do not change (not `adaptive`), or o before its first run. What
  /// make_plan(a, b) returns of the plan cached in b for a pair with an Indirect layout, whose
  /// making is collective (its directory): b = a and make_plan then ask it once. The copy shares
  /// o's element lists (Stage::list), which neither changes.
  Redistribution(detail::fresh_plan_t, const Redistribution& o)
      : from_{o.from_}, to_{o.to_}, policy_{o.policy_}, options_{o.options_}, sums_from_{o.sums_from_},
        sums_to_{o.sums_to_}, local_covers_{o.local_covers_}, node_keep_{o.node_keep_}, nodes_hash_{o.nodes_hash_},
        plan_{o.plan_} {
    REDIST_EXPECTS(!decider::adaptive || o.runs_ == 0, "redist: a plan's copy is made of a plan its runs have not changed");
    decision_.reason = o.decision_.reason;  // the plan-time decision's (Decider::plan)
    plan_.piece = 0;                        // agreed again on the first run
  }

  /// The plan (a BasicPlan: Plan for 1-D layouts, BasicPlan<section_for<N>> for N-D ones).
  using plan_type = typename decider::plan_type;
  /// True when a run may replace the plan (schedule::automatic on a Cyclic pair: the decision's
  /// timed candidates), false when plan() is the plan of every run.
  static constexpr bool replans = decider::adaptive;
  /// The plan that runs (under schedule::automatic on a Cyclic pair: the model's choice, after the
  /// plan's second run the fastest candidate; on a node, the pair's direct messages).
  const plan_type& plan() const noexcept { return plan_; }
  const From& from() const noexcept { return from_; }
  const To& to() const noexcept { return to_; }
  /// The scratch buffer (its capacity() and allocations()) the plan's runs reuse.
  const runtime::Scratch& scratch() const noexcept { return workspace_.buffer(); }
  /// The most scratch bytes one group of messages has needed so far.
  std::size_t scratch_high_water() const noexcept { return workspace_.high_water(); }
  /// The plan's intermediate array (schedule::multiphase with two stages, two circulant phases), kept between calls.
  const runtime::Scratch& intermediate() const noexcept { return workspace_.intermediate; }

  /// src -> dst with this plan. Requires src and dst to have the layouts the plan was made for.
  template <class A, class B>
  void execute(const A& src, B& dst) {
    REDIST_EXPECTS(detail::layout_matches(src.mapping(), from_) && detail::layout_matches(dst.mapping(), to_),
                   "redist::Redistribution::execute(src, dst) requires src and dst to have the layouts the plan was made for");
    run_arrays(src, dst);
  }

  /// b = a between arrays (collective): `a` the array read (its layout the plan's source, or the
  /// layout a Transposed source permutes), `dst` written. By run (the node path, the transports);
  /// from partial values (Partial<Op>) by run_update, each contribution folded into Op's identity;
  /// into partial values, the processes of the Partial dimensions that receive nothing (all but
  /// process 0) get their Op's identity (detail::start_partial), and so do the places of an
  /// Indirect<Op> destination that receive nothing (an index's holders but the first).
  template <class A, class B>
  void run_arrays(const A& a, B& dst) {
    using SrcOp = detail::partial_op_t<A>;
    using DstOp = detail::partial_op_t<B>;
    const std::span<const typename B::value_type> src(a.local());
    if constexpr (!std::is_void_v<SrcOp>) {
      run_update(a.comm(), src, dst.local(), runtime::fold_op<SrcOp>{},
                 [&] { detail::start_partial<SrcOp, DstOp>(dst, nullptr); }, detail::array_access::segment(a), true);
    } else {
      run(a.comm(), src, dst.local(), detail::array_access::segment(a));
      if constexpr (!std::is_void_v<DstOp>) detail::start_partial<void, DstOp>(dst, nullptr);
    }
    if constexpr (detail::indirect_layout<typename B::mapping_type>) detail::hold_identity_where_unreceived(plan_, dst);
  }

  /// Runs the plan (collective): src -> dst, by messages. The first run checks, with
  /// options().check_consistency, that every rank has the same layouts, element size, policy and
  /// options, and agrees on the piece size of the scratch budget; the decision (Decider) then
  /// settles the plan, and on the second run what it times.
  template <class T>
  void run(const boost::mpi::communicator& comm, std::span<const T> src, std::span<T> dst) {
    run_on(comm, src, dst, nullptr, false);
  }
  /// Runs the plan with src the local storage of an array (collective): with
  /// options().shared_memory, the ranks of a node whose sources are all in `source`'s window (src's
  /// part of a node window, or nullptr on a rank whose source is not in one) read each other's
  /// source in place; messages otherwise. Every rank calls this overload alike.
  template <class T>
  void run(const boost::mpi::communicator& comm, std::span<const T> src, std::span<T> dst,
           const runtime::SharedSegment* source) {
    run_on(comm, src, dst, source, true);
  }
  /// The collective first-run work (agreement, piece size, decision) without running: what a
  /// started or fused exchange does before it posts its messages (by messages, or from node peers'
  /// shared memory when the list agrees to; the plan is then direct).
  template <class T>
  void prepare(const boost::mpi::communicator& comm, std::span<const T> src, std::span<T> dst) {
    const detail::CallGuard guard(static_cast<MPI_Comm>(comm), "redist::start(...)");
    refuse_sums("redist::start(...) and redist::assign(...)");
    first_run<T>(comm, src.size(), dst.size(), true);
  }
  /// A number no other Redistribution of this process has had (fused exchanges find their
  /// message layout by their plans' ids).
  std::uint64_t id() const noexcept { return id_; }
  /// The leading dimension the source layout was declared with on this rank (0: none).
  index_t source_ld() const noexcept { return detail::declared_ld(from_); }
  /// The workspace of the plan (a fused exchange runs it there).
  runtime::Workspace& workspace() noexcept { return workspace_; }
  /// Runs the plan storing every element by op, a scaled update (runtime/store.hpp): b = alpha *
  /// op(a) [+ beta * b] computed inside the unpack and the local copy, or a fold of partial
  /// values. Collective; by messages (no datatypes), or, run with an array's source (`from_array`:
  /// every rank alike; `source` its part of a node window, or nullptr), with node peers' elements
  /// read from their sources in shared memory, each stored by op where it lands.
  /// `before()` runs after the first run's agreement, before any element moves (what must be
  /// written into dst first: the identity partial values fold into).
  template <class T, class Op, class Before = void (*)()>
  void run_update(const boost::mpi::communicator& comm, std::span<const T> src, std::span<T> dst, const Op& op,
                  Before&& before = [] {}, const runtime::SharedSegment* source = nullptr, bool from_array = false) {
    const detail::CallGuard guard(static_cast<MPI_Comm>(comm), "redist::redistribute(src, dst)");
    if constexpr (!std::is_same_v<Op, runtime::fold_op<std::plus<>>>)
      refuse_sums("a scaled update (b = alpha * op(a) + beta * b), or b = a from Partial<Op> values other than sums,");
    first_run<T>(comm, src.size(), dst.size(), Op::assigns);
    // A fold whose local copy (one stage) writes every destination element: that copy, assigned, can
    // be the fold's first contribution (below).
    const bool local_first = detail::is_fold<Op> && local_covers_ && plan_.stages.size() == 1;
    const auto c = static_cast<MPI_Comm>(comm);
    // The node whose peers may copy from each other's sources (an array's source).
    const runtime::Node* node = nullptr;
    if (options_.shared_memory && comm.size() > 1) {
      auto nodes = runtime::node_of(c, options_.node_size);
      if (node_keep_ != nodes) node_keep_ = std::move(nodes);
      if (from_array && node_keep_->size > 1) node = node_keep_.get();
    }
    // Partial values folded by a predefined MPI operation: the second run times the messages (or
    // the node's copies) against the pattern's reduction (one MPI_Allreduce or MPI_Reduce_scatter
    // per group, where every rank's plan is one) and keeps the faster, as the transports of b = a
    // are decided.
    if constexpr (runtime::detail::mpi_reduction<T, Op>::exists)
      if (update_runs_ == 1 && options_.tune_reps > 0 && comm.size() > 1) {
        decision_.transports =
            runtime::time_reduction(plan_, comm, src, dst, workspace_, options_.tune_reps, op, before, budget_, source, node,
                                    from_array && options_.shared_memory,  // every rank alike (a node of one has none)
                                    local_first && !plan_.stages[0].cycles);
        const TransportTiming* best = nullptr;
        for (const TransportTiming& t : decision_.transports)
          if (t.median > 0 && (best == nullptr || t.median < best->median)) best = &t;
        if (best != nullptr) {
          workspace_.exchange.wire = best->wire;
          workspace_.exchange.nonblocking = best->nonblocking;
          update_node_ = best->node;
        }
      }
    // Where no reduction was timed, and every rank sends under typed_min_bytes (as b = a's
    // decision: a node's copies cost its ranks two synchronisations a call, which can cost more
    // than a small array's messages), the node's copies against the messages alone, on the plan's
    // own runs (a fold in place cannot be repeated to time it: each run adds the contributions
    // again): runs 1 to fold_timing_runs alternate, the odd ones by the node's copies (where the
    // node agrees), the even ones by messages, each timed (the slowest rank's); from the next run
    // on, the one with the lower median (update_node_). One run each would not do: a transport's
    // first run carries its setup (at 4 ranks on 2 cores, a halo's sums in place by messages took
    // 19.7 us on their first run, 4.2 a run after it), which decided for the node's copies at 11 us.
    // Every rank alike: the condition is the same on all (no reduction timed is agreed), and so
    // are the times.
    if (update_runs_ == 1 && from_array && options_.shared_memory && options_.tune_reps > 0 && comm.size() > 1 &&
        decision_.transports.empty()) {
      std::uint64_t bytes = 0, most = 0;
      for (const auto& st : plan_.stages)
        for (const Message& m : st.sends) bytes += static_cast<std::uint64_t>(m.size) * sizeof(T);
      runtime::detail::check(MPI_Allreduce(&bytes, &most, 1, MPI_UINT64_T, MPI_MAX, c), "MPI_Allreduce");
      fold_node_timing_ = most < runtime::typed_min_bytes;
      // Room for the decision's two timings now: the run that decides (fold_timing_runs) then
      // allocates nothing, as no later run does (test_no_alloc).
      if (fold_node_timing_) decision_.transports.reserve(2);
    }
    const bool timed_run = fold_node_timing_ && update_runs_ >= 1 && update_runs_ <= detail::fold_timing_runs;
    if (timed_run) update_node_ = update_runs_ % 2 == 1;
    if (workspace_.exchange.nodes != node_keep_) workspace_.exchange.nodes = node_keep_;
    auto parts = boost::hana::make_tuple(runtime::part(plan_, src, dst, workspace_, op, source, source_ld()));
    // A reduction wire folds every member's part itself: the node's copies are not used with it,
    // nor where the messages timed faster (update_node_). It folds by an MPI operation: a run
    // whose store has none (a scaled update, b = alpha * a + beta * b, on the plan of b = a's
    // folds) goes point to point, and the wire stays for the folds.
    const Wire kept = workspace_.exchange.wire;
    if constexpr (!runtime::detail::mpi_reduction<T, Op>::exists)
      if (kept == Wire::allreduce || kept == Wire::reduce_scatter) workspace_.exchange.wire = Wire::point_to_point;
    const bool reduction = workspace_.exchange.wire == Wire::allreduce || workspace_.exchange.wire == Wire::reduce_scatter;
    on_node_ = node != nullptr && !reduction && update_node_ && runtime::agree_on_node(parts, *node, plan_.direct());
    node_ = on_node_ ? node : nullptr;
    // A fold whose local copy covers every destination element: the local copy, assigned, is the
    // first contribution, instead of the identity written first and the local copy folded into it
    // (a pass over the destination less). The executor copies the local pieces before it stores any
    // other (from node peers, their staging or messages), except by a one-pass unpack of basic
    // cycles (messages of a stage with cycles, off the node path); a reduction wire assigns its
    // result to the local copy's places, which are then every destination element.
    const bool first = local_first && (reduction || on_node_ || !plan_.stages[0].cycles);
    workspace_.local_assigns = first;
    if (!first) before();
    // Waited for at once, as b = a's runs and the decision's timings (a reduction wire: the blocking
    // collective, or the nonblocking one and its wait where the decision timed that faster).
    const double t0 = timed_run ? MPI_Wtime() : 0.0;
    runtime::run(parts, workspace_.exchange, c, node_, options_.max_message_bytes, runtime::message_tag);
    if (timed_run) fold_seconds_[update_runs_ - 1] = MPI_Wtime() - t0;
    workspace_.local_assigns = false;
    workspace_.exchange.wire = kept;
    if (timed_run && update_runs_ == detail::fold_timing_runs) {
      double slowest[detail::fold_timing_runs] = {};
      runtime::detail::check(MPI_Allreduce(fold_seconds_, slowest, detail::fold_timing_runs, MPI_DOUBLE, MPI_MAX, c),
                             "MPI_Allreduce");
      const double node_median = detail::median_of_alternate(slowest, 0), messages_median = detail::median_of_alternate(slowest, 1);
      update_node_ = node_median <= messages_median;
      decision_.transports = {TransportTiming{Wire::point_to_point, false, node_median, true},
                              TransportTiming{Wire::point_to_point, false, messages_median, false}};
      fold_node_timing_ = false;
    }
    ++update_runs_;
  }
  /// True when a layout holds partial sums its type does not show (AnyDist holding Partial<>, the C
  /// interface's REDIST_PARTIAL_SUM), found when the plan was made: run() folds them as b = a of
  /// Partial<> arrays does.
  bool runtime_sums() const noexcept { return sums_from_ || sums_to_; }
  /// True when a fold of partial values by this plan (run_update) takes the local copy, assigned,
  /// as each destination element's first contribution and writes nothing into the destination
  /// before it (no identity first): one stage, no basic-cycle pass, a local copy that writes every
  /// destination element. What an update in place of partial values needs (in_place_for).
  bool fold_starts_from_local_copy() const noexcept {
    return local_covers_ && plan_.stages.size() == 1 && !plan_.stages[0].cycles;
  }
  /// True until the first run (which agrees on the plan across ranks) has happened.
  bool before_first_run() const noexcept { return !checked_; }
  /// True when the last run copied from node peers' shared memory (run with an array's source).
  bool used_shared_memory() const noexcept { return on_node_; }
  /// True when the plan's messages go as MPI derived datatypes over the arrays (no pack or
  /// unpack): its second run timed both ways (options().tune_reps rounds) and this was faster on
  /// the slowest rank. Plans of direct messages only.
  bool uses_datatypes() const noexcept { return workspace_.typed; }
  /// How the plan's messages are posted (plan.hpp's Wire): point to point until the plan's second
  /// run, then the fastest of the transports it timed (Decision::transports).
  Wire wire() const noexcept { return workspace_.exchange.wire; }
  /// The medians (seconds) of that timing, packed and typed; zeros when nothing was timed (small
  /// messages, tune_reps = 0, fewer than two runs, or a plan that forwards messages).
  std::pair<double, double> transport_medians() const noexcept { return decision_.transport_medians; }
  /// The candidate schedules schedule::automatic timed on the second run of a Cyclic pair's plan,
  /// each with its median time (CyclicChoice::measured), in the order of the model's predictions;
  /// empty when nothing was timed (other layouts or policies, tune_reps = 0, a single candidate,
  /// a plan run once or on one node).
  const std::vector<schedule::CyclicChoice>& timed_candidates() const noexcept { return decision_.timed; }
  /// The decision and its reasons.
  const Decision& decision() const noexcept { return decision_; }

  /// What a run does on this rank (redist::explain): before the first run, the decision as
  /// planned (`node`: the node the run is expected to copy on, or nullptr: the plan's messages
  /// whole, but for those to node peers); after, what the last run did (the messages it posted,
  /// in pieces when the scratch budget cut them, before any split into max_message_bytes). No
  /// communication.
  template <class T>
  Explanation explain(const runtime::Node* node) const {
    Explanation e;
    e.schedule = plan_.schedule_name;
    e.reason = decision_.reason;
    e.timed = decision_.timed;
    e.transports = decision_.transports;
    e.ran = checked_ && (runs_ > 0 || update_runs_ > 0);
    const runtime::Node* on = e.ran ? (on_node_ ? node_ : nullptr) : (plan_.direct() || decider::adaptive ? node : nullptr);
    for (const auto& st : plan_.stages) {
      if (!e.ran)
        for (const Message& m : st.sends)
          if (on == nullptr || !on->holds(m.peer)) {
            ++e.messages;
            e.bytes += static_cast<std::size_t>(m.size) * sizeof(T);
          }
      e.steps += st.schedule.size();
    }
    if (e.ran) {
      e.messages = workspace_.exchange.messages_sent;
      e.bytes = workspace_.exchange.bytes_sent;
    }
    e.stages = plan_.stages.size();
    const std::string wire = wire_name(workspace_.exchange.wire, workspace_.typed, workspace_.exchange.nonblocking);
    if (on != nullptr) e.transport = on->whole() ? "shared_memory" : "shared_memory+" + wire;
    else e.transport = wire;
    if (on != nullptr && on->whole()) e.steps = 0;
    if (on != nullptr) e.node_copy = e.ran && workspace_.staged ? "pack_then_pull" : "pull";
    e.node_copy_seconds = decision_.node_copy_seconds;
    return e;
  }

  bool matches(const From& from, const To& to, const Policy& policy, const options& opts) const {
    return from == from_ && to == to_ && policy == policy_ && opts == options_;
  }
  const options& opts() const noexcept { return options_; }

 private:
  template <class T>
  void run_on(const boost::mpi::communicator& comm, std::span<const T> src, std::span<T> dst,
              const runtime::SharedSegment* source, bool from_array) {
    // Partial sums chosen at run time: folded as Partial<> values are (run_arrays), which needs an
    // element type that sums; into them, the processes that receive nothing get 0 (any type: its
    // value-initialized bytes).
    constexpr bool walkable = requires(const To& t) { t.coords_of(0); t.strides(0); };  // Dist<...>'s, or a section's
    auto start_sums = [&] {
      if constexpr (walkable)
        detail::start_parts(to_, comm.rank(), dst, sums_from_, sums_to_, T{}, T{}, static_cast<const T*>(nullptr));
    };
    if (!walkable && (sums_from_ || sums_to_))
      detail::report_error("redist: partial sums chosen at run time (AnyDist holding Partial<>) require the layout of a "
                           "DistArray (Dist<...>) or of its section, not a bare 1-D mapping");
    if (sums_from_) {
      if constexpr (folds<std::plus<>, T> && runtime::scalable<T>) {
        run_update(comm, src, dst, runtime::fold_op<std::plus<>>{}, start_sums, source, from_array);
        return;
      } else {
        detail::report_error("redist: a source of partial sums (AnyDist holding Partial<>, REDIST_PARTIAL_SUM in C) "
                             "requires an arithmetic or complex element type to add");
      }
    }
    const detail::CallGuard guard(static_cast<MPI_Comm>(comm), "redist::redistribute(src, dst)");
    auto parts = boost::hana::make_tuple(runtime::part(plan_, src, dst, workspace_, runtime::assign_op{}, source, source_ld()));
    const runtime::Node* node = prepare_run(comm, src, dst, parts, from_array);
    const auto c = static_cast<MPI_Comm>(comm);
    runtime::run(parts, workspace_.exchange, c, node, options_.max_message_bytes, runtime::message_tag);
    // Pack, then pull, from the next run: every rank of the node makes its staging part, after this
    // run's closing barrier (so that no rank's copy, which the decision times, shares the machine
    // with the pages' first touch).
    if (make_staging_) runtime::make_staging(parts, *node);
    make_staging_ = false;
    if (sums_to_) start_sums();
  }

  /// Refuses (on every rank alike: the layouts are) partial sums chosen at run time in a call
  /// that does not fold them.
  void refuse_sums(const char* call) const {
    if (sums_from_ || sums_to_)
      detail::report_error(std::string("redist: ") + call +
                           " does not take layouts of partial sums chosen at run time (AnyDist holding Partial<>); "
                           "assign b = a");
  }

  /// The collective work before a run: the first run's agreement, this run's node agreement (when
  /// the source is an array's, which may be in a node window), and the decision. Returns the node
  /// whose peers copy, or nullptr.
  template <class T, class Parts>
  const runtime::Node* prepare_run(const boost::mpi::communicator& comm, std::span<const T> src, std::span<T> dst,
                                   Parts& parts, bool from_array) {
    const bool first = !checked_;
    first_run<T>(comm, src.size(), dst.size(), true);
    RunFacts facts;
    node_ = nullptr;
    on_node_ = false;
    if (options_.shared_memory && comm.size() > 1) {
      // The nodes: node peers copy from shared memory (when the source is an array's, which may be
      // in a node window), and Wire::node_aggregated aggregates by them.
      auto nodes = runtime::node_of(static_cast<MPI_Comm>(comm), options_.node_size);
      if (node_keep_ != nodes) node_keep_ = std::move(nodes);
      if (workspace_.exchange.nodes != node_keep_) workspace_.exchange.nodes = node_keep_;
      const runtime::Node& node = *node_keep_;
      // (not where the decision timed this plan's messages alone faster: Decision::node_copies)
      if (from_array && node.size > 1 && decision_.node_copies) {
        const bool capable = plan_.direct() || (first && decider::adaptive);
        on_node_ = runtime::agree_on_node(parts, node, capable);
        if (on_node_) node_ = &node;
      }
    }
    facts.node_whole = on_node_ && node_->whole();
    facts.node_path = on_node_;
    facts.node_pieces_short = on_node_ && workspace_.node_pieces_short;
    if (on_node_) {
      facts.node_pull_seconds = workspace_.node_pull_seconds;
      facts.node_staged_seconds = workspace_.node_staged_seconds;
      facts.node_staged_tried = workspace_.staged;
    }
    // The node agreement is per node; the decision's use of it (runs 0 and 1 of an adaptive plan)
    // must be the same on every rank: some node copies from shared memory.
    if constexpr (decider::adaptive)
      if (runs_ < 2 && options_.shared_memory && comm.size() > 1 && !facts.node_whole) {
        int mine = on_node_ ? 1 : 0, some = 0;
        runtime::detail::check(MPI_Allreduce(&mine, &some, 1, MPI_INT, MPI_MAX, static_cast<MPI_Comm>(comm)), "MPI_Allreduce");
        facts.node_path = some != 0;
      }
    const bool changed = decide(comm, src, dst, facts, boost::hana::at_c<0>(parts).source);
    // The messages alone kept (timed faster than the node's copies): from this run on, every rank
    // of the node alike (its wire may need that no rank copies: the all-gather).
    if (!decision_.node_copies) {
      on_node_ = false;
      node_ = nullptr;
    }
    // Pack, then pull: every rank of the node makes its staging part after this run (the node's
    // ranks agreed on the facts; a new plan gets its own after its next run).
    make_staging_ = decision_.pack_then_pull && on_node_ && !changed && workspace_.staging_missing;
    workspace_.pack_next = decision_.pack_then_pull;
    const bool both_timed = facts.node_pull_seconds > 0 && facts.node_staged_seconds > 0;
    workspace_.node_timing = on_node_ && !changed && facts.node_pieces_short && options_.tune_reps > 0 && !both_timed;
    // Settled on pulling (both ways timed, or pieces not short): the staging part goes, every rank
    // of the node alike (the facts are the node's); nobody reads one in this run.
    const bool settled_pull = !decision_.pack_then_pull && (!facts.node_pieces_short || both_timed);
    if (settled_pull && workspace_.staging != nullptr && on_node_ && !workspace_.staged) workspace_.staging.reset();
    ++runs_;
    return node_;
  }

  /// The decision of this run (Decider::on_run), with the runtime's timings; a new plan gets its
  /// own piece and workspace agreed (collective, every rank alike).
  template <class T>
  bool decide(const boost::mpi::communicator& comm, std::span<const T> src, std::span<T> dst, RunFacts facts,
              const runtime::SharedSegment* source) {
    facts.run = runs_;
    facts.fits_budget = fits_;
    facts.exchanges = comm.size() > 1 && !facts.node_whole;
    facts.tune_reps = options_.tune_reps;
    facts.aggregate_always = options_.node_aggregation == NodeAggregation::always;
    const bool changed = decider::on_run(
        from_, to_, facts, plan_, decision_,
        [&](std::span<plan_type> plans) {
          return runtime::time_candidates(plans, comm, src, dst, budget_, options_.tune_reps, options_.max_message_bytes);
        },
        [&] {
          // This node still compares its copy's two ways (short pieces: packed on run 1, pulled on
          // run 2, settled on run 3; at most until run 4, should a way never run).
          const bool unsettled = on_node_ && facts.node_pieces_short && options_.tune_reps > 0 && facts.run < 4 &&
                                 !(facts.node_pull_seconds > 0 && facts.node_staged_seconds > 0);
          // The node's runs timed copy as this decision chose (pack, then pull, or pull), as later runs do.
          workspace_.pack_next = decision_.pack_then_pull;
          return runtime::time_transports(plan_, comm, src, dst, workspace_, options_.tune_reps, options_.max_message_bytes,
                                          budget_, on_node_ ? source : nullptr, node_keep_.get(), options_.node_aggregation,
                                          unsettled);
        });
    workspace_.typed = decision_.datatypes;
    workspace_.exchange.wire = decision_.wire;
    workspace_.exchange.nonblocking = decision_.nonblocking;
    // The graph of a neighbourhood collective timed but not chosen is freed (every rank alike:
    // the medians are agreed), as are persistent requests.
    if (decision_.wire != Wire::neighbor) workspace_.exchange.wire_resources.release_graph();
    if (decision_.wire != Wire::persistent) workspace_.exchange.wire_resources.release_requests();
    if (changed) {
      // A new plan: its own piece and workspace, agreed; nothing of the old one's kept.
      const bool timed_typed = workspace_.typed;
      const index_t rounds = workspace_.exchange.collective_rounds;
      workspace_ = runtime::Workspace{};
      workspace_.typed = timed_typed;
      workspace_.exchange.wire = decision_.wire;
      workspace_.exchange.nonblocking = decision_.nonblocking;
      workspace_.exchange.collective_rounds = rounds;
      workspace_.exchange.nodes = node_keep_;
      checked_ = false;
      first_run<T>(comm, src.size(), dst.size(), true);
    }
    return changed;
  }

  /// Collective, once per plan: the scratch budget becomes a piece size that all ranks share
  /// (the smallest of their limits), every rank learns whether every rank's budget holds the
  /// stages that cannot be cut, and with check_consistency all ranks verify that they have the same
  /// layouts, element size, policy and options — in the same all-reduce. The workspace the plan's
  /// runs need on this rank (workspace_need) is allocated before it, so that a rank without the
  /// memory makes every rank throw.
  template <class T>
  void first_run(const boost::mpi::communicator& comm, std::size_t src_elems, std::size_t dst_elems,
                 bool in_place_receives) {
    if (checked_) return;
    const std::size_t budget_bytes = options_.max_scratch_bytes != 0
                                         ? options_.max_scratch_bytes
                                         : std::max(std::max(src_elems, dst_elems) * sizeof(T), default_scratch_floor_bytes);
    budget_ = static_cast<index_t>(budget_bytes / sizeof(T));
    workspace_.staging_budget = budget_bytes;
    std::optional<std::string> failure;
    index_t piece = 0;
    bool fits = true;
    try {
      piece = piece_limit(plan_, budget_);
      fits = fits_budget(plan_, budget_);
      // A plan the decision replaces when it does not fit (decider::adaptive) reserves nothing.
      if (fits || !decider::adaptive)
        failure = reserve_workspace<T>(workspace_need(plan_, budget_, in_place_receives), comm.rank());
    } catch (const error& e) {
      failure = e.what();
    }
    constexpr auto no_limit = static_cast<std::uint64_t>(index_t{-1} >> 1);
    std::uint64_t mins[2] = {piece == 0 ? no_limit : static_cast<std::uint64_t>(piece), fits ? 1u : 0u};
    if (options_.check_consistency) {
      std::uint64_t opts_hash = detail::hash_seed;
      for (std::uint64_t x : {std::uint64_t{options_.max_scratch_bytes}, std::uint64_t{options_.max_message_bytes},
                              static_cast<std::uint64_t>(options_.tune_reps), std::uint64_t{options_.shared_memory},
                              static_cast<std::uint64_t>(options_.node_size),
                              static_cast<std::uint64_t>(options_.node_aggregation)})
        opts_hash = detail::hash_mix(opts_hash, x);
      const detail::Parameter params[] = {
          {"global size", static_cast<std::uint64_t>(from_.size()), true},
          {"element size", sizeof(T), true},
          {"source layout", detail::layout_fingerprint(from_)},
          {"destination layout", detail::layout_fingerprint(to_)},
          {"schedule policy and its parameters", detail::policy_fingerprint(policy_)},
          {"options", opts_hash},
          {"nodes a source in copies is read by (known on some ranks only)", nodes_hash_}};
      detail::agree(comm, "redist::redistribute(src, dst)", params, failure, mins);
    } else {
      detail::agree(comm, "redist::redistribute(src, dst)", {}, failure, mins);
    }
    plan_.piece = mins[0] == no_limit ? 0 : static_cast<index_t>(mins[0]);
    fits_ = mins[1] != 0;
    checked_ = true;
  }

  /// The plan (decider::plan), with the copies of a source held in copies read by node_keep_'s
  /// nodes when it is set.
  plan_type plan_by_nodes(int rank) {
    const std::span<const int> nodes = node_keep_ ? std::span<const int>(node_keep_->node_index) : std::span<const int>{};
    nodes_hash_ = detail::hash_seed;
    for (int k : nodes) nodes_hash_ = detail::hash_mix(nodes_hash_, static_cast<std::uint64_t>(k));
    const detail::replica_nodes_scope scope(nodes);
    return decider::plan(from_, to_, rank, policy_, decision_);
  }

  /// Allocates the workspace `need` (elements of T), or says why this rank cannot.
  template <class T>
  std::optional<std::string> reserve_workspace(const WorkspaceNeed& need, int rank) {
    const index_t elements = need.total();
    const std::string what = std::to_string(elements) + " elements of " + std::to_string(sizeof(T)) +
                             (sizeof(T) == 1 ? " byte" : " bytes");
    if (static_cast<std::uint64_t>(elements) > static_cast<std::uint64_t>(std::numeric_limits<std::ptrdiff_t>::max()) / sizeof(T))
      return "redist::redistribute(src, dst) requires this rank's workspace to fit in memory (" + what + " on rank " +
             std::to_string(rank) + ": the bytes overflow)";
    try {
      workspace_.exchange.buffer.reserve(static_cast<std::size_t>(need.buffer) * sizeof(T));
      workspace_.relay.reserve(static_cast<std::size_t>(need.relay) * sizeof(T));
      workspace_.intermediate.reserve(static_cast<std::size_t>(need.intermediate) * sizeof(T));
    } catch (const std::bad_alloc&) {
      return "redist::redistribute(src, dst) could not allocate this rank's workspace (" + what + ", " +
             std::to_string(static_cast<std::uint64_t>(elements) * sizeof(T)) + " bytes, on rank " + std::to_string(rank) + ")";
    }
    return std::nullopt;
  }

  From from_;
  To to_;
  Policy policy_;
  options options_;
  Decision decision_;
  bool checked_ = false;
  bool fits_ = true;
  bool on_node_ = false;
  bool make_staging_ = false;
  int runs_ = 0;
  int update_runs_ = 0;  ///< runs by run_update (scaled updates, partial values)
  bool sums_from_ = false, sums_to_ = false;  ///< runtime_sums(): of the source, of the destination
  bool update_node_ = true;  ///< run_update copies from node peers' shared memory (unless its timing chose otherwise)
  bool fold_node_timing_ = false;  ///< run_update's runs 1 to fold_timing_runs time the node's copies against the messages
  double fold_seconds_[detail::fold_timing_runs] = {};  ///< their times on this rank (odd runs by the node's copies, even by messages)
  bool local_covers_ = false;  ///< this rank's local copy writes every element of its destination (constructor)
  index_t budget_ = 0;
  const runtime::Node* node_ = nullptr;
  std::shared_ptr<const runtime::Node> node_keep_;
  std::uint64_t nodes_hash_ = 0;  ///< of the nodes the plan read copies by (plan_by_nodes), agreed on the first run
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
  /// Whether e is the most recently used entry (the one found or made last).
  bool most_recent(const entry_base* e) const noexcept { return !entries_.empty() && entries_.front().get() == e; }
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
  /// Whether a new entry would evict none.
  bool has_room() const noexcept { return entries_.size() < capacity_; }

  /// The cached Redistribution of (from, to, policy, opts) on comm, or nullptr. Does not reorder.
  template <class From, class To, class Policy>
  Redistribution<From, To, Policy>* cached(const From& from, const To& to, const Policy& policy, const options& opts,
                                           const boost::mpi::communicator& comm) const {
    using E = layouts_entry<From, To, Policy>;
    const MPI_Comm c = static_cast<MPI_Comm>(comm);
    E* e = find<E>([&](const E& x) { return x.comm == c && x.r.matches(from, to, policy, opts); });
    return e == nullptr ? nullptr : &e->r;
  }

  /// The cached Redistribution of (from, to, policy, opts) on comm, or a new one in its place (for a
  /// pair with an Indirect layout, made of the moves its directory gives: collective).
  template <class From, class To, class Policy>
  Redistribution<From, To, Policy>& get(const From& from, const To& to, const Policy& policy, const options& opts,
                                        const boost::mpi::communicator& comm) {
    using E = layouts_entry<From, To, Policy>;
    const MPI_Comm c = static_cast<MPI_Comm>(comm);
    E* e = find<E>([&](const E& x) { return x.comm == c && x.r.matches(from, to, policy, opts); });
    if (e == nullptr) {
      // A source in copies is read by the communicator's nodes, known since the array was made
      // (DistArrayBase learns them; no communication here: explain() builds plans too).
      std::shared_ptr<const runtime::Node> nodes;
      if (comm.size() > 1 && reads_copies(from)) nodes = runtime::known_node(c, opts.node_size);
      // A pair with an Indirect layout asks its directory for this rank's moves first (collective).
      return with_directory_moves(from, to, comm, [&]() -> Redistribution<From, To, Policy>& {
        return emplace<E>(c, from, to, comm.rank(), policy, opts, std::move(nodes)).r;
      });
    }
    touch(e);
    return e->r;
  }

 private:
  template <class From, class To, class Policy>
  struct layouts_entry : entry_base {
    layouts_entry(MPI_Comm c, const From& from, const To& to, int rank, const Policy& policy, const options& opts,
                  std::shared_ptr<const runtime::Node> nodes)
        : comm{c}, r{from, to, rank, policy, opts, std::move(nodes)} {}
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
