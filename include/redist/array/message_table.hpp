/// @file Defines message_table<A, B>(): the messages of a redistribution between two fully static array types, as a constant expression.
#pragma once

#include <array>
#include <concepts>
#include <cstddef>

#include <redist/dist/grid.hpp>
#include <redist/plan/transfers.hpp>
#include <redist/schedule/transfer.hpp>

namespace redist {

namespace detail {
/// True for an array type whose layout its type states entirely: static distributions, a static
/// grid type, static extents.
template <class A>
concept FullyStatic = std::default_initializable<typename A::dist_type> && A::grid_type::rank_dynamic() == 0 &&
                      requires { A::static_extent(0); } && A::has_static_extents();

/// The layout of a fully static array type on the ranks of its grid (from rank 0, column-major,
/// tight storage), built at compile time.
template <FullyStatic A>
constexpr typename A::mapping_type static_layout() {
  typename A::extents_type e{};
  for (std::size_t d = 0; d < A::rank(); ++d) e[d] = static_cast<index_t>(A::static_extent(d));
  const typename A::grid_type grid{};
  return typename A::mapping_type(typename A::dist_type{}, e, grid, {}, Storage{}, grid.size());
}
}  // namespace detail

/// The size of every message of the redistribution from an array of type A to one of type B, both
/// fully static (distributions, grid type and extents all in the type, grids of the same size P
/// from rank 0): table[s][r] elements go from rank s to rank r (local copies on the diagonal).
/// Computed by the plan builders' own transfer list (transfers), at compile time:
///   static_assert(redist::message_table<A, B>()[0][1] == 4);
template <class A, class B>
consteval auto message_table() {
  static_assert(detail::FullyStatic<A> && detail::FullyStatic<B>,
                "redist::message_table<A, B>() requires array types whose distributions, grid and extents are all static");
  static_assert(A::rank() == B::rank(), "redist::message_table<A, B>() requires arrays of the same rank");
  constexpr std::size_t P = typename A::grid_type{}.size();
  static_assert(typename B::grid_type{}.size() == P,
                "redist::message_table<A, B>() requires A's and B's grids to have the same number of processes");
  std::array<std::array<index_t, P>, P> table{};
  for (const schedule::Transfer& t : transfers(detail::static_layout<A>(), detail::static_layout<B>()))
    table[static_cast<std::size_t>(t.sender)][static_cast<std::size_t>(t.receiver)] = t.size;
  return table;
}

}  // namespace redist
