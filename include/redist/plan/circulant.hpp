/// @file Defines the plans of CYCLIC(x) <-> CYCLIC(Kx) under seed 001's direct, indirect and hybrid schedules (stages that forward through a relay area; two phases through CYCLIC(lcm) for other Cyclic pairs), their planners, and the GDM model's candidates for a Cyclic pair (automatic_candidates, plan_for_choice).
#pragma once

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <redist/detail/math.hpp>
#include <redist/dist/cyclic.hpp>
#include <redist/index/basic_cycle.hpp>
#include <redist/index/circulant.hpp>
#include <redist/index/run.hpp>
#include <redist/plan/basic_cycle.hpp>
#include <redist/plan/plan.hpp>
#include <redist/plan/planner.hpp>
#include <redist/schedule/circulant.hpp>
#include <redist/schedule/cost.hpp>
#include <redist/schedule/schedule.hpp>

namespace redist {

namespace detail {

/// One block row item (the block of row i that started in column j, all its superblocks) as
/// one rank sees it: in its source array (held < 0: the runs' src side, on this rank) or at
/// `held` in its relay area (packed: whole superblocks, then the ragged piece). The runs' dst
/// side is where the item ends, on the process that finally gets it.
struct CirculantItem {
  index_t held = -1;
  index_t size = 0;         ///< elements
  std::size_t first = 0;    ///< its runs in CirculantPhase::runs
  std::size_t nruns = 0;
  friend constexpr bool operator==(const CirculantItem&, const CirculantItem&) = default;
};

/// One message of a step: items[first, first + count) of the phase's `parts`, in row order.
struct CirculantMessage {
  int peer = -1;            ///< -1: none in this step
  index_t size = 0;         ///< elements (0: nothing is sent, on either side)
  std::size_t first = 0;
  std::size_t count = 0;
  /// Send: offset of its packed copy in the send area, or -1 when it goes out of the source
  /// array (source_at) or of the relay area (held_at) as it is. Receive: offset in the relay
  /// area, or -1 when it lands in the destination array at dst_at (one final contiguous item).
  index_t at = 0;
  index_t source_at = -1;
  index_t held_at = -1;
  index_t dst_at = -1;
  friend constexpr bool operator==(const CirculantMessage&, const CirculantMessage&) = default;
};

/// What one rank does in one step.
struct CirculantIo {
  CirculantMessage send;
  CirculantMessage recv;
  /// Steps marked `overlap` (the direct part) depend on no earlier one of them; consecutive steps
  /// with the same `group` are posted together (the paper's asynchronous variant), in groups
  /// whose packed sends and received final blocks fit in the larger local array.
  bool overlap = false;
  std::size_t group = 0;
  /// The receive holds final blocks only: it lands in the round area (at recv.at) and is
  /// unpacked as soon as its group completes, so the area is reused by the next group.
  bool unpack_now = false;
  friend constexpr bool operator==(const CirculantIo&, const CirculantIo&) = default;
};

/// One R(K, P) phase of one rank, as build_circulant_phase follows it (phase_stage makes it a stage).
struct CirculantPhase {
  index::Circulant shape;
  bool reverse = false;     ///< CYCLIC(Kx) -> CYCLIC(x)
  index_t x = 1;            ///< the small block size
  int degree = 0;           ///< the hybrid degree d it was built with (clamped)
  std::size_t global_steps = 0;  ///< steps of the schedule (in which any process communicates)
  std::vector<Run> runs;
  std::vector<CirculantItem> items;
  std::vector<std::size_t> parts;       ///< items of the messages, message after message
  std::vector<CirculantIo> steps;       ///< in execution order
  std::vector<std::size_t> deliveries;  ///< items that end on this rank, copied or unpacked at the end
  index_t held_size = 0;                ///< elements of the relay area (blocks to forward or unpack at the end)
  index_t send_size = 0;                ///< elements of the round area: a step's or group's packed sends, then its final receives

