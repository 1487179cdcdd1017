/// @file Defines redistribute(src, dst[, policy]) and make_plan(src, dst).
#pragma once

#include <string>

#include <mpi.h>

#include <redist/array/dist_array.hpp>

namespace redist {

namespace detail {
/// The checks every rank can make alone, made on every rank before any data moves.
template <class A, class B>
void check_compatible(const A& src, const B& dst, const char* call) {
  int cmp = MPI_UNEQUAL;
  MPI_Comm_compare(static_cast<MPI_Comm>(src.comm()), static_cast<MPI_Comm>(dst.comm()), &cmp);
  if (cmp != MPI_IDENT && cmp != MPI_CONGRUENT)
    report_error(std::string("redist::") + call +
                 "(src, dst) requires src and dst to be on the same communicator (MPI_Comm_compare says " +
                 (cmp == MPI_SIMILAR ? "similar: same processes, other order" : "unequal") + ")");
  if (src.size() != dst.size())
    report_error(std::string("redist::") + call + "(src, dst) requires src.size() to equal dst.size() (" +
                 std::to_string(src.size()) + " vs " + std::to_string(dst.size()) + ")");
}
}  // namespace detail

/// dst = src in dst's layout (collective over their communicator). The plan is cached in dst and
/// reused while src's and dst's layouts stay the same. Bad arguments throw redist::error on every
/// rank before any data moves.
template <class T, class D, class U, class E, class S>
void redistribute(const DistArray<U, E>& src, DistArray<T, D>& dst, S policy, const options& opts) {
  static_assert(std::is_same_v<U, T>, "redist::redistribute(src, dst) requires src and dst to have the same element type");
  static_assert(schedule::is_policy<S>, "redist::redistribute(src, dst, policy) requires policy to be a redist::schedule policy");
  detail::check_compatible(src, dst, "redistribute");
  if (static_cast<const void*>(&src) == static_cast<const void*>(&dst)) return;
  auto& r = detail::array_access::cache(dst).get(src.mapping(), dst.mapping(), policy, opts, src.comm());
  r.run(src.comm(), src.local(), dst.local());
}

/// dst = src with the automatic schedule and the given options.
template <class T, class D, class U, class E>
void redistribute(const DistArray<U, E>& src, DistArray<T, D>& dst, const options& opts) {
  redistribute(src, dst, schedule::automatic, opts);
}

/// The plan of src -> dst for this rank, built without communication; run it with
/// plan.execute(src, dst) as often as needed.
template <class T, class D, class U, class E, class S = schedule::automatic_t>
Redistribution<typename E::mapping, typename D::mapping, S> make_plan(const DistArray<U, E>& src,
                                                                       const DistArray<T, D>& dst, S policy = {},
                                                                       const options& opts = default_options()) {
  static_assert(std::is_same_v<U, T>, "redist::make_plan(src, dst) requires src and dst to have the same element type");
  static_assert(schedule::is_policy<S>, "redist::make_plan(src, dst, policy) requires policy to be a redist::schedule policy");
  detail::check_compatible(src, dst, "make_plan");
  return {src.mapping(), dst.mapping(), src.comm().rank(), policy, opts};
}

}  // namespace redist
