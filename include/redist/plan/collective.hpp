/// @file Defines the collective patterns of a plan's stage, seen from one rank: whether its part is
/// its part of an all-gather (gathers), of a reduction of partial values (reduces: an all-reduce or
/// a reduce-scatter), and what such a reduction needs (reduces_straight, reduce_scratch). The
/// runtime's collective wires (Wire::allgatherv, allreduce, reduce_scatter) post them.
#pragma once

#include <algorithm>
#include <climits>
#include <cstddef>
#include <vector>

#include <redist/config.hpp>
#include <redist/index/run.hpp>
#include <redist/index/section.hpp>
#include <redist/plan/plan.hpp>

namespace redist::detail {

/// Whether two runs (or sections) read the same elements of their source in the same order.
constexpr bool same_source(const Run& a, const Run& b) noexcept {
  return a.src == b.src && a.len == b.len && a.count == b.count && a.src_stride == b.src_stride && a.src_step == b.src_step;
}
template <std::size_t D>
constexpr bool same_source(const BasicSection<D>& a, const BasicSection<D>& b) noexcept {
  if (a.src != b.src || a.depth != b.depth) return false;
  for (std::size_t k = 0; k < a.depth; ++k)
    if (a.loops[k].count != b.loops[k].count || a.loops[k].src_stride != b.loops[k].src_stride) return false;
  return true;
}

/// Wire::allgatherv: whether this rank's part of stage st is its part of an all-gather: it sends
/// to and receives from the same peers, once each, and every send carries the same elements of
/// its source in the same order (the same runs' source sides), so that its one contribution,
/// packed once, is every peer's message (Block -> Replicated).
template <class R>
bool gathers(const Stage<R>& st) {
  if (st.forwards || st.sends.size() != st.recvs.size()) return false;
  std::vector<int> out, in;
  for (const Message& m : st.sends) out.push_back(m.peer);
  for (const Message& m : st.recvs) in.push_back(m.peer);
  std::sort(out.begin(), out.end());
  std::sort(in.begin(), in.end());
  if (out != in || std::adjacent_find(out.begin(), out.end()) != out.end()) return false;
  for (const Message& m : st.sends) {
    const Message& first = st.sends.front();
    if (m.listed() || first.listed() || m.nruns != first.nruns || m.size != first.size) return false;
    for (std::size_t k = 0; k < m.nruns; ++k)
      if (!same_source(st.runs[m.first + k], st.runs[first.first + k])) return false;
  }
  return true;
}

/// Whether two runs (or sections) write the same elements of their destination in the same order.
constexpr bool same_dest(const Run& a, const Run& b) noexcept {
  return a.dst == b.dst && a.len == b.len && a.count == b.count && a.dst_stride == b.dst_stride && a.dst_step == b.dst_step;
}
template <std::size_t D>
constexpr bool same_dest(const BasicSection<D>& a, const BasicSection<D>& b) noexcept {
  if (a.dst != b.dst || a.depth != b.depth) return false;
  for (std::size_t k = 0; k < a.depth; ++k)
    if (a.loops[k].count != b.loops[k].count || a.loops[k].dst_stride != b.loops[k].dst_stride) return false;
  return true;
}

/// Wire::allreduce and Wire::reduce_scatter: whether this rank's part of stage st is its part of a
/// reduction of partial values within a group (Partial<Op> sources): it sends to and receives from
/// the same peers, once each; every message and its local copy are one run (one section); every
/// receive lands on the elements of its local copy, in the same order, so that the group's
/// contributions to a member fold element by element. Wire::allreduce when every send also carries
/// the local copy's source elements (each member's contribution is the same elements, into
/// Replicated), Wire::reduce_scatter otherwise (into a split dimension); point_to_point when it is
/// no reduction.
template <class R>
Wire reduces(const Stage<R>& st) {
  if (st.forwards || st.sends.size() != st.recvs.size() || st.local.nruns != 1 || st.sends.empty()) return Wire::point_to_point;
  std::vector<int> out, in;
  for (const Message& m : st.sends) out.push_back(m.peer);
  for (const Message& m : st.recvs) in.push_back(m.peer);
  std::sort(out.begin(), out.end());
  std::sort(in.begin(), in.end());
  if (out != in || std::adjacent_find(out.begin(), out.end()) != out.end()) return Wire::point_to_point;
  const R& local = st.runs[st.local.first];
  for (const Message& m : st.recvs)
    if (m.nruns != 1 || m.size != st.local.size || !same_dest(st.runs[m.first], local)) return Wire::point_to_point;
  bool all = true;
  for (const Message& m : st.sends) {
    if (m.nruns != 1) return Wire::point_to_point;
    all = all && m.size == st.local.size && same_source(st.runs[m.first], local);
  }
  return all ? Wire::allreduce : Wire::reduce_scatter;
}

/// Whether the local copy of stage st writes one range of its destination, in run order, within an
/// int of elements (a reduction's result then lands there straight, MPI_IN_PLACE or as the
/// receive buffer).
template <class R>
bool reduces_straight(const Stage<R>& st) {
  const auto local = st.runs_of(st.local);
  return !local.empty() && contiguous_chain(local, side::dst) &&
         local.front().dst + st.local.size <= static_cast<index_t>(INT_MAX);
}

/// Elements of scratch a reduction of stage st on `wire` takes on this rank: an all-reduce none
/// when straight (reduces_straight), else its contribution; a reduce-scatter its contributions to
/// every member, and its own elements unless straight.
template <class R>
index_t reduce_scratch(const Stage<R>& st, Wire wire) {
  const bool straight = reduces_straight(st);
  if (wire == Wire::allreduce) return straight ? 0 : st.local.size;
  index_t total = st.local.size;
  for (const Message& m : st.sends) total += m.size;
  return total + (straight ? 0 : st.local.size);
}

}  // namespace redist::detail
