/// @file Defines the planners of Cyclic<s> -> Cyclic<t> under the basic-cycle calculation (seed 000): one stage with its templates (Stage::cycles), and BasicCyclePlan<S, T, P> with its compile-time tables.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <concepts>
#include <optional>
#include <cstddef>
#include <numeric>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <redist/detail/math.hpp>
#include <redist/dist/any.hpp>
#include <redist/dist/cyclic.hpp>
#include <redist/dist/static_nprocs.hpp>
#include <redist/index/basic_cycle.hpp>
#include <redist/index/run.hpp>
#include <redist/plan/layout.hpp>
#include <redist/plan/plan.hpp>
#include <redist/plan/planner.hpp>
#include <redist/schedule/basic_cycle.hpp>
#include <redist/schedule/schedule.hpp>

namespace redist {

/// The mapping of a CYCLIC distribution: Cyclic<X>::mapping, X static or dynamic, or a mapping
/// derived from it that adds static facts (StaticNprocs<Cyclic<X>::mapping, P>).
template <class M>
concept CyclicMapping = requires { typename M::distribution_type; } &&
                        detail::is_cyclic_distribution<typename M::distribution_type> &&
                        std::derived_from<M, typename M::distribution_type::mapping>;

/// A layout that is, or may be at run time, a 1-D CYCLIC(k) layout on every process of the
/// communicator from rank 0: a CyclicMapping, or a rank-1 grid layout (a 1-D array's) of Cyclic<X>
/// or of AnyDist (which as_cyclic tells at run time).
template <class M>
concept CyclicLayout = CyclicMapping<M> || detail::is_cyclic_distribution<detail::rank_one_distribution_t<M>> ||
                       std::same_as<detail::rank_one_distribution_t<M>, AnyDist>;

/// The 1-D CYCLIC mapping a layout is, or nothing: m itself for a CyclicMapping; for a rank-1 grid
/// layout on every process from rank 0, without offset or leading dimension (is_linear), its 1-D
/// mapping — with the process count in its type (StaticNprocs) when the grid's extent is static,
/// so that the basic-cycle templates come from static tables; for AnyDist, its Cyclic<> when it
/// holds one. A rank-1 layout on a subset, with an offset or a rank map, is none: its pairs take
/// the general plan.
template <CyclicLayout M>
auto as_cyclic(const M& m) {
  if constexpr (CyclicMapping<M>) {
    return std::optional<M>(m);
  } else {
    using D = detail::rank_one_distribution_t<M>;
    if constexpr (std::same_as<D, AnyDist>) {
      using L = Cyclic<dynamic>::mapping;
      const L* c = m.is_linear() ? m.linear().template get_if<L>() : nullptr;
      return c != nullptr ? std::optional<L>(*c) : std::optional<L>();
    } else {
      using L1 = typename D::mapping;
      constexpr std::size_t P = M::grid_type::static_extent(0);
      using L = std::conditional_t<P == dynamic, L1, StaticNprocs<L1, P>>;
      return m.is_linear() ? std::optional<L>(L(m.linear())) : std::optional<L>();
    }
  }
}

namespace detail {
/// The 1-D CYCLIC mappings of a pair, or report_error naming the policy: the policies that need
/// them (bcc, circulant, multiphase) on a pair that is not.
template <class From, class To>
auto cyclic_pair(const From& from, const To& to, const char* policy) {
  auto f = as_cyclic(from);
  auto t = as_cyclic(to);
  if (!f || !t)
    report_error(std::string("redist::schedule::") + policy +
                 " requires CYCLIC(k) layouts of every process of the communicator from rank 0 (1-D arrays of "
                 "Cyclic<k>, or AnyDist holding one); use schedule::automatic or all_at_once for this pair");
  return std::pair{*f, *t};
}
}  // namespace detail

/// True when schedule::automatic chooses among the Cyclic schedules for From -> To (the
/// basic-cycle calculation and seed 001's circulant schedules, by the GDM model and, when the plan
/// runs again, timing, plan/automatic.hpp): decided from the types (both may be CYCLIC) at compile
/// time, and for AnyDist and non-linear grids at plan time (as_cyclic).
template <class From, class To>
inline constexpr bool bcc_selected = CyclicLayout<From> && CyclicLayout<To>;

namespace detail {

enum class bcc_order { appearance, contention_free };

template <class Policy>
constexpr bcc_order bcc_order_of() {
  if constexpr (std::is_same_v<Policy, schedule::bcc_contention_free_t>) return bcc_order::contention_free;
  else return bcc_order::appearance;
}

/// The plan of Cyclic<s> -> Cyclic<t> built by the basic-cycle calculation (seed 000): one stage
/// whose messages are given two ways,
///  - as runs: each template section is one Run of stride lcm(s, t) (the local size of a basic
///    cycle) repeated for every full basic cycle, plus clipped runs for the ragged last one, which
///    runtime::execute packs message by message (in pieces under a tight budget, or on a node);
///  - as the templates' sections (Stage::cycles), which it packs in one pass over the local array,
///    basic cycle by basic cycle (the paper's order, which differs from the run order).
/// Built from the sections of its templates (own_send, own_recv: computed, or taken from static
/// tables) and every rank's destinations in order of appearance (dests_of(q)), for the schedule.
/// Sections a short array lacks are clipped here, so both sources give the same plan.
/// Cost: O(sections of this rank + P · min(P, sections)): independent of n.
template <class Sections, class DestsOf>
Plan build_cycle_plan(const index::BasicCycle& c, index_t n, int rank, bcc_order order, const Sections& own_send,
                      const Sections& own_recv, DestsOf&& dests_of) {
  ++plans_built_counter();
  const int m = c.nprocs;
  const auto um = static_cast<std::size_t>(m);
  const index_t g = c.g, cyc = c.cycle(), period = c.period();
  const index_t full = n / period;

  Plan plan;
  plan.rank = rank;
  plan.nprocs = m;
  plan.schedule_name = order == bcc_order::appearance ? "bcc" : "bcc_contention_free";
  Stage<Run>& general = plan.stages.emplace_back();
  Cycles& cycles = general.cycles;
  cycles.cycle = cyc;
  cycles.full_cycles = full;
  cycles.slots = full + (n % period != 0 ? 1 : 0);
  // Any rank sends any other at most one cycle's elements per cycle: cycle + 1 is a quantum that
  // every rank knows without looking at the others (see piece_limit).
  cycles.quantum = cyc + 1;

  const std::vector<index::Section> mine_send = index::clip_sections(c, n, own_send);
  const std::vector<index::Section> mine_recv = index::clip_sections(c, n, own_recv);

  // Runs: per peer, every section as one run of stride lcm(s, t) over the full cycles, then the
  // clipped pieces of the ragged period (index::section_runs).
  std::vector<std::vector<Run>> to(um), from(um);
  std::vector<index_t> pc_to(um, 0), pc_from(um, 0);
  index::section_runs(c, n, mine_send, index::side::sender, to, &pc_to);
  index::section_runs(c, n, mine_recv, index::side::receiver, from, &pc_from);

  auto message = [&](int peer, const std::vector<Run>& runs) {
    Message msg;
    msg.peer = peer;
    msg.first = general.runs.size();
    msg.nruns = runs.size();
    for (const Run& r : runs) msg.size += r.size();
    general.runs.insert(general.runs.end(), runs.begin(), runs.end());
    return msg;
  };
  general.local = message(rank, to[static_cast<std::size_t>(rank)]);
  std::vector<int> send_slot(um, -1), recv_slot(um, -1);
  for (int d = 1; d < m; ++d) {
    const int q = (rank + d) % m;
    if (to[static_cast<std::size_t>(q)].empty()) continue;
    Message s = message(q, to[static_cast<std::size_t>(q)]);
    send_slot[static_cast<std::size_t>(q)] = static_cast<int>(general.sends.size());
    general.sends.push_back(s);
    cycles.send_per_cycle.push_back(pc_to[static_cast<std::size_t>(q)]);
  }
  for (int d = 1; d < m; ++d) {
    const int q = (rank - d + m) % m;
    if (from[static_cast<std::size_t>(q)].empty()) continue;
    Message r = message(q, from[static_cast<std::size_t>(q)]);
    recv_slot[static_cast<std::size_t>(q)] = static_cast<int>(general.recvs.size());
    general.recvs.push_back(r);
    cycles.recv_per_cycle.push_back(pc_from[static_cast<std::size_t>(q)]);
  }

  // The templates as sections bound to the messages, in elements.
  for (const index::Section& s : mine_send)
    cycles.send_pattern.push_back(CycleSection{s.offset * g, s.len * g, s.peer_offset * g,
                                             s.peer == rank ? local_section : send_slot[static_cast<std::size_t>(s.peer)]});
  for (const index::Section& s : mine_recv)
    cycles.recv_pattern.push_back(CycleSection{s.offset * g, s.len * g, s.peer_offset * g,
                                             s.peer == rank ? local_section : recv_slot[static_cast<std::size_t>(s.peer)]});

  // Every rank's destinations in order of appearance.
  std::vector<std::vector<int>> dests(um);
  for (int q = 0; q < m; ++q) dests[static_cast<std::size_t>(q)] = dests_of(q);

  const schedule::SendTable table =
      order == bcc_order::appearance ? schedule::appearance_order(dests) : schedule::contention_free_order(dests);
  std::size_t nsends = 0, nrecvs = 0;
  auto require = [](bool ok) {
    if (!ok) report_error("redist::plan_with(Cyclic, Cyclic, bcc): internal error, the schedule and the plan disagree");
  };
  for (std::size_t k = 0; k < table.size(); ++k) {
    schedule::Step step;
    const auto& row = table.send_to[k];
    const int dst = row[static_cast<std::size_t>(rank)];
    if (dst >= 0 && dst != rank) {
      require(send_slot[static_cast<std::size_t>(dst)] >= 0);
      step.sends.push_back(static_cast<std::size_t>(send_slot[static_cast<std::size_t>(dst)]));
      ++nsends;
    }
    for (int q = 0; q < m; ++q)
      if (q != rank && row[static_cast<std::size_t>(q)] == rank) {
        require(recv_slot[static_cast<std::size_t>(q)] >= 0);
        step.recvs.push_back(static_cast<std::size_t>(recv_slot[static_cast<std::size_t>(q)]));
        ++nrecvs;
      }
    general.schedule.steps.push_back(std::move(step));
  }
  require(nsends == general.sends.size() && nrecvs == general.recvs.size());
  return plan;
}

template <class From, class To>
index::BasicCycle basic_cycle_of(const From& from, const To& to, int rank) {
  REDIST_EXPECTS(from.size() == to.size(),
                 "redist::plan_with(from, to, rank, bcc) requires from and to to have the same global size");
  REDIST_EXPECTS(from.nprocs() == to.nprocs(),
                 "redist::plan_with(from, to, rank, bcc) requires from and to to have the same process count");
  REDIST_EXPECTS(rank >= 0 && rank < from.nprocs(), "redist::plan_with(from, to, rank, bcc) requires rank to be in [0, P)");
  return index::BasicCycle(from.block_size(), to.block_size(), from.nprocs());
}

/// Every rank's destinations in order of appearance, computed now.
inline auto destinations_now(const index::BasicCycle& c, index_t limit) {
  return [&c, limit](int q) {
    std::vector<int> d;
    index::send_destinations(c, q, [&](int p) { d.push_back(p); }, limit);
    return d;
  };
}

/// The plan with the templates computed now (at plan time), for static and dynamic block sizes alike.
inline Plan plan_basic_cycle(const index::BasicCycle& c, index_t n, int rank, bcc_order order) {
  ++tables_built_counter();
  const index_t limit = index::meta_size(c, n);
  std::vector<index::Section> send, recv;
  index::send_sections(c, rank, [&](const index::Section& s) { send.push_back(s); }, limit);
  index::receive_sections(c, rank, [&](const index::Section& s) { recv.push_back(s); }, limit);
  return build_cycle_plan(c, n, rank, order, send, recv, destinations_now(c, limit));
}

}  // namespace detail

/// BLOCK-CYCLIC(S) -> BLOCK-CYCLIC(T) with static S and T, and optionally a static process
/// count P. BC, the case and δ are constants. With P static and BC · P <= max_static_table
/// (`tabulated`), the send and receive templates of every rank are static constexpr
/// std::arrays (send_templates, receive_templates) and plan() builds its plan from them;
/// otherwise plan() builds the same plan from templates computed at plan time.
template <std::size_t S, std::size_t T, std::size_t P = dynamic>
struct BasicCyclePlan : detail::basic_cycle_tables<S, T, P> {
  static_assert(S != dynamic && T != dynamic,
                "redist::BasicCyclePlan<S, T, P> requires static block sizes S and T; for Cyclic<dynamic> use plan_with");
  static_assert(S != 0 && T != 0, "redist::BasicCyclePlan<S, T, P> requires S and T to be > 0");
  static_assert(P != 0, "redist::BasicCyclePlan<S, T, P> requires P to be > 0 (or dynamic)");

