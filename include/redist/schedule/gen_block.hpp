/// @file Defines the GEN_BLOCK schedules of seed 002 (TPDR, E-TPDR), the list-scheduling and all-at-once baselines, LMR costs, the cost model and their policies.
#pragma once

#include <array>
#include <algorithm>
#include <cstddef>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include <redist/config.hpp>
#include <redist/index/gen_block.hpp>
#include <redist/schedule/schedule.hpp>
#include <redist/schedule/transfer.hpp>

namespace redist::schedule {

// ---------------------------------------------------------------------------------------------
// Policies
// ---------------------------------------------------------------------------------------------

/// The two-phase degree reduction of seed 002 (Sec. 4.1), for GenBlock -> GenBlock. A local
/// message costs size / lmr_ratio (LMR); 1 means no local discount.
struct tpdr_t {
  double lmr_ratio = 1.0;
  /// What every rank must pass alike (the consistency check hashes it).
  constexpr std::array<double, 1> parameters() const noexcept { return {lmr_ratio}; }
  friend constexpr bool operator==(const tpdr_t&, const tpdr_t&) = default;
};
/// TPDR with the edge complement of Sec. 4.2 (E-TPDR).
struct etpdr_t {
  double lmr_ratio = 1.0;
  /// What every rank must pass alike (the consistency check hashes it).
  constexpr std::array<double, 1> parameters() const noexcept { return {lmr_ratio}; }
  friend constexpr bool operator==(const etpdr_t&, const etpdr_t&) = default;
};
/// The list-scheduling baseline: messages by decreasing cost, each into the earliest step where
/// its sender and receiver are free, relocating by a Kempe-chain swap when no step is free.
struct list_t {
  double lmr_ratio = 1.0;
  /// What every rank must pass alike (the consistency check hashes it).
  constexpr std::array<double, 1> parameters() const noexcept { return {lmr_ratio}; }
  friend constexpr bool operator==(const list_t&, const list_t&) = default;
};

inline constexpr tpdr_t tpdr{};
inline constexpr etpdr_t etpdr{};
inline constexpr list_t list{};

template <>
inline constexpr bool is_policy<tpdr_t> = true;
template <>
inline constexpr bool is_policy<etpdr_t> = true;
template <>
inline constexpr bool is_policy<list_t> = true;

// ---------------------------------------------------------------------------------------------
// Costs
// ---------------------------------------------------------------------------------------------

/// LMR (local message reduction): a message costs its size in elements, a local one (sender ==
/// receiver) size / lmr_ratio, where lmr_ratio is the machine's local-copy speed over its
/// point-to-point speed (runtime::local_remote_ratio measures it). lmr_ratio == 1 is plain size.
struct MessageCost {
  double lmr_ratio = 1.0;
  constexpr double operator()(const Transfer& m) const noexcept {
    return m.local() ? static_cast<double>(m.size) / lmr_ratio : static_cast<double>(m.size);
  }
};

// The message list `msgs` below is index::gen_block_messages' (Transfers in global order, a
// part's messages consecutive). A local message is an edge like any other: it occupies its
// source and its destination part during its step, so degrees count it (LocalMessages::counted).
// GlobalSchedule (schedule/schedule.hpp): here steps[k] holds the indices (into msgs,
// increasing) of the messages of step k + 1.

/// Σ over steps of the largest message of the step, by cost (seed 002's schedule cost).
constexpr double schedule_cost(std::span<const Transfer> msgs, const GlobalSchedule& s, MessageCost cost = {}) {
  double total = 0;
  for (const auto& step : s.steps) {
    double longest = 0;
    for (std::size_t m : step) longest = std::max(longest, cost(msgs[m]));
    total += longest;
  }
  return total;
}

/// max over nodes (source and destination parts) of the total cost of their messages: no
/// schedule in which a node handles one message per step costs less.
constexpr double lower_bound(std::span<const Transfer> msgs, int nprocs, MessageCost cost = {}) {
  std::vector<double> load(2 * static_cast<std::size_t>(nprocs), 0.0);
  for (const auto& m : msgs) {
    load[m.sender] += cost(m);
    load[nprocs + m.receiver] += cost(m);
  }
  double best = 0;
  for (double x : load) best = std::max(best, x);
  return best;
}

namespace detail {

inline constexpr std::size_t no_message = static_cast<std::size_t>(-1);

constexpr void check_lmr_ratio(double r, const char* call) {
  if (!(r > 0 && r <= std::numeric_limits<double>::max()))
    redist::detail::report_error(std::string("redist::schedule::") + call +
                                 " requires lmr_ratio to be a finite number > 0");
}

/// The bipartite graph of seed 002, Definition 2: node v < P is source part v (SP_v), node
/// P + q destination part q (DP_q). A node's messages are consecutive in the message list, so a
/// node is the range [first, last) of message indices.
struct GenBlockGraph {
  std::span<const Transfer> msgs;
  int nprocs = 0;
  std::vector<double> cost;
  std::vector<std::size_t> first, last;

