/// @file Defines random_case: a random N-D layout (Dist<D...> on a random grid of a communicator: subsets, offsets, orders, padded storage) with its brute-force oracle, for the virtual-rank property tests.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <numeric>
#include <random>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <redist/dist/collapsed.hpp>
#include <redist/dist/dist.hpp>
#include <redist/dist/grid.hpp>

#include "oracle_nd.hpp"
#include "random_dists.hpp"

namespace redist::test {

/// One random N-D layout: its Dist, spec for the oracle, and the bound mapping.
template <class DistT, std::size_t N>
struct Case {
  DistT dist;
  GridSpec<N> spec;
  typename DistT::mapping mapping;
  Layout layout;
};

template <class D>
Layout oracle_1d(const D& d, index_t n, int p) {
  return oracle(d, n, p);
}

template <class DistT, std::size_t N, std::size_t... I>
Case<DistT, N> bind_case(const DistT& dist, const GridSpec<N>& s, std::index_sequence<I...>) {
  DynamicGrid<N> g = std::apply([](auto... e) { return DynamicGrid<N>(e...); }, s.grid);
  g = g.with_order(s.grid_order).with_first(s.first);
  if (!s.ranks.empty()) g = g.with_ranks(s.ranks);
  typename DistT::mapping m(dist, s.extents, g, s.offsets, Storage{s.storage, s.ld}, s.nprocs);
  std::array<Layout, N> dims{oracle_1d(dist.template get<I>(), s.extents[I], s.grid[I])...};
  return Case<DistT, N>{dist, s, m, oracle_nd(s, dims)};
}

template <class T>
inline constexpr bool is_collapsed = std::is_same_v<T, Collapsed>;

/// A random layout of type Dist<D...> on at most max_ranks ranks of a communicator of nprocs ranks.
template <class... D>
Case<Dist<D...>, sizeof...(D)> random_case(const std::array<index_t, sizeof...(D)>& extents, int nprocs,
                                           std::mt19937_64& rng) {
  constexpr std::size_t N = sizeof...(D);
  GridSpec<N> s;
  s.extents = extents;
  s.nprocs = nprocs;
  // Grid: random extents (1 for Collapsed dimensions) whose product fits the communicator.
  constexpr std::array<bool, N> collapsed{is_collapsed<D>...};
  int budget = nprocs;
  for (std::size_t d = 0; d < N; ++d) {
    s.grid[d] = collapsed[d] ? 1 : 1 + static_cast<int>(rng() % static_cast<unsigned>(std::min(budget, 8)));
    budget /= s.grid[d];
    if (budget == 0) budget = 1;
  }
  int size = 1;
  for (int e : s.grid) size *= e;
  if (size > nprocs) {
    for (auto& e : s.grid) e = 1;
    size = 1;
  }
  s.first = static_cast<int>(rng() % static_cast<unsigned>(nprocs - size + 1));
  s.grid_order = rng() % 2 ? Order::row_major : Order::column_major;
  s.storage = rng() % 3 == 0 ? Order::row_major : Order::column_major;
  for (std::size_t d = 0; d < N; ++d) s.offsets[d] = static_cast<int>(rng() % static_cast<unsigned>(s.grid[d]));
  // Per-dimension distributions sized for their grid extents.
  const Dist<D...> dist = [&]<std::size_t... I>(std::index_sequence<I...>) {
    return Dist<D...>{make_dist<D>(extents[I], s.grid[I], rng)...};
  }(std::index_sequence_for<D...>{});
  // A leading dimension with padding, at least the largest local extent of the fastest dimension.
  if (rng() % 2) {
    const std::size_t fast = s.storage == Order::column_major ? 0 : N - 1;
    s.ld = extents[fast] + static_cast<index_t>(rng() % 3);
  }
  // One case in four places the grid by a rank map (a general Cblacs_gridmap): any size ranks of
  // the communicator, in any order.
  if (nprocs > 1 && rng() % 4 == 0) {
    std::vector<int> all(static_cast<std::size_t>(nprocs));
    std::iota(all.begin(), all.end(), 0);
    std::shuffle(all.begin(), all.end(), rng);
    s.ranks.assign(all.begin(), all.begin() + size);
  }
  return bind_case(dist, s, std::index_sequence_for<D...>{});
}

}  // namespace redist::test
