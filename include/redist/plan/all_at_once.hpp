/// @file Defines the planner of schedule::all_at_once: the general plan of any two 1-D or any two N-D layouts, every message posted at once.
#pragma once

#include <redist/plan/layout.hpp>
#include <redist/plan/plan.hpp>
#include <redist/plan/planner.hpp>
#include <redist/schedule/schedule.hpp>

namespace redist {

/// True for the layout pairs the general plan serves: two 1-D layouts, or an N-D layout (possibly
/// transposed) and an N-D layout.
template <class From, class To>
inline constexpr bool general_pair = (LinearLayout<From> && LinearLayout<To>) || (GridSource<From> && GridLayout<To>);

/// all_at_once: the LDD intersections of every pair of ranks (seed 003; in N-D their Cartesian
/// products, seed 004), one step with every receive and send posted.
template <>
struct planner<schedule::all_at_once_t> {
  template <class From, class To>
  static constexpr bool supports = general_pair<From, To>;
  template <class From, class To>
  static constexpr void require() {
    static_assert(supports<From, To>,
                  "redist::schedule::all_at_once requires two 1-D layouts or two N-D layouts (Dist<...>) of the same rank");
  }
  template <class From, class To>
  static auto plan(const From& from, const To& to, int rank, schedule::all_at_once_t) {
    return build_plan(from, to, rank);
  }
};

}  // namespace redist
