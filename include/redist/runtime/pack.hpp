/// @file Defines pack, unpack and copy of runs and sections, pack_message and unpack_message, which follow a stage's packed order (its walks, or its runs), and pack_cycles and unpack_cycles, the one-pass pack of a stage with basic cycles: the data movement of a plan, without MPI.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include <redist/index/run.hpp>
#include <redist/index/section.hpp>
#include <redist/plan/plan.hpp>
#include <redist/plan/walk.hpp>
#include <redist/runtime/store.hpp>

namespace redist::runtime {

/// Where a source's local memory meets a destination's: `shares` when they have a byte in common
/// (two views over one buffer, an update in place); then `src_at`, the source's first element's
/// place in the destination's storage in source elements (negative before its start), when their
/// starts lie a whole number of them apart. What every overlap check asks first: the arrays'
/// refusal before a plan's first run, the C interface's, and a fold's timing (which would add the
/// parts again on each run).
struct Overlap {
  bool shares = false;
  std::optional<index_t> src_at;
};

template <class T, class U>
Overlap overlap(std::span<const T> src, std::span<const U> dst) noexcept {
  const auto* s = reinterpret_cast<const std::byte*>(src.data());
  const auto* d = reinterpret_cast<const std::byte*>(dst.data());
  Overlap o;
  o.shares = !src.empty() && !dst.empty() && std::less<>{}(s, d + dst.size_bytes()) && std::less<>{}(d, s + src.size_bytes());
  if (o.shares) {
    const auto bytes = static_cast<std::ptrdiff_t>(reinterpret_cast<std::uintptr_t>(s) - reinterpret_cast<std::uintptr_t>(d));
    if (bytes % static_cast<std::ptrdiff_t>(sizeof(T)) == 0)
      o.src_at = static_cast<index_t>(bytes / static_cast<std::ptrdiff_t>(sizeof(T)));
  }
  return o;
}

namespace detail {
/// Elements of local storage a copy by piece families spans at a time (a chunk of cycles): within
/// the L1 cache the traversal order costs nothing, and piece by piece, lengths that change from
/// piece to piece cost a mispredicted branch each (the walk packed 1.3 ns per element, the runs 0.2).
inline constexpr index_t walk_span_elements = 4096;
/// pack_cycles and unpack_cycles go section by section over at most this many elements of whole
/// cycles (an array that stays in the L2 cache); larger ones cycle by cycle, which streams through
/// memory once and was measured 10 % faster there (2^24 doubles on 4 ranks, the message path).
inline constexpr index_t whole_cycles_max_elements = index_t{1} << 16;

/// len elements from `from` to `to`; short sections (the common case of small block sizes) by
/// a plain loop, which beats a memcpy call there. Another store than assign_op (a scaled update)
/// is applied element by element. A section assigned onto itself (an update in place:
/// writes_over_source_only_itself) is not copied.
template <class T, class Op = assign_op>
inline void copy_section(T* to, const T* from, index_t len, const Op& op = {}) {
  static_assert(std::is_trivially_copyable_v<T>);
  if constexpr (Op::assigns) {
    if (to == from) return;
  }
  if constexpr (!Op::assigns) {
    for (index_t i = 0; i < len; ++i) op(to[i], from[i]);
  } else if (static_cast<std::size_t>(len) * sizeof(T) <= 64) {
    for (index_t i = 0; i < len; ++i) to[i] = from[i];
  } else {
    std::memcpy(to, from, static_cast<std::size_t>(len) * sizeof(T));
  }
}

/// count pieces of Len elements, Len known at compile time: the piece is a few loads and stores,
/// with no call and no loop over a run-time length.
template <index_t Len, class T, class Op>
inline void copy_fixed(const T* from, index_t fs, T* to, index_t ts, index_t count, const Op& op) {
  if constexpr (Op::assigns) {
    // A memcpy of a constant size: the compiler emits the vector moves (an element loop stays
    // scalar, the compiler not knowing the pieces do not overlap).
    for (index_t j = 0; j < count; ++j, from += fs, to += ts) std::memcpy(to, from, static_cast<std::size_t>(Len) * sizeof(T));
  } else {
    for (index_t j = 0; j < count; ++j, from += fs, to += ts)
      for (index_t i = 0; i < Len; ++i) op(to[i], from[i]);
  }
}

/// Pieces of 2 to 9 elements by copy_fixed (block sizes of the small cyclic distributions);
/// false for other lengths.
template <class T, class Op, std::size_t... L>
inline bool copy_short(const T* from, index_t fs, T* to, index_t ts, index_t len, index_t count, const Op& op,
                       std::index_sequence<L...>) {
  return ((len == static_cast<index_t>(L) + 2 && (copy_fixed<static_cast<index_t>(L) + 2>(from, fs, to, ts, count, op), true)) || ...);
}

/// Copies count pieces of len elements from `from` (stride fs) to `to` (stride ts).
/// Contiguous families are one copy_section; pieces of one element are a plain strided loop;
/// short pieces are copied by a kernel of their length (copy_short). Pieces assigned onto
/// themselves (an update in place) are not copied.
template <class T, class Op = assign_op>
inline void copy_pieces(const T* from, index_t fs, T* to, index_t ts, index_t len, index_t count, const Op& op = {}) {
  static_assert(std::is_trivially_copyable_v<T>);
  if constexpr (Op::assigns) {
    if (to == from && (count == 1 || fs == ts)) return;
  }
  if (count == 1 || (fs == len && ts == len)) {
    copy_section(to, from, len * count, op);
  } else if (len == 1) {
    for (index_t j = 0; j < count; ++j) op(to[j * ts], from[j * fs]);
  } else if (!copy_short(from, fs, to, ts, len, count, op, std::make_index_sequence<8>{})) {
    for (index_t j = 0; j < count; ++j) copy_section(to + j * ts, from + j * fs, len, op);
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

/// Unpack: the contiguous buffer `in`, in run order, into the runs' destination pieces of `dst`
/// (stored by op: assigned, or a scaled update).
template <class T, class Op = assign_op>
inline void unpack(std::span<const Run> runs, const T* in, T* dst, const Op& op = {}) {
  for (const Run& r : runs) {
    detail::copy_pieces(in, r.len, dst + r.dst, r.dst_stride, r.len, r.count, op);
    in += r.size();
  }
}

/// Local copy: src pieces straight to dst pieces, no buffer. src and dst must not overlap.
template <class T, class Op = assign_op>
inline void copy(std::span<const Run> runs, const T* src, T* dst, const Op& op = {}) {
  for (const Run& r : runs) detail::copy_pieces(src + r.src, r.src_stride, dst + r.dst, r.dst_stride, r.len, r.count, op);
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
template <class T, class Op = assign_op>
inline void unpack_range(std::span<const Run> runs, const T* in, T* dst, index_t begin, index_t end, const Op& op = {}) {
  detail::for_runs_in(runs, begin, end, [&](const Run& r, index_t a, index_t b) {
    detail::for_range(r, r.dst_stride, a, b, [&](index_t at, index_t count, index_t len) {
      detail::copy_pieces(in, len, dst + r.dst + at, r.dst_stride, len, count, op);
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

/// The side of a tile of a transposed copy, in elements: tile rows of 128 bytes (two cache
/// lines), 16 rows of them. Measured on transpose_rows (8192², 4 ranks, a power-of-two stride):
/// 8 × 8 doubles 105 ms, 16 × 16 86–91 ms, 32 × 32 200 ms (conflict misses in L1).
template <class T>
inline constexpr index_t transpose_tile = std::max<index_t>(16, 128 / static_cast<index_t>(sizeof(T)));

/// to[i·t0 + j·t1] = from[i·f0 + j·f1] for i < c0, j < c1, where one side is contiguous along i
/// and the other along j (a local transpose): in square tiles, so that each tile reads and writes
/// whole cache lines (the blocked transpose FFTW and every fast transpose use).
template <class T, class Op = assign_op>
inline void copy_transposed(const T* from, index_t f0, index_t f1, T* to, index_t t0, index_t t1, index_t c0,
                            index_t c1, const Op& op = {}) {
  constexpr index_t B = transpose_tile<T>;
  for (index_t jb = 0; jb < c1; jb += B)
    for (index_t ib = 0; ib < c0; ib += B) {
      const index_t ie = std::min(c0, ib + B), je = std::min(c1, jb + B);
      for (index_t j = jb; j < je; ++j)
        for (index_t i = ib; i < ie; ++i) op(to[i * t0 + j * t1], from[i * f0 + j * f1]);
    }
}

/// Copies the elements of the loops [0, depth) of n from `from` to `to`.
template <class T, std::size_t D, class Op = assign_op>
void copy_nest(const T* from, T* to, const Nest<D>& n, std::size_t depth, const Op& op = {}) {
  if (depth == 0) {
    op(*to, *from);
  } else if (depth == 1) {
    if (n.fs[0] == 1 && n.ts[0] == 1) copy_section(to, from, n.count[0], op);
    else for (index_t i = 0; i < n.count[0]; ++i) op(to[i * n.ts[0]], from[i * n.fs[0]]);
  } else if (depth == 2 && n.fs[0] == 1 && n.ts[0] == 1) {
    copy_pieces(from, n.fs[1], to, n.ts[1], n.count[0], n.count[1], op);
  } else if (depth == 2 && ((n.fs[0] == 1 && n.ts[1] == 1) || (n.ts[0] == 1 && n.fs[1] == 1)) &&
             n.count[0] > 1 && n.count[1] > 1) {
    copy_transposed(from, n.fs[0], n.fs[1], to, n.ts[0], n.ts[1], n.count[0], n.count[1], op);
  } else {
    const std::size_t k = depth - 1;
    for (index_t i = 0; i < n.count[k]; ++i) copy_nest(from + i * n.fs[k], to + i * n.ts[k], n, k, op);
  }
}

/// Copies the elements [a, b) of the packed order of n (innermost loop fastest), row by row of
/// the innermost loop. The side named by `packed` is the packed buffer of this piece, which
/// holds element p at p - a; the other side advances by the nest's strides.
template <dense Packed, class T, std::size_t D, class Op = assign_op>
void copy_nest_range(const T* from, T* to, const Nest<D>& n, index_t a, index_t b, const Op& op = {}) {
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
      if constexpr (Packed == dense::to) op(to[p], from[off + i * unit]);
      else op(to[off + i * unit], from[p]);
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
template <class T, std::size_t D, class Op = assign_op>
inline void unpack(std::span<const BasicSection<D>> sections, const T* in, T* dst, const Op& op = {}) {
  for (const BasicSection<D>& s : sections) {
    const detail::Nest n = detail::nest_of(s, detail::dense::from);
    detail::copy_nest(in, dst + s.dst, n, n.depth, op);
    in += s.size();
  }
}

/// One run or section of a gathered copy (copy_gathered): where it starts in its source array
/// and in the destination, its outermost loop (count and strides, by which items are
/// interleaved), and what one iteration of that loop copies.
struct CopyItem {
  const void* from = nullptr;  ///< first source element (in its own source array)
  std::size_t run = 0;         ///< index in the plan's runs
  index_t dst = 0;             ///< first destination offset
  index_t count = 1;           ///< iterations of the outermost loop
  index_t fs = 0, ts = 0;      ///< its strides in the source and the destination
  /// One iteration: len contiguous elements on both sides; -1: the whole nest, once; -2 (a section
  /// of three loops or more): the nest's inner loops, a block of pieces (lockstep_depth).
  index_t len = -1;
};

namespace detail {
/// Sections whose nests have this many loops or more, after merging (a 2-D block-cyclic family: its
/// pieces, their cycles down a column, its columns, their cycles), are copied together with their
/// outermost loops in lockstep (copy_gathered): in iteration c every such section copies its block
/// of iteration c, in order of destination, so that the families of a pair, which share their
/// outer period, go through the arrays in one pass instead of one pass per family (walk-bench's
/// local copies of 2-D CYCLIC(b) -> CYCLIC(3b), b = 2 ... 16: 1.2-1.9x faster; doc/plans.md).
/// Shallower nests (a row's pieces, whose outermost loop is one piece) keep their kernels.
inline constexpr std::size_t lockstep_depth = 3;

/// The item of run r (1-D: pieces of len elements) or section s (its nest's outermost loop),
/// read from the source array `from`.
template <class T>
inline CopyItem copy_item(const Run& r, std::size_t run, const T* from) noexcept {
  return {from + r.src, run, r.dst, r.count, r.src_stride, r.dst_stride, r.len};
}
template <class T, std::size_t D>
inline CopyItem copy_item(const BasicSection<D>& s, std::size_t run, const T* from) noexcept {
  const Nest<D> n = nest_of(s, dense::none);
  if (n.depth == 0) return {from + s.src, run, s.dst, 1, 0, 0, 1};
  if (n.depth == 1) return {from + s.src, run, s.dst, n.count[0], n.fs[0], n.ts[0], 1};
  if (n.depth == 2 && n.fs[0] == 1 && n.ts[0] == 1)
    return {from + s.src, run, s.dst, n.count[1], n.fs[1], n.ts[1], n.count[0]};
  if (n.depth >= lockstep_depth) {
    const std::size_t k = n.depth - 1;
    return {from + s.src, run, s.dst, n.count[k], n.fs[k], n.ts[k], -2};
  }
  return {from + s.src, run, s.dst, 1, 0, 0, -1};  // a transposed nest: copied whole (copy_nest)
}
}  // namespace detail

/// Orders the items of a gathered copy (made by detail::copy_item) for copy_gathered: first those
/// copied one after the other — fewer than `interleave` iterations, or a contiguous destination
/// (ts == len: no other item writes between its pieces, so interleaving gains nothing, and
/// copy_pieces then copies all its pieces with one kernel of their length), or a deep section
/// (len -2) of one iteration; then the others in order of destination, to be interleaved (a deep
/// section's blocks with any count: lockstep_depth). Returns how many come first. Done once per
/// plan and sources (runtime::execute keeps the ordered items in its workspace). Several holders' items
/// of partial values that write the same contiguous columns are copied one after the other too
/// (interleaving them column by column, to fold each while it is in cache, made (Block, Partial<>)
/// -> (Block, Block) of 8192^2 on 4 ranks 1.4-1.5x slower in runs of the two builds one after the
/// other); deep sections' blocks go in lockstep whoever holds them (not measured with partial values).
inline std::size_t order_gathered(std::span<CopyItem> items, index_t interleave = 64) {
  const auto periodic = std::partition(items.begin(), items.end(), [&](const CopyItem& it) {
    if (it.len == -2) return it.count < 2;  // a block per iteration: in lockstep with any other
    return it.count < interleave || it.ts == it.len;
  });
  std::sort(periodic, items.end(), [](const CopyItem& a, const CopyItem& b) { return a.dst < b.dst; });
  return static_cast<std::size_t>(periodic - items.begin());
}

/// Local copy of several messages' runs, each read from its own source array, into dst, with the
/// items ordered by order_gathered (`alone` of them copied one after the other). The others are
/// interleaved, iteration by iteration of their outermost loop and in order of destination within
/// an iteration, so that the periodic families of a block-cyclic pair, which repeat with the same
/// period (give or take a ragged last one), are copied in one pass through the arrays instead of
/// one pass per family. (Copying a few iterations of each family at a time, to use copy_pieces'
/// kernels, was measured 2.3 times slower on Cyclic<8> -> Cyclic<5>.) Each element is stored by
/// op (assigned; or folded, when several items write one element: partial values).
template <class T, class R, class Op = assign_op>
void copy_gathered(std::span<const R> runs, std::span<const CopyItem> items, std::size_t alone, T* dst, const Op& op = {}) {
  for (const CopyItem& it : items.first(alone)) {
    const T* from = static_cast<const T*>(it.from);
    if (it.len < 0) {
      if constexpr (!std::is_same_v<R, Run>) {
        const auto n = detail::nest_of(runs[it.run], detail::dense::none);
        detail::copy_nest(from, dst + it.dst, n, n.depth, op);
      }
    } else {
      detail::copy_pieces(from, it.fs, dst + it.dst, it.ts, it.len, it.count, op);
    }
  }
  const auto periodic = items.subspan(alone);
  index_t most = 0;
  for (const CopyItem& it : periodic) most = std::max(most, it.count);
  for (index_t c = 0; c < most; ++c)
    for (const CopyItem& it : periodic) {
      if (c >= it.count) continue;
      const T* from = static_cast<const T*>(it.from) + c * it.fs;
      if (it.len >= 0) {
        detail::copy_section(dst + it.dst + c * it.ts, from, it.len, op);
      } else if constexpr (!std::is_same_v<R, Run>) {
        // A block of a deep section (len -2): its nest's inner loops.
        const auto n = detail::nest_of(runs[it.run], detail::dense::none);
        detail::copy_nest(from, dst + it.dst + c * it.ts, n, n.depth - 1, op);
      }
    }
}

/// Local copy: source elements straight to destination elements, no buffer. Sections of deep nests
/// (two or more of them, up to 64) are copied together, their outermost loops in lockstep
/// (detail::lockstep_depth); the others one after the other.
template <class T, std::size_t D, class Op = assign_op>
inline void copy(std::span<const BasicSection<D>> sections, const T* src, T* dst, const Op& op = {}) {
  constexpr std::size_t most = 64;
  if (sections.size() >= 2 && sections.size() <= most) {
    std::size_t deep = 0;
    for (const BasicSection<D>& s : sections) deep += detail::nest_of(s, detail::dense::none).depth >= detail::lockstep_depth;
    if (deep >= 2) {
      std::array<CopyItem, most> items;
      for (std::size_t k = 0; k < sections.size(); ++k) items[k] = detail::copy_item(sections[k], k, src);
      const std::span<CopyItem> some(items.data(), sections.size());
      const std::size_t alone = order_gathered(some);
      copy_gathered<T>(sections, std::span<const CopyItem>(some), alone, dst, op);
      return;
    }
  }
  for (const BasicSection<D>& s : sections) {
    const detail::Nest n = detail::nest_of(s, detail::dense::none);
    detail::copy_nest(src + s.src, dst + s.dst, n, n.depth, op);
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
template <class T, std::size_t D, class Op = assign_op>
inline void unpack_range(std::span<const BasicSection<D>> sections, const T* in, T* dst, index_t begin, index_t end,
                         const Op& op = {}) {
  detail::for_runs_in(sections, begin, end, [&](const BasicSection<D>& s, index_t a, index_t b) {
    detail::copy_nest_range<detail::dense::from>(in, dst + s.dst, detail::nest_of(s, detail::dense::from), a, b, op);
    in += b - a;
  });
}

// Walks: the packed order of plans built from layouts (plan/walk.hpp).

namespace detail {
/// The elements of local storage walk_one copies member by member (each member's pieces over a
/// chunk of cycles by one kernel of the piece's length) instead of cycle by cycle.
inline constexpr index_t family_span_elements = walk_span_elements;
/// ... when its pieces are this short on average (copy_short's kernels): longer pieces cost little
/// more piece by piece, and go in storage order.
inline constexpr index_t short_piece = 8;

/// The whole line of dimension d (peer coordinate c) of one message, at local offset `off`, its
/// elements' packed positions from pos on (pos - lo passed to copy): the line's pieces in storage
/// order, a band's short pieces member by member over chunks of cycles (see walk_one's copy).
template <class Copy>
void walk_line(const WalkDim& d, std::size_t c, index_t off, index_t& pos, index_t lo, Copy& copy) {
  const WalkMember* ms = d.members.data();
  for (std::size_t b = d.begin[c]; b < d.begin[c + 1]; ++b) {
    const WalkBand& band = d.bands[b];
    const WalkMember* bm = ms + band.first;
    index_t base = off + band.start * d.stride;
    // A band of a few cycles, or of a long period, or strided: cycle by cycle, its members'
    // pieces in member order (storage order).
    const index_t chunk = family_span_elements / std::max<index_t>(band.period, 1);
    if (d.stride != 1 || band.cycles < 2 || chunk < 2) {
      for (index_t cy = 0; cy < band.cycles; ++cy, base += band.period * d.stride)
        for (std::size_t m = 0; m < band.size; ++m) {
          if (cy < bm[m].first || cy >= bm[m].first + bm[m].count) continue;
          copy(base + bm[m].phase * d.stride, d.stride, pos - lo, bm[m].len, 1, 0, 0);
          pos += bm[m].len;
        }
      continue;
    }
    // Otherwise, when the pieces are short, the cycles [c0, c1) in which every member gives its
    // piece go member by member, a chunk of cycles at a time: each member's pieces in the chunk
    // (one per cycle, `width` apart in packed order) in one call, by a kernel of the piece's
    // length, the chunk's span of storage within the L1 cache. The same packed order; the
    // cycles before and after (a ragged end), cycle by cycle.
    index_t c0 = 0, c1 = band.cycles, width = 0;
    for (std::size_t m = 0; m < band.size; ++m) {
      c0 = std::max(c0, bm[m].first);
      c1 = std::min(c1, bm[m].first + bm[m].count);
      width += bm[m].len;
    }
    auto cycle = [&](index_t cy) {
      const index_t at = base + cy * band.period;
      for (std::size_t m = 0; m < band.size; ++m) {
        if (cy < bm[m].first || cy >= bm[m].first + bm[m].count) continue;
        copy(at + bm[m].phase, 1, pos - lo, bm[m].len, 1, 0, 0);
        pos += bm[m].len;
      }
    };
    if (c1 - c0 < 2 || width > short_piece * static_cast<index_t>(band.size)) {
      for (index_t cy = 0; cy < band.cycles; ++cy) cycle(cy);
      continue;
    }
    for (index_t cy = 0; cy < c0; ++cy) cycle(cy);
    for (index_t a = c0; a < c1; a += chunk) {
      const index_t cycles = std::min(chunk, c1 - a);
      index_t at = pos - lo;
      for (std::size_t m = 0; m < band.size; ++m) {
        copy(base + a * band.period + bm[m].phase, 1, at, bm[m].len, cycles, band.period, width);
        at += bm[m].len;
      }
      pos += width * cycles;
    }
    for (index_t cy = c1; cy < band.cycles; ++cy) cycle(cy);
  }
}

/// One message (peer coordinates `coords` per walk dimension), its elements [lo, hi) of packed
/// order, from walk dimension k down: copy(local offset, local stride, position - lo, length,
/// count, local step, position step) copies count pieces of length elements, the i-th at local
/// offset + i · local step and packed position + i · position step. `pos` counts the message's
/// elements met so far; returns false once pos reaches hi.
template <class Copy>
bool walk_one(const Walk& w, std::size_t k, std::span<const index_t> coords, index_t off, index_t& pos, index_t lo,
              index_t hi, Copy& copy) {
  const WalkDim& d = w.dims[k];
  const auto c = static_cast<std::size_t>(coords[d.index]);
  const WalkMember* ms = d.members.data();
  if (k == 0 && pos >= lo && pos + d.total[c] <= hi) {
    // The whole innermost line of this message is in the range: no clipping.
    walk_line(d, c, off, pos, lo, copy);
    return pos < hi;
  }
  index_t inner = 1;  // the message's elements per element of this dimension
  for (std::size_t j = 0; j < k; ++j) inner *= w.dims[j].total[static_cast<std::size_t>(coords[w.dims[j].index])];
  if (k == 1 && pos >= lo && pos + d.total[c] * inner <= hi) {
    // The whole of this dimension's line is in the range, and when the innermost dimension's
    // line of the message is one piece, contiguous in storage (a block of a Block or Collapsed
    // dimension, a short cyclic one), each member's elements of this dimension are its pieces
    // one stride apart: one call of copy for them all, by a kernel of the piece's length,
    // instead of a recursion per element. The same packed order.
    const WalkDim& d0 = w.dims[0];
    const auto c0 = static_cast<std::size_t>(coords[d0.index]);
    if (d0.stride == 1 && d0.begin[c0 + 1] == d0.begin[c0] + 1) {
      const WalkBand& b0 = d0.bands[d0.begin[c0]];
      const WalkMember& m0 = d0.members[b0.first];
      if (b0.size == 1 && m0.count == 1) {
        const index_t at0 = b0.start + m0.first * b0.period + m0.phase;
        if (m0.len == 1) {
          // One element per line (a 1 x n row, a single row or column of a block): this
          // dimension's line is the message's pieces, walked as an innermost line is.
          walk_line(d, c, off + at0, pos, lo, copy);
          return pos < hi;
        }
        for (std::size_t b = d.begin[c]; b < d.begin[c + 1]; ++b) {
          const WalkBand& band = d.bands[b];
          for (index_t cy = 0; cy < band.cycles; ++cy)
            for (std::size_t j = band.first; j < band.first + band.size; ++j) {
              const WalkMember& m = ms[j];
              if (cy < m.first || cy >= m.first + m.count) continue;
              copy(off + (band.start + cy * band.period + m.phase) * d.stride + at0, 1, pos - lo, m0.len, m.len, d.stride,
                   m0.len);
              pos += m.len * m0.len;
            }
        }
        return pos < hi;
      }
    }
  }
  for (std::size_t b = d.begin[c]; b < d.begin[c + 1]; ++b) {
    const WalkBand& band = d.bands[b];
    for (index_t cy = 0; cy < band.cycles; ++cy) {
      const index_t base = band.start + cy * band.period;
      for (std::size_t j = band.first; j < band.first + band.size; ++j) {
        const WalkMember& m = ms[j];
        if (cy < m.first || cy >= m.first + m.count) continue;
        const index_t at = base + m.phase;
        if (pos + m.len * inner <= lo) {  // before the range: skip the whole piece
          pos += m.len * inner;
          continue;
        }
        if (k == 0) {
          const index_t a = std::max(lo, pos) - pos, e = std::min(hi, pos + m.len) - pos;
          copy(off + (at + a) * d.stride, d.stride, pos + a - lo, e - a, 1, 0, 0);
          pos += m.len;
          if (pos >= hi) return false;
        } else {
          for (index_t i = 0; i < m.len; ++i) {
            if (pos + inner <= lo) {
              pos += inner;
              continue;
            }
            if (!walk_one(w, k - 1, coords, off + (at + i) * d.stride, pos, lo, hi, copy)) return false;
          }
        }
      }
    }
  }
  return true;
}

/// Walks message i's elements [lo, hi): copy(local offset, local stride, position - lo, length,
/// count, local step, position step) as walk_one.
template <class Copy>
void run_one(const Walk& w, std::size_t i, index_t lo, index_t hi, Copy&& copy) {
  if (w.dims.empty() || lo >= hi) return;
  index_t pos = 0;
  walk_one(w, w.dims.size() - 1, w.coords[i], 0, pos, lo, hi, copy);
}
}  // namespace detail

namespace detail {
/// How many elements ahead the element lists' loops prefetch the place they will read or write:
/// a list's places are anywhere in the array (a permutation's), and the cache lines of the next
/// few dozen are then on their way while this one is copied (a 3 Mi-element gather from a
/// 32 MiB array: 13-14 ms without, 10 with; a scatter 11 and 10).
inline constexpr std::size_t list_prefetch = 32;

/// f(k) for k in [0, n), prefetching base + places[k + list_prefetch] (for writing when Write)
/// before each.
template <bool Write, class T, class F>
inline void for_listed(const index_t* places, std::size_t n, T* base, F&& f) {
  std::size_t k = 0;
  if (n > list_prefetch)
    for (; k < n - list_prefetch; ++k) {
      __builtin_prefetch(base + places[k + list_prefetch], Write ? 1 : 0, 0);
      f(k);
    }
  for (; k < n; ++k) f(k);
}
/// out[k] = src[places[k]]: an element list's pack.
template <class T>
inline void gather(std::span<const index_t> places, const T* src, T* out) {
  const index_t* p = places.data();
  for_listed<false>(p, places.size(), src, [&](std::size_t k) { out[k] = src[p[k]]; });
}
/// dst[places[k]] stored by op from in[k]: an element list's unpack.
template <class T, class Op>
inline void scatter(std::span<const index_t> places, const T* in, T* dst, const Op& op) {
  const index_t* p = places.data();
  for_listed<true>(p, places.size(), dst, [&](std::size_t k) { op(dst[p[k]], in[k]); });
}
/// dst[to[k]] stored by op from src[from[k]]: an element list's copy (its reads prefetched; its
/// writes follow the destination's order where the list was made in it).
template <class T, class Op>
inline void copy_listed(std::span<const index_t> from, std::span<const index_t> to, const T* src, T* dst, const Op& op) {
  const index_t* f = from.data();
  const index_t* t = to.data();
  for_listed<false>(f, from.size(), src, [&](std::size_t k) { op(dst[t[k]], src[f[k]]); });
}
}  // namespace detail

/// Copies message m of stage st (its local copy, or a receive read from the peer's source) from
/// src straight into dst, each element stored by op: by its runs, or by its element lists.
template <class T, class R, class Op = assign_op>
inline void copy_message(const Stage<R>& st, const Message& m, const T* src, T* dst, const Op& op = {}) {
  if (m.listed()) detail::copy_listed(st.src_list(m), st.dst_list(m), src, dst, op);
  else copy(st.runs_of(m), src, dst, op);
}

/// Pack the elements [lo, hi) of the packed order of send i of stage st into out (hi < 0: to the
/// end): by the stage's send walk where it has one (the sender's storage order), else by its runs.
/// A run in the relay area (Stage::in_relay) is read from `relay`, the others from src.
template <class T, class R>
inline void pack_message(const Stage<R>& st, std::size_t i, const T* src, T* out, index_t lo = 0, index_t hi = -1,
                         const T* relay = nullptr) {
  static_assert(std::is_trivially_copyable_v<T>);
  const Message& m = st.sends[i];
  if (hi < 0) hi = m.size;
  if (m.listed()) {
    detail::gather(st.src_list(m).subspan(static_cast<std::size_t>(lo), static_cast<std::size_t>(hi - lo)), src, out);
  } else if (!st.in_relay.empty()) {
    // A stage that forwards moves whole messages (no pieces, no walk).
    for (std::size_t k = m.first; k < m.first + m.nruns; ++k) {
      pack(std::span<const R>(&st.runs[k], 1), st.relayed(k) ? relay : src, out);
      out += st.runs[k].size();
    }
  } else if (st.send_walk) {
    detail::run_one(st.send_walk, i, lo, hi,
                    [&](index_t at, index_t stride, index_t pos, index_t len, index_t count, index_t step, index_t pstep) {
                      if (count == 1) detail::copy_pieces(src + at, stride, out + pos, 1, 1, len);
                      else detail::copy_pieces(src + at, step, out + pos, pstep, len, count);
                    });
  } else if (lo == 0 && hi == m.size) {
    pack(st.runs_of(m), src, out);
  } else {
    pack_range(st.runs_of(m), src, out, lo, hi);
  }
}

/// Unpack the elements [lo, hi) of the packed order of receive i of stage st from in (hi < 0: to
/// the end), each stored by op (assigned, or a scaled update). A run kept in the relay area
/// (Stage::in_relay) is stored there, assigned (nothing to do when the message landed there).
template <class T, class R, class Op = assign_op>
inline void unpack_message(const Stage<R>& st, std::size_t i, const T* in, T* dst, index_t lo = 0, index_t hi = -1,
                           const Op& op = {}, T* relay = nullptr) {
  static_assert(std::is_trivially_copyable_v<T>);
  const Message& m = st.recvs[i];
  if (hi < 0) hi = m.size;
  if (m.listed()) {
    detail::scatter(st.dst_list(m).subspan(static_cast<std::size_t>(lo), static_cast<std::size_t>(hi - lo)), in, dst, op);
    return;
  }
  if (!st.in_relay.empty()) {
    for (std::size_t k = m.first; k < m.first + m.nruns; ++k) {
      const std::span<const R> one(&st.runs[k], 1);
      if (!st.relayed(k)) unpack(one, in, dst, op);
      else if (relay + st.runs[k].dst != in) unpack(one, in, relay);
      in += st.runs[k].size();
    }
    return;
  }
  // A whole message of one run (one section: a Cartesian product of one piece family per
  // dimension, its loops in the source's storage order) has the walk's order; unpacked as a
  // section, a transposed one goes through the tiled copy (copy_transposed).
  if (st.recv_walk && !(m.nruns == 1 && lo == 0 && hi == m.size)) {
    detail::run_one(st.recv_walk, i, lo, hi,
                    [&](index_t at, index_t stride, index_t pos, index_t len, index_t count, index_t step, index_t pstep) {
                      if (count == 1) detail::copy_pieces(in + pos, 1, dst + at, stride, 1, len, op);
                      else detail::copy_pieces(in + pos, pstep, dst + at, step, len, count, op);
                    });
  } else if (lo == 0 && hi == m.size) {
    unpack(st.runs_of(m), in, dst, op);
  } else {
    unpack_range(st.runs_of(m), in, dst, lo, hi, op);
  }
}

// The one-pass pack of a stage with basic cycles (seed 000).

/// Pack: the basic cycles [first, last) of src, in one pass over them (seed 000, lines 12-18, by
/// sections instead of meta-elements): each section of `pattern` (a send pattern) is appended to
/// the buffer of its message, out[slot], which advances; a local section is stored straight into
/// its place in dst (by op). The ragged end of src (src_size) clips the last cycle. A null
/// out[slot] skips that message's sections, a null dst the local ones (copied otherwise: a node).
///   out[slot] ++= src[c·cycle + offset, + len) for c in [first, last), sections in order
template <class T, class Op = assign_op>
inline void pack_cycles(std::span<const CycleSection> pattern, index_t cycle, index_t first, index_t last,
                        const T* src, index_t src_size, T** out, T* dst, const Op& op = {}) {
  for (index_t c = first; c < last; ++c) {
    const index_t base = c * cycle;
    if (base >= src_size) break;
    const T* in = src + base;
    const index_t avail = src_size - base;
    for (const CycleSection& s : pattern) {
      if (s.offset >= avail) break;
      const index_t len = avail >= cycle ? s.len : std::min(s.len, avail - s.offset);
      if (s.slot >= 0) {
        if (out[s.slot] == nullptr) continue;
        detail::copy_section(out[s.slot], in + s.offset, len);
        out[s.slot] += len;
      } else if (dst != nullptr) {
        detail::copy_section(dst + base + s.peer_offset, in + s.offset, len, op);
      }
    }
  }
}

namespace detail {
/// The whole cycles [c0, c1) of pack_cycles (c1 at most the full cycles every local array holds),
/// section by section instead of cycle by cycle: each section's pieces of a chunk of cycles (one
/// per cycle, `cycle` apart in src, its message's elements per cycle apart in its buffer) in one
/// copy_pieces, by a kernel of the piece's length where pieces are short; the chunk's span of src
/// within the L1 cache. The same packed order as cycle by cycle (a piece's place in its buffer is
/// its cycle's start plus the lengths of the message's sections before it in the pattern).
/// per_cycle[slot]: a message's elements in one full cycle.
template <class T, class Op>
void pack_whole_cycles(std::span<const CycleSection> pattern, std::span<const index_t> per_cycle, index_t cycle,
                       index_t c0, index_t c1, const T* src, T** out, T* dst, const Op& op) {
  const index_t chunk = std::max<index_t>(1, walk_span_elements / cycle);
  for (index_t a = c0; a < c1; a += chunk) {
    const index_t n = std::min(chunk, c1 - a);
    const T* in = src + a * cycle;
    for (const CycleSection& s : pattern) {
      if (s.slot >= 0) {
        T*& o = out[s.slot];
        if (o == nullptr) continue;
        copy_pieces(in + s.offset, cycle, o, per_cycle[static_cast<std::size_t>(s.slot)], s.len, n);
        o += s.len;
      } else if (dst != nullptr) {
        copy_pieces(in + s.offset, cycle, dst + a * cycle + s.peer_offset, cycle, s.len, n, op);
      }
    }
    // Each buffer went one cycle forward; the chunk's other cycles are behind it now.
    for (std::size_t k = 0; k < per_cycle.size(); ++k)
      if (out[k] != nullptr) out[k] += per_cycle[k] * (n - 1);
  }
}
/// The mirror of pack_whole_cycles for unpack_cycles.
template <class T, class Op>
void unpack_whole_cycles(std::span<const CycleSection> pattern, std::span<const index_t> per_cycle, index_t cycle,
                         index_t c0, index_t c1, const T** in, T* dst, const Op& op) {
  const index_t chunk = std::max<index_t>(1, walk_span_elements / cycle);
  for (index_t a = c0; a < c1; a += chunk) {
    const index_t n = std::min(chunk, c1 - a);
    T* to = dst + a * cycle;
    for (const CycleSection& s : pattern) {
      if (s.slot < 0 || in[s.slot] == nullptr) continue;
      const T*& from = in[s.slot];
      copy_pieces(from, per_cycle[static_cast<std::size_t>(s.slot)], to + s.offset, cycle, s.len, n, op);
      from += s.len;
    }
    for (std::size_t k = 0; k < per_cycle.size(); ++k)
      if (in[k] != nullptr) in[k] += per_cycle[k] * (n - 1);
  }
}
/// The end of the cycles [first, last) that pack_cycles and unpack_cycles (by a stage's Cycles) go
/// through section by section: the full cycles a local array of `size` elements holds whole, when
/// they are two or more, two fit a chunk, and they span at most whole_cycles_max_elements; else first.
inline index_t whole_cycles_end(const Cycles& c, index_t first, index_t last, index_t size) noexcept {
  const index_t whole = std::clamp(std::min(c.full_cycles, size / std::max<index_t>(c.cycle, 1)), first, std::max(first, last));
  const bool sections = whole - first >= 2 && walk_span_elements / c.cycle >= 2 && (whole - first) * c.cycle <= whole_cycles_max_elements;
  return sections ? whole : first;
}
}  // namespace detail

/// pack_cycles by a stage's Cycles: its send pattern; the cycles every local array holds whole
/// (the first c.full_cycles) section by section (detail::pack_whole_cycles) when they span at most
/// whole_cycles_max_elements, the others cycle by cycle.
template <class T, class Op = assign_op>
inline void pack_cycles(const Cycles& c, index_t first, index_t last, const T* src, index_t src_size, T** out, T* dst,
                        const Op& op = {}) {
  if (const index_t whole = detail::whole_cycles_end(c, first, last, src_size); whole > first) {
    detail::pack_whole_cycles<T>(c.send_pattern, c.send_per_cycle, c.cycle, first, whole, src, out, dst, op);
    first = whole;
  }
  pack_cycles<T>(c.send_pattern, c.cycle, first, last, src, src_size, out, dst, op);
}

/// Unpack: the mirror of pack_cycles over the basic cycles [first, last) of dst, following a
/// receive pattern: each section is taken from the buffer of its message, in[slot], which
/// advances, and stored by op. Local sections are skipped (pack_cycles has stored them), and the
/// sections of a message whose in[slot] is null (a node peer's, copied). dst_size clips the last
/// cycle.
///   dst[c·cycle + offset, + len) = in[slot]++ for c in [first, last), sections in order
template <class T, class Op = assign_op>
inline void unpack_cycles(std::span<const CycleSection> pattern, index_t cycle, index_t first, index_t last,
                          const T** in, T* dst, index_t dst_size, const Op& op = {}) {
  for (index_t c = first; c < last; ++c) {
    const index_t base = c * cycle;
    if (base >= dst_size) break;
    T* to = dst + base;
    const index_t avail = dst_size - base;
    for (const CycleSection& s : pattern) {
      if (s.offset >= avail) break;
      if (s.slot < 0 || in[s.slot] == nullptr) continue;
      const index_t len = avail >= cycle ? s.len : std::min(s.len, avail - s.offset);
      detail::copy_section(to + s.offset, in[s.slot], len, op);
      in[s.slot] += len;
    }
  }
}

/// unpack_cycles by a stage's Cycles: its receive pattern, the whole cycles section by section.
template <class T, class Op = assign_op>
inline void unpack_cycles(const Cycles& c, index_t first, index_t last, const T** in, T* dst, index_t dst_size,
                          const Op& op = {}) {
  if (const index_t whole = detail::whole_cycles_end(c, first, last, dst_size); whole > first) {
    detail::unpack_whole_cycles<T>(c.recv_pattern, c.recv_per_cycle, c.cycle, first, whole, in, dst, op);
    first = whole;
  }
  unpack_cycles<T>(c.recv_pattern, c.cycle, first, last, in, dst, dst_size, op);
}

}  // namespace redist::runtime
