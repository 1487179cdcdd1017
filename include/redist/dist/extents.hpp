/// @file Defines Extents<E...>, the extents of a distributed array stated in its type (each static or `dynamic`).
#pragma once

#include <array>
#include <cstddef>

#include <redist/fwd.hpp>

namespace redist {

/// The global extents of an array, in its type: DistArray<T, D, G, Extents<1024>> is an array of
/// 1024 elements, DistArray<T, Dist<D0, D1>, G, Extents<512, dynamic>> one of 512 rows and a
/// run-time number of columns (as std::extents). Static extents are checked at compile time:
/// assigning arrays of different static extents does not compile; with static distributions and
/// a static grid as well, the redistribution's message table is a constant expression
/// (message_table<A, B>()).
template <std::size_t... E>
struct Extents {
  static_assert(sizeof...(E) >= 1, "redist::Extents<E...> requires at least one extent");

  static constexpr std::size_t rank() noexcept { return sizeof...(E); }
  /// Extent d, or `dynamic`.
  static constexpr std::size_t static_extent(std::size_t d) noexcept { return statics_[d]; }
  /// True when every extent is static.
  static constexpr bool is_static() noexcept { return ((E != dynamic) && ...); }

 private:
  static constexpr std::array<std::size_t, sizeof...(E)> statics_{E...};
};

}  // namespace redist