  std::span<const Run> runs_of(const CirculantItem& it) const noexcept {
    return std::span<const Run>(runs).subspan(it.first, it.nruns);
  }
};


/// The degree of a policy for a phase.
constexpr int circulant_degree(const index::Circulant&, schedule::direct_t) { return 0; }
constexpr int circulant_degree(const index::Circulant& c, schedule::indirect_t) { return schedule::indirect_depth(c); }
constexpr int circulant_degree(const index::Circulant& c, schedule::hybrid_t h) {
  return std::min(h.d, schedule::indirect_depth(c));
}

/// Phase of `rank`: R(K, P) forward (CYCLIC(x) -> CYCLIC(Kx)) or reverse, n elements, hybrid(d).
/// Follows the items of this rank through the schedule table (every process's table is the same
/// and computed here, without communication). Cost: O(steps · K + P · steps) for the table and
/// this rank's messages; nothing grows with n.
inline CirculantPhase build_circulant_phase(const index::Circulant& c, index_t x, index_t n, int rank, bool reverse,
                                            int d, index_t local_limit) {
  const schedule::CirculantSchedule sch = schedule::circulant_schedule(c, d);
  CirculantPhase ph;
  ph.shape = c;
  ph.reverse = reverse;
  ph.x = x;
  ph.degree = sch.d1 + sch.d2;
  ph.global_steps = sch.size();
  const auto k = static_cast<std::size_t>(c.k);
  std::vector<std::size_t> loc(k);      // the item of row i this rank holds now
  std::vector<index_t> origin_of(k);    // its starting column
  auto new_item = [&](index_t i, index_t j, index_t held) {
    CirculantItem it;
    it.held = held;
    it.first = ph.runs.size();
    index::block_runs(c, n, x, i, j, reverse, [&](const Run& r) {
      ph.runs.push_back(r);
      it.size += r.size();
    });
    it.nruns = ph.runs.size() - it.first;
    ph.items.push_back(it);
    return ph.items.size() - 1;
  };
  const index_t me = rank;
  for (index_t i = 0; i < c.k; ++i) {
    // Forward, rank holds the rows of its own column; reverse, what the forward schedule
    // would end with: row i of column Pr(i, rank).
    const index_t j = reverse ? c.pr(i, me) : me;
    origin_of[static_cast<std::size_t>(i)] = j;
    loc[static_cast<std::size_t>(i)] = new_item(i, j, -1);
  }
  const std::size_t nsteps = sch.size();
  for (std::size_t u = 0; u < nsteps; ++u) {
    const std::size_t t = reverse ? nsteps - 1 - u : u;
    const schedule::CirculantStep& st = sch.steps[t];
    CirculantIo io;
    io.overlap = st.phase == schedule::circulant_phase::direct_rows;
    const index_t to = sch.to(st, me), from = sch.from(st, me);
    const index_t send_peer = reverse ? from : to, recv_peer = reverse ? to : from;
    if (send_peer != me) {
      // Send: the items of the step's rows this rank holds, in row order.
      io.send.peer = static_cast<int>(send_peer);
      io.send.first = ph.parts.size();
      for (index_t i = 0; i < c.k; ++i) {
        if (!sch.moves(st, i)) continue;
        const std::size_t it = loc[static_cast<std::size_t>(i)];
        if (ph.items[it].size == 0) continue;
        ph.parts.push_back(it);
        io.send.size += ph.items[it].size;
      }
      io.send.count = ph.parts.size() - io.send.first;
      // Receive: the same rows, from the peer (items it held before the forward step, or this
      // rank's before it, when reversed).
      io.recv.peer = static_cast<int>(recv_peer);
      io.recv.first = ph.parts.size();
      for (index_t i = 0; i < c.k; ++i) {
        if (!sch.moves(st, i)) continue;
        const index_t j = sch.origin(st, i, reverse ? me : recv_peer);
        const std::size_t it = new_item(i, j, ph.held_size + io.recv.size);
        loc[static_cast<std::size_t>(i)] = it;
        origin_of[static_cast<std::size_t>(i)] = j;
        if (ph.items[it].size == 0) continue;
        ph.parts.push_back(it);
        io.recv.size += ph.items[it].size;
      }
      io.recv.count = ph.parts.size() - io.recv.first;
      io.recv.at = ph.held_size;
      ph.held_size += io.recv.size;
      // A single item goes out as it is when it is contiguous where it is.
      if (io.send.count == 1) {
        const CirculantItem& it = ph.items[ph.parts[io.send.first]];
        if (it.held >= 0) io.send.held_at = it.held;
        else if (ph.runs_of(it).size() == 1 && ph.runs_of(it)[0].src_contiguous())
          io.send.source_at = ph.runs[it.first].src;
      }
      if (io.send.held_at >= 0 || io.send.source_at >= 0) io.send.at = -1;
    }
    ph.steps.push_back(io);
  }
  // Deliver: every row's item now ends here.
  for (index_t i = 0; i < c.k; ++i) {
    const auto ui = static_cast<std::size_t>(i);
    const index_t j = origin_of[ui];
    if ((reverse ? j : c.ps(i, j)) != me)
      report_error("redist::plan_with(Cyclic, Cyclic, circulant): internal error, block row " + std::to_string(i) +
                   " does not end at its destination");
    const CirculantItem& it = ph.items[loc[ui]];
    if (it.size == 0) continue;
    ph.deliveries.push_back(loc[ui]);
  }
  // A message of one final item contiguous in the destination is received straight into it.
  for (CirculantIo& io : ph.steps) {
    if (io.recv.peer < 0 || io.recv.count != 1) continue;
    const std::size_t it = ph.parts[io.recv.first];
    const auto found = std::find(ph.deliveries.begin(), ph.deliveries.end(), it);
    if (found == ph.deliveries.end() || ph.items[it].nruns != 1 || !ph.runs[ph.items[it].first].dst_contiguous()) continue;
    io.recv.dst_at = ph.runs[ph.items[it].first].dst;
    io.recv.at = -1;
    ph.deliveries.erase(found);
  }
  // Lay out the areas. Relay area: the receives whose blocks are forwarded later or wait for the
  // end. Round area: per sequential step its packed send; per group of direct steps (as many
  // consecutive ones as fit in local_limit elements, at least one) their packed sends, then the
  // receives that hold final blocks only, unpacked when the group completes.
  auto is_final = [&](const CirculantIo& io) {
    if (!io.overlap || io.recv.peer < 0 || io.recv.size == 0 || io.recv.dst_at >= 0) return false;
    for (std::size_t u = io.recv.first; u < io.recv.first + io.recv.count; ++u)
      if (std::find(ph.deliveries.begin(), ph.deliveries.end(), ph.parts[u]) == ph.deliveries.end()) return false;
    return true;
  };
  auto move_items = [&](const CirculantMessage& m, index_t at) {
    for (std::size_t u = m.first; u < m.first + m.count; ++u) ph.items[ph.parts[u]].held += at - m.at;
  };
  ph.held_size = 0;
  ph.send_size = 0;
  std::size_t group = 0;
  index_t round = 0;
  bool open = false;
  for (std::size_t t = 0; t < ph.steps.size(); ++t) {
    CirculantIo& io = ph.steps[t];
    const bool final = is_final(io);
    const index_t packed = io.send.peer >= 0 && io.send.at >= 0 ? io.send.size : 0;
    const index_t need = packed + (final ? io.recv.size : 0);
    if (!io.overlap || !open || round + need > local_limit) {
      ++group;
      round = 0;
    }
    open = io.overlap;
    io.group = group;
    if (packed > 0) {
      io.send.at = round;
      round += packed;
    }
    if (io.recv.peer >= 0 && io.recv.size > 0 && io.recv.dst_at < 0) {
      if (final) {
        io.unpack_now = true;
        move_items(io.recv, round);
        io.recv.at = round;
        round += io.recv.size;
        for (std::size_t u = io.recv.first; u < io.recv.first + io.recv.count; ++u)
          ph.deliveries.erase(std::find(ph.deliveries.begin(), ph.deliveries.end(), ph.parts[u]));
      } else {
        move_items(io.recv, ph.held_size);
        io.recv.at = ph.held_size;
        ph.held_size += io.recv.size;
      }
    }
    ph.send_size = std::max(ph.send_size, round);
  }
  for (CirculantIo& io : ph.steps)
    if (io.send.held_at >= 0) io.send.held_at = ph.items[ph.parts[io.send.first]].held;
  return ph;
}

inline void check_cyclic_pair(index_t n_from, index_t n_to, int p_from, int p_to, int rank, const char* call) {
  if (n_from != n_to)
    report_error(std::string("redist::plan_with(from, to, rank, ") + call +
                 ") requires from and to to have the same global size");
  if (p_from != p_to)
    report_error(std::string("redist::plan_with(from, to, rank, ") + call +
                 ") requires from and to to have the same process count");
  if (rank < 0 || rank >= p_from)
    report_error(std::string("redist::plan_with(from, to, rank, ") + call + ") requires rank to be in [0, P)");
}

/// The R(K, P) phases of CYCLIC(s) -> CYCLIC(t): one when one divides the other, else two
/// through CYCLIC(lcm(s, t)) (Table 1's two-phase method). Each entry: shape, x, reverse.
struct PhaseShape {
  index::Circulant shape;
  index_t x = 1;
  bool reverse = false;
};
inline std::vector<PhaseShape> circulant_phases(index_t s, index_t t, index_t p) {
  if (t % s == 0) return {PhaseShape{index::Circulant(t / s, p), s, false}};
  if (s % t == 0) return {PhaseShape{index::Circulant(s / t, p), t, true}};
  const index_t l = checked_lcm(s, t, "lcm(s, t) of a two-phase circulant redistribution");
  return {PhaseShape{index::Circulant(l / s, p), s, false}, PhaseShape{index::Circulant(l / t, p), t, true}};
}

/// One phase as a stage of a plan (from -> to): per step, its send and its receive as messages
/// whose runs are the items' runs (an item this rank holds in its relay area is one contiguous run
/// there, in_relay). A receive of one final contiguous block goes straight into `to`; one that
/// holds final blocks only lands in the scratch and is unpacked on arrival; any other lands in the
/// relay area (relay_at) and stays there, its final blocks unpacked on arrival. Blocks that stay on
/// this rank are its local copy. Steps of one group are posted together (joins_previous).
inline Stage<Run> phase_stage(const CirculantPhase& ph, Buffer from, Buffer to) {
  Stage<Run> st;
  st.from = from;
  st.to = to;
  st.relay = ph.held_size;
  st.forwards = ph.degree > 0;
  std::vector<char> delivered(ph.items.size(), 0);
  for (std::size_t k : ph.deliveries) delivered[k] = 1;
  auto add = [&](Run r, bool relayed) {
    st.runs.push_back(r);
    st.in_relay.push_back(relayed ? 1 : 0);
  };
  // The runs of item `it` on the side that reads (send) or writes (receive) on this rank.
  auto item_runs = [&](const CirculantItem& it, bool sending, bool final) {
    if (sending && it.held >= 0) {
      add(Run{it.held, 0, it.size, it.size, it.size, 1}, true);
    } else if (!sending && !final) {
      add(Run{0, it.held, it.size, it.size, it.size, 1}, true);
    } else {
      for (const Run& r : ph.runs_of(it)) add(r, false);
    }
  };
  for (std::size_t t = 0; t < ph.steps.size(); ++t) {
    const CirculantIo& io = ph.steps[t];
    schedule::Step step;
    step.joins_previous = t > 0 && io.group == ph.steps[t - 1].group;
    if (io.send.peer >= 0 && io.send.size > 0) {
      Message m;
      m.peer = io.send.peer;
      m.first = st.runs.size();
      for (std::size_t k = io.send.first; k < io.send.first + io.send.count; ++k) item_runs(ph.items[ph.parts[k]], true, false);
      m.nruns = st.runs.size() - m.first;
      m.size = io.send.size;
      m.direct = io.send.source_at >= 0 || io.send.held_at >= 0;
      step.sends.push_back(st.sends.size());
      st.sends.push_back(m);
    }
    if (io.recv.peer >= 0 && io.recv.size > 0) {
      Message m;
      m.peer = io.recv.peer;
      m.first = st.runs.size();
      for (std::size_t k = io.recv.first; k < io.recv.first + io.recv.count; ++k) {
        const std::size_t it = ph.parts[k];
        item_runs(ph.items[it], false, io.recv.dst_at >= 0 || io.unpack_now || delivered[it] != 0);
      }
      m.nruns = st.runs.size() - m.first;
      m.size = io.recv.size;
      m.direct = io.recv.dst_at >= 0;
      if (!m.direct && !io.unpack_now) m.relay_at = io.recv.at;
      step.recvs.push_back(st.recvs.size());
      st.recvs.push_back(m);
    }
    st.schedule.steps.push_back(std::move(step));
  }
  // Local: the blocks that start and end here.
  st.local.peer = -1;
  st.local.first = st.runs.size();
  for (std::size_t k : ph.deliveries) {
    const CirculantItem& it = ph.items[k];
    if (it.held >= 0) continue;
    for (const Run& r : ph.runs_of(it)) add(r, false);
    st.local.size += it.size;
  }
  st.local.nruns = st.runs.size() - st.local.first;
  // No run of this rank in the relay area: its messages are plain (and may be cut into pieces
  // when the stage does not forward).
  if (std::find(st.in_relay.begin(), st.in_relay.end(), 1) == st.in_relay.end()) st.in_relay.clear();
  return st;
}

/// The circulant plan of `rank` (seed 001): one stage per R(K, P) phase, each with the degree
/// degree_of(shape) gives it; two phases go through the intermediate CYCLIC(lcm(s, t)) array.
template <class DegreeOf>
Plan plan_circulant(index_t s, index_t t, index_t n, int nprocs, int rank, DegreeOf&& degree_of) {
  Plan plan;
  plan.rank = rank;
  plan.nprocs = nprocs;
  const std::vector<PhaseShape> shapes = circulant_phases(s, t, nprocs);
  int degree = 0, depth = 0;
  for (std::size_t f = 0; f < shapes.size(); ++f) {
    const PhaseShape& ps = shapes[f];
    // The larger of this rank's local arrays of the phase: the bound of a group's scratch.
    auto local = [&](index_t block) { return Cyclic<dynamic>::mapping(Cyclic<dynamic>(block), n, nprocs).local_size(rank); };
    const index_t limit = std::max(local(ps.x), local(ps.x * ps.shape.k));
    const int d = degree_of(ps.shape);
    degree = std::max(degree, d);
    depth = std::max(depth, schedule::indirect_depth(ps.shape));
    const CirculantPhase ph = build_circulant_phase(ps.shape, ps.x, n, rank, ps.reverse, d, limit);
    const Buffer from = f == 0 ? Buffer::source : Buffer::intermediate;
    const Buffer to = f + 1 == shapes.size() ? Buffer::destination : Buffer::intermediate;
    plan.stages.push_back(phase_stage(ph, from, to));
  }
  if (shapes.size() == 2) {
    const index_t l = shapes[0].x * shapes[0].shape.k;
    plan.intermediate = Cyclic<dynamic>::mapping(Cyclic<dynamic>(l), n, nprocs).local_size(rank);
  }
  plan.schedule_name = degree == 0 ? "direct" : degree >= depth ? "indirect" : "hybrid(" + std::to_string(degree) + ")";
  return plan;
}

template <class Policy, class From, class To>
Plan plan_circulant_policy(const From& from, const To& to, int rank, Policy policy, const char* name) {
  check_cyclic_pair(from.size(), to.size(), from.nprocs(), to.nprocs(), rank, name);
  ++plans_built_counter();
  return plan_circulant(from.block_size(), to.block_size(), from.size(), from.nprocs(), rank,
                        [&](const index::Circulant& c) { return circulant_degree(c, policy); });
}

}  // namespace detail

namespace detail {
constexpr const char* circulant_name(schedule::direct_t) { return "direct"; }
constexpr const char* circulant_name(schedule::indirect_t) { return "indirect"; }
constexpr const char* circulant_name(schedule::hybrid_t) { return "hybrid"; }

/// Cyclic<s> -> Cyclic<t> under seed 001's direct, indirect or hybrid(d) schedule (two phases
/// through CYCLIC(lcm(s, t)) when neither block size divides the other).
template <class Policy>
struct circulant_planner {
  template <class From, class To>
  static constexpr bool supports = CyclicLayout<From> && CyclicLayout<To>;
  template <class From, class To>
  static constexpr void require() {
    static_assert(supports<From, To>,
                  "redist::schedule::direct, indirect and hybrid require Cyclic<s> source and target distributions");
  }
  template <class From, class To>
  static Plan plan(const From& from, const To& to, int rank, Policy p) {
    const auto [f, t] = cyclic_pair(from, to, circulant_name(p));
    return plan_circulant_policy(f, t, rank, p, circulant_name(p));
  }
};
}  // namespace detail

template <>
struct planner<schedule::direct_t> : detail::circulant_planner<schedule::direct_t> {};
template <>
struct planner<schedule::indirect_t> : detail::circulant_planner<schedule::indirect_t> {};
template <>
struct planner<schedule::hybrid_t> : detail::circulant_planner<schedule::hybrid_t> {};

namespace detail {
/// What the GDM model needs to know of a Cyclic pair: its R(K, P) phases, and BCC's messages and
/// steps per process, taken from rank 0's send template (the same on every rank).
struct CyclicModelInputs {
  index::Circulant phases[2];
  int nphases = 0;
  index_t bcc_messages = 0, bcc_steps = 0;
};
template <class From, class To>
CyclicModelInputs cyclic_model_inputs(const From& from, const To& to) {
  const index_t s = from.block_size(), t = to.block_size(), n = from.size();
  const int nprocs = from.nprocs();
  CyclicModelInputs in;
  const std::vector<PhaseShape> shapes = circulant_phases(s, t, nprocs);
  for (const PhaseShape& ps : shapes) in.phases[in.nphases++] = ps.shape;
  const index::BasicCycle bc(s, t, nprocs);
  // Rank 0's destinations in order of appearance, itself included: BCC's steps (as
  // schedule::appearance_order makes them), and the messages of the busiest process, which
  // (unlike rank 0, whose first block stays) may send to as many others (the model charges the
  // busiest process, as predict() does for direct). From the static tables when the pair has them.
  const std::vector<int> dests = cycle_destinations<From, To>(bc, 0, index::meta_size(bc, n));
  in.bcc_steps = static_cast<index_t>(dests.size());
  in.bcc_messages = std::min<index_t>(in.bcc_steps, nprocs - 1);
  return in;
}
}  // namespace detail

/// The schedules the GDM model of `m` considers for a Cyclic pair: BCC, always, and the hybrid(d)
/// (d = 0: direct, up to the indirect depth) whose time under the model is at most `window` times
/// the cheapest prediction, cheapest first (schedule::cyclic_candidates). A pure function of the
/// layouts: the same on every rank. The first is the model's choice; schedule::automatic times
/// the others against it when the plan is run again (array/plan_cache.hpp).
template <class From, class To>
  requires CyclicMapping<From> && CyclicMapping<To>
std::vector<schedule::CyclicChoice> automatic_candidates(const From& from, const To& to,
                                                         const schedule::modeled_t& m = {}, double window = 2.0) {
  const detail::CyclicModelInputs in = detail::cyclic_model_inputs(from, to);
  return schedule::cyclic_candidates(in.phases, in.nphases, in.bcc_messages, in.bcc_steps, from.size(),
                                     m.element_bytes, m.machine, window);
}

/// Largest P · min(BC, meta-elements) for which automatic runs BCC in its contention-free steps.
/// That order is a global schedule: every rank colours the messages of all P ranks, O(P · BC)
/// and more (1.3 ms for Cyclic(8) -> Cyclic(5) at P = 1024). Above it, BCC's messages are posted
/// at once (the general plan: the same messages, planned from this rank's own).
inline constexpr index_t max_bcc_schedule_work = index_t{1} << 15;

namespace detail {
/// True when BCC's contention-free steps cost little to build (see max_bcc_schedule_work).
template <class From, class To>
bool bcc_schedule_affordable(const From& from, const To& to) noexcept {
  const index_t s = from.block_size(), t = to.block_size(), p = std::max<index_t>(from.nprocs(), 1);
  const index_t g = std::gcd(s, t);
  const index_t bc = s / g * (t / g), meta = from.size() / g + 1;
  return std::min(bc, meta) <= max_bcc_schedule_work / p;
}
}  // namespace detail

/// The plan of `rank` that runs `choice` for the Cyclic pair from -> to: the basic-cycle
/// calculation in its contention-free order (measured 6-22 % faster than BCC's appearance order
/// on the four Cyclic cases of redist-bench, doc/performance.md) or, when that order costs more
/// to build than max_bcc_schedule_work, the same messages posted at once; or the circulant hybrid(d).
template <class From, class To>
  requires CyclicMapping<From> && CyclicMapping<To>
Plan plan_for_choice(const From& from, const To& to, int rank, const schedule::CyclicChoice& choice) {
  detail::check_cyclic_pair(from.size(), to.size(), from.nprocs(), to.nprocs(), rank, "automatic");
  if (choice.kind == schedule::CyclicChoice::method::basic_cycles)
    return detail::bcc_schedule_affordable(from, to) ? plan_with(from, to, rank, schedule::bcc_contention_free)
                                                     : build_plan(from, to, rank);
  ++detail::plans_built_counter();
  return detail::plan_circulant(from.block_size(), to.block_size(), from.size(), from.nprocs(), rank,
                                [&](const index::Circulant& c) { return std::min(choice.d, schedule::indirect_depth(c)); });
}

}  // namespace redist
