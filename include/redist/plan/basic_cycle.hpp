/// @file Defines CyclePlan, the planners of Cyclic<s> -> Cyclic<t> under the basic-cycle calculation (seed 000), and BasicCyclePlan<S, T, P> with its compile-time tables.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <concepts>
#include <cstddef>
#include <numeric>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <redist/detail/math.hpp>
#include <redist/dist/cyclic.hpp>
#include <redist/dist/static_nprocs.hpp>
#include <redist/index/basic_cycle.hpp>
#include <redist/index/run.hpp>
#include <redist/plan/plan.hpp>
#include <redist/plan/planner.hpp>
#include <redist/schedule/basic_cycle.hpp>
#include <redist/schedule/schedule.hpp>

namespace redist {

namespace detail {
inline std::atomic<std::size_t>& tables_built_counter() noexcept {
  static std::atomic<std::size_t> count{0};
  return count;
}
}  // namespace detail

/// How many times this process has computed basic-cycle templates at run time: a BCC plan built
/// without static tables, or the GDM model's look at rank 0's template (schedule::automatic on a
/// Cyclic pair). A 1-D Cyclic<S> -> Cyclic<T> pair whose process count is static
/// (DistArray<T, Cyclic<S>, Grid<P>>) takes its templates from BasicCyclePlan<S, T, P>'s static
/// tables and does not move it (while BC · P <= max_static_table).
inline std::size_t tables_built() noexcept { return detail::tables_built_counter().load(); }

namespace detail {
template <class D>
inline constexpr bool is_cyclic_distribution = false;
template <std::size_t X>
inline constexpr bool is_cyclic_distribution<Cyclic<X>> = true;
}  // namespace detail

/// The mapping of a CYCLIC distribution: Cyclic<X>::mapping, X static or dynamic, or a mapping
/// derived from it that adds static facts (StaticNprocs<Cyclic<X>::mapping, P>).
template <class M>
concept CyclicMapping = requires { typename M::distribution_type; } &&
                        detail::is_cyclic_distribution<typename M::distribution_type> &&
                        std::derived_from<M, typename M::distribution_type::mapping>;

/// True when schedule::automatic chooses among the Cyclic schedules for From -> To (the
/// basic-cycle calculation and seed 001's circulant schedules, by the GDM model and first-run
/// timing, plan/automatic.hpp): decided from the types alone (both CYCLIC), at compile time.
template <class From, class To>
inline constexpr bool bcc_selected = CyclicMapping<From> && CyclicMapping<To>;

/// One section of a basic cycle bound to the plan's messages, in elements: what the one-pass
/// pack and unpack of runtime/pack_cycles.hpp follow.
struct CycleSection {
  index_t offset = 0;       ///< local offset in the basic cycle
  index_t len = 0;          ///< elements
  index_t peer_offset = 0;  ///< the peer's local offset (for a local section: in this rank's destination)
  int slot = 0;             ///< index of its message in the plan's general.sends (send pattern) or general.recvs
                            ///< (receive pattern), or local_section
  friend constexpr bool operator==(const CycleSection&, const CycleSection&) = default;
};

/// The slot of a section that stays on its rank: copied from source to destination by the pack.
inline constexpr int local_section = -1;

/// The plan of Cyclic<s> -> Cyclic<t> built by the basic-cycle calculation: two ways of running
/// the same messages.
///  - `general` is a complete Plan: each template section is one Run of stride lcm(s, t) (the
///    local size of a basic cycle) repeated for every full basic cycle, plus clipped runs for the
///    ragged last one, so the general runtime::execute runs it (run order).
///  - The templates as sections (send_pattern, recv_pattern), which the one-pass exchange of
///    runtime/exchange_cycles.hpp follows: it packs every message in one pass over the local
///    array, basic cycle by basic cycle (the paper's order, which differs from the run order).
/// Both ways move general's messages (sends, recvs) in general's schedule. The rank, the process
/// count and the piece size live in `general` only; which way runs is agreed by all ranks
/// through general.piece (see piece_limit(const CyclePlan&)).
struct CyclePlan {
  Plan general;
  index::BasicCycle shape;
  index_t size = 0;         ///< n
  index_t cycle = 0;        ///< lcm(s, t): local elements of one basic cycle, on every rank
  index_t full_cycles = 0;  ///< C = n / (M · lcm(s, t)): the complete basic cycles of every local array
  index_t slots = 0;        ///< C, plus 1 when the last period is ragged: the cycles to move
  std::vector<CycleSection> send_pattern;  ///< this rank's send template as sections, in local order
  std::vector<CycleSection> recv_pattern;  ///< its receive template
  std::vector<index_t> send_per_cycle;     ///< per send of general: its elements in one full cycle (C = 0: all)
  std::vector<index_t> recv_per_cycle;     ///< per receive of general
  /// lcm(s, t) + 1, more than any rank sends another in one cycle; the same on every rank. A
  /// piece (general.piece) >= quantum means piece / quantum cycles per round of the one-pass path.
  index_t quantum = 1;