  constexpr GenBlockGraph(std::span<const Transfer> m, int p, MessageCost c) : msgs{m}, nprocs{p} {
    const std::size_t nodes = 2 * static_cast<std::size_t>(p);
    first.assign(nodes, no_message);
    last.assign(nodes, 0);
    for (std::size_t i = 0; i < m.size(); ++i) {
      cost.push_back(c(m[i]));
      for (std::size_t v : {sender(i), receiver(i)}) {
        if (first[v] == no_message) first[v] = i;
        last[v] = i + 1;
      }
    }
  }
  constexpr std::size_t sender(std::size_t i) const noexcept { return static_cast<std::size_t>(msgs[i].sender); }
  constexpr std::size_t receiver(std::size_t i) const noexcept {
    return static_cast<std::size_t>(nprocs) + static_cast<std::size_t>(msgs[i].receiver);
  }
  constexpr std::size_t other(std::size_t i, std::size_t v) const noexcept {
    return sender(i) == v ? receiver(i) : sender(i);
  }
  constexpr std::size_t nodes() const noexcept { return first.size(); }
};

/// Steps numbered 1 ... d (step_of[i] == 0: not scheduled) -> GlobalSchedule of d steps, each
/// in increasing message order (steps_from_colours); every message scheduled and no step empty.
constexpr GlobalSchedule steps_to_table(const std::vector<int>& step_of, int d) {
  std::vector<int> colour(step_of.size());
  for (std::size_t i = 0; i < step_of.size(); ++i) {
    if (step_of[i] < 1 || step_of[i] > d)
      redist::detail::report_error("redist::schedule: internal error, a message was left unscheduled");
    colour[i] = step_of[i] - 1;
  }
  GlobalSchedule s = steps_from_colours(colour, d);
  if (s.size() != static_cast<std::size_t>(d))
    redist::detail::report_error("redist::schedule: internal error, an empty step");
  return s;
}

enum class edge_complement { off, on };

/// TPDR (edge_complement::off) and E-TPDR (edge_complement::on), seed 002 Sec. 4.1 and 4.2.
///   G = (SP ∪ DP, messages), d = Δ(G)  |->  steps d, d−1, ..., 3 by degree reduction, 1 and 2 by colouring.
constexpr GlobalSchedule two_phase_degree_reduction(std::span<const Transfer> msgs, int nprocs,
                                                    MessageCost cost, edge_complement extend) {
  const GenBlockGraph g(msgs, nprocs, cost);
  const int d = max_degree(msgs, nprocs, LocalMessages::counted);
  std::vector<int> step_of(msgs.size(), 0);
  std::vector<int> degree = node_degrees(msgs, nprocs, LocalMessages::counted);  // v's unscheduled messages (g's nodes)
  std::vector<int> marked(g.nodes(), 0);  // marked[v] == k: v is busy ("red") in step k
  auto schedule_into = [&](std::size_t i, int k) {
    step_of[i] = k;
    for (std::size_t v : {g.sender(i), g.receiver(i)}) {
      marked[v] = k;
      --degree[v];
    }
  };

  // Phase 1: degree reduction, step k = d, d−1, ..., 3.
  for (int k = d; k > 2; --k) {
    // Step 1 of Sec. 4.1: the nodes of maximum degree k, by total remaining cost, decreasing.
    // Tie-break: sources before destinations, then the lower part index (node order).
    struct Blue {
      double total;
      std::size_t node;
    };
    std::vector<Blue> blue;
    for (std::size_t v = 0; v < g.nodes(); ++v) {
      if (degree[v] != k) continue;
      double total = 0;
      for (std::size_t i = g.first[v]; i < g.last[v]; ++i)
        if (step_of[i] == 0) total += g.cost[i];
      blue.push_back({total, v});
    }
    std::sort(blue.begin(), blue.end(), [](const Blue& a, const Blue& b) {
      return a.total != b.total ? a.total > b.total : a.node < b.node;
    });
    // Step 2: each blue node not yet busy in step k schedules its cheapest message whose other
    // end is free. Tie-break: the lowest message number. Lemma 1: a node of degree >= 3 always
    // has one (its inner messages go to parts of degree 1).
    for (const Blue& b : blue) {
      if (marked[b.node] == k) continue;
      std::size_t best = no_message;
      for (std::size_t i = g.first[b.node]; i < g.last[b.node]; ++i)
        if (step_of[i] == 0 && marked[g.other(i, b.node)] != k && (best == no_message || g.cost[i] < g.cost[best]))
          best = i;
      if (best == no_message)
        redist::detail::report_error("redist::schedule: internal error, degree reduction found no message (Lemma 1)");
      schedule_into(best, k);
    }
    // E-TPDR's edge complement, once after all blue nodes of the step (ERRATA 002): messages
    // with both ends free and cost strictly below the step's length L, largest first (ties:
    // lowest message number), each if its ends are still free.
    if (extend == edge_complement::on) {
      double length = 0;
      for (std::size_t i = 0; i < msgs.size(); ++i)
        if (step_of[i] == k) length = std::max(length, g.cost[i]);
      std::vector<std::size_t> extra;
      for (std::size_t i = 0; i < msgs.size(); ++i)
        if (step_of[i] == 0 && g.cost[i] < length && marked[g.sender(i)] != k && marked[g.receiver(i)] != k)
          extra.push_back(i);
      std::sort(extra.begin(), extra.end(), [&](std::size_t a, std::size_t b) {
        return g.cost[a] != g.cost[b] ? g.cost[a] > g.cost[b] : a < b;
      });
      for (std::size_t i : extra)
        if (marked[g.sender(i)] != k && marked[g.receiver(i)] != k) schedule_into(i, k);
    }
  }

  // Phase 2: adjustable two-colouring of the rest (maximum degree <= 2). Its connected
  // components, the consecutive sections, are runs of consecutive remaining messages in which
  // each message shares a node with the previous one (a path). Each section starts with colour
  // 1 (step 1) and alternates.
  struct Section {
    std::size_t begin, end;   // into rest
    double c1 = 0, c2 = 0;    // longest message of colour 1 and of colour 2
  };
  std::vector<std::size_t> rest;
  std::vector<int> colour(msgs.size(), 0);
  std::vector<Section> sections;
  for (std::size_t i = 0; i < msgs.size(); ++i) {
    if (step_of[i] != 0) continue;
    const bool joins = !rest.empty() && (msgs[rest.back()].sender == msgs[i].sender ||
                                         msgs[rest.back()].receiver == msgs[i].receiver);
    if (!joins) sections.push_back({rest.size(), rest.size()});
    colour[i] = joins ? 3 - colour[rest.back()] : 1;
    rest.push_back(i);
    Section& s = sections.back();
    s.end = rest.size();
    double& longest = colour[i] == 1 ? s.c1 : s.c2;
    longest = std::max(longest, g.cost[i]);
  }
  // Merge the sections left to right (Fig. 3): a section's colours are exchanged when that
  // makes max(step 1) + max(step 2) of the merged table strictly cheaper.
  double len1 = 0, len2 = 0;
  for (const Section& s : sections) {
    const double keep = std::max(len1, s.c1) + std::max(len2, s.c2);
    const double flip = std::max(len1, s.c2) + std::max(len2, s.c1);
    const bool exchange = flip < keep;
    for (std::size_t r = s.begin; r < s.end; ++r) {
      const std::size_t i = rest[r];
      step_of[i] = exchange ? 3 - colour[i] : colour[i];
    }
    len1 = std::max(len1, exchange ? s.c2 : s.c1);
    len2 = std::max(len2, exchange ? s.c1 : s.c2);
  }
  return steps_to_table(step_of, d);
}

}  // namespace detail

/// TPDR (seed 002, Sec. 4.1): d = maximum degree steps; steps d ... 3 by degree reduction,
/// steps 1 and 2 by the adjustable two-colouring of the consecutive sections. Contention-free:
/// a part sends at most one and receives at most one message per step (its local message
/// included). O(d·P log P + |E|).
constexpr GlobalSchedule tpdr_schedule(std::span<const Transfer> msgs, int nprocs, MessageCost cost = {}) {
  detail::check_lmr_ratio(cost.lmr_ratio, "tpdr_schedule(msgs, P, cost)");
  return detail::two_phase_degree_reduction(msgs, nprocs, cost, detail::edge_complement::off);
}

/// E-TPDR (seed 002, Sec. 4.2): TPDR whose degree-reduction steps are filled up by the edge
/// complement. Same step count and contention freedom as TPDR. O(d·|E| log |E|).
constexpr GlobalSchedule etpdr_schedule(std::span<const Transfer> msgs, int nprocs, MessageCost cost = {}) {
  detail::check_lmr_ratio(cost.lmr_ratio, "etpdr_schedule(msgs, P, cost)");
  return detail::two_phase_degree_reduction(msgs, nprocs, cost, detail::edge_complement::on);
}

/// List scheduling (the baseline of Yook and Park cited by seed 002): messages by decreasing
/// cost (ties: lowest message number), each into the earliest of the d steps where its sender
/// and its receiver are both free. When there is none, relocation: with a the first step where
/// the sender is free and b the first where the receiver is free, the steps a and b are exchanged
/// along the alternating path of a/b messages that starts at the receiver (a Kempe chain; it
/// never reaches the sender in a bipartite graph), which frees the receiver in step a.
/// d steps, contention-free. O(|E| log |E| + relocations · d).
constexpr GlobalSchedule list_schedule(std::span<const Transfer> msgs, int nprocs, MessageCost cost = {}) {
  detail::check_lmr_ratio(cost.lmr_ratio, "list_schedule(msgs, P, cost)");
  const detail::GenBlockGraph g(msgs, nprocs, cost);
  const int d = max_degree(msgs, nprocs, LocalMessages::counted);
  const std::size_t nd = static_cast<std::size_t>(d);
  std::vector<std::size_t> order(msgs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return g.cost[a] != g.cost[b] ? g.cost[a] > g.cost[b] : a < b;
  });
  std::vector<std::size_t> busy(g.nodes() * nd, detail::no_message);  // busy[v*d + k]: v's message in step k
  std::vector<int> step_of(msgs.size(), 0);
  auto at = [&](std::size_t v, std::size_t k) -> std::size_t& { return busy[v * nd + k]; };
  auto place = [&](std::size_t i, std::size_t k) {
    step_of[i] = static_cast<int>(k) + 1;
    at(g.sender(i), k) = i;
    at(g.receiver(i), k) = i;
  };
  for (std::size_t i : order) {
    const std::size_t u = g.sender(i), v = g.receiver(i);
    std::size_t k = 0;
    while (k < nd && (at(u, k) != detail::no_message || at(v, k) != detail::no_message)) ++k;
    if (k < nd) {
      place(i, k);
      continue;
    }
    // Relocation.
    std::size_t a = 0, b = 0;
    while (at(u, a) != detail::no_message) ++a;
    while (at(v, b) != detail::no_message) ++b;
    std::vector<std::size_t> path;
    for (std::size_t x = v, c = a; at(x, c) != detail::no_message; c = (c == a ? b : a)) {
      const std::size_t e = at(x, c);
      path.push_back(e);
      x = g.other(e, x);
    }
    for (std::size_t e : path) {
      const std::size_t c = static_cast<std::size_t>(step_of[e] - 1);
      at(g.sender(e), c) = detail::no_message;
      at(g.receiver(e), c) = detail::no_message;
    }
    for (std::size_t e : path) place(e, static_cast<std::size_t>(step_of[e] - 1) == a ? b : a);
    if (at(u, a) != detail::no_message || at(v, a) != detail::no_message)
      redist::detail::report_error("redist::schedule: internal error, list-scheduling relocation failed");
    place(i, a);
  }
  return detail::steps_to_table(step_of, d);
}

