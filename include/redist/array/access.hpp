/// @file Defines detail::array_access, the library's access to the plan cache and the shared storage of a DistArray or DistView.
#pragma once

#include <type_traits>

#include <redist/runtime/node.hpp>

namespace redist {

namespace detail {
class PlanCache;

/// The plan cache of a destination array, for redistribute (a friend of every DistArray); of a
/// const array too (a mutable member: plans are not the array's value), where make_plan looks and
/// may leave its plan.
struct array_access {
  template <class A>
  static auto& cache(A& a) noexcept {
    if constexpr (std::is_pointer_v<decltype(a.cache_)>) return *a.cache_;  // a section: its array's cache
    else return a.cache_;
  }
  /// The shared window of an array's local storage, or nullptr (ordinary memory, or an array
  /// type without one).
  template <class A>
  static const runtime::SharedSegment* segment(const A& a) noexcept {
    if constexpr (requires { a.storage_.segment(); }) return a.storage_.segment();  // DistArray
    else if constexpr (requires { a.segment_; }) return a.segment_;          // DistView
    else return nullptr;
  }
};
}  // namespace detail

}  // namespace redist
