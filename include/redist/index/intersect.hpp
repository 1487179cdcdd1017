/// @file Defines intersect(a, b): the intersection of two LDDs as strided runs (seed 003, Theorem 1).
#pragma once

#include <algorithm>
#include <numeric>
#include <vector>

#include <redist/detail/math.hpp>
#include <redist/dist/ldd.hpp>
#include <redist/index/run.hpp>

namespace redist::index {

namespace detail {
using redist::detail::floor_div;

/// Local index of global index g, which lies in d.
constexpr index_t local_of(const Ldd& d, index_t g) noexcept {
  if (d.n == 1) return d.local + (g - d.o) * d.step;
  const index_t off = g - d.o;
  return d.local + (off / d.s) * d.lblock + (off % d.s) * d.step;
}

/// Local distance between global g and g + gstride, both in d (gstride a multiple of d.s when d.n > 1).
constexpr index_t local_stride(const Ldd& d, index_t gstride) noexcept {
  return d.n == 1 ? gstride * d.step : (gstride / d.s) * d.lblock;
}

/// Emits, in increasing global order, the families (g, len, gstride, count) of the
/// intersection of the interval [x0, x1) with the periodic LDD d: a clipped first piece, the
/// full blocks as one family of stride d.s, a clipped last piece.
template <class Emit>
constexpr void interval_families(index_t x0, index_t x1, const Ldd& d, Emit&& emit) {
  index_t lo = std::max<index_t>(0, floor_div(x0 - d.o - d.b, d.s) + 1);   // first block ending after x0
  index_t hi = std::min<index_t>(d.n - 1, floor_div(x1 - 1 - d.o, d.s));  // last block starting before x1
  if (lo > hi) return;
  auto piece = [&](index_t u, index_t& a, index_t& e) {
    a = std::max(x0, d.o + d.s * u);
    e = std::min(x1, d.o + d.s * u + d.b);
  };
  index_t a = 0, e = 0;
  piece(lo, a, e);
  if (e - a < d.b || lo == hi) {
    emit(a, e - a, e - a, 1);
    ++lo;
  }
  if (lo > hi) return;
  index_t la = 0, le = 0;
  piece(hi, la, le);
  const bool clipped_last = le - la < d.b;
  const index_t full_hi = clipped_last ? hi - 1 : hi;
  if (full_hi >= lo) emit(d.o + d.s * lo, d.b, d.s, full_hi - lo + 1);
  if (clipped_last) emit(la, le - la, le - la, 1);
}

/// Emits the families of the intersection of two periodic LDDs: every intersecting block pair
/// whose common piece starts in the first period [start, start + lcm(sa, sb)) repeats with the
/// stride lcm(sa, sb) until either LDD ends (Theorem 1; Lemma 2). Cost O(lcm/sa + lcm/sb),
/// and never more than the number of blocks: independent of n for periodic layouts.
template <class Emit>
constexpr void periodic_families(const Ldd& a, const Ldd& b, Emit&& emit) {
  const index_t start = std::max(a.o, b.o);
  const index_t stop = std::min(a.end(), b.end());
  if (start >= stop) return;
  // A period that does not fit in 64 bits, or reaches past the end, never repeats: scan all.
  index_t period = 0, wend = stop;
  const index_t ka0 = b.s / std::gcd(a.s, b.s);
  const bool repeats = !__builtin_mul_overflow(a.s, ka0, &period) && period < stop - start;
  if (repeats) wend = start + period;
  const index_t ka = repeats ? period / a.s : a.n, kb = repeats ? period / b.s : b.n;
  for (index_t ua = std::max<index_t>(0, floor_div(start - a.o - a.b, a.s) + 1);
       ua < a.n && a.o + a.s * ua < wend; ++ua) {
    const index_t a0 = a.o + a.s * ua, a1 = a0 + a.b;
    for (index_t ub = std::max<index_t>(0, floor_div(a0 - b.o - b.b, b.s) + 1);
         ub < b.n && b.o + b.s * ub < a1; ++ub) {
      const index_t b0 = b.o + b.s * ub;
      const index_t lo = std::max(a0, b0), hi = std::min(a1, b0 + b.b);
      if (lo >= hi || lo < start || lo >= wend) continue;
      emit(lo, hi - lo, repeats ? period : hi - lo, std::min((a.n - 1 - ua) / ka, (b.n - 1 - ub) / kb) + 1);
    }
  }
}
}  // namespace detail

/// S[a] ∩ S[b] as runs: (local offset in a, local offset in b, length, local strides, count,
/// local steps: a piece lies in one block of each LDD, so its elements are a.step and b.step apart).
/// a is the sender's LDD, b the receiver's. The order of the runs is a pure function of (a, b)
/// (by first element within the first period), so the sender and the receiver, computing the
/// same intersection, agree on the packed order. Within a run, pieces go in increasing order.
template <class Out>
constexpr void intersect(const Ldd& a, const Ldd& b, Out&& out) {
  if (a.empty() || b.empty()) return;
  auto emit = [&](index_t g, index_t len, index_t gstride, index_t count) {
    out(Run{detail::local_of(a, g), detail::local_of(b, g), len,
            detail::local_stride(a, gstride), detail::local_stride(b, gstride), count, a.step, b.step});
  };
  if (a.n == 1 && b.n == 1) {
    const index_t lo = std::max(a.o, b.o), hi = std::min(a.end(), b.end());
    if (lo < hi) emit(lo, hi - lo, hi - lo, 1);
  } else if (a.n == 1) {
    detail::interval_families(a.o, a.end(), b, emit);
  } else if (b.n == 1) {
    detail::interval_families(b.o, b.end(), a, emit);
  } else {
    detail::periodic_families(a, b, emit);
  }
}

/// Appends the runs of (every LDD of the sender) ∩ (every LDD of the receiver) to runs.
template <LddRange From, LddRange To>
constexpr void intersect(const From& from, const To& to, std::vector<Run>& runs) {
  for (const Ldd& a : from)
    for (const Ldd& b : to) intersect(a, b, [&](const Run& r) { append_run(runs, r); });
}

}  // namespace redist::index
