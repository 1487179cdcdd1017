/// @file Defines pack_cycles and unpack_cycles: the one-pass pack and unpack of a CyclePlan (seed 000's packing by template), without MPI.
#pragma once

#include <algorithm>
#include <cstring>
#include <span>
#include <type_traits>

#include <redist/plan/basic_cycle.hpp>
#include <redist/runtime/pack.hpp>

namespace redist::runtime {

/// Pack: the basic cycles [first, last) of src, in one pass over them (seed 000, lines 12-18, by
/// sections instead of meta-elements): each section of `pattern` (a send pattern) is appended to
/// the buffer of its message, out[slot], which advances; a local section is copied straight to
/// its place in dst. The ragged end of src (src_size) clips the last cycle.
///   out[slot] ++= src[c·cycle + offset, + len) for c in [first, last), sections in order
template <class T>
inline void pack_cycles(std::span<const CycleSection> pattern, index_t cycle, index_t first, index_t last,
                        const T* src, index_t src_size, T** out, T* dst) {
  for (index_t c = first; c < last; ++c) {
    const index_t base = c * cycle;
    if (base >= src_size) break;
    const T* in = src + base;
    const index_t avail = src_size - base;
    for (const CycleSection& s : pattern) {
      if (s.offset >= avail) break;
      const index_t len = avail >= cycle ? s.len : std::min(s.len, avail - s.offset);
      if (s.slot >= 0) {
        detail::copy_section(out[s.slot], in + s.offset, len);
        out[s.slot] += len;
      } else {
        detail::copy_section(dst + base + s.peer_offset, in + s.offset, len);
      }
    }
  }
}

/// Unpack: the mirror of pack_cycles over the basic cycles [first, last) of dst, following a
/// receive pattern: each section is taken from the buffer of its message, in[slot], which
/// advances. Local sections are skipped (pack_cycles has put them). dst_size clips the last cycle.
///   dst[c·cycle + offset, + len) = in[slot]++ for c in [first, last), sections in order
template <class T>
inline void unpack_cycles(std::span<const CycleSection> pattern, index_t cycle, index_t first, index_t last,
                          const T** in, T* dst, index_t dst_size) {
  for (index_t c = first; c < last; ++c) {
    const index_t base = c * cycle;
    if (base >= dst_size) break;
    T* to = dst + base;
    const index_t avail = dst_size - base;
    for (const CycleSection& s : pattern) {
      if (s.offset >= avail) break;
      if (s.slot < 0) continue;
      const index_t len = avail >= cycle ? s.len : std::min(s.len, avail - s.offset);
      detail::copy_section(to + s.offset, in[s.slot], len);
      in[s.slot] += len;
    }
  }
}

}  // namespace redist::runtime
