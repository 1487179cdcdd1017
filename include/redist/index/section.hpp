/// @file Defines Section, an N-D strided box of elements seen from both the source and the destination.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include <redist/config.hpp>

namespace redist {

/// One loop of a Section: `count` iterations, advancing the source offset by src_stride and
/// the destination offset by dst_stride.
struct Loop {
  index_t count = 1;
  index_t src_stride = 1;
  index_t dst_stride = 1;
  friend constexpr bool operator==(const Loop&, const Loop&) = default;
};

/// The elements src + Σ_k i_k·loops[k].src_stride on the sender, which go to dst + Σ_k
/// i_k·loops[k].dst_stride on the receiver, for 0 <= i_k < loops[k].count. loops[0] is the
/// innermost loop. An N-D intersection block needs at most two loops per dimension (the
/// elements of a piece, the pieces of a family): the plan of a rank-N array uses
/// BasicSection<max(8, 2N)> (section_for<N>), so arrays of any rank fit.
template <std::size_t MaxDepth>
struct BasicSection {
  static constexpr std::size_t max_depth = MaxDepth;

  index_t src = 0;
  index_t dst = 0;
  std::size_t depth = 0;
  std::array<Loop, max_depth> loops{};

  constexpr index_t size() const noexcept { return size_of(0, depth); }
  /// Elements of the loops [from, to).
  constexpr index_t size_of(std::size_t from, std::size_t to) const noexcept {
    index_t n = 1;
    for (std::size_t k = from; k < to; ++k) n *= loops[k].count;
    return n;
  }
  /// One contiguous range on the sender, in packed order: the loops tile a range there.
  constexpr bool src_contiguous() const noexcept { return contiguous(true); }
  constexpr bool dst_contiguous() const noexcept { return contiguous(false); }
  friend constexpr bool operator==(const BasicSection&, const BasicSection&) = default;

  /// Adds an outer loop (loops are added innermost first).
  constexpr void push_loop(Loop l) {
    if (depth == max_depth) detail::report_error("redist::BasicSection<D> holds at most D loops: internal error");
    loops[depth++] = l;
  }

  /// Drops loops of one iteration and merges a loop into the next inner one where it continues
  /// it on both sides (stride = inner count · inner stride): the same elements in the same
  /// order, in fewer and longer loops.
  constexpr void normalize() noexcept { depth = merge(0, depth, 0); }

 private:
  constexpr bool contiguous(bool src_side) const noexcept {
    index_t expect = 1;
    for (std::size_t k = 0; k < depth; ++k) {
      if ((src_side ? loops[k].src_stride : loops[k].dst_stride) != expect && loops[k].count > 1) return false;
      expect *= loops[k].count;
    }
    return true;
  }
  /// Normalizes loops [from, to) into loops [out, ...); returns the end.
  constexpr std::size_t merge(std::size_t from, std::size_t to, std::size_t out) noexcept {
    const std::size_t first = out;
    for (std::size_t k = from; k < to; ++k) {
      const Loop l = loops[k];
      if (l.count == 1) continue;
      if (out > first) {
        Loop& in = loops[out - 1];
        if (l.src_stride == in.count * in.src_stride && l.dst_stride == in.count * in.dst_stride) {
          in.count *= l.count;
          continue;
        }
      }
      loops[out++] = l;
    }
    for (std::size_t k = out; k < to; ++k) loops[k] = Loop{};
    return out;
  }
};

/// The sections of rank-4 and smaller arrays.
using Section = BasicSection<8>;

/// The section type of the plans of rank-N arrays: two loops per dimension.
template <std::size_t N>
using section_for = BasicSection<(2 * N > 8 ? 2 * N : 8)>;

/// Appends s (normalized) to sections, merging it into the last one when both are contiguous on
/// both sides and s continues it on both sides.
template <std::size_t D>
constexpr void append_section(std::vector<BasicSection<D>>& sections, BasicSection<D> s) {
  if (s.size() == 0) return;
  s.normalize();
  if (!sections.empty() && s.src_contiguous() && s.dst_contiguous()) {
    BasicSection<D>& last = sections.back();
    const index_t n = last.size();
    if (last.src_contiguous() && last.dst_contiguous() && last.src + n == s.src &&
        last.dst + n == s.dst) {
      last.depth = 1;
      last.loops[0] = Loop{n + s.size(), 1, 1};
      return;
    }
  }
  sections.push_back(s);
}

}  // namespace redist
