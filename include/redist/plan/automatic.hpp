/// @file Defines the one decision of a redistribution: schedule::automatic as an ordered compile-time list of rules, schedule::modeled, and Decider, which settles on a pair's plan from the types (compile time), the cost models (plan time) and, on the runs, the path and the timings the runtime reports.
#pragma once

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/hana/bool.hpp>
#include <boost/hana/find_if.hpp>
#include <boost/hana/optional.hpp>
#include <boost/hana/tuple.hpp>
#include <boost/hana/type.hpp>

#include <redist/plan/basic_cycle.hpp>
#include <redist/plan/circulant.hpp>
#include <redist/plan/gen_block.hpp>
#include <redist/plan/plan.hpp>
#include <redist/plan/planner.hpp>
#include <redist/plan/stepwise.hpp>
#include <redist/schedule/cost.hpp>
#include <redist/schedule/schedule.hpp>

namespace redist {

/// Largest P · BC (basic-cycle meta-elements of every rank's template) for which a Cyclic pair is
/// planned by the basic-cycle calculation whatever its size; above it, only when that is at most
/// the rank's share of the array n / P. Building the templates is O(P · BC): for
/// Cyclic<>{n/P} -> Cyclic<>{1} (BC = n/P) it took 10-14 s at n = 2^24, where the general plan
/// (LDD intersection, O(P · period)) takes microseconds.
inline constexpr index_t max_cycle_work = index_t{1} << 20;

namespace detail {
/// True when the basic-cycle plan of the Cyclic pair costs less to build than the data it moves
/// (see max_cycle_work).
template <class From, class To>
bool cycle_plan_affordable(const From& from, const To& to) noexcept {
  const index_t s = from.block_size(), t = to.block_size(), p = from.nprocs();
  const index_t g = std::gcd(s, t);
  const index_t bc = s / g * (t / g);  // lcm(s, t) / gcd(s, t), without the overflow of lcm
  const index_t meta = from.size() / g + 1;
  const index_t procs = std::max<index_t>(p, 1);
  // P · min(BC, meta) <= max(max_cycle_work, n / P), without the overflow of the product.
  return std::min(bc, meta) <= std::max(max_cycle_work, from.size() / procs) / procs;
}

/// The model's plan of a Cyclic pair under machine m: its first candidate (BCC or a circulant
/// hybrid(d)), or the general plan when the basic cycle costs more to build than it saves.
template <class From, class To>
Plan plan_cyclic(const From& from, const To& to, int rank, const schedule::modeled_t& m) {
  check_cyclic_pair(from.size(), to.size(), from.nprocs(), to.nprocs(), rank, "automatic");
  if (!cycle_plan_affordable(from, to)) return build_plan(from, to, rank);
  return plan_for_choice(from, to, rank, automatic_candidates(from, to, m).front());
}
}  // namespace detail

namespace schedule::detail {
/// automatic's candidate for Cyclic pairs (see planner below).
struct cyclic_rule_t {};
}  // namespace schedule::detail

namespace detail {
/// The plan of a pair that may be CYCLIC: the model's (machine m) when both are at plan time
/// (as_cyclic), else what the next rule of automatic gives it (GEN_BLOCK's, or the general rule).
template <class From, class To>
Plan plan_cyclic_layouts(const From& from, const To& to, int rank, const schedule::modeled_t& m) {
  const auto f = as_cyclic(from);
  const auto t = as_cyclic(to);
  if (f && t) return plan_cyclic(*f, *t, rank, m);
  if constexpr (Serves<schedule::detail::gen_block_rule_t, From, To>)
    return planner<schedule::detail::gen_block_rule_t>::plan(from, to, rank, schedule::detail::gen_block_rule_t{});
  else
    return general_rule(from, to, rank);
}
}  // namespace detail

/// automatic on Cyclic<s> -> Cyclic<t>: the basic-cycle calculation or a circulant hybrid(d), as
/// the GDM model with schedule::default_machine predicts (Decider then times the model's other
/// candidates when the plan runs again); the general plan when the basic cycle is too long to
/// tabulate cheaply (detail::cycle_plan_affordable), and for a pair that is not CYCLIC at plan
/// time (an AnyDist pair of other kinds, a 1-D array on a subset of the communicator).
template <>
struct planner<schedule::detail::cyclic_rule_t> {
  template <class From, class To>
  static constexpr bool supports = CyclicLayout<From> && CyclicLayout<To>;
  template <class From, class To>
  static constexpr void require() {
    static_assert(supports<From, To>, "redist::schedule::automatic's Cyclic rule requires Cyclic<s> -> Cyclic<t>");
  }
  template <class From, class To>
  static Plan plan(const From& from, const To& to, int rank, schedule::detail::cyclic_rule_t) {
    return detail::plan_cyclic_layouts(from, to, rank, schedule::modeled_t{});
  }
};

/// schedule::automatic: the first of `candidates` that serves the layout pair, decided from the
/// types at compile time; each candidate then decides what depends on n, P and the messages at
/// plan time (the GDM model for Cyclic pairs; the GEN_BLOCK cost model; the message-size rule of
/// N-D layouts). Adding a schedule to automatic is adding its policy here.
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
/// predicts fastest (schedule::choose_cyclic), never timed; a pure function of the layouts and the
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
    if constexpr (CyclicLayout<From> && CyclicLayout<To>) return detail::plan_cyclic_layouts(from, to, rank, m);
    else return planner<schedule::automatic_t>::plan(from, to, rank, schedule::automatic);
  }
};