/// The plain exchange: one step with every message (not contention-free).
constexpr GlobalSchedule all_at_once_schedule(std::span<const Transfer> msgs) {
  GlobalSchedule s;
  if (!msgs.empty()) s.steps.emplace_back();
  for (std::size_t i = 0; i < msgs.size(); ++i) s.steps.back().push_back(i);
  return s;
}

// ---------------------------------------------------------------------------------------------
// Cost model of schedule::automatic
// ---------------------------------------------------------------------------------------------

/// Ts: the start-up of a step (latency and the end-of-step wait); the messages of one step
/// overlap their start-ups. A commodity cluster's order of magnitude.
inline constexpr double default_startup_seconds = 20e-6;
/// Td: seconds per byte on the network (1 GB/s, 10 Gb Ethernet's order of magnitude).
inline constexpr double default_seconds_per_byte = 1e-9;
/// Plans do not know the element type; the model counts 8-byte elements (double).
inline constexpr double default_element_bytes = 8;
/// The local/remote speed ratio automatic schedules with: a local copy at 8 GB/s against the
/// 1 GB/s of default_seconds_per_byte (seed 002's one example has 99 -> 13, about 7.6). Pass the
/// machine's measured ratio in an etpdr_t to use it instead.
inline constexpr double default_lmr_ratio = 8.0;