  static constexpr index_t s = static_cast<index_t>(S);
  static constexpr index_t t = static_cast<index_t>(T);
  static constexpr index_t gcd = std::gcd(s, t);
  /// BC = lcm(S, T) / gcd(S, T), in meta-elements of gcd(S, T) elements.
  static constexpr index_t bc = index::basic_cycle(s, t);
  /// lcm(S, T): elements of one basic cycle of a local array.
  static constexpr index_t cycle = bc * gcd;
  static constexpr index::bcc_case kind = index::classify(s, t);
  /// Eq. (5) on M processes (the paper's cost-model value).
  static constexpr index_t delta(int nprocs) { return index::delta(s, t, nprocs); }
  static constexpr bool static_nprocs = P != dynamic;
  /// True when the templates are static constexpr tables.
  static constexpr bool tabulated = detail::tabulate_basic_cycle<S, T, P>;

  /// The plan of `rank` for n elements on the P processes, from the static tables when tabulated.
  template <class Policy = schedule::bcc_t>
    requires(P != dynamic)
  static Plan plan(index_t n, int rank, Policy = {}) {
    static_assert(std::is_same_v<Policy, schedule::bcc_t> || std::is_same_v<Policy, schedule::bcc_contention_free_t>,
                  "redist::BasicCyclePlan::plan(n, rank, policy) requires schedule::bcc or schedule::bcc_contention_free");
    const index::BasicCycle c(s, t, static_cast<int>(P));
    REDIST_EXPECTS(n >= 0, "redist::BasicCyclePlan::plan(n, rank) requires n to be >= 0");
    REDIST_EXPECTS(rank >= 0 && rank < static_cast<int>(P), "redist::BasicCyclePlan::plan(n, rank) requires rank to be in [0, P)");
    if constexpr (tabulated) {
      using tables = detail::basic_cycle_tables<S, T, P>;
      auto part = [](const auto& table, const auto& begin, int q) {
        const auto b = begin[static_cast<std::size_t>(q)], e = begin[static_cast<std::size_t>(q) + 1];
        return std::span<const index::Section>(table.data() + b, e - b);
      };
      const index_t limit = index::meta_size(c, n);
      // Destinations in order of appearance, from the static sections.
      auto dests_of = [&](int q) {
        std::vector<int> d;
        for (const index::Section& x : part(tables::send_section_table, tables::send_section_begin, q))
          if (x.global < limit && std::find(d.begin(), d.end(), x.peer) == d.end()) d.push_back(x.peer);
        return d;
      };
      return detail::build_cycle_plan(c, n, rank, detail::bcc_order_of<Policy>(),
                                      part(tables::send_section_table, tables::send_section_begin, rank),
                                      part(tables::receive_section_table, tables::receive_section_begin, rank),
                                      dests_of);
    } else {
      return detail::plan_basic_cycle(c, n, rank, detail::bcc_order_of<Policy>());
    }
  }

