/// @file Defines CirculantPlan, one rank's part of CYCLIC(x) <-> CYCLIC(Kx) under seed 001's direct, indirect and hybrid schedules (two phases through CYCLIC(lcm) for other Cyclic pairs), their planners, and the GDM model's choice for a Cyclic pair (plan_modeled, automatic_candidates, with_choice).
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

/// One R(K, P) phase of one rank.
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

/// The plan of a Cyclic pair that runs either the basic-cycle calculation (method bcc: the plan
/// `bcc`) or seed 001's circulant schedules (method circulant: `phases`, one R(K, P) when one
/// block size divides the other, else two through CYCLIC(lcm(s, t)), the intermediate array
/// living in the workspace).
/// Under schedule::automatic / modeled `bcc` is the pair's complete BCC plan, also kept by a
/// circulant plan as its fallback (`fallback`): when the scratch budget of the options cannot
/// hold the circulant workspace on some rank, all ranks run BCC instead (agreed through the
/// piece, see piece_limit). Under the forced policies (direct, indirect, hybrid) only bcc.general
/// is set, and it only describes the circulant traffic (sends, recvs and schedule, no runs), for
/// statistics, and the budget is not applied. The rank, the process count and the agreed piece
/// live in bcc.general only.
struct CirculantPlan {
  CyclePlan bcc;
  enum class method : unsigned char { bcc, circulant } kind = method::circulant;
  bool fallback = false;                ///< bcc is a complete BCC plan
  /// Whether execution takes the circulant phases (else the plan bcc).
  bool runs_circulant() const noexcept { return kind == method::circulant && (!fallback || bcc.general.piece == 0); }
  std::vector<CirculantPhase> phases;
  index_t intermediate = 0;             ///< elements of this rank's CYCLIC(lcm) array (two phases)
  schedule::CyclicChoice choice;        ///< what schedule::automatic / modeled chose (else unset)

  /// Elements of workspace the circulant execution needs: the intermediate array, then the
  /// largest relay and send areas of a phase.
  index_t scratch_elements() const noexcept {
    index_t e = 0;
    for (const CirculantPhase& ph : phases) e = std::max(e, ph.held_size + ph.send_size);
    return intermediate + e;
  }
  /// Communication steps of the schedule (all phases).
  std::size_t steps() const noexcept {
    std::size_t s = 0;
    for (const CirculantPhase& ph : phases) s += ph.global_steps;
    return s;
  }
  /// The piece size agreed by all ranks (see piece_limit(const CirculantPlan&)).
  void set_piece(index_t piece) noexcept { bcc.set_piece(piece); }
};

/// The messages of a CirculantPlan: those of bcc (automatic, modeled: the BCC plan's, whichever
/// method runs; forced policies: the circulant traffic, without runs).
inline const Plan& messages_of(const CirculantPlan& plan) noexcept { return messages_of(plan.bcc); }