  /// Elements of a message (per_cycle, size) in the cycle slots [a, b).
  constexpr index_t elements_in(index_t per_cycle, index_t msg_size, index_t a, index_t b) const noexcept {
    index_t e = std::max<index_t>(0, std::min(b, full_cycles) - a) * per_cycle;
    if (b > full_cycles && a <= full_cycles) e += msg_size - full_cycles * per_cycle;
    return e;
  }
  /// Elements of scratch one cycle of this rank's remote messages needs (sends and receives).
  constexpr index_t scratch_per_cycle() const noexcept {
    index_t e = 0;
    for (index_t x : send_per_cycle) e += x;
    for (index_t x : recv_per_cycle) e += x;
    return e;
  }
  /// The piece size agreed by all ranks (see piece_limit(const CyclePlan&)).
  void set_piece(index_t piece) noexcept { general.piece = piece; }
};

/// The messages of a CyclePlan (sends, recvs, schedule, runs): its general plan.
inline const Plan& messages_of(const CyclePlan& plan) noexcept { return plan.general; }

namespace detail {

enum class bcc_order { appearance, contention_free };

template <class Policy>
constexpr bcc_order bcc_order_of() {
  if constexpr (std::is_same_v<Policy, schedule::bcc_contention_free_t>) return bcc_order::contention_free;
  else return bcc_order::appearance;
}

/// The plan of `rank` from the sections of its templates (own_send, own_recv: computed, or taken
/// from static tables) and every rank's destinations in order of appearance (dests_of(q)), for
/// the schedule. Sections a short array lacks are clipped here, so both sources give the same
/// plan. Cost: O(sections of this rank + P · min(P, sections)): independent of n.
template <class Sections, class DestsOf>
CyclePlan build_cycle_plan(const index::BasicCycle& c, index_t n, int rank, bcc_order order, const Sections& own_send,
                           const Sections& own_recv, DestsOf&& dests_of) {
  ++plans_built_counter();
  const int m = c.nprocs;
  const auto um = static_cast<std::size_t>(m);
  const index_t g = c.g, cyc = c.cycle(), period = c.period();
  const index_t full = n / period, limit = index::meta_size(c, n), tail_base = full * period;

  CyclePlan plan;
  Plan& general = plan.general;
  general.rank = rank;
  general.nprocs = m;
  plan.shape = c;
  plan.size = n;
  plan.cycle = cyc;
  plan.full_cycles = full;
  plan.slots = full + (n % period != 0 ? 1 : 0);
  // Any rank sends any other at most one cycle's elements per cycle: cycle + 1 is a quantum that
  // every rank knows without looking at the others (see piece_limit).
  plan.quantum = cyc + 1;

  auto clipped = [&](const Sections& secs) {
    std::vector<index::Section> out;
    for (index::Section s : secs) {
      if (s.global >= limit) continue;
      s.len = std::min(s.len, limit - s.global);
      out.push_back(s);
    }
    return out;
  };
  // Elements of a section in the ragged last period, and in one cycle (for C = 0: in all).
  auto tail_len = [&](const index::Section& s) {
    return std::clamp<index_t>(n - (tail_base + s.global * g), 0, s.len * g);
  };
  auto cycle_len = [&](const index::Section& s) { return full > 0 ? s.len * g : tail_len(s); };

  const std::vector<index::Section> mine_send = clipped(own_send);
  const std::vector<index::Section> mine_recv = clipped(own_recv);

  // Runs: per peer, every section as one run of stride lcm(s, t) over the full cycles, then the
  // clipped pieces of the ragged period. Sender and receiver list the pieces of a pair in the
  // same (global) order, so they agree on the packed order.
  enum class side { sender, receiver };
  std::vector<std::vector<Run>> to(um), from(um);
  std::vector<index_t> pc_to(um, 0), pc_from(um, 0);
  auto add_runs = [&](const std::vector<index::Section>& secs, side who, std::vector<std::vector<Run>>& lists,
                      std::vector<index_t>& pc) {
    auto run = [&](index_t mine, index_t theirs, index_t len, index_t stride, index_t count) {
      return who == side::sender ? Run{mine, theirs, len, stride, stride, count} : Run{theirs, mine, len, stride, stride, count};
    };
    for (const index::Section& s : secs) {
      const auto p = static_cast<std::size_t>(s.peer);
      if (full > 0) append_run(lists[p], run(s.offset * g, s.peer_offset * g, s.len * g, cyc, full));
      pc[p] += cycle_len(s);
    }
    for (const index::Section& s : secs) {
      const index_t len = tail_len(s);
      if (len > 0)
        append_run(lists[static_cast<std::size_t>(s.peer)],
                   run(full * cyc + s.offset * g, full * cyc + s.peer_offset * g, len, len, 1));
    }
  };
  add_runs(mine_send, side::sender, to, pc_to);
  add_runs(mine_recv, side::receiver, from, pc_from);

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
    s.offset = std::exchange(general.send_scratch, general.send_scratch + s.size);
    send_slot[static_cast<std::size_t>(q)] = static_cast<int>(general.sends.size());
    general.sends.push_back(s);
    plan.send_per_cycle.push_back(pc_to[static_cast<std::size_t>(q)]);
  }
  for (int d = 1; d < m; ++d) {
    const int q = (rank - d + m) % m;
    if (from[static_cast<std::size_t>(q)].empty()) continue;
    Message r = message(q, from[static_cast<std::size_t>(q)]);
    r.offset = std::exchange(general.recv_scratch, general.recv_scratch + r.size);
    recv_slot[static_cast<std::size_t>(q)] = static_cast<int>(general.recvs.size());
    general.recvs.push_back(r);
    plan.recv_per_cycle.push_back(pc_from[static_cast<std::size_t>(q)]);
  }

