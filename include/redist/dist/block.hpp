/// @file Defines Block, HPF's BLOCK distribution: blocks of ceil(n/P), trailing processes may hold fewer or none.
#pragma once

#include <algorithm>

#include <redist/detail/math.hpp>
#include <redist/dist/distribution.hpp>

namespace redist {

class Block {
 public:
  using distribution_concept = distribution_tag;

  friend constexpr bool operator==(Block, Block) noexcept { return true; }

  /// Block bound to n elements on P processes: process p owns [p*b, min(n, (p+1)*b)), b = ceil(n/P).
  class mapping {
   public:
    constexpr mapping(Block, index_t n, int nprocs) : n_{n}, p_{nprocs} {
      REDIST_EXPECTS(n >= 0, "redist::Block::mapping(n, P) requires n to be >= 0");
      REDIST_EXPECTS(nprocs > 0, "redist::Block::mapping(n, P) requires P to be > 0");
      b_ = std::max<index_t>(1, detail::ceil_div(n, nprocs));
    }
    constexpr index_t size() const noexcept { return n_; }
    constexpr int nprocs() const noexcept { return p_; }
    constexpr index_t block_size() const noexcept { return b_; }
    constexpr int owner(index_t g) const noexcept { return static_cast<int>(g / b_); }
    constexpr index_t local_index(index_t g) const noexcept { return g % b_; }
    constexpr index_t global_index(int p, index_t l) const noexcept { return p * b_ + l; }
    constexpr index_t local_size(int p) const noexcept {
      return std::clamp<index_t>(n_ - p * b_, 0, b_);
    }
    constexpr LddSet ldds(int p) const {
      LddSet set;
      set.push_back(Ldd{p * b_, local_size(p), local_size(p), 1, 0});
      return set;
    }
    friend constexpr bool operator==(const mapping&, const mapping&) = default;

   private:
    index_t n_;
    int p_;
    index_t b_ = 1;
  };
};

}  // namespace redist