  /// The plan of `rank` for n elements on nprocs processes (P dynamic): templates built at plan time.
  template <class Policy = schedule::bcc_t>
    requires(P == dynamic)
  static Plan plan(index_t n, int nprocs, int rank, Policy = {}) {
    static_assert(std::is_same_v<Policy, schedule::bcc_t> || std::is_same_v<Policy, schedule::bcc_contention_free_t>,
                  "redist::BasicCyclePlan::plan(n, P, rank, policy) requires schedule::bcc or schedule::bcc_contention_free");
    REDIST_EXPECTS(n >= 0, "redist::BasicCyclePlan::plan(n, P, rank) requires n to be >= 0");
    REDIST_EXPECTS(rank >= 0 && rank < nprocs, "redist::BasicCyclePlan::plan(n, P, rank) requires rank to be in [0, P)");
    return detail::plan_basic_cycle(index::BasicCycle(s, t, nprocs), n, rank, detail::bcc_order_of<Policy>());
  }
};

namespace detail {
/// The static process count of a Cyclic pair, when both layouts have the same, else dynamic.
template <class From, class To>
inline constexpr std::size_t pair_nprocs =
    static_nprocs_v<From> == static_nprocs_v<To> ? static_nprocs_v<From> : dynamic;

/// True when From -> To has static block sizes and a static process count: BasicCyclePlan's static tables apply.
template <class From, class To>
inline constexpr bool static_cycle_pair =
    From::distribution_type::static_block_size() != dynamic && To::distribution_type::static_block_size() != dynamic &&
    pair_nprocs<From, To> != dynamic;

/// Rank q's destinations in order of appearance in its first basic cycle (clipped to `limit`
/// meta-elements): from BasicCyclePlan's static tables when the pair has them, else computed now.
template <class From, class To>
std::vector<int> cycle_destinations(const index::BasicCycle& c, int q, index_t limit) {
  std::vector<int> d;
  if constexpr (static_cycle_pair<From, To>) {
    using B = BasicCyclePlan<From::distribution_type::static_block_size(), To::distribution_type::static_block_size(),
                             pair_nprocs<From, To>>;
    if constexpr (B::tabulated) {
      const auto b = B::send_section_begin[static_cast<std::size_t>(q)], e = B::send_section_begin[static_cast<std::size_t>(q) + 1];
      for (auto k = b; k < e; ++k) {
        const index::Section& x = B::send_section_table[k];
        if (x.global < limit && std::find(d.begin(), d.end(), x.peer) == d.end()) d.push_back(x.peer);
      }
      return d;
    }
  }
  ++tables_built_counter();
  index::send_destinations(c, q, [&](int p) { if (std::find(d.begin(), d.end(), p) == d.end()) d.push_back(p); }, limit);
  return d;
}

/// Cyclic<s> -> Cyclic<t> by the basic-cycle calculation, in BCC's send order (bcc) or in
/// contention-free steps (bcc_contention_free). With static block sizes and a static process
/// count (StaticNprocs layouts), the templates come from BasicCyclePlan's static tables.
template <class Policy>
struct bcc_planner {
  template <class From, class To>
  static constexpr bool supports = CyclicLayout<From> && CyclicLayout<To>;
  template <class From, class To>
  static constexpr void require() {
    static_assert(supports<From, To>,
                  "redist::schedule::bcc and bcc_contention_free require Cyclic<s> source and target distributions");
  }
  template <class From, class To>
  static Plan plan(const From& from_layout, const To& to_layout, int rank, Policy policy) {
    if constexpr (!CyclicMapping<From> || !CyclicMapping<To>) {
      const auto [from, to] = cyclic_pair(from_layout, to_layout, "bcc");
      return plan(from, to, rank, policy);
    } else {
      const From& from = from_layout;
      const To& to = to_layout;
      [[maybe_unused]] const index::BasicCycle c = basic_cycle_of(from, to, rank);  // checks the pair
      if constexpr (static_cycle_pair<From, To>)
        return BasicCyclePlan<From::distribution_type::static_block_size(), To::distribution_type::static_block_size(),
                              pair_nprocs<From, To>>::plan(from.size(), rank, policy);
      else
        return plan_basic_cycle(c, from.size(), rank, bcc_order_of<Policy>());
    }
  }
};
}  // namespace detail

template <>
struct planner<schedule::bcc_t> : detail::bcc_planner<schedule::bcc_t> {};
template <>
struct planner<schedule::bcc_contention_free_t> : detail::bcc_planner<schedule::bcc_contention_free_t> {};

}  // namespace redist
