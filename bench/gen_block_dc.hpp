/// @file Defines dc_schedule: a reconstruction of the divide-and-conquer (DC) GEN_BLOCK scheduler of Wang, Guo and Wei (J. Supercomputing 29(2), 2004), the baseline of seed 002's Sec. 5.
//
// A baseline, not a library schedule: it lives in bench/ and shares no schedule code with
// include/redist/schedule/. Its input is the message list of index::gen_block_messages (who
// sends how much to whom, in global order), which is what the DC paper's algorithm takes too;
// its output is a GlobalSchedule (the table type only), priced by the study with the same
// schedule_cost as every other schedule.
//
// WHAT IS KNOWN OF DC. The DC paper itself is not available here. Seed 002 describes it in one
// sentence (Sec. 2): "communication messages are first divided into groups using Neighbor
// Message Set (NMS), messages that have the same sender or receiver; the communication steps
// will be scheduled after those NMSs are merged according to the relationship of contention".
// The DC paper's abstract adds that it divides "the whole block into sub-blocks", solves the
// sub-problems and merges them, aiming at "minimal message size of total steps and the minimal
// number of steps". Everything below beyond those sentences is this reconstruction's choice.
//
// THE RECONSTRUCTION.
//   1. NMSs. The messages m_0 ... m_{E-1} in global order form a chain: consecutive messages
//      share a sender or a receiver (or nothing, where a source cut and a destination cut
//      coincide). The list is cut into NMSs left to right: an NMS starts at the first message
//      not yet in one, m_k; if m_{k+1} shares a node v (source or destination part) with m_k,
//      the NMS is m_k and every following message of v; otherwise it is m_k alone. Every NMS
//      is a star (all its messages share v), so its messages conflict pairwise. [choice: the
//      greedy left-to-right partition; a message shared by two stars goes to the left one]
//   2. Divide. The list of NMSs g_0 ... g_{G-1} is split into halves g_0 ... g_{h-1} and
//      g_h ... g_{G-1}, h = G / 2 (always at an NMS boundary), each half scheduled
//      recursively. Base case, one NMS: its messages one per step, largest first (ties: the
//      lower message number). [choice: halves by number of NMSs]
//   3. Conquer (merge). A part's messages are consecutive, so the only node with messages on
//      both sides of the cut is the node c shared by the last message on the left and the
//      first on the right (if any). A left step and a right step can be merged into one step
//      unless both hold a message of c. The merge pairs left steps with right steps (each at
//      most once; an unpaired step stays a step of its own): first as many pairs as possible
//      (fewest steps), then, among those, the pairing that minimises Σ over the merged steps
//      of the longest message, i.e. maximises Σ over pairs of min(length left, length right),
//      which puts long steps with long ones. [choice: this pairing is found exactly, as an
//      assignment problem solved by the Hungarian method; ties: the first optimum the method
//      finds, with each side's steps ordered longest first, ties by lowest message number]
//
// Consequences (argued here, measured by the study and the tests, not assumed): every step is
// contention-free by construction (within a half by induction; across the cut only c is
// shared, and no merged pair holds two messages of c). With a steps on the left and b on the
// right, and c having α messages on the left and β on the right, the largest pairing has
// min(a, b, (a − α) + (b − β)) pairs, so the merge has max(a, b, α + β) steps: if both halves
// have their maximum degree as step count, so does the merge, and by induction DC has exactly
// d = the maximum degree steps. Its cost is not optimal: each merge only pairs whole steps of
// the halves, whose contents are fixed.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include <redist/index/transfer.hpp>
#include <redist/schedule/schedule.hpp>

