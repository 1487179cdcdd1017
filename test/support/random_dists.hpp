/// @file Defines random instances of each 1-D distribution for property tests (same seed -> same layout).
#pragma once

#include <algorithm>
#include <random>
#include <vector>

#include <redist/dist/block.hpp>
#include <redist/dist/cyclic.hpp>
#include <redist/dist/gen_block.hpp>

namespace redist::test {

/// Random sizes summing to n, about a third of them empty when possible.
inline std::vector<index_t> random_parts(index_t n, int nprocs, std::mt19937_64& rng) {
  std::vector<index_t> cuts{0, n};
  std::uniform_int_distribution<index_t> pick(0, n);
  for (int i = 1; i < nprocs; ++i) cuts.push_back(rng() % 3 == 0 ? cuts[rng() % cuts.size()] : pick(rng));
  std::sort(cuts.begin(), cuts.end());
  std::vector<index_t> sizes;
  for (int i = 0; i < nprocs; ++i) sizes.push_back(cuts[i + 1] - cuts[i]);
  return sizes;
}

/// A random block size: often small, sometimes larger than n.
inline index_t random_block(index_t n, std::mt19937_64& rng) {
  switch (rng() % 4) {
    case 0: return 1 + static_cast<index_t>(rng() % 4);
    case 1: return 1 + static_cast<index_t>(rng() % 64);
    case 2: return 1 + static_cast<index_t>(rng() % (n + 2));
    default: return n + 1 + static_cast<index_t>(rng() % 100);
  }
}

template <class D>
D make_dist(index_t n, int nprocs, std::mt19937_64& rng) {
  if constexpr (std::is_same_v<D, GenBlock>) return GenBlock(random_parts(n, nprocs, rng));
  else if constexpr (std::is_same_v<D, Cyclic<dynamic>>) return Cyclic<dynamic>(random_block(n, rng));
  else return D{};
}

}  // namespace redist::test
