/// @file Defines SectionLayout<M, K>: the layout of a section of a grid layout M (std::submdspan's slices: strided, pairs, indices), a GridLayout of rank K that the one plan builder takes as it takes M.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <typeinfo>

#include <redist/config.hpp>
#include <redist/detail/hash.hpp>
#include <redist/dist/grid.hpp>
#include <redist/dist/ldd.hpp>
#include <redist/dist/slice.hpp>
#include <redist/index/slice.hpp>
#include <redist/plan/layout.hpp>

namespace redist {

/// The section of the grid layout M (Dist<D...>::basic_mapping of any rank, a 1-D array's rank-1
/// one included) that `slices` select, one Slice per dimension of M, exactly K of them kept:
///   element (i_0, ..., i_{K-1}) of the section |-> element (x_0, ..., x_{N-1}) of M, where
///   x_d = slices[d].at(i_k) when d is the k-th kept dimension, slices[d].offset when d is dropped,
/// stored where M stores it. It is a GridLayout of rank K: dimension k is M's k-th kept dimension,
/// on that dimension of M's grid; the ranks whose coordinate in a dropped dimension does not own
/// its index hold nothing (coords_of is nothing); a rank's LDDs are index::slice_ldds of M's
/// (elements `step` apart in local storage), its strides M's, and origin(r) the local offset of the
/// dropped dimensions' indices. So build_plan, the planners, transfers, Transposed and the
/// fingerprint take sections as they take M: O(period) index work, never per element.
template <class M, std::size_t K>
class SectionLayout {
  static_assert(K >= 1,
                "redist::SectionLayout<M, K> requires K >= 1: a section whose every slice is an index is one element, "
                "not a layout (read or write that element instead)");
  static_assert(GridLayout<M>, "redist::SectionLayout<M, K> requires M to be a grid layout (Dist<...>::basic_mapping)");
  static_assert(K <= M::rank(), "redist::SectionLayout<M, K> requires K to be at most the rank of M");

 public:
  using base_type = M;
  static constexpr std::size_t base_rank = M::rank();
  using slices_type = std::array<Slice, base_rank>;
  using extents_type = std::array<index_t, K>;
  using coords_type = std::array<int, K>;

  /// The section's process grid: M's grid extents of the kept dimensions.
  struct grid_type {
    std::array<int, K> extents{};
    constexpr int extent(std::size_t k) const noexcept { return extents[k]; }
    friend constexpr bool operator==(const grid_type&, const grid_type&) = default;
  };

  /// The section of base that slices select (to_slices turns slice specifiers into them). Throws
  /// redist::error when the number of kept slices is not K or a slice leaves its dimension (the
  /// array layer validates and agrees on the slices first: slice_error).
  SectionLayout(const M& base, const slices_type& slices) : base_{base}, slices_{slices} {
    std::size_t kept = 0;
    for (const Slice& s : slices) kept += s.kept ? 1 : 0;
    REDIST_EXPECTS(kept == K, "redist::SectionLayout<M, " + std::to_string(K) + ">(base, slices) requires exactly " +
                                  std::to_string(K) + " kept slices (got " + std::to_string(kept) + ")");
    size_ = 1;
    std::size_t k = 0;
    for (std::size_t d = 0; d < base_rank; ++d) {
      any_copies_ = any_copies_ || detail::held_in_copies(base, d);
      any_partial_ = any_partial_ || detail::held_partially(base, d);
      const std::string why = slice_error(slices[d], base.extent(d), d);
      REDIST_EXPECTS(why.empty(), "redist::SectionLayout(base, slices) requires every slice to lie in its dimension: " + why);
      if (slices[d].kept) {
        kept_[k] = d;
        extents_[k] = slices[d].extent;
        grid_.extents[k] = base.grid().extent(d);
        size_ *= slices[d].extent;
        ++k;
        continue;
      }
      // The grid coordinate that owns a dropped dimension's index, and its local index there (held
      // in copies or in partial values: every coordinate holds it, at the same local index).
      everywhere_[d] = detail::held_in_copies(base, d) || detail::held_partially(base, d);
      for (int c = 0; c < base.grid().extent(d) && owner_[d] < 0; ++c)
        if (const auto l = index::locate(base.ldds(d, c), slices[d].offset)) {
          owner_[d] = c;
          local_[d] = *l;
        }
      REDIST_EXPECTS(owner_[d] >= 0, "redist::SectionLayout(base, slices) requires the base to hold index " +
                                         std::to_string(slices[d].offset) + " of dimension " + std::to_string(d));
    }
  }

  static constexpr std::size_t rank() noexcept { return K; }
  const M& base() const noexcept { return base_; }
  const slices_type& slices() const noexcept { return slices_; }
  /// M's dimension that is the section's dimension k.
  std::size_t base_dimension(std::size_t k) const noexcept { return kept_[k]; }

