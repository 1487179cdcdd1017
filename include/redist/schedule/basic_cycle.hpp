/// @file Defines the schedules of the basic-cycle calculation (seed 000): BCC's send order and a contention-free order, and their policies.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include <redist/schedule/schedule.hpp>

namespace redist::schedule {

/// The basic-cycle calculation (seed 000) in BCC's send order: in step k every rank sends the
/// out-buffer of the k-th process appearing in its send template. Cyclic<s> -> Cyclic<t> only.
struct bcc_t {
  friend constexpr bool operator==(bcc_t, bcc_t) noexcept { return true; }
};
/// The basic-cycle calculation in a contention-free order: every step is a partial permutation
/// (each rank sends at most one message and receives at most one), in as many steps as the
/// largest number of messages one rank sends or receives. Cyclic<s> -> Cyclic<t> only.
struct bcc_contention_free_t {
  friend constexpr bool operator==(bcc_contention_free_t, bcc_contention_free_t) noexcept { return true; }
};

inline constexpr bcc_t bcc{};
inline constexpr bcc_contention_free_t bcc_contention_free{};

template <>
inline constexpr bool is_policy<bcc_t> = true;
template <>
inline constexpr bool is_policy<bcc_contention_free_t> = true;

/// A steps × ranks table: send_to[k][q] is the process rank q sends to in step k, q itself
/// for its local copy (no message), or -1. Every rank computes the same table.
struct SendTable {
  int nprocs = 0;
  std::vector<std::vector<int>> send_to;
  constexpr std::size_t size() const noexcept { return send_to.size(); }
  /// How many ranks send to `to` in step k (local copies not counted).
  constexpr int receivers_load(std::size_t k, int to) const {
    int n = 0;
    for (int q = 0; q < nprocs; ++q) n += send_to[k][static_cast<std::size_t>(q)] == to && q != to;
    return n;
  }
  friend constexpr bool operator==(const SendTable&, const SendTable&) = default;
};

namespace detail {
constexpr bool has_message(const SendTable& t, std::size_t k) {
  for (int q = 0; q < t.nprocs; ++q) {
    const int to = t.send_to[k][static_cast<std::size_t>(q)];
    if (to >= 0 && to != q) return true;
  }
  return false;
}
}  // namespace detail

/// BCC's send order (seed 000, Sec. 3A): dests[q] lists the processes q sends to in the order
/// they first appear in its send template, q itself included where it keeps data. In step k,
/// q sends to dests[q][k]; a step in which nobody sends a message is dropped. "Avoids node
/// contention mostly" — not always (ERRATA 000: in Figure 2 P0 and P3 both send to P0 first).
constexpr SendTable appearance_order(const std::vector<std::vector<int>>& dests) {
  SendTable t;
  t.nprocs = static_cast<int>(dests.size());
  std::size_t steps = 0;
  for (const auto& d : dests) steps = std::max(steps, d.size());
  for (std::size_t k = 0; k < steps; ++k) {
    std::vector<int> row(dests.size(), -1);
    for (std::size_t q = 0; q < dests.size(); ++q)
      if (k < dests[q].size()) row[q] = dests[q][k];
    t.send_to.push_back(std::move(row));
    if (!detail::has_message(t, t.send_to.size() - 1)) t.send_to.pop_back();
  }
  return t;
}

/// A contention-free order: the messages (q -> dests[q][i], q itself left out) are the edges of
/// a bipartite sender/receiver graph, coloured with Δ colours (König): each colour, a step, is a
/// partial permutation, and Δ — the most messages one rank sends or receives — is the fewest
/// steps any contention-free schedule can take. Edges are coloured in appearance order (every
/// rank's first destination, then every rank's second, ...); a conflict flips an alternating
/// path. O(E · P).
constexpr SendTable contention_free_order(const std::vector<std::vector<int>>& dests) {
  const int p = static_cast<int>(dests.size());
  const auto up = static_cast<std::size_t>(p);
  std::vector<int> in_degree(up, 0);
  std::size_t delta = 0, longest = 0;
  for (std::size_t q = 0; q < up; ++q) {
    std::size_t out = 0;
    for (int r : dests[q])
      if (r != static_cast<int>(q)) {
        ++out;
        delta = std::max(delta, static_cast<std::size_t>(++in_degree[static_cast<std::size_t>(r)]));
      }
    delta = std::max(delta, out);
    longest = std::max(longest, dests[q].size());
  }
  // sender[q·Δ + c] = receiver of q's colour-c edge; receiver[r·Δ + c] = its sender; -1: free.
  std::vector<int> sender(up * delta, -1), receiver(up * delta, -1);
  auto free_at = [&](const std::vector<int>& side, int v) {
    std::size_t c = 0;
    while (side[static_cast<std::size_t>(v) * delta + c] >= 0) ++c;
    return c;
  };
  auto set = [&](int q, int r, std::size_t c) {
    sender[static_cast<std::size_t>(q) * delta + c] = r;
    receiver[static_cast<std::size_t>(r) * delta + c] = q;
  };
  for (std::size_t i = 0; i < longest; ++i) {
    for (int q = 0; q < p; ++q) {
      if (i >= dests[static_cast<std::size_t>(q)].size()) continue;
      const int r = dests[static_cast<std::size_t>(q)][i];
      if (r == q) continue;
      const std::size_t a = free_at(sender, q), b = free_at(receiver, r);
      if (receiver[static_cast<std::size_t>(r) * delta + a] >= 0) {
        // a is taken at r, b is free there: flip the a/b path that starts at r. It never reaches
        // q (q is free in a, and the path enters senders by a-edges), so a becomes free at r.
        std::vector<int> path_q, path_r;  // the path's edges (path_q[j], path_r[j]), colours a, b, a, ...
        for (int v = r;;) {
          const int u = receiver[static_cast<std::size_t>(v) * delta + a];
          if (u < 0) break;
          path_q.push_back(u);
          path_r.push_back(v);
          const int w = sender[static_cast<std::size_t>(u) * delta + b];
          if (w < 0) break;
          path_q.push_back(u);
          path_r.push_back(w);
          v = w;
        }
        for (std::size_t j = 0; j < path_q.size(); ++j) {
          const std::size_t c = j % 2 == 0 ? a : b;
          sender[static_cast<std::size_t>(path_q[j]) * delta + c] = -1;
          receiver[static_cast<std::size_t>(path_r[j]) * delta + c] = -1;
        }
        for (std::size_t j = 0; j < path_q.size(); ++j) set(path_q[j], path_r[j], j % 2 == 0 ? b : a);
      }
      set(q, r, a);
    }
  }
  SendTable t;
  t.nprocs = p;
  for (std::size_t c = 0; c < delta; ++c) {
    std::vector<int> row(up, -1);
    for (std::size_t q = 0; q < up; ++q) row[q] = sender[q * delta + c];
    t.send_to.push_back(std::move(row));
  }
  return t;
}

}  // namespace redist::schedule
