/// @file Defines planner<Policy>, the one customization point of a schedule policy, and the concept Serves.
#pragma once

#include <redist/schedule/schedule.hpp>

namespace redist {

/// What a schedule policy does, in one place: each policy's plan header specializes
///
///   template <> struct planner<MyPolicy> {
///     // The layout pairs it serves, decided by their types (From, To: bound layouts).
///     template <class From, class To> static constexpr bool supports = ...;
///     // A compile error with a sentence for the pairs it does not serve.
///     template <class From, class To> static constexpr void require() { static_assert(supports<From, To>, "..."); }
///     // Its plan of `rank` (no communication): any plan type with an executor in runtime/.
///     template <class From, class To> static auto plan(const From&, const To&, int rank, const MyPolicy&);
///   };
///
/// and schedule::automatic is an ordered list of such policies (plan/automatic.hpp). There is no
/// other overload set: Redistribution (array/) asks planner<Policy> and nothing else.
template <class Policy>
struct planner;  // An error "incomplete type redist::planner<P>" means P is not a schedule policy.

/// A schedule policy: a type with a planner (redist's own, or a user's specialization).
template <class Policy>
concept SchedulePolicy = requires { sizeof(planner<Policy>); };

/// True when the policy serves the layout pair From -> To.
template <class Policy, class From, class To>
concept Serves = requires { requires planner<Policy>::template supports<From, To>; };

/// The plan of `rank` for moving data from the layout `from` to the layout `to` under `policy`:
/// planner<Policy>'s, built without communication. A pair the policy does not serve is a compile
/// error with the policy's sentence.
template <class From, class To, class Policy>
auto plan_with(const From& from, const To& to, int rank, const Policy& policy) {
  planner<Policy>::template require<From, To>();
  return planner<Policy>::plan(from, to, rank, policy);
}

}  // namespace redist
