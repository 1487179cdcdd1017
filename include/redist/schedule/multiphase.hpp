/// @file Defines the multi-phase method of Kaushik et al. (seed 000's baseline): its policy, its phases and its startup count (eq. 6).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <numeric>
#include <string>

#include <redist/config.hpp>
#include <redist/detail/math.hpp>
#include <redist/schedule/schedule.hpp>

namespace redist::schedule {

/// How many phases the multi-phase method takes.
enum class stages {
  by_case,    ///< one when s divides t or t divides s (case 3), two otherwise
  one,        ///< CYCLIC(s) -> CYCLIC(t) directly; requires case 3
  two,        ///< through an intermediate CYCLIC(u): u = lcm(s, t) in cases 1 and 2; in case 3 u
              ///< splits the ratio max/min = c·c' (1 < c < max/min) so that the startups are fewest
};

/// The multi-phase method (Kaushik, Huang, Ramanujam, Sadayappan; seed 000, Sec. 4): a sequence
/// of redistributions CYCLIC(s_{i-1}) -> CYCLIC(s_i) in which one factor divides the other, each a
/// general all-at-once plan, through intermediate arrays. Cyclic<s> -> Cyclic<t> only.
struct multiphase_t {
  stages count = stages::by_case;
  /// What every rank must pass alike (the consistency check hashes it).
  constexpr std::array<double, 1> parameters() const noexcept { return {static_cast<double>(count)}; }
  friend constexpr bool operator==(multiphase_t, multiphase_t) noexcept = default;
};

inline constexpr multiphase_t multiphase{};
inline constexpr multiphase_t multiphase_one_stage{stages::one};
inline constexpr multiphase_t multiphase_two_stage{stages::two};

template <>
inline constexpr bool is_policy<multiphase_t> = true;

/// The block sizes s = sizes[0], …, sizes[phases] = t of a multi-phase redistribution.
struct Phases {
  std::array<index_t, 3> sizes{};
  int phases = 0;
  friend constexpr bool operator==(const Phases&, const Phases&) = default;
};

/// Eq. (6)'s startups of one phase: k_i = min(M, max(a, b) / min(a, b)).
constexpr index_t phase_startups(index_t a, index_t b, int nprocs) noexcept {
  return std::min<index_t>(nprocs, std::max(a, b) / std::min(a, b));
}

/// Σ k_i: eq. (6)'s startup count of the phases.
constexpr index_t startups(const Phases& ph, int nprocs) noexcept {
  index_t total = 0;
  for (int i = 0; i < ph.phases; ++i) total += phase_startups(ph.sizes[i], ph.sizes[i + 1], nprocs);
  return total;
}

/// The phases of CYCLIC(s) -> CYCLIC(t) on M processes. Two stages in cases 1 and 2 go through
/// CYCLIC(lcm(s, t)) ([7], as seed 000 uses: (8)->(40)->(5), (25)->(100)->(20)). Two stages in
/// case 3 split the ratio r = max/min into c · r/c, 1 < c < r, with the fewest startups
/// min(M, c) + min(M, r/c), the smaller c first on a tie (on 20 processes (60) -> (15) -> (3),
/// as Table 3). Throws redist::error for one stage outside case 3, or two stages in case 3
/// when r is 1 or prime.
constexpr Phases multiphase_phases(index_t s, index_t t, int nprocs, stages count) {
  if (s <= 0 || t <= 0 || nprocs <= 0)
    redist::detail::report_error("redist::schedule::multiphase_phases(s, t, M) requires s, t and M to be > 0");
  const bool divisible = s % t == 0 || t % s == 0;
  if (count == stages::by_case) count = divisible ? stages::one : stages::two;
  Phases ph;
  if (count == stages::one) {
    if (!divisible)
      redist::detail::report_error("redist::schedule::multiphase_one_stage requires s to divide t or t to divide s (s = " +
                                   std::to_string(s) + ", t = " + std::to_string(t) +
                                   "); use schedule::multiphase_two_stage");
    ph.sizes = {s, t, 0};
    ph.phases = 1;
    return ph;
  }
  if (!divisible) {
    ph.sizes = {s, redist::detail::checked_lcm(s, t, "lcm(s, t)"), t};
    ph.phases = 2;
    return ph;
  }
  const index_t lo = std::min(s, t), r = std::max(s, t) / lo;
  index_t best = 0, best_cost = 0;
  // cost(c) = cost(r/c): the smallest best c is at most sqrt(r). O(sqrt(r)).
  for (index_t c = 2; c <= r / c; ++c) {
    if (r % c != 0) continue;
    const index_t cost = phase_startups(1, c, nprocs) + phase_startups(1, r / c, nprocs);
    if (best == 0 || cost < best_cost) {
      best = c;
      best_cost = cost;
    }
  }
  if (best == 0)
    redist::detail::report_error("redist::schedule::multiphase_two_stage requires max(s, t) / min(s, t) to have a factor c, "
                                 "1 < c < max/min, when one of s, t divides the other (s = " + std::to_string(s) +
                                 ", t = " + std::to_string(t) + "); use schedule::multiphase_one_stage");
  ph.sizes = {s, s > t ? s / best : s * best, t};
  ph.phases = 2;
  return ph;
}

}  // namespace redist::schedule
