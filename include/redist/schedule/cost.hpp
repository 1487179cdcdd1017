/// @file Defines the GDM cost model of seed 001 (startup Ts, per-byte Td), its predictions for the direct, indirect, hybrid and basic-cycle schedules, and the choice of schedule::automatic for Cyclic pairs.
#pragma once

#include <array>
#include <algorithm>
#include <cstddef>
#include <vector>

#include <redist/index/circulant.hpp>
#include <redist/schedule/circulant.hpp>
#include <redist/schedule/schedule.hpp>

namespace redist::schedule {

/// The machine of the GDM model: a message of m bytes costs ts + m·td seconds, and a step in
/// which every process sends at most one message and receives at most one costs as much as its
/// largest message. redist adds `tstep`, the cost of one synchronization (a step that waits for
/// its messages before the next one starts), which the paper's synchronous steps fold into ts:
/// it separates schedules run step by step (BCC, the shifts of indirect and hybrid) from the
/// direct part of a circulant schedule, which redist posts at once. runtime::gdm_parameters(comm)
/// measures all three (once per communicator).
struct Machine {
  double ts = 0;     ///< startup, seconds per message
  double td = 0;     ///< transmission, seconds per byte
  double tstep = 0;  ///< synchronization, seconds per sequential step
  friend constexpr bool operator==(const Machine&, const Machine&) = default;
};

/// What schedule::automatic assumes when it is given no measurement: Open MPI's shared-memory
/// transport on the development machine, 4 ranks on 2 cores (measured by runtime::gdm_parameters;
/// see doc/circulant.md). Use schedule::modeled(runtime::gdm_parameters(comm)) for the real machine.
inline constexpr Machine default_machine{4.0e-6, 1.0e-10, 1.0e-6};

/// The element size schedule::automatic assumes (it is chosen before the element type is known).
inline constexpr index_t automatic_element_bytes = 8;

/// schedule::automatic with a given machine and element size: for Cyclic pairs, the schedule the
/// GDM model predicts cheapest among BCC, direct, indirect and hybrid(d). Every process must pass
/// the same values (runtime::gdm_parameters gives every rank the same ones).
struct modeled_t {
  Machine machine = default_machine;
  index_t element_bytes = automatic_element_bytes;
  /// What every rank must pass alike (the consistency check hashes it).
  constexpr std::array<double, 4> parameters() const noexcept {
    return {machine.ts, machine.td, machine.tstep, static_cast<double>(element_bytes)};
  }
  friend constexpr bool operator==(const modeled_t&, const modeled_t&) = default;
};
constexpr modeled_t modeled(Machine m, index_t element_bytes = automatic_element_bytes) { return {m, element_bytes}; }

template <>
inline constexpr bool is_policy<modeled_t> = true;

/// Corollary 2 as printed: (i) direct, (ii) indirect, (iii) hybrid(d), for N elements of b bytes.
/// Theorem 3's step counts are not always reached (ERRATA 001); predict() uses the real ones.
constexpr double corollary2_direct(index_t k, index_t n, index_t p, index_t b, Machine m) noexcept {
  return static_cast<double>(k) * m.ts + static_cast<double>(n) / static_cast<double>(p) * static_cast<double>(b) * m.td;
}
constexpr double corollary2_indirect(index_t k, index_t n, index_t p, index_t b, Machine m) noexcept {
  const double l = index::ceil_log2(k), np = static_cast<double>(n) / static_cast<double>(p);
  return (l + 2) * m.ts + ((l + 1) * np / 2 + np) * static_cast<double>(b) * m.td;
}
constexpr double corollary2_hybrid(index_t k, index_t n, index_t p, index_t b, int d, Machine m) noexcept {
  const double np = static_cast<double>(n) / static_cast<double>(p);
  const double steps = d + static_cast<double>((k + (index_t{1} << d) - 1) >> d);
  return steps * m.ts + (d * np / 2 + np) * static_cast<double>(b) * m.td;
}

/// The GDM time of a circulant schedule of R(K, P) moving n elements of b bytes as redist runs
/// it: per shift step, tstep + ts + its message (rows moved × the elements of one block row,
/// n / (P·K)); the direct steps, posted at once, one tstep, ts per message of the busiest
/// process (a step in which a process keeps its blocks sends nothing) and their messages' bytes.
/// With tstep = 0 the direct schedule's time is Corollary 2 (i) whenever some process sends in
/// every step. Cost: O(K log K + G · steps + the columns that keep blocks), not O(P).
constexpr double predict(const CirculantSchedule& s, index_t n, index_t b, Machine m) {
  const index_t k = s.shape.k, g = s.shape.g;
  const double per_row = static_cast<double>(n) / static_cast<double>(s.shape.p * k);
  // The rows each step moves: a shift step's by its bit; the direct groups' in one pass over the
  // rows, each row looked up by its group's keys.
  std::vector<index_t> rows(s.steps.size(), 0);
  std::vector<std::array<index_t, 3>> groups;  // (key1, key2, step) of the direct steps, sorted
  for (std::size_t j = 0; j < s.steps.size(); ++j) {
    const CirculantStep& st = s.steps[j];
    if (st.phase == circulant_phase::direct_rows) groups.push_back({st.key1, st.key2, static_cast<index_t>(j)});
    else
      for (index_t i = 0; i < k; ++i) rows[j] += s.moves(st, i) ? 1 : 0;
  }
  std::sort(groups.begin(), groups.end());
  for (index_t i = 0; i < k; ++i) {
    const std::array<index_t, 3> key{s.key1_of(i / g), s.key2_of(i % g), -1};
    const auto it = std::lower_bound(groups.begin(), groups.end(), key);
    if (it != groups.end() && (*it)[0] == key[0] && (*it)[1] == key[1]) ++rows[static_cast<std::size_t>((*it)[2])];
  }
  double t = 0;
  for (std::size_t j = 0; j < s.steps.size(); ++j) {
    const double bytes = static_cast<double>(rows[j]) * per_row * static_cast<double>(b) * m.td;
    t += s.steps[j].phase == circulant_phase::direct_rows ? bytes : m.tstep + m.ts + bytes;
  }
  if (groups.empty()) return t;
  // The busiest process sends in every direct step but those in which it keeps its blocks: while
  // fewer (step, column) pairs keep than there are columns, some column keeps in none.
  const auto direct_steps = static_cast<index_t>(groups.size());
  index_t kept = 0;
  for (const auto& gr : groups) kept += s.kept_columns(s.steps[static_cast<std::size_t>(gr[2])]);
  index_t busiest = direct_steps;
  if (kept >= s.shape.p) {
    std::vector<index_t> kept_by(static_cast<std::size_t>(s.shape.p), 0);
    for (const auto& gr : groups)
      s.for_each_kept_column(s.steps[static_cast<std::size_t>(gr[2])],
                             [&](index_t c) { ++kept_by[static_cast<std::size_t>(c)]; });
    busiest = direct_steps - *std::min_element(kept_by.begin(), kept_by.end());
  }
  return t + m.tstep + static_cast<double>(busiest) * m.ts;
}

/// The GDM time of the basic-cycle calculation's exchange: `messages` startups (one process's),
/// `steps` synchronizations (it runs its schedule step by step) and the process's share of the
/// array once.
constexpr double predict_bcc(index_t messages, index_t steps, index_t n, index_t p, index_t b, Machine m) noexcept {
  return static_cast<double>(messages) * m.ts + static_cast<double>(steps) * m.tstep +
         static_cast<double>(n) / static_cast<double>(p) * static_cast<double>(b) * m.td;
}

/// The most rows K of an R(K, P) phase for which schedule::automatic considers a circulant
/// schedule. Building a circulant plan visits every row in every step, O(K · steps) with up to K
/// steps (about 1.4 s at K = 2^14 on 4 ranks), while BCC's plan costs O(basic cycle); the
/// circulant schedules pay off for small K (few startups saved against K steps) and their plans
/// for large K would cost more than the exchange. Above it automatic runs BCC, untimed.
inline constexpr index_t max_circulant_rows = 1024;

/// True when every phase has at most max_circulant_rows rows.
constexpr bool circulant_plannable(const index::Circulant* phases, int nphases) noexcept {
  for (int i = 0; i < nphases; ++i)
    if (phases[i].k > max_circulant_rows) return false;
  return true;
}

/// What schedule::automatic runs for a Cyclic pair.
struct CyclicChoice {
  enum class method : unsigned char { basic_cycles, circulant } kind = method::basic_cycles;
  int d = 0;           ///< hybrid degree when circulant (0: direct; indirect_depth: indirect)
  double predicted = 0;  ///< seconds, the model's time of the choice
  /// seconds, the slowest rank's median time of the choice when schedule::automatic timed its
  /// candidates on the first run (0: not timed; the choice is the model's)
  double measured = 0;
  friend constexpr bool operator==(const CyclicChoice&, const CyclicChoice&) = default;
};

/// The schedules schedule::automatic times on its first run (DistArray, make_plan): BCC, always
/// (it runs within any scratch budget), and every hybrid(d), d from 0 (direct) to the larger
/// indirect depth of `phases`, whose model time is at most `window` times the cheapest one's;
/// cheapest first (ties: BCC, then the smaller d). The same inputs give the same list on every
/// process.
inline std::vector<CyclicChoice> cyclic_candidates(const index::Circulant* phases, int nphases, index_t bcc_messages,
                                                   index_t bcc_steps, index_t n, index_t b, Machine m, double window) {
  std::vector<CyclicChoice> all{
      CyclicChoice{CyclicChoice::method::basic_cycles, 0, predict_bcc(bcc_messages, bcc_steps, n, phases[0].p, b, m)}};
  if (!circulant_plannable(phases, nphases)) return all;
  int depth = 0;
  for (int i = 0; i < nphases; ++i) depth = depth > indirect_depth(phases[i]) ? depth : indirect_depth(phases[i]);
  for (int d = 0; d <= depth; ++d) {
    double t = 0;
    for (int i = 0; i < nphases; ++i) t += predict(circulant_schedule(phases[i], d), n, b, m);
    all.push_back(CyclicChoice{CyclicChoice::method::circulant, d, t});
  }
  std::stable_sort(all.begin(), all.end(),
                   [](const CyclicChoice& x, const CyclicChoice& y) { return x.predicted < y.predicted; });
  const double limit = all.front().predicted * window;
  std::erase_if(all, [&](const CyclicChoice& c) {
    return c.kind == CyclicChoice::method::circulant && c.predicted > limit;
  });
  return all;
}

/// The cheapest of BCC (`bcc_messages` per process in `bcc_steps` steps) and hybrid(d) for every d from 0 (direct) to
/// the indirect depth of each phase of `phases` (one R(K, P), or two for a general pair through
/// CYCLIC(lcm)). Bandwidth-bound, a circulant schedule must beat BCC by 10 %; otherwise ties go to
/// the circulant schedule, then to the smaller d. BCC when a phase has more than
/// max_circulant_rows rows. The same inputs give the same choice on
/// every process.
constexpr CyclicChoice choose_cyclic(const index::Circulant* phases, int nphases, index_t bcc_messages,
                                     index_t bcc_steps, index_t n, index_t b, Machine m) {
  CyclicChoice best{CyclicChoice::method::basic_cycles, 0, predict_bcc(bcc_messages, bcc_steps, n, phases[0].p, b, m)};
  // Bandwidth-bound: the bytes term is at least 8 times BCC's startups and steps. There the model
  // cannot tell BCC from a circulant schedule (both move each byte once) and BCC's one-pass pack
  // measured faster (doc/circulant.md), so a circulant schedule must be predicted 10 % faster.
  // Otherwise ties (within rounding) go to the circulant schedule, which, posted at once, measured
  // as fast or faster on small arrays.
  const double bytes = static_cast<double>(n) / static_cast<double>(phases[0].p) * static_cast<double>(b) * m.td;
  const bool bandwidth_bound = bytes >= 8 * (best.predicted - bytes);
  if (!circulant_plannable(phases, nphases)) return best;
  int depth = 0;
  for (int i = 0; i < nphases; ++i) depth = depth > indirect_depth(phases[i]) ? depth : indirect_depth(phases[i]);
  for (int d = 0; d <= depth; ++d) {
    double t = 0;
    for (int i = 0; i < nphases; ++i) t += predict(circulant_schedule(phases[i], d), n, b, m);
    bool better = t < best.predicted;
    if (best.kind == CyclicChoice::method::basic_cycles)
      better = bandwidth_bound ? t < best.predicted * 0.9 : t <= best.predicted * (1 + 1e-9);
    if (better) best = {CyclicChoice::method::circulant, d, t};
  }
  return best;
}

}  // namespace redist::schedule
