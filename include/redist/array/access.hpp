/// @file Defines detail::array_access, the library's access to the plan cache of a DistArray.
#pragma once

#include <redist/array/plan_cache.hpp>

namespace redist {

template <class T, class D>
class DistArray;

namespace detail {
/// The plan cache of a destination array, for redistribute (a friend of every DistArray).
struct array_access {
  template <class T, class D>
  static PlanCache& cache(DistArray<T, D>& a) noexcept {
    return a.cache_;
  }
};
}  // namespace detail

}  // namespace redist