/// The cost model:  T(schedule) = Σ over steps k of ( Ts + Td · bytes · max_{m ∈ k} c(m) · share(m, k) )
/// where c(m) is m's LMR cost in elements and share(m, k) the larger number of messages that
/// m's sender or m's receiver handles in step k (they share its bandwidth, processor sharing).
/// A contention-free step has share 1 and costs Ts + Td·bytes·(its longest message); the
/// all-at-once exchange is one step whose busiest messages are slowed by their contention.
struct CostModel {
  double startup_seconds = default_startup_seconds;
  double seconds_per_byte = default_seconds_per_byte;
  double element_bytes = default_element_bytes;
  double lmr_ratio = default_lmr_ratio;
  friend constexpr bool operator==(const CostModel&, const CostModel&) = default;
};

/// The predicted time of a schedule under the model.
constexpr double predicted_seconds(std::span<const Transfer> msgs, int nprocs, const GlobalSchedule& s,
                                   const CostModel& model = {}) {
  const MessageCost cost{model.lmr_ratio};
  std::vector<int> load(2 * static_cast<std::size_t>(nprocs), 0);
  double total = 0;
  for (const auto& step : s.steps) {
    for (std::size_t i : step) {
      ++load[msgs[i].sender];
      ++load[nprocs + msgs[i].receiver];
    }
    double longest = 0;
    for (std::size_t i : step)
      longest = std::max(longest, cost(msgs[i]) * std::max(load[msgs[i].sender], load[nprocs + msgs[i].receiver]));
    for (std::size_t i : step) {
      --load[msgs[i].sender];
      --load[nprocs + msgs[i].receiver];
    }
    total += model.startup_seconds + model.seconds_per_byte * model.element_bytes * longest;
  }
  return total;
}

/// What schedule::automatic does for GenBlock -> GenBlock: E-TPDR with LMR at model.lmr_ratio,
/// unless the model predicts the all-at-once exchange strictly faster.
enum class automatic_choice { etpdr_lmr, one_exchange };

constexpr automatic_choice choose_automatic(std::span<const Transfer> msgs, int nprocs,
                                            const GlobalSchedule& etpdr_lmr, const CostModel& model = {}) {
  const double steps = predicted_seconds(msgs, nprocs, etpdr_lmr, model);
  const double all = predicted_seconds(msgs, nprocs, all_at_once_schedule(msgs), model);
  return all < steps ? automatic_choice::one_exchange : automatic_choice::etpdr_lmr;
}

}  // namespace redist::schedule
