/// @file Defines the generalized circulant schedules of CYCLIC(x) <-> CYCLIC(Kx) (seed 001): the policies direct, indirect and hybrid(d), and CirculantSchedule, their steps.
#pragma once

#include <array>
#include <cstddef>
#include <numeric>
#include <vector>

#include <redist/detail/math.hpp>
#include <redist/index/circulant.hpp>
#include <redist/schedule/schedule.hpp>

namespace redist::schedule {

/// Seed 001's direct schedule: every block goes straight to its destination, one row of Ps per
/// step (K steps for K < P; rows with the same permutation share a step when K > P).
/// Cyclic<s> <-> Cyclic<t> only; when neither block size divides the other, in two phases
/// through Cyclic<lcm(s, t)> (see doc/circulant.md).
struct direct_t {
  friend constexpr bool operator==(direct_t, direct_t) noexcept { return true; }
};
/// Seed 001's indirect schedule: cyclic shifts with doubling strides over the submatrix rows,
/// then within the G×G submatrices, then one column permutation: ⌈log K'⌉ + ⌈log G⌉ + 1 steps,
/// blocks relayed through intermediate processes. Cyclic pairs only, as direct_t.
struct indirect_t {
  friend constexpr bool operator==(indirect_t, indirect_t) noexcept { return true; }
};
/// Seed 001's hybrid schedule: the first d steps of the indirect schedule, then a direct
/// schedule of the blocks that now share a destination. d = 0 is direct; d >= the indirect
/// depth is indirect. Cyclic pairs only, as direct_t.
struct hybrid_t {
  int d = 1;
  /// What every rank must pass alike (the consistency check hashes it).
  constexpr std::array<double, 1> parameters() const noexcept { return {static_cast<double>(d)}; }
  friend constexpr bool operator==(hybrid_t, hybrid_t) noexcept = default;
};

inline constexpr direct_t direct{};
inline constexpr indirect_t indirect{};
/// The hybrid policy with degree of indirection d (d >= 0).
constexpr hybrid_t hybrid(int d) {
  if (d < 0) redist::detail::report_error("redist::schedule::hybrid(d) requires d to be >= 0");
  return hybrid_t{d};
}

template <>
inline constexpr bool is_policy<direct_t> = true;
template <>
inline constexpr bool is_policy<indirect_t> = true;
template <>
inline constexpr bool is_policy<hybrid_t> = true;

/// What a step of a circulant schedule does.
enum class circulant_phase : unsigned char {
  shift_rows,    ///< rows with bit `stride` of i1 move to column (j1 - stride) mod P'
  shift_within,  ///< rows with bit `stride` of i2 move to column (j2 - stride) mod G
  direct_rows,   ///< one group of rows (equal high bits) goes to its destinations
};

/// One step of R(K, P). Columns are c = c1·G + c2. mask1 / mask2: the bits of i1 / i2 that the
/// shifts before this step have consumed (the item of row i at column c then came from column
/// ((c1 + (i1 & mask1)) mod P')·G + (c2 + (i2 & mask2)) mod G).
struct CirculantStep {
  circulant_phase phase = circulant_phase::direct_rows;
  index_t stride = 0;
  index_t key1 = 0;  ///< direct: ((i1 >> d1) << d1) mod P' of the group
  index_t key2 = 0;  ///< direct: i2 with its low d2 bits cleared
  index_t mask1 = 0;
  index_t mask2 = 0;
  friend constexpr bool operator==(const CirculantStep&, const CirculantStep&) = default;
};

/// ⌈log K'⌉ + ⌈log G⌉: the hybrid degree that is the indirect schedule.
constexpr int indirect_depth(const index::Circulant& c) noexcept {
  return index::ceil_log2(c.k1) + index::ceil_log2(c.g);
}

/// The steps of R(K, P) under hybrid(d) (direct: d = 0; indirect: d = indirect_depth), the same
/// table for every process. Steps in which no process sends anything are left out, so size()
/// is the real number of communication steps. Each step is a permutation of the processes
/// (to / from), so every process sends at most one message and receives at most one.
struct CirculantSchedule {
  index::Circulant shape;
  int d1 = 0;  ///< shift steps over submatrix rows performed (bits of i1)
  int d2 = 0;  ///< shift steps within submatrices performed (bits of i2)
  std::vector<CirculantStep> steps;

  constexpr std::size_t size() const noexcept { return steps.size(); }

  /// Whether row i moves in step s.
  constexpr bool moves(const CirculantStep& s, index_t i) const noexcept {
    const index_t i1 = i / shape.g, i2 = i % shape.g;
    switch (s.phase) {
      case circulant_phase::shift_rows: return (i1 & s.stride) != 0;
      case circulant_phase::shift_within: return (i2 & s.stride) != 0;
      default: return key1_of(i1) == s.key1 && key2_of(i2) == s.key2;
    }
  }
  /// Where column c sends in step s.
  constexpr index_t to(const CirculantStep& s, index_t c) const noexcept {
    const index_t g = shape.g, p1 = shape.p1, c1 = c / g, c2 = c % g;
    switch (s.phase) {
      case circulant_phase::shift_rows: return redist::detail::floor_mod(c1 - s.stride, p1) * g + c2;
      case circulant_phase::shift_within: return c1 * g + redist::detail::floor_mod(c2 - s.stride, g);
      default: return redist::detail::floor_mod(shape.n * (c1 - s.key1), p1) + p1 * redist::detail::floor_mod(s.key2 - c2, g);
    }
  }
  /// Whom column c receives from in step s (the inverse of to).
  constexpr index_t from(const CirculantStep& s, index_t c) const noexcept {
    const index_t g = shape.g, p1 = shape.p1, c1 = c / g, c2 = c % g;
    switch (s.phase) {
      case circulant_phase::shift_rows: return redist::detail::floor_mod(c1 + s.stride, p1) * g + c2;
      case circulant_phase::shift_within: return c1 * g + redist::detail::floor_mod(c2 + s.stride, g);
      default: return redist::detail::floor_mod(s.key1 + shape.k1 * (c % p1), p1) * g + redist::detail::floor_mod(s.key2 - c / p1, g);
    }
  }
  /// The column the item of row i held by column c before step s started from.
  constexpr index_t origin(const CirculantStep& s, index_t i, index_t c) const noexcept {
    const index_t g = shape.g, i1 = i / g, i2 = i % g;
    return redist::detail::floor_mod(c / g + (i1 & s.mask1), shape.p1) * g + redist::detail::floor_mod(c % g + (i2 & s.mask2), g);
  }
  constexpr index_t key1_of(index_t i1) const noexcept { return ((i1 >> d1) << d1) % shape.p1; }
  constexpr index_t key2_of(index_t i2) const noexcept { return (i2 >> d2) << d2; }

