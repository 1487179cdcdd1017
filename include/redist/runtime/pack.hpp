/// @file Defines pack, unpack and copy of runs and sections, message by message, and pack_walk and unpack_walk, every message in one pass over the local array: the data movement of a plan, without MPI.
#pragma once

#include <algorithm>
#include <array>
#include <cstring>
#include <span>
#include <type_traits>
#include <vector>

#include <redist/index/run.hpp>
#include <redist/index/section.hpp>
#include <redist/plan/walk.hpp>

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
template <class R, class F>
inline void for_runs_in(std::span<const R> runs, index_t begin, index_t end, F&& f) {
  index_t pos = 0;
  for (const R& r : runs) {
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

// N-D sections.

namespace detail {
/// The loops of a section as seen by one copy: counts and the strides on the side read (fs) and
/// written (ts), innermost first.
template <std::size_t D>
struct Nest {
  std::size_t depth = 0;
  std::array<index_t, D> count{}, fs{}, ts{};
};

enum class dense { none, from, to };

/// The nest of s for a copy src -> dst (dense::none), src -> packed buffer (dense::to) or packed
/// buffer -> dst (dense::from); loops that continue each other on both sides of this copy are
/// merged (a packed buffer continues every loop).
template <std::size_t D>
inline Nest<D> nest_of(const BasicSection<D>& s, dense packed) {
  Nest<D> n;
  index_t dense_stride = 1;
  for (std::size_t k = 0; k < s.depth; ++k) {
    const Loop& l = s.loops[k];
    const index_t f = packed == dense::from ? dense_stride : l.src_stride;
    const index_t t = packed == dense::to ? dense_stride : l.dst_stride;
    dense_stride *= l.count;
    if (n.depth > 0) {
      const std::size_t i = n.depth - 1;
      if (f == n.count[i] * n.fs[i] && t == n.count[i] * n.ts[i]) {
        n.count[i] *= l.count;
        continue;
      }
    }
    n.count[n.depth] = l.count;
    n.fs[n.depth] = f;
    n.ts[n.depth] = t;
    ++n.depth;
  }
  return n;
}

/// Copies the elements of the loops [0, depth) of n from `from` to `to`.
template <class T, std::size_t D>
void copy_nest(const T* from, T* to, const Nest<D>& n, std::size_t depth) {
  if (depth == 0) {
    *to = *from;
  } else if (depth == 1) {
    if (n.fs[0] == 1 && n.ts[0] == 1) copy_section(to, from, n.count[0]);
    else for (index_t i = 0; i < n.count[0]; ++i) to[i * n.ts[0]] = from[i * n.fs[0]];
  } else if (depth == 2 && n.fs[0] == 1 && n.ts[0] == 1) {
    copy_pieces(from, n.fs[1], to, n.ts[1], n.count[0], n.count[1]);
  } else {
    const std::size_t k = depth - 1;
    for (index_t i = 0; i < n.count[k]; ++i) copy_nest(from + i * n.fs[k], to + i * n.ts[k], n, k);
  }
}

/// Copies the elements [a, b) of the packed order of n (innermost loop fastest), row by row of
/// the innermost loop. The side named by `packed` is the packed buffer of this piece, which
/// holds element p at p - a; the other side advances by the nest's strides.
template <dense Packed, class T, std::size_t D>
void copy_nest_range(const T* from, T* to, const Nest<D>& n, index_t a, index_t b) {
  if (a >= b) return;
  const index_t row = n.depth == 0 ? 1 : n.count[0];
  const index_t unit = n.depth == 0 ? 0 : (Packed == dense::to ? n.fs[0] : n.ts[0]);
  for (index_t o = a / row; o * row < b; ++o) {
    index_t rest = o, off = 0;
    for (std::size_t k = 1; k < n.depth; ++k) {
      const index_t i = rest % n.count[k];
      rest /= n.count[k];
      off += i * (Packed == dense::to ? n.fs[k] : n.ts[k]);
    }
    const index_t lo = std::max(a, o * row) - o * row, hi = std::min(b, (o + 1) * row) - o * row;
    for (index_t i = lo; i < hi; ++i) {
      const index_t p = o * row + i - a;
      if constexpr (Packed == dense::to) to[p] = from[off + i * unit];
      else to[off + i * unit] = from[p];
    }
  }
}
}  // namespace detail

/// Pack: the sections' source elements of `src`, in packed order, into the contiguous buffer `out`.
template <class T, std::size_t D>
inline void pack(std::span<const BasicSection<D>> sections, const T* src, T* out) {
  for (const BasicSection<D>& s : sections) {
    const detail::Nest n = detail::nest_of(s, detail::dense::to);
    detail::copy_nest(src + s.src, out, n, n.depth);
    out += s.size();
  }
}

/// Unpack: the contiguous buffer `in`, in packed order, into the sections' destination elements of `dst`.
template <class T, std::size_t D>
inline void unpack(std::span<const BasicSection<D>> sections, const T* in, T* dst) {
  for (const BasicSection<D>& s : sections) {
    const detail::Nest n = detail::nest_of(s, detail::dense::from);
    detail::copy_nest(in, dst + s.dst, n, n.depth);
    in += s.size();
  }
}

/// Local copy: source elements straight to destination elements, no buffer.
template <class T, std::size_t D>
inline void copy(std::span<const BasicSection<D>> sections, const T* src, T* dst) {
  for (const BasicSection<D>& s : sections) {
    const detail::Nest n = detail::nest_of(s, detail::dense::none);
    detail::copy_nest(src + s.src, dst + s.dst, n, n.depth);
  }
}

/// Pack the elements [begin, end) of the message's packed order into out (a piece of a message).
template <class T, std::size_t D>
inline void pack_range(std::span<const BasicSection<D>> sections, const T* src, T* out, index_t begin, index_t end) {
  detail::for_runs_in(sections, begin, end, [&](const BasicSection<D>& s, index_t a, index_t b) {
    detail::copy_nest_range<detail::dense::to>(src + s.src, out, detail::nest_of(s, detail::dense::to), a, b);
    out += b - a;
  });
}

/// Unpack a piece holding the elements [begin, end) of the message's packed order.
template <class T, std::size_t D>
inline void unpack_range(std::span<const BasicSection<D>> sections, const T* in, T* dst, index_t begin, index_t end) {
  detail::for_runs_in(sections, begin, end, [&](const BasicSection<D>& s, index_t a, index_t b) {
    detail::copy_nest_range<detail::dense::from>(in, dst + s.dst, detail::nest_of(s, detail::dense::from), a, b);
    in += b - a;
  });
}

// One pass: every message of a walk at once.

namespace detail {
/// Where a walk stands above level k: slot-table index, the packed-order terms X, Y and Z of the
/// outer dimensions (plan/walk.hpp), and the local offset.
struct WalkAt {
  index_t lin = 0, x = 0, y = 0, z = 1, off = 0;
};

/// Walks level 0 (the innermost dimension) under `at`: every member's pieces, band by band and
/// cycle by cycle, copy(local offset, local stride, buffer position, length) for the members
/// whose message is active (base[slot] >= 0).
template <class Copy>
inline void walk_innermost(const Walk& w, const WalkAt& at, std::span<const index_t> base, index_t* cur, Copy& copy) {
  const WalkDim& d = w.dims[0];
  const std::size_t n = d.members.size();
  for (std::size_t j = 0; j < n; ++j) {
    const WalkMember& m = d.members[j];
    const int s = w.slot[static_cast<std::size_t>(at.lin + m.coord * d.weight)];
    const index_t b = s < 0 ? -1 : base[static_cast<std::size_t>(s)];
    cur[j] = b < 0 ? -1 : b + m.prefix * at.z + m.total * at.x + m.size * at.y;
  }
  for (const WalkBand& band : d.bands) {
    const WalkMember* ms = d.members.data() + band.first;
    index_t* cs = cur + band.first;
    index_t from = at.off + band.start * d.stride;
    for (index_t c = 0; c < band.cycles; ++c, from += band.period * d.stride) {
      for (std::size_t j = 0; j < band.size; ++j) {
        if (cs[j] < 0 || c < ms[j].first || c >= ms[j].first + ms[j].count) continue;
        copy(from + ms[j].phase * d.stride, d.stride, cs[j], ms[j].len);
        cs[j] += ms[j].len;
      }
    }
  }
}

/// Walks level k > 0 under `at`: every element of every piece of dimension k, then level k - 1.
template <class Copy>
inline void walk_level(const Walk& w, std::size_t k, const WalkAt& at, std::span<const index_t> base, index_t* cur,
                       Copy& copy) {
  if (k == 0) return walk_innermost(w, at, base, cur, copy);
  const WalkDim& d = w.dims[k];
  for (const WalkBand& band : d.bands) {
    for (index_t c = 0; c < band.cycles; ++c) {
      for (std::size_t j = band.first; j < band.first + band.size; ++j) {
        const WalkMember& m = d.members[j];
        if (c < m.first || c >= m.first + m.count) continue;
        WalkAt in;
        in.lin = at.lin + m.coord * d.weight;
        in.x = m.prefix * at.z + m.total * at.x;
        in.z = m.size * at.z;
        const index_t start = band.start + c * band.period + m.phase;
        for (index_t i = 0; i < m.len; ++i) {
          in.y = (c - m.first) * m.len + i + m.size * at.y;
          in.off = at.off + (start + i) * d.stride;
          walk_level(w, k - 1, in, base, cur, copy);
        }
      }
    }
  }
}

template <class Copy>
inline void run_walk(const Walk& w, std::span<const index_t> base, std::vector<index_t>& cursors, Copy&& copy) {
  if (!w.valid || w.dims.empty()) return;
  cursors.resize(w.dims[0].members.size());
  WalkAt top;
  top.lin = w.fixed;
  walk_level(w, w.dims.size() - 1, top, base, cursors.data(), copy);
}
}  // namespace detail

/// Pack in one pass over src in storage order: every message whose base[i] >= 0 (i its index in
/// the plan's sends) into buf + base[i], in the message's packed order — the bytes of
/// pack(plan.runs_of(sends[i]), src, buf + base[i]) for each, without reading src once per
/// message. `cursors` is reused (no allocation once it has grown).
template <class T>
inline void pack_walk(const Walk& w, const T* src, T* buf, std::span<const index_t> base, std::vector<index_t>& cursors) {
  static_assert(std::is_trivially_copyable_v<T>);
  detail::run_walk(w, base, cursors, [&](index_t at, index_t stride, index_t pos, index_t len) {
    if (stride == 1) detail::copy_section(buf + pos, src + at, len);
    else for (index_t i = 0; i < len; ++i) buf[pos + i] = src[at + i * stride];
  });
}

/// Unpack in one pass over dst (in its storage order, in the source's order of dimensions when
/// transposed): every message whose base[i] >= 0 (i its index in
/// the plan's recvs) from buf + base[i] — what unpack(plan.runs_of(recvs[i]), buf + base[i], dst)
/// does for each.
template <class T>
inline void unpack_walk(const Walk& w, const T* buf, T* dst, std::span<const index_t> base, std::vector<index_t>& cursors) {
  static_assert(std::is_trivially_copyable_v<T>);
  detail::run_walk(w, base, cursors, [&](index_t at, index_t stride, index_t pos, index_t len) {
    if (stride == 1) detail::copy_section(dst + at, buf + pos, len);
    else for (index_t i = 0; i < len; ++i) dst[at + i * stride] = buf[pos + i];
  });
}

}  // namespace redist::runtime
