/// @file Defines Collapsed, HPF's `*`: a dimension that is not distributed (its grid extent is 1).
#pragma once

#include <string>

#include <redist/dist/distribution.hpp>

namespace redist {

/// HPF's `*` in a Dist<...>: the whole dimension lives on the one process of its grid
/// dimension, which must have extent 1 (as in `Dist<Block, Collapsed>` on `Grid{4, 1}`).
class Collapsed {
 public:
  using distribution_concept = distribution_tag;

  friend constexpr bool operator==(Collapsed, Collapsed) noexcept { return true; }

  /// Collapsed bound to n elements on P = 1 process: process 0 owns [0, n).
  class mapping {
   public:
    constexpr mapping(Collapsed, index_t n, int nprocs) : n_{n} {
      REDIST_EXPECTS(n >= 0, "redist::Collapsed::mapping(n, P) requires n to be >= 0");
      REDIST_EXPECTS(nprocs == 1, "redist::Collapsed (HPF's '*': the dimension is not split) requires a grid extent of 1 "
                                  "along its dimension (got " + std::to_string(nprocs) + "); use Replicated for a copy on each process of a longer one");
    }
    constexpr index_t size() const noexcept { return n_; }
    constexpr int nprocs() const noexcept { return 1; }
    constexpr int owner(index_t) const noexcept { return 0; }
    constexpr index_t local_index(index_t g) const noexcept { return g; }
    constexpr index_t global_index(int, index_t l) const noexcept { return l; }
    constexpr index_t local_size(int p) const noexcept { return p == 0 ? n_ : 0; }
    constexpr LddSet ldds(int p) const {
      LddSet set;
      if (p == 0) set.push_back(Ldd{0, n_, n_, 1, 0});
      return set;
    }
    friend constexpr bool operator==(const mapping&, const mapping&) = default;

   private:
    index_t n_;
  };
};

}  // namespace redist
