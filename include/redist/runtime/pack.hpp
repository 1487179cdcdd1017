/// @file Defines pack, unpack and copy of runs: the data movement of a plan, without MPI.
#pragma once

#include <cstring>
#include <span>
#include <type_traits>

#include <redist/index/run.hpp>

namespace redist::runtime {

namespace detail {
/// Copies count pieces of len elements from `from` (stride fs) to `to` (stride ts).
/// Contiguous families are one memcpy; pieces of one element are a plain strided loop.
template <class T>
inline void copy_pieces(const T* from, index_t fs, T* to, index_t ts, index_t len, index_t count) {
  static_assert(std::is_trivially_copyable_v<T>);
  if (count == 1 || (fs == len && ts == len)) {
    std::memcpy(to, from, static_cast<std::size_t>(len * count) * sizeof(T));
  } else if (len == 1) {
    for (index_t j = 0; j < count; ++j) to[j * ts] = from[j * fs];
  } else {
    for (index_t j = 0; j < count; ++j)
      std::memcpy(to + j * ts, from + j * fs, static_cast<std::size_t>(len) * sizeof(T));
  }
}
}  // namespace detail

/// Pack: the runs' source pieces of `src`, in run order, into the contiguous buffer `out`.
template <class T>
inline void pack(std::span<const Run> runs, const T* src, T* out) {
  for (const Run& r : runs) {
    detail::copy_pieces(src + r.src, r.src_stride, out, r.len, r.len, r.count);
    out += r.size();
  }
}

/// Unpack: the contiguous buffer `in`, in run order, into the runs' destination pieces of `dst`.
template <class T>
inline void unpack(std::span<const Run> runs, const T* in, T* dst) {
  for (const Run& r : runs) {
    detail::copy_pieces(in, r.len, dst + r.dst, r.dst_stride, r.len, r.count);
    in += r.size();
  }
}

/// Local copy: src pieces straight to dst pieces, no buffer. src and dst must not overlap.
template <class T>
inline void copy(std::span<const Run> runs, const T* src, T* dst) {
  for (const Run& r : runs) detail::copy_pieces(src + r.src, r.src_stride, dst + r.dst, r.dst_stride, r.len, r.count);
}

}  // namespace redist::runtime
