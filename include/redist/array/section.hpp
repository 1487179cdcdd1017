/// @file Defines section(a, slices...) and SectionView: HPF's array sections (B(2:N:2, :) = A(1:N-1:2, :)) with std::submdspan's slice specifiers, as typed assignments between any two layouts.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <type_traits>

#include <boost/mpi/communicator.hpp>

#include <redist/array/access.hpp>
#include <redist/array/consistency.hpp>
#include <redist/array/expression.hpp>
#include <redist/array/options.hpp>
#include <redist/array/plan_cache.hpp>
#include <redist/array/redistribute.hpp>
#include <redist/array/transpose.hpp>
#include <redist/dist/slice.hpp>
#include <redist/plan/sectioned.hpp>
#include <redist/runtime/node.hpp>
#include <redist/schedule/schedule.hpp>

namespace redist {

/// The elements of a distributed array A selected by one slice per dimension (an index, a
/// [begin, end) pair, strided_slice{offset, extent, stride}, full_extent, as std::submdspan
/// means them), seen as a distributed array of rank K (the slices that are not indices) whose
/// elements stay where A stores them. What redist::section(a, slices...) returns. It is a
/// distributed array for every purpose of redist: assignable (`section(b, ...) = section(a,
/// ...)`, `section(b, ...) = a`, `b = section(a, ...)`, `= transpose(section(...))`), with
/// make_plan and redistribute; element by element in section order, between two sections of the
/// same extents of any two layouts. The plan is built from the LDDs of the sections (O(period)
/// per rank, no per-element work) and cached in the destination's array, like b = a's. It refers
/// to a, copies nothing, and must not outlive it.
template <class A, std::size_t K>
class SectionView {
  using base_mapping = typename A::mapping_type;

 public:
  using value_type = typename A::value_type;
  using distribution_type = typename A::distribution_type;
  using mapping_type = SectionLayout<base_mapping, K>;
  using extents_type = std::array<index_t, K>;
  static constexpr std::size_t rank() noexcept { return K; }
  static constexpr bool one_dimensional = false;
  static constexpr std::size_t static_nprocs() noexcept { return dynamic; }
  static constexpr std::size_t static_extent(std::size_t) noexcept { return dynamic; }

  SectionView(A& a, const std::array<Slice, A::rank()>& slices)
      : array_{&a}, mapping_{a.mapping(), slices}, segment_{detail::array_access::segment(a)},
        cache_{&detail::array_access::cache(const_cast<std::remove_const_t<A>&>(a))} {}  // the cache is not a's value

  /// Copies src's elements, in section order, into this section's elements of the array
  /// (collective). src: a distributed array, a section or a view of the same element type, rank
  /// and extents, on the same communicator.
  template <DistributedArray S>
  SectionView& operator=(const S& src) {
    static_assert(std::is_same_v<typename S::value_type, value_type>,
                  "redist::section(b, ...) = src requires src to have b's element type");
    check_disjoint(src);
    redistribute(src, *this, schedule::automatic);
    return *this;
  }
  SectionView& operator=(const SectionView& src) {
    check_disjoint(src);
    redistribute(src, *this, schedule::automatic);
    return *this;
  }
  template <class S>
  SectionView& operator=(const TransposeView<S>& src) {
    static_assert(std::is_same_v<typename S::value_type, value_type>,
                  "redist::section(b, ...) = transpose(a) requires a to have b's element type");
    check_disjoint(src.array);
    redistribute(src, *this, schedule::automatic);
    return *this;
  }
  /// section(b, ...) = alpha * op(src) [+ beta * section(b, ...)] (the same section), and =
  /// conj_transpose(src): see DistArray's.
  template <class E, class S>
  SectionView& operator=(const Scaled<E, S>& x) {
    check_disjoint(x.term.array);
    detail::assign_expression(*this, x);
    return *this;
  }
  template <class E, class B, class S>
  SectionView& operator=(const Update<E, B, S>& x) {
    check_disjoint(x.term.array);
    detail::assign_expression(*this, x);
    return *this;
  }
  template <class S>
  SectionView& operator=(const ConjTransposeView<S>& x) {
    check_disjoint(x.array);
    detail::assign_expression(*this, x);
    return *this;
  }
  SectionView(const SectionView&) = default;