namespace detail {

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
    io.overlap = st.phase == schedule::circulant_phase::direct;
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
    const auto d = std::find(ph.deliveries.begin(), ph.deliveries.end(), it);
    if (d == ph.deliveries.end() || ph.items[it].nruns != 1 || !ph.runs[ph.items[it].first].dst_contiguous()) continue;
    io.recv.dst_at = ph.runs[ph.items[it].first].dst;
    io.recv.at = -1;
    ph.deliveries.erase(d);
  }
  // Lay out the areas. Relay area: the receives whose blocks are forwarded later or wait for the
  // end. Round area: per sequential step its packed send; per group of direct steps (as many
  // consecutive ones as fit in local_limit elements, at least one) their packed sends, then the
  // receives that hold final blocks only, unpacked when the group completes.
  auto is_final = [&](const CirculantIo& io) {
    if (!io.overlap || io.recv.peer < 0 || io.recv.size == 0 || io.recv.dst_at >= 0) return false;
    for (std::size_t k = io.recv.first; k < io.recv.first + io.recv.count; ++k)
      if (std::find(ph.deliveries.begin(), ph.deliveries.end(), ph.parts[k]) == ph.deliveries.end()) return false;
    return true;
  };
  auto move_items = [&](const CirculantMessage& m, index_t at) {
    for (std::size_t k = m.first; k < m.first + m.count; ++k) ph.items[ph.parts[k]].held += at - m.at;
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
        for (std::size_t k = io.recv.first; k < io.recv.first + io.recv.count; ++k)
          ph.deliveries.erase(std::find(ph.deliveries.begin(), ph.deliveries.end(), ph.parts[k]));
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

/// The circulant plan of `rank`, each phase with the degree degree_of(shape) gives it.
template <class DegreeOf>
CirculantPlan plan_circulant(index_t s, index_t t, index_t n, int nprocs, int rank, DegreeOf&& degree_of) {
  CirculantPlan plan;
  plan.kind = CirculantPlan::method::circulant;
  Plan& traffic = plan.bcc.general;
  traffic.rank = rank;
  traffic.nprocs = nprocs;
  const std::vector<PhaseShape> shapes = circulant_phases(s, t, nprocs);
  for (const PhaseShape& ps : shapes) {
    // The larger of this rank's local arrays of the phase: the round area's bound.
    auto local = [&](index_t block) { return Cyclic<dynamic>::mapping(Cyclic<dynamic>(block), n, nprocs).local_size(rank); };
    const index_t limit = std::max(local(ps.x), local(ps.x * ps.shape.k));
    plan.phases.push_back(build_circulant_phase(ps.shape, ps.x, n, rank, ps.reverse, degree_of(ps.shape), limit));
  }
  if (shapes.size() == 2) {
    const index_t l = shapes[0].x * shapes[0].shape.k;
    plan.intermediate = Cyclic<dynamic>::mapping(Cyclic<dynamic>(l), n, nprocs).local_size(rank);
  }
  // The traffic, as a Plan (for statistics): one Message per send and receive, no runs.
  for (const CirculantPhase& ph : plan.phases)
    for (const CirculantIo& io : ph.steps) {
      schedule::Step step;
      if (io.send.peer >= 0 && io.send.size > 0) {
        step.sends.push_back(traffic.sends.size());
        traffic.sends.push_back(Message{io.send.peer, 0, 0, io.send.size, 0, false});
      }
      if (io.recv.peer >= 0 && io.recv.size > 0) {
        step.recvs.push_back(traffic.recvs.size());
        traffic.recvs.push_back(Message{io.recv.peer, 0, 0, io.recv.size, 0, false});
      }
      traffic.schedule.steps.push_back(std::move(step));
    }
  return plan;
}

template <class Policy, class From, class To>
CirculantPlan plan_circulant_policy(const From& from, const To& to, int rank, Policy policy, const char* name) {
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
  static constexpr bool supports = CyclicMapping<From> && CyclicMapping<To>;
  template <class From, class To>
  static constexpr void require() {
    static_assert(supports<From, To>,
                  "redist::schedule::direct, indirect and hybrid require Cyclic<s> source and target distributions");
  }
  template <class From, class To>
  static CirculantPlan plan(const From& from, const To& to, int rank, Policy p) {
    return plan_circulant_policy(from, to, rank, p, circulant_name(p));
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

/// The choice of the GDM model for a Cyclic pair: BCC or a circulant hybrid(d).
template <class From, class To>
schedule::CyclicChoice choose_for_cyclic(const From& from, const To& to, const schedule::modeled_t& m) {
  const CyclicModelInputs in = cyclic_model_inputs(from, to);
  return schedule::choose_cyclic(in.phases, in.nphases, in.bcc_messages, in.bcc_steps, from.size(), m.element_bytes,
                                 m.machine);
}

/// The plan of `rank` that runs `choice`, with `bcc` (the pair's BCC plan) as its plan bcc and
/// fallback. Counts no plan in plans_built.
template <class From, class To>
CirculantPlan plan_for_choice(const From& from, const To& to, int rank, const schedule::CyclicChoice& choice,
                              const CyclePlan& bcc) {
  CirculantPlan plan;
  if (choice.kind == schedule::CyclicChoice::method::circulant)
    plan = plan_circulant(from.block_size(), to.block_size(), from.size(), from.nprocs(), rank,
                          [&](const index::Circulant& c) { return std::min(choice.d, schedule::indirect_depth(c)); });
  plan.bcc = bcc;
  plan.kind = choice.kind == schedule::CyclicChoice::method::bcc ? CirculantPlan::method::bcc
                                                                  : CirculantPlan::method::circulant;
  plan.fallback = true;
  plan.choice = choice;
  return plan;
}

/// The plan under the model's choice for a Cyclic pair.
template <class From, class To>
CirculantPlan plan_modeled(const From& from, const To& to, int rank, const schedule::modeled_t& m) {
  check_cyclic_pair(from.size(), to.size(), from.nprocs(), to.nprocs(), rank, "automatic");
  const schedule::CyclicChoice choice = choose_for_cyclic(from, to, m);
  // The BCC plan, in its contention-free order (measured 6-22 % faster than BCC's appearance
  // order on the four Cyclic cases of redist-bench, doc/performance.md): what runs when BCC is
  // the choice, or the circulant workspace exceeds the budget (plan_with counts the plan once in
  // plans_built).
  return plan_for_choice(from, to, rank, choice, plan_with(from, to, rank, schedule::bcc_contention_free));
}
}  // namespace detail

/// The schedules schedule::automatic times on the first run of a Cyclic pair's plan
/// (DistArray's `b = a`, make_plan): BCC, always, and the hybrid(d) (d = 0: direct, up to the
/// indirect depth) whose time under the GDM model of `m` is at most `window` times the cheapest
/// prediction, cheapest first (schedule::cyclic_candidates). A pure function of the layouts:
/// the same on every rank.
template <class From, class To>
  requires CyclicMapping<From> && CyclicMapping<To>
std::vector<schedule::CyclicChoice> automatic_candidates(const From& from, const To& to,
                                                         const schedule::modeled_t& m = {}, double window = 2.0) {
  const detail::CyclicModelInputs in = detail::cyclic_model_inputs(from, to);
  return schedule::cyclic_candidates(in.phases, in.nphases, in.bcc_messages, in.bcc_steps, from.size(),
                                     m.element_bytes, m.machine, window);
}

/// `plan` (made under schedule::automatic or modeled for from -> to) running `choice` instead:
/// the same BCC plan (bcc) as its fallback, the circulant phases of `choice`. This is how
/// schedule::automatic switches to the candidate it measured fastest; it counts no plan in
/// plans_built.
template <class From, class To>
  requires CyclicMapping<From> && CyclicMapping<To>
CirculantPlan with_choice(const CirculantPlan& plan, const From& from, const To& to,
                          const schedule::CyclicChoice& choice) {
  REDIST_EXPECTS(plan.fallback, "redist::with_choice(plan, from, to, choice) requires a plan of schedule::automatic or modeled");
  return detail::plan_for_choice(from, to, plan.bcc.general.rank, choice, plan.bcc);
}

/// The piece size for a scratch budget of `budget` elements, agreed by all ranks (the smallest
/// nonzero value wins; 0 means no limit):
///  - a BCC plan: as piece_limit(const CyclePlan&);
///  - a circulant plan with its BCC fallback (automatic, modeled): 0 when the circulant workspace
///    (scratch_elements) fits, so that the circulant schedule runs only when every rank can afford
///    it; else BCC's piece (at least 1), which makes every rank run BCC. The agreed piece is the
///    smallest among the ranks that do not fit; a rank whose circulant workspace fitted but whose
///    BCC needs smaller pieces may then exceed its budget (by the difference between the ranks'
///    needs, a few blocks for the nearly equal local arrays of Cyclic layouts);
///  - a circulant plan of a forced policy: 0. Circulant messages are not cut; their workspace is
///    scratch_elements() whatever the budget (doc/circulant.md).
inline index_t piece_limit(const CirculantPlan& plan, index_t budget) {
  if (plan.kind == CirculantPlan::method::circulant && !plan.fallback) return 0;
  const index_t bcc = piece_limit(plan.bcc, budget);
  if (plan.kind == CirculantPlan::method::bcc) return bcc;
  if (plan.scratch_elements() <= budget) return 0;
  return bcc != 0 ? bcc : std::max<index_t>(plan.bcc.quantum, plan.bcc.slots * plan.bcc.quantum);
}

/// The workspace of a CirculantPlan (see WorkspaceNeed): the circulant execution's
/// scratch_elements() when it may run, the BCC plan's when that may.
inline WorkspaceNeed workspace_need(const CirculantPlan& plan, index_t budget) {
  if (plan.kind == CirculantPlan::method::bcc) return workspace_need(plan.bcc, budget);
  if (!plan.fallback) return {plan.scratch_elements(), 0};
  const WorkspaceNeed bcc = workspace_need(plan.bcc, budget);
  return {piece_limit(plan, budget) == 0 ? std::max(bcc.buffer, plan.scratch_elements()) : bcc.buffer, 0};
}

}  // namespace redist