namespace redist::bench {

namespace dc_detail {

inline constexpr std::size_t no_node = static_cast<std::size_t>(-1);

struct Step {
  std::vector<std::size_t> msgs;  // message indices
  std::int64_t length = 0;        // the largest message size
  std::size_t first = 0;          // the lowest message index (tie-break)
};

/// Longest first; ties: the lowest message number.
inline void sort_steps(std::vector<Step>& steps) {
  std::sort(steps.begin(), steps.end(), [](const Step& x, const Step& y) {
    return x.length != y.length ? x.length > y.length : x.first < y.first;
  });
}

/// Min-cost perfect assignment on a square matrix (Hungarian method, O(n^3)); returns
/// row_of[j] = the row assigned to column j.
inline std::vector<std::size_t> assignment(const std::vector<std::vector<std::int64_t>>& cost) {
  const std::size_t n = cost.size();
  constexpr std::int64_t inf = std::numeric_limits<std::int64_t>::max() / 4;
  std::vector<std::int64_t> u(n + 1, 0), v(n + 1, 0);
  std::vector<std::size_t> p(n + 1, 0), way(n + 1, 0);  // p[j]: row (1-based) of column j; 0 = none
  for (std::size_t i = 1; i <= n; ++i) {
    p[0] = i;
    std::size_t j0 = 0;
    std::vector<std::int64_t> minv(n + 1, inf);
    std::vector<char> used(n + 1, 0);
    do {
      used[j0] = 1;
      const std::size_t i0 = p[j0];
      std::int64_t delta = inf;
      std::size_t j1 = 0;
      for (std::size_t j = 1; j <= n; ++j) {
        if (used[j]) continue;
        const std::int64_t cur = cost[i0 - 1][j - 1] - u[i0] - v[j];
        if (cur < minv[j]) {
          minv[j] = cur;
          way[j] = j0;
        }
        if (minv[j] < delta) {
          delta = minv[j];
          j1 = j;
        }
      }
      for (std::size_t j = 0; j <= n; ++j) {
        if (used[j]) {
          u[p[j]] += delta;
          v[j] -= delta;
        } else {
          minv[j] -= delta;
        }
      }
      j0 = j1;
    } while (p[j0] != 0);
    do {
      const std::size_t j1 = way[j0];
      p[j0] = p[j1];
      j0 = j1;
    } while (j0 != 0);
  }
  std::vector<std::size_t> row_of(n);
  for (std::size_t j = 1; j <= n; ++j) row_of[j - 1] = p[j] - 1;
  return row_of;
}

/// The merge's pairing of left steps (lengths wl, flags fl: holds a message of the shared
/// node c) with right steps (wr, fr): pairs (i, j), never both flagged, each step in at most
/// one pair; the most pairs, then the largest Σ over pairs of min(wl[i], wr[j]) (= the smallest
/// Σ over the merged steps of their length).
inline std::vector<std::pair<std::size_t, std::size_t>> best_pairing(std::span<const std::int64_t> wl,
                                                                     std::span<const char> fl,
                                                                     std::span<const std::int64_t> wr,
                                                                     std::span<const char> fr) {
  const std::size_t a = wl.size(), b = wr.size(), n = a + b;
  std::int64_t total = 0;
  for (auto w : wl) total += w;
  for (auto w : wr) total += w;
  // Rows: left steps, then b dummies; columns: right steps, then a dummies (a step matched to
  // a dummy stays alone). A pair saves min(lengths); each pair also earns `big`, more than all
  // savings together, so the optimum has the most pairs first. A forbidden pair costs more
  // than leaving both alone.
  const std::int64_t big = total + 1;
  std::vector<std::vector<std::int64_t>> cost(n, std::vector<std::int64_t>(n, 0));
  for (std::size_t i = 0; i < a; ++i)
    for (std::size_t j = 0; j < b; ++j) cost[i][j] = fl[i] && fr[j] ? big : -(big + std::min(wl[i], wr[j]));
  const std::vector<std::size_t> row_of = assignment(cost);
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  for (std::size_t j = 0; j < b; ++j)
    if (row_of[j] < a && !(fl[row_of[j]] && fr[j])) pairs.emplace_back(row_of[j], j);
  return pairs;
}

class Dc {
 public:
  Dc(std::span<const index::Transfer> msgs, int nprocs) : msgs_{msgs}, nprocs_{static_cast<std::size_t>(nprocs)} {}

