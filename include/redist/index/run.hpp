/// @file Defines Run, a strided family of contiguous pieces seen from both the source and the destination.
#pragma once

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <span>
#include <vector>

#include <redist/config.hpp>

namespace redist {

/// `count` pieces of `len` elements. Piece j starts at local offset src + j*src_stride on the
/// sending process and dst + j*dst_stride on the receiving one; within a piece, elements are
/// src_step apart on the sender and dst_step apart on the receiver (1 but in the runs of strided
/// sections). A side is contiguous when its elements are adjacent (step 1, or pieces of one
/// element) and its stride equals len (or count == 1): then the whole family is one memcpy there.
struct Run {
  index_t src = 0;
  index_t dst = 0;
  index_t len = 0;
  index_t src_stride = 0;
  index_t dst_stride = 0;
  index_t count = 0;
  index_t src_step = 1;
  index_t dst_step = 1;

  constexpr index_t size() const noexcept { return len * count; }
  constexpr bool src_contiguous() const noexcept { return (len <= 1 || src_step == 1) && (count == 1 || src_stride == len); }
  constexpr bool dst_contiguous() const noexcept { return (len <= 1 || dst_step == 1) && (count == 1 || dst_stride == len); }
  friend constexpr bool operator==(const Run&, const Run&) = default;
};

/// Appends r to runs, merging it into the last run when both are single pieces with the same
/// steps and r continues it on both sides (a Cyclic body and its ragged tail, say); a run
/// contiguous on both sides is first made one piece of step 1. The runs before `first` (another
/// message's) are never merged into.
constexpr void append_run(std::vector<Run>& runs, Run r, std::size_t first = 0) {
  if (r.size() == 0) return;
  if (r.src_contiguous() && r.dst_contiguous()) r = Run{r.src, r.dst, r.size(), r.size(), r.size(), 1};
  if (runs.size() > first) {
    Run& last = runs.back();
    if (last.count == 1 && r.count == 1 && last.src_step == r.src_step && last.dst_step == r.dst_step &&
        last.src + last.len * last.src_step == r.src && last.dst + last.len * last.dst_step == r.dst) {
      last.len += r.len;
      last.src_stride = last.dst_stride = last.len;
      return;
    }
  }
  runs.push_back(r);
}

/// The runs between one process and the processes (or grid coordinates) of the other side that
/// share elements with it, and only those: a plan's work and memory follow its messages, not P.
/// `peers` is sorted; runs[i] are those with peers[i] (never empty).
struct PeerRuns {
  std::vector<int> peers;
  std::vector<std::vector<Run>> runs;

  /// The runs with peer q (empty when it shares nothing).
  std::span<const Run> of(int q) const noexcept {
    const auto it = std::lower_bound(peers.begin(), peers.end(), q);
    if (it == peers.end() || *it != q) return {};
    return runs[static_cast<std::size_t>(it - peers.begin())];
  }
  /// q's position in peers (q must be there).
  std::size_t position(int q) const noexcept {
    return static_cast<std::size_t>(std::lower_bound(peers.begin(), peers.end(), q) - peers.begin());
  }
  /// Appends q's runs (q greater than every peer so far; nothing when `r` is empty).
  void push(int q, std::vector<Run> r) {
    if (r.empty()) return;
    peers.push_back(q);
    runs.push_back(std::move(r));
  }
  /// Sorts by peer (after pushes out of order).
  void sort() {
    std::vector<std::size_t> idx(peers.size());
    std::iota(idx.begin(), idx.end(), std::size_t{0});
    std::sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return peers[a] < peers[b]; });
    PeerRuns out;
    for (std::size_t i : idx) out.push(peers[i], std::move(runs[i]));
    *this = std::move(out);
  }
};

}  // namespace redist
