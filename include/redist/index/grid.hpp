/// @file Defines grid_sections: the N-D intersection of two blocks of a grid as Sections, the Cartesian product of per-dimension runs (seed 003, Sec. 4; seed 004).
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <vector>

#include <redist/index/run.hpp>
#include <redist/index/section.hpp>

namespace redist::index {

/// The per-dimension picture of one (sender, receiver) pair of an N-D redistribution, indexed by
/// source dimension d: runs[d] is the 1-D intersection of the sender's index set in dimension d
/// with the receiver's in the matching destination dimension (in 1-D local indices of each),
/// src_stride[d] and dst_stride[d] the element strides of those dimensions in the two local
/// storages, and order lists the source dimensions innermost first (the sender's storage order,
/// so that packing reads memory in order). src_origin and dst_origin are added to every
/// section's offsets: the local offsets of the dimensions a section drops (0 for whole layouts).
template <std::size_t N>
struct GridPair {
  std::array<std::span<const Run>, N> runs;
  std::array<index_t, N> src_stride{};
  std::array<index_t, N> dst_stride{};
  std::array<std::size_t, N> order{};
  index_t src_origin = 0;
  index_t dst_origin = 0;
};

/// Appends to out the sections of  ×_d runs[d]: for each tuple (r_0, ..., r_{N-1}) one section
/// with two loops per dimension (the elements of a piece, r.len of them r.src_step apart, and the
/// pieces of a family), from (src_origin, dst_origin) on, the tuples in
/// odometer order with order[0]'s dimension fastest. Packed order is a pure function of the
/// pair, so sender and receiver agree on it. Cost: Π |runs[d]| sections, independent of the
/// array size for periodic layouts.
template <std::size_t N, std::size_t D>
void grid_sections(const GridPair<N>& p, std::vector<redist::BasicSection<D>>& out) {
  static_assert(D >= 2 * N, "redist::index::grid_sections requires sections of at least two loops per dimension");
  for (std::size_t d = 0; d < N; ++d)
    if (p.runs[d].empty()) return;
  std::array<std::size_t, N> at{};
  while (true) {
    redist::BasicSection<D> s;
    s.src = p.src_origin;
    s.dst = p.dst_origin;
    for (std::size_t k = 0; k < N; ++k) {
      const std::size_t d = p.order[k];
      const Run& r = p.runs[d][at[k]];
      s.src += r.src * p.src_stride[d];
      s.dst += r.dst * p.dst_stride[d];
      s.push_loop(redist::Loop{r.len, r.src_step * p.src_stride[d], r.dst_step * p.dst_stride[d]});
      s.push_loop(redist::Loop{r.count, r.src_stride * p.src_stride[d], r.dst_stride * p.dst_stride[d]});
    }
    append_section(out, s);
    std::size_t k = 0;
    while (k < N && ++at[k] == p.runs[p.order[k]].size()) at[k++] = 0;
    if (k == N) return;
  }
}

/// The rank-1 case with unit strides, unit steps and no origin (a 1-D layout): the sections are
/// the runs themselves. Sections of arrays plan on the N-D path above, never here.
inline void grid_sections(const GridPair<1>& p, std::vector<Run>& out) {
  if (p.src_stride[0] != 1 || p.dst_stride[0] != 1 || p.src_origin != 0 || p.dst_origin != 0)
    redist::detail::report_error("redist::index::grid_sections requires unit strides and no origin for runs: internal error");
  for (const Run& r : p.runs[0]) {
    if (r.src_step != 1 || r.dst_step != 1)
      redist::detail::report_error("redist::index::grid_sections requires runs of unit steps for a 1-D plan: internal error");
    append_run(out, r);
  }
}

}  // namespace redist::index