  /// Calls f(c) for every column c that keeps its blocks in the direct step s (to(s, c) == c), in
  /// O(G + the columns found) instead of O(P). With c = c1·G + c2 = a + P'·b (0 <= a < P'),
  /// to(s, c) == c means b = (key2 - c2) mod G and a = N·(c1 - key1) mod P'. For each b, c2 is
  /// fixed, c in [b·P', (b+1)·P') bounds c1, and the second condition is the linear congruence
  /// (G - N)·c1 ≡ -c2 - N·key1 (mod P'): an arithmetic progression of c1.
  template <class F>
  constexpr void for_each_kept_column(const CirculantStep& s, F&& f) const {
    const index_t g = shape.g, p1 = shape.p1;
    const index_t a = redist::detail::floor_mod(g - shape.n, p1);
    const index_t h = std::gcd(a, p1);  // gcd(0, p1) = p1: every c1 solves it when the right side is 0
    const index_t period = p1 / h;
    // (a / h)^-1 mod period (period = 1: anything).
    const index_t inv = period == 1 ? 0 : redist::detail::floor_mod(index::extended_euclid(a / h, period).x, period);
    for (index_t b = 0; b < g; ++b) {
      const index_t c2 = redist::detail::floor_mod(s.key2 - b, g);
      const index_t rhs = redist::detail::floor_mod(-c2 - shape.n * s.key1, p1);
      if (rhs % h != 0) continue;
      const index_t x0 = period == 1 ? 0 : (rhs / h) % period * inv % period;
      index_t lo = redist::detail::ceil_div(b * p1 - c2, g), hi = redist::detail::floor_div((b + 1) * p1 - 1 - c2, g);
      lo = lo < 0 ? 0 : lo;
      hi = hi > p1 - 1 ? p1 - 1 : hi;
      for (index_t c1 = lo + redist::detail::floor_mod(x0 - lo, period); c1 <= hi; c1 += period) f(c1 * g + c2);
    }
  }
  /// How many columns keep their blocks in the direct step s (see for_each_kept_column).
  constexpr index_t kept_columns(const CirculantStep& s) const {
    index_t count = 0;
    for_each_kept_column(s, [&](index_t) { ++count; });
    return count;
  }
  friend constexpr bool operator==(const CirculantSchedule&, const CirculantSchedule&) = default;
};

/// The schedule of R(K, P) with degree of indirection d (clamped to indirect_depth).
constexpr CirculantSchedule circulant_schedule(const index::Circulant& c, int d) {
  CirculantSchedule s;
  s.shape = c;
  const int l1 = index::ceil_log2(c.k1), l2 = index::ceil_log2(c.g);
  if (d < 0) d = 0;
  s.d1 = d < l1 ? d : l1;
  s.d2 = d - s.d1 < l2 ? d - s.d1 : l2;
  index_t mask1 = 0, mask2 = 0;
  // Cyclic shift 1: align the diagonals of submatrices (a shift by a multiple of P' moves nothing).
  for (int b = 0; b < s.d1; ++b) {
    const index_t stride = index_t{1} << b;
    if (stride % c.p1 != 0) s.steps.push_back({circulant_phase::shift_rows, stride, 0, 0, mask1, mask2});
    mask1 |= stride;
  }
  // Cyclic shift 2: align the diagonals within the G×G submatrices.
  for (int b = 0; b < s.d2; ++b) {
    const index_t stride = index_t{1} << b;
    s.steps.push_back({circulant_phase::shift_within, stride, 0, 0, mask1, mask2});
    mask2 |= stride;
  }
  // Direct: one step per group of rows with the same destinations, in order of first row.
  const std::size_t first_direct = s.steps.size();
  for (index_t i = 0; i < c.k; ++i) {
    const index_t key1 = s.key1_of(i / c.g), key2 = s.key2_of(i % c.g);
    bool seen = false;
    for (std::size_t t = first_direct; t < s.steps.size(); ++t)
      seen = seen || (s.steps[t].key1 == key1 && s.steps[t].key2 == key2);
    if (seen) continue;
    CirculantStep step{circulant_phase::direct_rows, 0, key1, key2, mask1, mask2};
    const bool moves = s.kept_columns(step) < c.p;
    // A group every column keeps still has to be registered, so that its rows are not revisited.
    s.steps.push_back(step);
    if (!moves) s.steps.back().stride = -1;
  }
  // Drop the direct groups that move nothing (marked above).
  std::vector<CirculantStep> kept;
  for (const CirculantStep& st : s.steps)
    if (st.stride >= 0) kept.push_back(st);
  s.steps = kept;
  return s;
}

}  // namespace redist::schedule
