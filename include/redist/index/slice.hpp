/// @file Defines slice_ldds: the LDDs of a strided section of a dimension, in section index space (seed 003's LDD intersection applied to the section's lattice), and locate, the local index of one global index.
#pragma once

#include <algorithm>
#include <numeric>
#include <optional>

#include <redist/detail/math.hpp>
#include <redist/dist/ldd.hpp>
#include <redist/dist/slice.hpp>
#include <redist/index/intersect.hpp>

namespace redist::index {

namespace detail {
using redist::detail::ceil_div;
using redist::detail::floor_div;

/// Appends to out the LDDs, in section index space [0, e), of S[d] ∩ {off + i·t | 0 <= i < e}
/// (t > 0): section index i lies in block u of d when off + i·t does. Blocks u and u + U,
/// U = t / gcd(d.s, t), hold the same pattern of section indices I = d.s / gcd(d.s, t) apart
/// (the period lcm(d.s, t) of seed 003's Lemma 2), so every nonempty block of the first period
/// gives one LDD of stride I, the blocks of its phase: a block u of section indices
/// [lo, hi) = [⌈(o + s·u − off) / t⌉, ⌈(o + s·u + b − off) / t⌉), local index of its first element
/// d's own, elements t·d.step apart and blocks U·d.lblock apart. A first or last block that the
/// section's ends clip is an LDD of one block. The first period is scanned from section index to
/// section index, jumping over whole blocks and gaps, so the cost is O(min(I, U, blocks that meet
/// the section)) per LDD of d: independent of n and of t.
inline void slice_ldd(const Ldd& d, index_t off, index_t e, index_t t, LddList& out) {
  if (d.empty() || e <= 0) return;
  const index_t last = off + (e - 1) * t;  // the section's last base index
  // The blocks that meet [off, last]: the first that ends after off, the last that starts at or before last.
  const index_t ua = std::max<index_t>(0, floor_div(off - d.o - d.b, d.s) + 1);
  const index_t uz = std::min<index_t>(d.n - 1, floor_div(last - d.o, d.s));
  if (ua > uz) return;
  // Section indices of block u, unclipped: [lo(u), hi(u)).
  auto lo = [&](index_t u) { return ceil_div(d.o + d.s * u - off, t); };
  auto hi = [&](index_t u) { return ceil_div(d.o + d.s * u + d.b - off, t); };
  auto local_at = [&](index_t u, index_t i) { return d.local + u * d.lblock + (off + i * t - d.o - d.s * u) * d.step; };
  const index_t step = redist::detail::checked_mul(t, d.step, "a section's local step");
  auto one_block = [&](index_t u) {
    const index_t a = std::max<index_t>(0, lo(u)), z = std::min(e, hi(u));
    if (a < z) out.push_back(Ldd{a, z - a, z - a, 1, local_at(u, a), step, (z - a) * step});
  };
  index_t first = ua, final = uz;
  if (lo(ua) < 0) one_block(first++);
  const bool clipped_last = first <= uz && hi(uz) > e;
  if (clipped_last) --final;
  if (first <= final) {
    const index_t g = std::gcd(d.s, t);
    const index_t U = t / g, I = d.s / g;
    const index_t i0 = lo(first), iend = I >= e - i0 ? e : i0 + I;
    for (index_t i = i0; i < iend;) {
      const index_t x = off + i * t;
      const index_t u = floor_div(x - d.o, d.s);
      if (u > final) break;
      if (x - d.o - d.s * u >= d.b) {  // in the gap after block u: on to the next block
        i = lo(u + 1);
        continue;
      }
      // i is the first section index of block u (nothing between the previous block and i).
      const index_t z = hi(u), n = (final - u) / U + 1;
      const index_t lblock = n > 1 ? U * d.lblock : (z - i) * step;
      out.push_back(Ldd{i, z - i, n > 1 ? I : z - i, n, local_at(u, i), z - i == 1 && n > 1 ? lblock : step, lblock});
      i = z;
    }
  }
  if (clipped_last) one_block(uz);
}
}  // namespace detail

/// The LDDs, in section index space [0, slice.extent), of the base LDDs restricted to the
/// indices {slice.offset + i·slice.stride}: section index i is in them when its base index is,
/// with the base local index. Each LDD's `local` is the base local index of its first element,
/// `step` slice.stride × the base step, `lblock` the base local distance between the blocks of one
/// phase. One LDD per nonempty block of the period lcm(s, stride) of each base LDD (seed 003,
/// Lemma 2) and per clipped end block: O(Σ min(s / gcd(s, stride), blocks that meet the section))
/// work, nothing grows with n. (A pattern of one element per block is stored with step = lblock,
/// so that touching blocks join into one.)
template <LddRange R>
LddList slice_ldds(const R& base_ldds, const Slice& slice) {
  LddList out;
  if (slice.extent <= 0) return out;
  const index_t t = slice.extent == 1 ? 1 : slice.stride;
  for (const Ldd& d : base_ldds) detail::slice_ldd(d, slice.offset, slice.extent, t, out);
  return out;
}

/// The local index of global index g among the LDDs, or nothing when they do not hold it.
template <LddRange R>
std::optional<index_t> locate(const R& ldds, index_t g) {
  for (const Ldd& d : ldds) {
    if (d.empty() || g < d.o || g >= d.end()) continue;
    if (d.n > 1 && (g - d.o) % d.s >= d.b) continue;
    return detail::local_of(d, g);
  }
  return std::nullopt;
}

}  // namespace redist::index
