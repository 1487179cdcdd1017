/// @file Defines detail::array_access, the library's access to the plan cache of a DistArray.
#pragma once

#include <redist/array/plan_cache.hpp>

namespace redist {

namespace detail {
/// The plan cache of a destination array, for redistribute (a friend of every DistArray).
struct array_access {
  template <class A>
  static PlanCache& cache(A& a) noexcept {
    return a.cache_;
  }
};
}  // namespace detail

}  // namespace redist
