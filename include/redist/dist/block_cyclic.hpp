/// @file Defines BlockCyclic, a block-cyclic distribution whose first block is shorter (a ScaLAPACK sub-matrix's rows or columns).
#pragma once

#include <algorithm>
#include <concepts>
#include <limits>
#include <string>
#include <utility>

#include <redist/detail/math.hpp>
#include <redist/dist/distribution.hpp>

namespace redist {

/// Blocks of k elements dealt to processes 0, 1, ..., P-1, 0, ..., except that the first block
/// (on process 0) holds only f elements, 1 <= f <= k. BlockCyclic{k, k} is Cyclic<>{k}.
/// It is the distribution of rows (or columns) ia, ia+1, ... of a block-cyclic matrix: with
/// 0-based i = ia - 1, f = k - i % k, and the first block on the process that holds row i.
/// Local indices count from the first element a process owns, so they are relative to the
/// sub-matrix's first local row on each process.
class BlockCyclic {
 public:
  using distribution_concept = distribution_tag;

  template <std::integral I, std::integral J>
  constexpr BlockCyclic(I k, J f) : k_{static_cast<index_t>(k)}, f_{static_cast<index_t>(f)} {
    if (!std::cmp_greater(k, 0) || std::cmp_greater(k, std::numeric_limits<index_t>::max() / 2))
      detail::report_error("redist::BlockCyclic(k, f) requires k to be > 0 (got " + std::to_string(k) + ")");
    if (!std::cmp_greater(f, 0) || std::cmp_greater(f, k))
      detail::report_error("redist::BlockCyclic(k, f) requires f to be in [1, k] (got f = " + std::to_string(f) +
                           ", k = " + std::to_string(k) + ")");
  }
  /// CYCLIC(k) restricted to the elements from `start` on: BlockCyclic{k, k - start % k}.
  template <std::integral I>
  static constexpr BlockCyclic from_offset(I k, index_t start) {
    if (!std::cmp_greater(k, 0))
      detail::report_error("redist::BlockCyclic::from_offset(k, start) requires k to be > 0 (got " +
                           std::to_string(k) + ")");
    if (start < 0)
      detail::report_error("redist::BlockCyclic::from_offset(k, start) requires start to be >= 0 (got " +
                           std::to_string(start) + ")");
    return BlockCyclic{k, static_cast<index_t>(k) - start % static_cast<index_t>(k)};
  }

  constexpr index_t block_size() const noexcept { return k_; }
  constexpr index_t first_block_size() const noexcept { return f_; }

  friend constexpr bool operator==(const BlockCyclic&, const BlockCyclic&) = default;

  /// BlockCyclic{k, f} bound to n elements on P processes. It is CYCLIC(k) on n + s elements,
  /// s = k - f, with the first s (phantom) elements dropped: g |-> g + s, and process 0's local
  /// indices shifted down by s. Process 0 owns the LDDs (0, f, ., 1) and (k*P - s, k, k*P, ...);
  /// process p > 0 owns (p*k - s, k, k*P, ...); each may have one shorter tail block.
  class mapping {
   public:
    using distribution_type = BlockCyclic;

    constexpr mapping(const BlockCyclic& d, index_t n, int nprocs)
        : n_{n}, p_{nprocs}, k_{d.block_size()}, s_{d.block_size() - d.first_block_size()} {
      REDIST_EXPECTS(n >= 0, "redist::BlockCyclic::mapping(n, P) requires n to be >= 0");
      REDIST_EXPECTS(nprocs > 0, "redist::BlockCyclic::mapping(n, P) requires P to be > 0");
      period_ = detail::checked_mul(k_, nprocs, "BlockCyclic(k, f) on P processes: k*P");
      detail::checked_add(n, s_, "BlockCyclic(k, f) on n elements: n + k - f");
    }
    constexpr index_t size() const noexcept { return n_; }
    constexpr int nprocs() const noexcept { return p_; }
    constexpr index_t block_size() const noexcept { return k_; }
    constexpr index_t first_block_size() const noexcept { return k_ - s_; }

    constexpr int owner(index_t g) const noexcept { return static_cast<int>(((g + s_) / k_) % p_); }
    constexpr index_t local_index(index_t g) const noexcept {
      const index_t h = g + s_;
      const index_t l = (h / period_) * k_ + h % k_;
      return owner(g) == 0 ? l - s_ : l;
    }
    constexpr index_t global_index(int p, index_t l) const noexcept {
      const index_t m = p == 0 ? l + s_ : l;
      return (m / k_) * period_ + p * k_ + m % k_ - s_;
    }
    constexpr index_t local_size(int p) const noexcept {
      const index_t n = n_ + s_;
      const index_t cycles = n / period_;
      const index_t l = cycles * k_ + std::clamp<index_t>(n - cycles * period_ - p * k_, 0, k_);
      return p == 0 ? l - s_ : l;
    }
    constexpr LddSet ldds(int p) const {
      LddSet set;
      index_t first = p * k_ - s_;  // the first full block of p
      index_t local = 0;
      if (p == 0) {
        const index_t head = std::min(k_ - s_, n_);
        set.push_back(Ldd{0, head, period_, 1, 0});
        first = period_ - s_;
        local = head;
      }
      set.push_blocks(first, k_, period_, n_, local);
      return set;
    }
    friend constexpr bool operator==(const mapping&, const mapping&) = default;

   private:
    index_t n_;
    int p_;
    index_t k_;
    index_t s_;
    index_t period_ = 1;
  };

 private:
  index_t k_;
  index_t f_;
};

static_assert(Distribution<BlockCyclic>);

}  // namespace redist