/// What the decision settled on, and why: explain() reports it.
struct Decision {
  /// The plan's messages go as MPI derived datatypes (timed faster on its second run).
  bool datatypes = false;
  /// How they are posted (timed on the plan's second run; point to point until then).
  Wire wire = Wire::point_to_point;
  /// A collective wire posted nonblocking and waited for at once (timed faster than the blocking one).
  bool nonblocking = false;
  /// The transports timed on the plan's second run, with their medians; empty when none was.
  std::vector<TransportTiming> transports;
  /// The candidate schedules timed when the plan ran again (each with its model prediction and
  /// measured median), in the model's order; empty when nothing was timed.
  std::vector<schedule::CyclicChoice> timed;
  /// The medians (seconds) of packed and derived-datatype messages point to point when they were
  /// timed (each 0 when it was not).
  std::pair<double, double> transport_medians{};
  /// A sentence on why: "the GDM model", "timed on the second run", "one node: copies, no schedule", ...
  std::string reason;
  /// On the node path: node peers' messages are packed by their senders into a node window in one
  /// pass, then pulled as runs (their pieces are shorter than a cache line), instead of pulled
  /// piece by piece from the senders' sources. The same on every rank of a node.
  bool pack_then_pull = false;
  /// The node's copy timed each way (seconds, the slowest rank's: pulling, packing then pulling);
  /// 0 for a way not run.
  std::pair<double, double> node_copy_seconds{};
  /// Node peers copy from shared memory where they can (false: the plan's messages alone were
  /// timed faster than with the node's copies, a small array's: every piece is a message).
  bool node_copies = true;
  /// The transports' timing waits for the node's copy to settle (the runtime found some node still
  /// comparing its two ways on the plan's second run): asked again on each run until it is.
  bool transports_pending = false;
};

/// What the runtime tells the decision about one run of a plan, before it runs (every rank alike:
/// the values are agreed).
struct RunFacts {
  int run = 0;                 ///< runs of this plan before this one (0: its first run)
  /// Node peers will copy from shared memory (when the plan is direct) on some node of the
  /// communicator (agreed on every rank: with emulated or real nodes of several ranks, a node of
  /// one rank sends messages while the others copy, and the plan must be the same everywhere).
  bool node_path = false;
  bool node_whole = false;     ///< ... and the node holds every rank: no messages at all
  bool fits_budget = true;     ///< every rank's budget holds the plan's stages that cannot be cut
  bool exchanges = false;      ///< some rank sends a message on this path
  /// On the node path, the pieces node peers send this rank's node are shorter than a cache line
  /// on average, on every rank of the node (the same on every rank of this rank's node, not of the
  /// communicator: the node's copies are the node's own).
  bool node_pieces_short = false;
  /// The node's last copy pulling, and packing then pulling: the slowest rank's seconds (0: not run
  /// yet with this plan; the same on every rank of the node).
  double node_pull_seconds = 0, node_staged_seconds = 0;
  /// This run's node copy packs, then pulls (its time reaches the decision on the next run).
  bool node_staged_tried = false;
  int tune_reps = 0;           ///< options().tune_reps
  /// options().node_aggregation is always: the transports are settled on the second run even
  /// without tune_reps (Wire::node_aggregated where the plan can, untimed choice).
  bool aggregate_always = false;
};

