/// @file Defines Circulant, the generalized circulant tables Ps, Ds, Pr, Dr of CYCLIC(x) -> CYCLIC(Kx) on P processes (seed 001, Theorem 2), and the superblock runs of its blocks.
#pragma once

#include <numeric>

#include <redist/config.hpp>
#include <redist/detail/math.hpp>
#include <redist/index/run.hpp>

namespace redist::index {

/// g = gcd(a, b) and Bezout coefficients: a·x + b·y = g (extended Euclid).
struct Bezout {
  index_t g = 0;
  index_t x = 0;
  index_t y = 0;
  friend constexpr bool operator==(const Bezout&, const Bezout&) = default;
};

constexpr Bezout extended_euclid(index_t a, index_t b) noexcept {
  index_t r0 = a, r1 = b, x0 = 1, x1 = 0, y0 = 0, y1 = 1;
  while (r1 != 0) {
    const index_t q = r0 / r1;
    index_t t = r0 - q * r1;
    r0 = r1, r1 = t;
    t = x0 - q * x1;
    x0 = x1, x1 = t;
    t = y0 - q * y1;
    y0 = y1, y1 = t;
  }
  return {r0, x0, y0};
}

/// R(K, P): the redistribution CYCLIC(x) -> CYCLIC(Kx) on P processes, seen one superblock of
/// P·K blocks of x elements at a time. Block b = i·P + j of a superblock (row i of the initial
/// table S, column j = its owner) goes to process b / K, row b mod K of its superblock there.
///   G = gcd(K, P), K = K'G, P = P'G, n·K' - m·P' = 1 with n mod P', m mod K' (see ERRATA 001).
/// After the column transformation Ds, row i of S' (block S'(i, j) = S(Ds(i, j), j)) is sent by
/// column j to Ps(i, j); each row of Ps is a permutation of 0..P-1 (Theorem 1). Pr and Dr are
/// the receiving side: in row i, process q receives from Pr(i, q) the block it stores at row
/// Dr(i, q). All tables come from Theorem 2's closed forms (not Corollary 1's recurrence).
struct Circulant {
  index_t k = 1;
  index_t p = 1;
  index_t g = 1;   ///< G = gcd(K, P)
  index_t k1 = 1;  ///< K' = K / G
  index_t p1 = 1;  ///< P' = P / G
  index_t n = 0;   ///< n mod P', with n·K' ≡ 1 (mod P')
  index_t m = 0;   ///< m mod K', with m·P' ≡ -1 (mod K')

  constexpr Circulant() = default;
  constexpr Circulant(index_t kk, index_t pp) : k{kk}, p{pp} {
    if (kk < 1 || pp < 1) redist::detail::report_error("redist::index::Circulant(K, P) requires K and P to be >= 1");
    g = std::gcd(kk, pp);
    k1 = kk / g;
    p1 = pp / g;
    // Extended Euclid on (K', P'): K'·a + P'·b = 1, so n = a, m = -b.
    const Bezout e = extended_euclid(k1, p1);
    n = redist::detail::floor_mod(e.x, p1);
    m = redist::detail::floor_mod(-e.y, k1);
  }

  /// Eq. (12): the destination of row i's block in column j.
  constexpr index_t ps(index_t i, index_t j) const noexcept {
    const index_t i1 = i / g, i2 = i % g, j1 = j / g, j2 = j % g;
    return redist::detail::floor_mod(n * (j1 - i1), p1) + p1 * redist::detail::floor_mod(i2 - j2, g);
  }
  /// Eq. (13): the row of S that column j sends in step i (the send data location).
  constexpr index_t ds(index_t i, index_t j) const noexcept {
    const index_t i1 = i / g, i2 = i % g, j1 = j / g, j2 = j % g;
    return redist::detail::floor_mod(m * (j1 - i1), k1) + k1 * redist::detail::floor_mod(i2 - j2, g);
  }
  /// The inverse of row i of Ps: Pr(i, Ps(i, j)) = j. With X = q mod P', Y = q / P':
  /// j1 = (i1 + K'·X) mod P' (K' is n's inverse mod P'), j2 = (i2 - Y) mod G.
  constexpr index_t pr(index_t i, index_t q) const noexcept {
    const index_t i1 = i / g, i2 = i % g;
    return redist::detail::floor_mod(i1 + k1 * (q % p1), p1) * g + redist::detail::floor_mod(i2 - q / p1, g);
  }
  /// The row, in the receiver's superblock, of the block column j sends in step i.
  constexpr index_t dest_row(index_t i, index_t j) const noexcept { return (ds(i, j) * p + j) % k; }
  /// Dr(i, q): the row at which process q stores what it receives in step i.
  constexpr index_t dr(index_t i, index_t q) const noexcept { return dest_row(i, pr(i, q)); }

  friend constexpr bool operator==(const Circulant&, const Circulant&) = default;
};

/// How much of block b (0 <= b < P·K) of each superblock n elements hold, in blocks of x:
/// `full` superblocks hold it whole, and the next one holds its first `tail` elements (0: none).
struct BlockCopies {
  index_t full = 0;
  index_t tail = 0;
  constexpr index_t size(index_t x) const noexcept { return full * x + tail; }
  friend constexpr bool operator==(const BlockCopies&, const BlockCopies&) = default;
};

constexpr BlockCopies block_copies(index_t n, index_t x, index_t superblock, index_t b) noexcept {
  const index_t whole = n / x, rem = n % x;  // whole blocks, and the length of a ragged last one
  BlockCopies c;
  if (whole > b) c.full = (whole - b + superblock - 1) / superblock;
  if (rem > 0 && whole >= b && (whole - b) % superblock == 0) c.tail = rem;
  return c;
}

/// The runs of the block of row i, column j of R(K, P) for n elements in blocks of x (src: the
/// CYCLIC(x) side, row Ds(i, j) of process j; dst: the CYCLIC(Kx) side, row dest_row(i, j) of
/// process Ps(i, j)): one run of stride K·x over the whole superblocks and one ragged piece.
/// `reverse` swaps the sides, for CYCLIC(Kx) -> CYCLIC(x). Calls out(run) for each nonempty run.
template <class Out>
constexpr void block_runs(const Circulant& c, index_t n, index_t x, index_t i, index_t j, bool reverse, Out&& out) {
  const index_t row = c.ds(i, j), drow = c.dest_row(i, j), stride = c.k * x;
  const BlockCopies copies = block_copies(n, x, c.p * c.k, row * c.p + j);
  const index_t a = row * x, b = drow * x;
  auto put = [&](index_t from, index_t to, index_t len, index_t st, index_t count) {
    if (len * count > 0) out(reverse ? Run{to, from, len, st, st, count} : Run{from, to, len, st, st, count});
  };
  put(a, b, x, stride, copies.full);
  put(a + copies.full * stride, b + copies.full * stride, copies.tail, copies.tail, 1);
}

/// Elements of the block of row i, column j (as block_runs).
constexpr index_t block_size(const Circulant& c, index_t n, index_t x, index_t i, index_t j) noexcept {
  return block_copies(n, x, c.p * c.k, c.ds(i, j) * c.p + j).size(x);
}

/// ⌈log2 v⌉ for v >= 1.
constexpr int ceil_log2(index_t v) noexcept {
  int l = 0;
  while ((index_t{1} << l) < v) ++l;
  return l;
}

}  // namespace redist::index
