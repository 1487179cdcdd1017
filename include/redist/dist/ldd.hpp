/// @file Defines Ldd, the local data descriptor (o, b, s, n) of seed 003, and LddSet.
#pragma once

#include <array>
#include <cstddef>

#include <redist/config.hpp>

namespace redist {

/// The index set {i | o + s*u <= i < o + s*u + b, 0 <= u < n} (seed 003, Definition 1, with
/// 0-based origins and the end of eq. (2) corrected to o + s*u + b). `local` is the local
/// index of the first element; within an LDD, local indices follow global order, so element
/// o + s*u + j (0 <= j < b) has local index local + u*b + j. Requires b <= s when n > 1.
struct Ldd {
  index_t o = 0;
  index_t b = 0;
  index_t s = 1;
  index_t n = 0;
  index_t local = 0;

  constexpr index_t size() const noexcept { return b * n; }
  constexpr bool empty() const noexcept { return b == 0 || n == 0; }
  /// One past the last global index.
  constexpr index_t end() const noexcept { return o + s * (n - 1) + b; }
  friend constexpr bool operator==(const Ldd&, const Ldd&) = default;
};

/// The LDDs one process owns, in local order (at most four: a regular body and ragged pieces).
class LddSet {
 public:
  static constexpr std::size_t capacity = 4;

  constexpr LddSet() = default;

  /// Appends d unless it is empty. An LDD whose blocks touch (b == s) is stored as one block.
  constexpr void push_back(Ldd d) {
    if (d.empty()) return;
    if (d.n > 1 && d.b == d.s) d = Ldd{d.o, d.b * d.n, d.b * d.n, 1, d.local};
    if (size_ == capacity) detail::report_error("redist::LddSet holds at most 4 LDDs per process");
    items_[size_++] = d;
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

}  // namespace redist
