/// @file Defines GenBlock, HPF2's GEN_BLOCK distribution: one contiguous part of a given size per process.
#pragma once

#include <algorithm>
#include <concepts>
#include <limits>
#include <initializer_list>
#include <memory>
#include <ranges>
#include <string>
#include <utility>
#include <vector>

#include <redist/detail/math.hpp>
#include <redist/dist/distribution.hpp>

namespace redist {

/// GEN_BLOCK(sizes): process p owns the contiguous part [offset[p], offset[p] + sizes[p]).
/// Parts may be empty. The sizes are shared between copies (a GenBlock is cheap to copy).
class GenBlock {
 public:
  using distribution_concept = distribution_tag;

  GenBlock() : offsets_{std::make_shared<const std::vector<index_t>>(1, 0)} {}

  template <std::ranges::input_range R>
    requires std::integral<std::ranges::range_value_t<R>>
  explicit GenBlock(const R& sizes) : offsets_{make_offsets(sizes)} {}

  template <std::integral I>
  GenBlock(std::initializer_list<I> sizes) : offsets_{make_offsets(sizes)} {}

  /// Number of parts (must equal the number of processes).
  int nparts() const noexcept { return static_cast<int>(offsets_->size()) - 1; }
  index_t part_size(int p) const noexcept { return (*offsets_)[p + 1] - (*offsets_)[p]; }
  index_t part_offset(int p) const noexcept { return (*offsets_)[p]; }
  index_t total() const noexcept { return offsets_->back(); }

  friend bool operator==(const GenBlock& a, const GenBlock& b) noexcept {
    return a.offsets_ == b.offsets_ || *a.offsets_ == *b.offsets_;
  }

  class mapping {
   public:
    mapping(const GenBlock& d, index_t n, int nprocs) : off_{d.offsets_}, n_{n} {
      REDIST_EXPECTS(nprocs > 0, "redist::GenBlock::mapping(n, P) requires P to be > 0");
      if (d.nparts() != nprocs)
        detail::report_error("redist::GenBlock(sizes) requires sizes to have one entry per process (" +
                             std::to_string(nprocs) + " processes, got " +
                             std::to_string(d.nparts()) + " sizes)");
      if (d.total() != n)
        detail::report_error("redist::GenBlock(sizes) requires the sizes to sum to n (n = " +
                             std::to_string(n) + ", sum = " + std::to_string(d.total()) + ")");
    }
    index_t size() const noexcept { return n_; }
    int nprocs() const noexcept { return static_cast<int>(off_->size()) - 1; }
    /// O(log P): the last part whose offset is <= g (empty parts are skipped).
    int owner(index_t g) const noexcept {
      return static_cast<int>(std::upper_bound(off_->begin(), off_->end(), g) - off_->begin()) - 1;
    }
    index_t local_index(index_t g) const noexcept { return g - (*off_)[owner(g)]; }
    index_t global_index(int p, index_t l) const noexcept { return (*off_)[p] + l; }
    index_t local_size(int p) const noexcept { return (*off_)[p + 1] - (*off_)[p]; }
    LddSet ldds(int p) const {
      LddSet set;
      set.push_back(Ldd{(*off_)[p], local_size(p), local_size(p), 1, 0});
      return set;
    }
    friend bool operator==(const mapping& a, const mapping& b) noexcept {
      return a.n_ == b.n_ && (a.off_ == b.off_ || *a.off_ == *b.off_);
    }

   private:
    std::shared_ptr<const std::vector<index_t>> off_;
    index_t n_;
  };

 private:
  template <class R>
  static std::shared_ptr<const std::vector<index_t>> make_offsets(const R& sizes) {
    std::vector<index_t> off{0};
    std::size_t i = 0;
    for (const auto& v : sizes) {
      if (std::cmp_less(v, 0))
        detail::report_error("redist::GenBlock(sizes) requires sizes[" + std::to_string(i) +
                             "] to be >= 0 (got " + std::to_string(v) + ")");
      if (std::cmp_greater(v, std::numeric_limits<index_t>::max()))
        detail::report_error("redist::GenBlock(sizes) requires sizes[" + std::to_string(i) +
                             "] to fit in a 64-bit signed index");
      off.push_back(detail::checked_add(off.back(), static_cast<index_t>(v), "GenBlock: sum of sizes"));
      ++i;
    }
    return std::make_shared<const std::vector<index_t>>(std::move(off));
  }

  std::shared_ptr<const std::vector<index_t>> offsets_;
};

}  // namespace redist
