/// @file Defines StaticNprocs<M, P>, a 1-D mapping whose process count P is a compile-time constant, and static_nprocs_v.
#pragma once

#include <cstddef>
#include <string>

#include <redist/config.hpp>
#include <redist/fwd.hpp>

namespace redist {

/// The 1-D mapping M bound to exactly P processes, P known at compile time: the layout of a 1-D
/// array declared on Grid<P> (DistArray<T, D, Grid<P>>). It is an M, and it carries P in its type
/// down to the plan, where the basic-cycle calculation of a Cyclic<S> -> Cyclic<T> pair takes its
/// templates from the static tables of BasicCyclePlan<S, T, P>.
template <class M, std::size_t P>
class StaticNprocs : public M {
  static_assert(P != dynamic && P > 0, "redist::StaticNprocs<M, P> requires a static P > 0");

 public:
  static constexpr std::size_t static_nprocs = P;

  constexpr explicit StaticNprocs(const M& m) : M(m) {
    if (m.nprocs() != static_cast<int>(P))
      detail::report_error("redist::StaticNprocs<M, P>(m) requires m to be bound to P = " + std::to_string(P) +
                           " processes (got " + std::to_string(m.nprocs()) + ")");
  }
  friend constexpr bool operator==(const StaticNprocs&, const StaticNprocs&) = default;
};

/// The compile-time process count of a 1-D mapping, or `dynamic`.
template <class M>
inline constexpr std::size_t static_nprocs_v = dynamic;
template <class M>
  requires requires { M::static_nprocs; }
inline constexpr std::size_t static_nprocs_v<M> = M::static_nprocs;

}  // namespace redist