/// The one decision of a layout pair under a policy: the plan (from the types at compile time and
/// the cost model at plan time), then, on the plan's runs, the path and what to time. It decides
/// and reports; planning is its own (no communication), timing is the runtime's (Measure).
///  - the plan: planner<Policy>'s. For schedule::automatic and modeled on a Cyclic pair, the
///    model's candidate; they may change it on a run (`adaptive`); other policies never do;
///  - on a node (facts.node_path) a plan that forwards or goes through an intermediate array cannot
///    copy from its peers: an adaptive plan becomes the pair's plan of direct messages (BCC), and
///    nothing is timed — the copies have no schedule; node peers' pieces shorter than a cache line
///    are packed by their senders, then pulled (pack_then_pull), on one run, then pulled on one,
///    and the faster kept (the slowest rank's times); others are pulled piece by piece;
///  - when some rank's budget cannot hold the chosen circulant schedule, an adaptive plan becomes
///    BCC, which runs within any budget in rounds;
///  - when the plan runs the second time by messages (it is being reused: a plan made per call is
///    never timed), schedule::automatic on a Cyclic pair times the model's candidates within its
///    window (BCC and the hybrid(d)), options().tune_reps rounds each, and keeps the fastest; then
///    a direct plan times its transports (runtime::time_transports: the wires point to point,
///    persistent, one MPI_Alltoallv, one neighbourhood collective and, between nodes of several
///    ranks, node aggregation for small messages; point to point and the all-to-all, packed and as
///    MPI derived datatypes, from 64 KiB on and not for element lists) and keeps the fastest;
///    when the fastest candidate schedule is not direct (it forwards), the fastest direct one's
///    transports are timed, and it runs instead on its fastest wire where that beats the fastest;
///    with options().node_aggregation always, a plan that can aggregate does, untimed;
///  - on the node path, when every rank's messages are under 64 KiB, a direct plan's second run
///    also times its messages alone (no node copies, no node agreement) against the node's copies
///    (runtime::time_transports offers them), and where they win, node peers exchange messages
///    from that run on (node_copies): the copies' two synchronisations a call (a task switch each
///    where ranks outnumber processors) can cost more than a small array's messages. Where some
///    node is still trying its copy both ways (short pieces: pack then pull on run 1, pull on run 2,
///    settled on run 3), the transports are timed on the first run with every node settled
///    (transports_pending), so that the copies are timed as the later runs make them.
template <class From, class To, class Policy>
class Decider {
 public:
  static constexpr bool cyclic_pair = CyclicLayout<From> && CyclicLayout<To>;
  /// The plan may change on a run: automatic or modeled on a Cyclic pair.
  static constexpr bool adaptive =
      cyclic_pair && (std::is_same_v<Policy, schedule::automatic_t> || std::is_same_v<Policy, schedule::modeled_t>);
  /// The candidates are timed: automatic on a Cyclic pair.
  static constexpr bool timed = cyclic_pair && std::is_same_v<Policy, schedule::automatic_t>;

  using plan_type = decltype(planner<Policy>::plan(std::declval<const From&>(), std::declval<const To&>(), 0,
                                                   std::declval<const Policy&>()));
  static_assert(StagedPlan<plan_type>,
                "redist::planner<Policy>::plan(from, to, rank, policy) must return a redist::BasicPlan (stages of messages)");

  /// The plan-time decision (no communication).
  static plan_type plan(const From& from, const To& to, int rank, const Policy& policy, Decision& d) {
    plan_type p = planner<Policy>::plan(from, to, rank, policy);
    if constexpr (detail::indirect_layout<From> || detail::indirect_layout<To>)
      d.reason = "an Indirect layout: the moves of its lists (by formula or from its directory), posted at once";
    else if constexpr (adaptive) d.reason = "the GDM model's prediction";
    else if constexpr (std::is_same_v<Policy, schedule::automatic_t>) d.reason = "chosen by the layouts' types and the cost model";
    else d.reason = "the schedule asked for";
    return p;
  }