  // The templates as sections bound to the messages, in elements.
  for (const index::Section& s : mine_send)
    plan.send_pattern.push_back(CycleSection{s.offset * g, s.len * g, s.peer_offset * g,
                                             s.peer == rank ? local_section : send_slot[static_cast<std::size_t>(s.peer)]});
  for (const index::Section& s : mine_recv)
    plan.recv_pattern.push_back(CycleSection{s.offset * g, s.len * g, s.peer_offset * g,
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
inline CyclePlan plan_basic_cycle(const index::BasicCycle& c, index_t n, int rank, bcc_order order) {
  ++tables_built_counter();
  const index_t limit = index::meta_size(c, n);
  std::vector<index::Section> send, recv;
  index::send_sections(c, rank, [&](const index::Section& s) { send.push_back(s); }, limit);
  index::receive_sections(c, rank, [&](const index::Section& s) { recv.push_back(s); }, limit);
  return build_cycle_plan(c, n, rank, order, send, recv, destinations_now(c, limit));
}

}  // namespace detail

/// The piece size this rank can afford under a scratch budget of `budget` elements, as
/// piece_limit(const Plan&) but for both ways of running a CyclePlan. The value is agreed by
/// all ranks (the smallest wins), so it also decides, the same on every rank, how the plan runs:
///  - 0: everything fits; the one-pass path moves all cycles in one round;
///  - >= quantum: the one-pass path, piece / quantum cycles per round (each round's scratch is
///    at most that many cycles' worth of this rank's remote elements, within budget);
///  - in [1, quantum): the general path (plan.general, run order), in pieces of at most `piece`
///    elements — when one cycle does not fit the budget, or the general path needs smaller
///    pieces anyway.
/// Throws as piece_limit(const Plan&) when not one element per message of a step fits.
inline index_t piece_limit(const CyclePlan& plan, index_t budget) {
  if (plan.general.send_scratch + plan.general.recv_scratch <= budget) return 0;
  const index_t need = plan.scratch_per_cycle();
  const index_t cycles = need == 0 ? plan.slots : std::min(plan.slots, budget / need);
  const index_t general = piece_limit(plan.general, budget);
  const index_t small = plan.quantum - 1;  // >= 1 here: some message does not fit
  if (cycles >= 1 && (general == 0 || general >= small))
    return detail::checked_mul(cycles, plan.quantum, "the piece of a basic-cycle round");
  return general == 0 ? small : std::min(general, small);
}

/// The workspace of a CyclePlan (see WorkspaceNeed): with no piece, the one-pass path packs
/// every remote element in one round; with pieces, a round stays within the budget (a run on a
/// smaller piece agreed by another rank may take the general path, whose pieces are within
/// this bound too when the budget is the ranks' common one).
inline WorkspaceNeed workspace_need(const CyclePlan& plan, index_t budget) {
  const index_t remote = plan.general.elements_sent() + plan.general.elements_received();
  return {piece_limit(plan, budget) == 0 ? remote : std::min(remote, budget), 0};
}

/// Largest BC · P for which BasicCyclePlan<S, T, P> keeps its send and receive templates as
/// static constexpr tables (16384 entries: 64 KiB per table of int, well under a second of
/// compile time). Above it, the tables are built at plan time by the same functions.
inline constexpr index_t max_static_table = index_t{1} << 14;

namespace detail {
template <std::size_t S, std::size_t T, std::size_t P>
inline constexpr bool tabulate_basic_cycle =
    P != dynamic && index::basic_cycle(static_cast<index_t>(S), static_cast<index_t>(T)) <=
                        max_static_table / static_cast<index_t>(P);

template <std::size_t S, std::size_t T, std::size_t P>
inline constexpr index::BasicCycle static_shape{static_cast<index_t>(S), static_cast<index_t>(T), static_cast<int>(P)};

/// Which template a table holds.
enum class template_side { send, receive };

/// Every rank's send or receive template, filled by index::send_template / receive_template.
template <std::size_t S, std::size_t T, std::size_t P, template_side Side>
constexpr auto make_templates() {
  constexpr const index::BasicCycle& c = static_shape<S, T, P>;
  std::array<std::array<int, static_cast<std::size_t>(c.bc)>, P> a{};
  for (std::size_t r = 0; r < P; ++r) {
    if constexpr (Side == template_side::send) index::send_template(c, static_cast<int>(r), a[r]);
    else index::receive_template(c, static_cast<int>(r), a[r]);
  }
  return a;
}

/// Where each rank's sections start in the flat section table.
template <std::size_t S, std::size_t T, std::size_t P, template_side Side>
constexpr auto make_section_begin() {
  constexpr const index::BasicCycle& c = static_shape<S, T, P>;
  std::array<std::size_t, P + 1> b{};
  for (std::size_t r = 0; r < P; ++r)
    b[r + 1] = b[r] + (Side == template_side::send ? index::count_send_sections(c, static_cast<int>(r))
                            : index::count_receive_sections(c, static_cast<int>(r)));
  return b;
}

/// Every rank's sections, one after the other.
template <std::size_t S, std::size_t T, std::size_t P, template_side Side, std::size_t N>
constexpr auto make_section_table() {
  constexpr const index::BasicCycle& c = static_shape<S, T, P>;
  std::array<index::Section, N> a{};
  std::size_t i = 0;
  for (std::size_t r = 0; r < P; ++r) {
    auto put = [&](const index::Section& x) { a[i++] = x; };
    if constexpr (Side == template_side::send) index::send_sections(c, static_cast<int>(r), put);
    else index::receive_sections(c, static_cast<int>(r), put);
  }
  return a;
}

template <std::size_t S, std::size_t T, std::size_t P, bool Tabulated = tabulate_basic_cycle<S, T, P>>
struct basic_cycle_tables {};

template <std::size_t S, std::size_t T, std::size_t P>
struct basic_cycle_tables<S, T, P, true> {
  /// send_templates[i][k]: the destination of meta-element k of rank i's first basic cycle (Figure 4).
  static constexpr auto send_templates = make_templates<S, T, P, template_side::send>();
  /// receive_templates[j][k]: the source of meta-element k of rank j's first basic cycle (Figure 6).
  static constexpr auto receive_templates = make_templates<S, T, P, template_side::receive>();
  /// The same templates as sections: rank r's are [section_begin[r], section_begin[r + 1]).
  static constexpr auto send_section_begin = make_section_begin<S, T, P, template_side::send>();
  static constexpr auto receive_section_begin = make_section_begin<S, T, P, template_side::receive>();
  static constexpr auto send_section_table = make_section_table<S, T, P, template_side::send, send_section_begin[P]>();
  static constexpr auto receive_section_table = make_section_table<S, T, P, template_side::receive, receive_section_begin[P]>();
};
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
  static CyclePlan plan(index_t n, int rank, Policy = {}) {
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
  static CyclePlan plan(index_t n, int nprocs, int rank, Policy = {}) {
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
  static constexpr bool supports = CyclicMapping<From> && CyclicMapping<To>;
  template <class From, class To>
  static constexpr void require() {
    static_assert(supports<From, To>,
                  "redist::schedule::bcc and bcc_contention_free require Cyclic<s> source and target distributions");
  }
  template <class From, class To>
  static CyclePlan plan(const From& from, const To& to, int rank, Policy policy) {
    [[maybe_unused]] const index::BasicCycle c = basic_cycle_of(from, to, rank);  // checks the pair
    if constexpr (static_cycle_pair<From, To>)
      return BasicCyclePlan<From::distribution_type::static_block_size(), To::distribution_type::static_block_size(),
                            pair_nprocs<From, To>>::plan(from.size(), rank, policy);
    else
      return plan_basic_cycle(c, from.size(), rank, bcc_order_of<Policy>());
  }
};
}  // namespace detail

template <>
struct planner<schedule::bcc_t> : detail::bcc_planner<schedule::bcc_t> {};
template <>
struct planner<schedule::bcc_contention_free_t> : detail::bcc_planner<schedule::bcc_contention_free_t> {};

}  // namespace redist