  std::size_t sender(std::size_t i) const { return static_cast<std::size_t>(msgs_[i].sender); }
  std::size_t receiver(std::size_t i) const { return nprocs_ + static_cast<std::size_t>(msgs_[i].receiver); }
  bool touches(std::size_t i, std::size_t v) const { return sender(i) == v || receiver(i) == v; }
  /// The node two messages share, or no_node.
  std::size_t shared(std::size_t i, std::size_t j) const {
    if (sender(i) == sender(j)) return sender(i);
    if (receiver(i) == receiver(j)) return receiver(i);
    return no_node;
  }

  /// Step 1: the NMSs, as [begin, end) ranges of message indices.
  std::vector<std::pair<std::size_t, std::size_t>> neighbor_message_sets() const {
    std::vector<std::pair<std::size_t, std::size_t>> groups;
    const std::size_t e = msgs_.size();
    for (std::size_t k = 0; k < e;) {
      std::size_t end = k + 1;
      if (end < e) {
        const std::size_t v = shared(k, end);
        if (v != no_node)
          while (end < e && touches(end, v)) ++end;
      }
      groups.emplace_back(k, end);
      k = end;
    }
    return groups;
  }

  /// Steps 2 and 3 on the NMSs [g_lo, g_hi).
  std::vector<Step> solve(const std::vector<std::pair<std::size_t, std::size_t>>& groups, std::size_t g_lo,
                          std::size_t g_hi) const {
    if (g_hi - g_lo == 1) {
      std::vector<Step> steps;
      for (std::size_t i = groups[g_lo].first; i < groups[g_lo].second; ++i)
        steps.push_back(Step{{i}, static_cast<std::int64_t>(msgs_[i].size), i});
      sort_steps(steps);
      return steps;
    }
    const std::size_t h = g_lo + (g_hi - g_lo) / 2;
    std::vector<Step> left = solve(groups, g_lo, h), right = solve(groups, h, g_hi);
    const std::size_t cut = groups[h].first;
    return merge(std::move(left), std::move(right), shared(cut - 1, cut));
  }

  std::vector<Step> merge(std::vector<Step> left, std::vector<Step> right, std::size_t c) const {
    auto holds_c = [&](const Step& s) {
      if (c == no_node) return false;
      for (std::size_t i : s.msgs)
        if (touches(i, c)) return true;
      return false;
    };
    std::vector<std::int64_t> wl, wr;
    std::vector<char> fl, fr;
    for (const Step& s : left) {
      wl.push_back(s.length);
      fl.push_back(holds_c(s));
    }
    for (const Step& s : right) {
      wr.push_back(s.length);
      fr.push_back(holds_c(s));
    }
    std::vector<Step> out;
    std::vector<char> left_paired(left.size(), 0), right_paired(right.size(), 0);
    for (const auto& [i, j] : best_pairing(wl, fl, wr, fr)) {
      Step s = std::move(left[i]);
      s.msgs.insert(s.msgs.end(), right[j].msgs.begin(), right[j].msgs.end());
      s.length = std::max(s.length, right[j].length);
      s.first = std::min(s.first, right[j].first);
      out.push_back(std::move(s));
      left_paired[i] = right_paired[j] = 1;
    }
    for (std::size_t i = 0; i < left.size(); ++i)
      if (!left_paired[i]) out.push_back(std::move(left[i]));
    for (std::size_t j = 0; j < right.size(); ++j)
      if (!right_paired[j]) out.push_back(std::move(right[j]));
    sort_steps(out);
    return out;
  }

 private:
  std::span<const index::Transfer> msgs_;
  std::size_t nprocs_;
};

}  // namespace dc_detail

/// The DC schedule of a GEN_BLOCK message list (index::gen_block_messages' order): steps
/// longest first, each step's message indices increasing. Costs are message sizes (no LMR).
inline schedule::GlobalSchedule dc_schedule(std::span<const index::Transfer> msgs, int nprocs) {
  schedule::GlobalSchedule out;
  if (msgs.empty()) return out;
  const dc_detail::Dc dc(msgs, nprocs);
  const auto groups = dc.neighbor_message_sets();
  for (auto& step : dc.solve(groups, 0, groups.size())) {
    std::sort(step.msgs.begin(), step.msgs.end());
    out.steps.push_back(std::move(step.msgs));
  }
  return out;
}

}  // namespace redist::bench