  /// True when, on a node, the decision can give the pair a plan of direct messages.
  static bool can_go_direct(const plan_type& p) noexcept { return p.direct() || adaptive; }

  /// The decision on one run, before it runs: may replace `plan` (every rank alike, from agreed
  /// facts; returns true then) and fills `d`. measure(plans) times candidate plans on this path
  /// (it may set their pieces) and returns their medians, 0 for one it did not time (collective;
  /// called on every rank alike); measure_transport() times the plan's two transports and returns
  /// the candidates with their medians (runtime::time_transports), or none when it did not time them.
  template <class Measure, class MeasureTransport>
  static bool on_run(const From& from, const To& to, const RunFacts& facts, plan_type& plan, Decision& d,
                     Measure&& measure, MeasureTransport&& measure_transport) {
    bool changed = false;
    // The fastest direct candidate when the fastest timed is not direct: its messages may go
    // faster on another wire (one collective) than point to point, where they were timed.
    std::optional<Rival> rival;
    if constexpr (adaptive) {
      const auto cf = as_cyclic(from);
      const auto ct = as_cyclic(to);
      if (cf && ct) changed = on_cyclic_run(*cf, *ct, facts, plan, d, measure, rival);
    }
    // The node's copies: pack, then pull, where node peers' pieces are short (a receiver pulling
    // them piece by piece loads nearly every line of the peer's source to take a part of it).
    // With tune_reps > 0 it is tried on one run, then a warm pull is timed, then the faster is
    // kept; with 0, the model's choice alone. Which wins depends on the machine: the pull's extra
    // lines cost where many cores share the memory bandwidth, the pack's extra pass where they
    // do not.
    d.node_copy_seconds = {facts.node_pull_seconds, facts.node_staged_seconds};
    if (!facts.node_path || !facts.node_pieces_short) d.pack_then_pull = false;
    else if (facts.tune_reps == 0 || (facts.node_staged_seconds <= 0 && !facts.node_staged_tried)) d.pack_then_pull = true;
    else if (facts.node_pull_seconds <= 0) d.pack_then_pull = false;
    else d.pack_then_pull = facts.node_staged_seconds < facts.node_pull_seconds;
    if ((facts.run == 1 || (facts.run > 1 && d.transports_pending)) && (plan.direct() || rival) &&
        (facts.exchanges || facts.node_path) && (facts.tune_reps > 0 || facts.aggregate_always)) {
      // The rival's wires are timed as the plan's (measure_transport times `plan`); the stepwise
      // winner stays unless one of them is faster than its median.
      if (rival) std::swap(plan, rival->plan);
      std::optional<std::vector<TransportTiming>> measured = measure_transport();
      d.transports_pending = !measured.has_value();  // (alike on every rank: the runtime's all-reduce)
      if (!measured) {
        // Not yet: the node's copy is still being settled (a rival needs none: no node copies).
        if (rival) std::swap(plan, rival->plan);
        return changed;
      }
      std::vector<TransportTiming> timed = std::move(*measured);
      const TransportTiming* best = nullptr;
      for (const TransportTiming& t : timed)
        if (t.median > 0 && (best == nullptr || t.median < best->median)) best = &t;
      if (rival) {
        if (best != nullptr && best->median < rival->winner_median) {
          d.timed[rival->timed_index].measured = best->median;  // the candidate on its fastest wire
          d.reason = "the fastest of the model's candidates, timed on the plan's second run (a direct one on each wire)";
        } else {
          std::swap(plan, rival->plan);  // the stepwise winner stays, on its steps
          best = nullptr;
          timed.clear();
        }
      }
      d.transports = std::move(timed);
      d.transport_medians = {};
      for (const TransportTiming& t : d.transports)
        if (t.wire == Wire::point_to_point) (t.datatypes ? d.transport_medians.second : d.transport_medians.first) = t.median;
      if (best != nullptr) {
        d.datatypes = best->datatypes;
        d.wire = best->wire;
        d.nonblocking = best->nonblocking;
        // Timed with the node's copies and without: the messages alone won.
        const bool copies_timed = std::any_of(d.transports.begin(), d.transports.end(), [](const TransportTiming& t) { return t.node; });
        if (copies_timed && !best->node) {
          d.node_copies = false;
          d.reason += "; node peers by messages: timed faster than the node's copies " +
                      (facts.run == 1 ? std::string("on the plan's second run")
                                      : "once they were settled, on the plan's run " + std::to_string(facts.run + 1));
        }
      }
    }
    return changed;
  }

