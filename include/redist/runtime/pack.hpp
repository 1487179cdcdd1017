/// @file Defines pack, unpack and copy of runs: the data movement of a plan, without MPI.
#pragma once

#include <algorithm>
#include <cstring>
#include <span>
#include <type_traits>

#include <redist/index/run.hpp>

namespace redist::runtime {

namespace detail {
/// len elements from `from` to `to`; short sections (the common case of small block sizes) by
/// a plain loop, which beats a memcpy call there.
template <class T>
inline void copy_section(T* to, const T* from, index_t len) {
  static_assert(std::is_trivially_copyable_v<T>);
  if (static_cast<std::size_t>(len) * sizeof(T) <= 64) {
    for (index_t i = 0; i < len; ++i) to[i] = from[i];
  } else {
    std::memcpy(to, from, static_cast<std::size_t>(len) * sizeof(T));
  }
}

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
    for (index_t j = 0; j < count; ++j) copy_section(to + j * ts, from + j * fs, len);
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

namespace detail {
/// Calls f(offset in the run's pieces, element count) for the elements [a, b) of run r in packed
/// order, where offset is relative to the run's start on the side whose stride is `stride`:
/// a clipped first piece, whole pieces, a clipped last piece.
template <class F>
inline void for_range(const Run& r, index_t stride, index_t a, index_t b, F&& f) {
  index_t c = a / r.len, off = a % r.len;
  if (off != 0) {
    const index_t take = std::min(r.len - off, b - a);
    f(c * stride + off, 1, take);
    a += take;
    ++c;
  }
  const index_t whole = (b - a) / r.len;
  if (whole > 0) f(c * stride, whole, r.len);
  a += whole * r.len;
  c += whole;
  if (a < b) f(c * stride, 1, b - a);
}

/// Calls f(run, a, b) for each run overlapping the elements [begin, end) of a message's packed order.
template <class F>
inline void for_runs_in(std::span<const Run> runs, index_t begin, index_t end, F&& f) {
  index_t pos = 0;
  for (const Run& r : runs) {
    const index_t size = r.size();
    if (pos >= end) break;
    if (pos + size > begin) f(r, std::max(begin, pos) - pos, std::min(end, pos + size) - pos);
    pos += size;
  }
}
}  // namespace detail

/// Pack the elements [begin, end) of the message's packed order into out (a piece of a message).
template <class T>
inline void pack_range(std::span<const Run> runs, const T* src, T* out, index_t begin, index_t end) {
  detail::for_runs_in(runs, begin, end, [&](const Run& r, index_t a, index_t b) {
    detail::for_range(r, r.src_stride, a, b, [&](index_t at, index_t count, index_t len) {
      detail::copy_pieces(src + r.src + at, r.src_stride, out, len, len, count);
      out += count * len;
    });
  });
}

/// Unpack a piece holding the elements [begin, end) of the message's packed order.
template <class T>
inline void unpack_range(std::span<const Run> runs, const T* in, T* dst, index_t begin, index_t end) {
  detail::for_runs_in(runs, begin, end, [&](const Run& r, index_t a, index_t b) {
    detail::for_range(r, r.dst_stride, a, b, [&](index_t at, index_t count, index_t len) {
      detail::copy_pieces(in, len, dst + r.dst + at, r.dst_stride, len, count);
      in += count * len;
    });
  });
}

}  // namespace redist::runtime