  index_t size() const noexcept { return size_; }
  const extents_type& extents() const noexcept { return extents_; }
  index_t extent(std::size_t k) const noexcept { return extents_[k]; }
  /// M's multi-index of the section's element i.
  auto base_index(const extents_type& i) const {
    std::array<index_t, base_rank> x{};
    for (std::size_t d = 0; d < base_rank; ++d) x[d] = slices_[d].offset;
    for (std::size_t k = 0; k < K; ++k) x[kept_[k]] = slices_[kept_[k]].at(i[k]);
    return x;
  }

  /// Ranks of the communicator (M's).
  int nprocs() const noexcept { return base_.nprocs(); }
  const grid_type& grid() const noexcept { return grid_; }
  /// M's local storage: the section's elements stay where M stores them.
  Storage storage() const noexcept { return base_.storage(); }
  /// The section's dimension that varies fastest in local storage among the kept ones.
  std::size_t fastest() const noexcept { return storage().order == Order::column_major ? 0 : K - 1; }

  /// Rank r's coordinates in the kept dimensions of M's grid, or nothing when r is outside M's grid
  /// or its coordinate in a dropped dimension does not own that dimension's index (then it holds
  /// nothing of the section). Along a dropped dimension held in copies (or in partial values) every
  /// coordinate holds it: several ranks then have the same coordinates, each a copy of the section
  /// (or a part of its values).
  std::optional<coords_type> coords_of(int r) const {
    const auto c = base_.coords_of(r);
    if (!c) return std::nullopt;
    for (std::size_t d = 0; d < base_rank; ++d)
      if (!slices_[d].kept && !everywhere_[d] && (*c)[d] != owner_[d]) return std::nullopt;
    coords_type out{};
    for (std::size_t k = 0; k < K; ++k) out[k] = (*c)[kept_[k]];
    return out;
  }
  /// The LDDs of dimension k at grid coordinate c, in section indices, with M's local indices:
  /// index::slice_ldds of M's (O(period), not O(n)).
  LddList ldds(std::size_t k, int c) const { return index::slice_ldds(base_.ldds(kept_[k], c), slices_[kept_[k]]); }
  /// Whether M holds some dimension in copies, kept or dropped (detail::any_copies).
  bool any_copies() const noexcept { return any_copies_; }
  /// Whether rank s holds the copy of the section that rank r reads: M's copy rule (detail::serves),
  /// along dropped dimensions too.
  bool serves(int s, int r) const { return coords_of(s).has_value() && detail::serves(base_, s, r); }
  /// Whether M holds some dimension in partial values (Partial), kept or dropped (detail::any_partial).
  bool any_partial() const noexcept { return any_partial_; }
  /// Whether rank r receives the section's elements as a destination: it holds some (coords_of) and
  /// M's rule (detail::receives: process 0 of every dimension of partial values, kept or dropped).
  bool receives(int r) const { return coords_of(r).has_value() && detail::receives(base_, r); }
  /// Element strides of rank r's local storage (M's) of the kept dimensions.
  extents_type strides(int r) const {
    const auto st = base_.strides(r);
    extents_type out{};
    for (std::size_t k = 0; k < K; ++k) out[k] = st[kept_[k]];
    return out;
  }
  /// The local offset of the dropped dimensions' indices on rank r: Σ local index × M's stride
  /// (0 when no dimension is dropped, or r holds nothing). The plan builder adds it to every
  /// offset on rank r's side.
  index_t origin(int r) const {
    if (K == base_rank || !coords_of(r)) return 0;
    const auto st = base_.strides(r);
    index_t off = 0;
    for (std::size_t d = 0; d < base_rank; ++d)
      if (!slices_[d].kept) off += local_[d] * st[d];
    return off;
  }

  /// Hash of everything every rank must agree on: M's fingerprint and the slices.
  std::uint64_t fingerprint() const {
    using detail::hash_mix;
    std::uint64_t h = detail::hash_string(detail::hash_seed, typeid(SectionLayout).name());
    h = hash_mix(h, base_.fingerprint());
    for (const Slice& s : slices_)
      for (index_t v : {s.offset, s.extent, s.stride, index_t{s.kept}}) h = hash_mix(h, static_cast<std::uint64_t>(v));
    return h;
  }

  friend bool operator==(const SectionLayout& a, const SectionLayout& b) {
    return a.base_ == b.base_ && a.slices_ == b.slices_;
  }

 private:
  M base_;
  slices_type slices_;
  std::array<std::size_t, K> kept_{};
  extents_type extents_{};
  grid_type grid_{};
  index_t size_ = 0;
  std::array<int, base_rank> owner_ = filled(-1);
  std::array<index_t, base_rank> local_{};
  std::array<bool, base_rank> everywhere_{};
  bool any_copies_ = false;
  bool any_partial_ = false;

  static constexpr std::array<int, base_rank> filled(int v) {
    std::array<int, base_rank> a{};
    a.fill(v);
    return a;
  }
};

}  // namespace redist