  /// At most this many candidates are timed (the model's best first).
  static constexpr std::size_t most_timed = 32;

 private:
  /// The fastest direct candidate timed, when the fastest is not direct: its plan, its place in
  /// Decision::timed and the fastest's median.
  struct Rival {
    plan_type plan;
    std::size_t timed_index = 0;
    double winner_median = 0;
  };

  /// The adaptive part of on_run, on the pair's 1-D CYCLIC mappings.
  template <class F, class T, class Measure>
  static bool on_cyclic_run(const F& from, const T& to, const RunFacts& facts, plan_type& plan, Decision& d,
                            Measure&& measure, std::optional<Rival>& rival) {
    bool changed = false;
    {
      const bool to_direct = (facts.node_path && !plan.direct()) || !facts.fits_budget;
      if (facts.run == 0 && to_direct) {
        plan = plan_for_choice(from, to, plan.rank, schedule::CyclicChoice{});  // BCC's messages
        changed = true;
        d.reason = facts.node_path ? "on one node: copies from shared memory, no schedule (the pair's direct messages)"
                                   : "the circulant schedule's workspace exceeds a rank's scratch budget";
      }
      if constexpr (timed) {
        if (facts.run == 1 && !facts.node_path && facts.exchanges && facts.tune_reps > 0 &&
            detail::cycle_plan_affordable(from, to)) {
          std::vector<schedule::CyclicChoice> cands = automatic_candidates(from, to);
          if (cands.size() > most_timed) {
            // BCC, which runs within any budget, stays among those timed.
            const auto bcc = std::find_if(cands.begin(), cands.end(), [](const schedule::CyclicChoice& c) {
              return c.kind == schedule::CyclicChoice::method::basic_cycles;
            });
            if (bcc >= cands.begin() + static_cast<std::ptrdiff_t>(most_timed))
              std::rotate(cands.begin() + static_cast<std::ptrdiff_t>(most_timed) - 1, bcc, bcc + 1);
            cands.resize(most_timed);
          }
          if (cands.size() >= 2) {
            std::vector<plan_type> plans;
            for (const schedule::CyclicChoice& c : cands) plans.push_back(plan_for_choice(from, to, plan.rank, c));
            const std::vector<double> medians = measure(std::span<plan_type>(plans));
            std::size_t best = 0;
            for (std::size_t i = 0; i < cands.size(); ++i) {
              cands[i].measured = medians[i];
              if (medians[i] > 0 && (medians[best] <= 0 || medians[i] < medians[best])) best = i;
            }
            if (medians[best] > 0) {
              std::size_t fastest_direct = cands.size(), kept = 0;
              for (std::size_t i = 0; i < cands.size(); ++i)
                if (medians[i] > 0 && plans[i].direct() &&
                    (fastest_direct == cands.size() || medians[i] < medians[fastest_direct]))
                  fastest_direct = i;
              if (!plans[best].direct() && fastest_direct < cands.size()) {
                // Its place among the candidates kept below (those timed).
                for (std::size_t i = 0; i < fastest_direct; ++i) kept += medians[i] > 0 ? 1 : 0;
                rival = Rival{std::move(plans[fastest_direct]), kept, medians[best]};
              }
              plan = std::move(plans[best]);
              changed = true;
              std::erase_if(cands, [](const schedule::CyclicChoice& c) { return c.measured <= 0; });  // did not fit
              d.timed = std::move(cands);
              d.reason = "the fastest of the model's candidates, timed on the plan's second run";
            }
          }
        }
      }
    }
    return changed;
  }
};

}  // namespace redist
