/// @file Defines redistribute(src, dst[, policy]) and make_plan(src, dst).
#pragma once

#include <string>

#include <mpi.h>

#include <redist/array/dist_array.hpp>

namespace redist {

namespace detail {
template <class D>
inline constexpr std::size_t dist_rank = 1;
template <class... D>
inline constexpr std::size_t dist_rank<Dist<D...>> = sizeof...(D);
template <class D>
inline constexpr bool is_nd = false;
template <class... D>
inline constexpr bool is_nd<Dist<D...>> = true;

/// Type checks of src -> dst: compile errors with a sentence.
template <class E, class D>
constexpr void check_ranks() {
  static_assert(is_nd<E> == is_nd<D>,
                "redist::redistribute(src, dst) requires src and dst to both be 1-D arrays (Block, Cyclic<X>, GenBlock, ...) "
                "or both N-D arrays (Dist<...>)");
  static_assert(dist_rank<E> == dist_rank<D>, "redist::redistribute(src, dst) requires src and dst to have the same rank");
}

/// The checks every rank can make alone, made on every rank before any data moves.
template <class A, class B>
void check_compatible(const A& src, const B& dst, const char* call) {
  int cmp = MPI_UNEQUAL;
  MPI_Comm_compare(static_cast<MPI_Comm>(src.comm()), static_cast<MPI_Comm>(dst.comm()), &cmp);
  if (cmp != MPI_IDENT && cmp != MPI_CONGRUENT)
    report_error(std::string("redist::") + call +
                 "(src, dst) requires src and dst to be on the same communicator (MPI_Comm_compare says " +
                 (cmp == MPI_SIMILAR ? "similar: same processes, other order" : "unequal") + ")");
  if constexpr (requires { src.extents(); dst.extents(); }) {
    if (src.extents() != dst.extents()) {
      std::string s, d;
      for (index_t e : src.extents()) s += (s.empty() ? "" : " x ") + std::to_string(e);
      for (index_t e : dst.extents()) d += (d.empty() ? "" : " x ") + std::to_string(e);
      report_error(std::string("redist::") + call + "(src, dst) requires src and dst to have the same extents (" + s +
                   " vs " + d + ")");
    }
  }
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
  detail::check_ranks<E, D>();
  detail::check_compatible(src, dst, "redistribute");
  if (static_cast<const void*>(&src) == static_cast<const void*>(&dst)) return;
  auto& r = detail::array_access::cache(dst).get(src.mapping(), dst.mapping(), policy, opts, src.comm());
  r.run(src.comm(), src.local(), dst.local());
}

/// dst = transpose(a) for 2-D arrays: dst(i, j) = a(j, i), fused with the redistribution (no
/// intermediate copy). Collective; the plan is cached in dst like redistribute's.
template <class T, class D, class U, class E, class S>
void redistribute(const TransposeView<U, E>& src, DistArray<T, D>& dst, S policy, const options& opts) {
  static_assert(std::is_same_v<U, T>, "redist::redistribute(transpose(a), b) requires a and b to have the same element type");
  static_assert(schedule::is_policy<S>, "redist::redistribute(transpose(a), b, policy) requires policy to be a redist::schedule policy");
  static_assert(detail::is_nd<D> && detail::dist_rank<D> == 2, "redist::redistribute(transpose(a), b) requires b to be a 2-D array");
  const auto& a = src.array;
  int cmp = MPI_UNEQUAL;
  MPI_Comm_compare(static_cast<MPI_Comm>(a.comm()), static_cast<MPI_Comm>(dst.comm()), &cmp);
  if (cmp != MPI_IDENT && cmp != MPI_CONGRUENT)
    detail::report_error("redist::redistribute(transpose(a), b) requires a and b to be on the same communicator");
  if (a.extent(0) != dst.extent(1) || a.extent(1) != dst.extent(0))
    detail::report_error("redist::redistribute(transpose(a), b) requires b's extents to be a's swapped (" +
                         std::to_string(a.extent(0)) + " x " + std::to_string(a.extent(1)) + " -> " +
                         std::to_string(dst.extent(0)) + " x " + std::to_string(dst.extent(1)) + ")");
  if (static_cast<const void*>(&a) == static_cast<const void*>(&dst))
    detail::report_error("redist::redistribute(transpose(a), b) requires b to be another array than a");
  using From = Transposed<typename DistArray<U, E>::mapping_type>;
  auto& r = detail::array_access::cache(dst).get(From{a.mapping()}, dst.mapping(), policy, opts, a.comm());
  r.run(a.comm(), a.local(), dst.local());
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
  detail::check_ranks<E, D>();
  detail::check_compatible(src, dst, "make_plan");
  return {src.mapping(), dst.mapping(), src.comm().rank(), policy, opts};
}

}  // namespace redist