  index_t size() const noexcept { return mapping_.size(); }
  const extents_type& extents() const noexcept { return mapping_.extents(); }
  index_t extent(std::size_t k) const noexcept { return mapping_.extent(k); }
  const mapping_type& mapping() const noexcept { return mapping_; }
  /// The slices, one per dimension of the array.
  const auto& slices() const noexcept { return mapping_.slices(); }
  const boost::mpi::communicator& comm() const noexcept { return array_->comm(); }
  /// The whole local storage of the array (the section's elements are among it).
  auto local() const noexcept { return array_->local(); }
  /// The array the section is of.
  A& array() const noexcept { return *array_; }

 private:
  friend struct detail::array_access;

  /// A section assigned from the same array must not share elements with its source (the
  /// exchange reads the source while it writes the destination): disjoint in some dimension, by
  /// interval or by residue of a common stride. Checked alike on every rank.
  template <class S>
  void check_disjoint(const S& src) const {
    const void* mine = static_cast<const void*>(array_);
    bool same = false, disjoint = false;
    if constexpr (requires { src.array(); src.slices(); }) {
      same = static_cast<const void*>(&src.array()) == mine;
      if (same && src.slices().size() == slices().size())
        for (std::size_t d = 0; d < slices().size(); ++d) {
          const Slice &x = slices()[d], &y = src.slices()[d];
          if (x.extent == 0 || y.extent == 0 || x.at(x.extent - 1) < y.offset || y.at(y.extent - 1) < x.offset ||
              (x.stride == y.stride && (x.offset - y.offset) % x.stride != 0))
            disjoint = true;
        }
    } else {
      same = static_cast<const void*>(&src) == mine && size() > 0;
    }
    if (same && !disjoint)
      detail::report_error("redist::section(a, ...) = section(a, ...) requires the two sections of one array not to "
                           "share elements (the exchange reads the source while it writes the destination); copy through "
                           "another array");
  }

  A* array_;
  mapping_type mapping_;
  const runtime::SharedSegment* segment_;
  detail::PlanCache* cache_;
};

/// The section of a selected by one slice specifier per dimension: an integer index (the
/// dimension is dropped), a pair-like [begin, end), redist::strided_slice{offset, extent,
/// stride} (the indices offset, offset + stride, ... below offset + extent), redist::full_extent.
/// The slices must lie in a's extents: otherwise redist::error on every rank (one small
/// all-reduce agrees on them when default_options().check_consistency) before any data moves.
template <DistributedArray A, class... S>
auto section(A& a, const S&... slices) {
  static_assert(sizeof...(S) == A::rank(),
                "redist::section(a, slices...) requires one slice specifier per dimension of a");
  static_assert((SliceSpecifier<S> && ...),
                "redist::section(a, slices...) requires each slice to be an index, a [begin, end) pair, "
                "redist::strided_slice{offset, extent, stride} or redist::full_extent");
  constexpr std::size_t K = detail::section_rank<S...>;
  static_assert(K > 0, "redist::section(a, slices...) requires at least one slice that is not an index "
                       "(a section of rank 0 is one element: read it from its owner)");
  const auto& extents = a.mapping().extents();
  std::optional<std::string> failure;
  if (std::string why = slices_error(extents, slices...); !why.empty())
    failure = "redist::section(a, slices...) requires every slice to lie in a's extents: " + why;
  if (default_options().check_consistency) {
    std::uint64_t h = detail::hash_seed;
    if (!failure)
      for (const Slice& s : to_slices(extents, slices...))
        for (index_t v : {s.offset, s.extent, s.stride, index_t{s.kept}}) h = detail::hash_mix(h, static_cast<std::uint64_t>(v));
    const detail::Parameter params[] = {{"slices", h}};
    detail::agree(a.comm(), "redist::section(a, slices...)", params, failure);
  } else if (failure) {
    detail::report_error(*failure);
  }
  return SectionView<A, K>(a, to_slices(extents, slices...));
}

}  // namespace redist
