/// @file Defines Ldd, the local data descriptor (o, b, s, n) of seed 003 with its local layout, LddSet, LddList and the LddRange concept.
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <iterator>
#include <ranges>
#include <vector>

#include <redist/config.hpp>

namespace redist {

/// The index set {i | o + s*u <= i < o + s*u + b, 0 <= u < n} (seed 003, Definition 1, with
/// 0-based origins and the end of eq. (2) corrected to o + s*u + b), and where its elements are
/// stored: element o + s*u + j (0 <= j < b) has local index local + u*lblock + j*step. A
/// distribution's LDDs have step 1 and lblock b (local indices follow global order, blocks end to
/// end); an LDD of a strided section (index::slice_ldds) has its elements `step` apart within a
/// block and its blocks `lblock` apart. Requires b <= s when n > 1.
struct Ldd {
  index_t o = 0;
  index_t b = 0;
  index_t s = 1;
  index_t n = 0;
  index_t local = 0;
  /// Local distance between consecutive elements of one block.
  index_t step = 1;
  /// Local distance between the first elements of consecutive blocks.
  index_t lblock = b;

  constexpr index_t size() const noexcept { return b * n; }
  constexpr bool empty() const noexcept { return b == 0 || n == 0; }
  /// One past the last global index.
  constexpr index_t end() const noexcept { return o + s * (n - 1) + b; }
  friend constexpr bool operator==(const Ldd&, const Ldd&) = default;
};

/// A range of LDDs: what a layout's `ldds(...)` returns (an LddSet for the built-in
/// distributions, an LddList for sections).
template <class R>
concept LddRange = std::ranges::forward_range<const R> && std::same_as<std::ranges::range_value_t<const R>, Ldd>;

namespace detail {
/// d with blocks that touch in both index spaces (b == s and lblock == b*step) stored as one
/// block of b*n elements.
constexpr Ldd joined(Ldd d) noexcept {
  if (d.n > 1 && d.b == d.s && d.lblock == d.b * d.step) {
    const index_t len = d.b * d.n;
    d = Ldd{d.o, len, len, 1, d.local, d.step, len * d.step};
  }
  return d;
}
}  // namespace detail

/// The LDDs one process owns, in local order (at most four: a regular body and ragged pieces).
class LddSet {
 public:
  static constexpr std::size_t capacity = 4;

  constexpr LddSet() = default;

  /// Appends d unless it is empty. An LDD whose blocks touch (b == s, and their local indices
  /// continue) is stored as one block.
  constexpr void push_back(Ldd d) {
    if (d.empty()) return;
    if (size_ == capacity) detail::report_error("redist::LddSet holds at most 4 LDDs per process");
    items_[size_++] = detail::joined(d);
  }
  /// Appends the blocks of k elements at global first, first + s, first + 2s, ... below n, with
  /// local indices from `local`: the full blocks as one LDD, a ragged last block as another (the
  /// LDDs of a process of a block-cyclic distribution, from its first full block on).
  constexpr void push_blocks(index_t first, index_t k, index_t s, index_t n, index_t local) {
    const index_t full = n - first - k >= 0 ? (n - first - k) / s + 1 : 0;
    push_back(Ldd{first, k, s, full, local});
    const index_t tail = first + full * s;
    if (tail < n) push_back(Ldd{tail, n - tail, s, 1, local + full * k});
  }
  constexpr const Ldd* begin() const noexcept { return items_.data(); }
  constexpr const Ldd* end() const noexcept { return items_.data() + size_; }
  constexpr std::size_t size() const noexcept { return size_; }
  constexpr const Ldd& operator[](std::size_t i) const noexcept { return items_[i]; }

 private:
  std::array<Ldd, capacity> items_{};
  std::size_t size_ = 0;
};

/// Any number of LDDs, with LddSet's push_back: the LDDs of a section, one per nonempty phase
/// of the block pattern (index::slice_ldds), which can be many more than four.
class LddList {
 public:
  LddList() = default;

  /// Appends d unless it is empty; blocks that touch are stored as one (as LddSet::push_back).
  void push_back(Ldd d) {
    if (!d.empty()) items_.push_back(detail::joined(d));
  }
  const Ldd* begin() const noexcept { return items_.data(); }
  const Ldd* end() const noexcept { return items_.data() + items_.size(); }
  std::size_t size() const noexcept { return items_.size(); }
  bool empty() const noexcept { return items_.empty(); }
  const Ldd& operator[](std::size_t i) const noexcept { return items_[i]; }
  friend bool operator==(const LddList&, const LddList&) = default;

 private:
  std::vector<Ldd> items_;
};

static_assert(LddRange<LddSet> && LddRange<LddList>);

}  // namespace redist
