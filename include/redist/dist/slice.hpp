/// @file Defines the slice specifiers of sections (std::submdspan's: full_extent, strided_slice, a [begin, end) pair, an index), Slice, to_slice, to_slices and slice_error.
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include <redist/config.hpp>

namespace redist {

/// The slice specifier of a whole dimension (std::full_extent_t).
struct full_extent_t {
  explicit full_extent_t() = default;
};
inline constexpr full_extent_t full_extent{};

/// The indices offset, offset + stride, ... below offset + extent (C++26 std::strided_slice):
/// `extent == 0 ? 0 : 1 + (extent - 1) / stride` of them; stride must be > 0 when extent > 0.
/// `strided_slice{1, n - 1, 2}` is HPF's `1:n-1:2` in 0-based indices (its extent is the length of
/// the index range, not the number of elements).
template <class OffsetType, class ExtentType, class StrideType>
struct strided_slice {
  using offset_type = OffsetType;
  using extent_type = ExtentType;
  using stride_type = StrideType;

  [[no_unique_address]] OffsetType offset{};
  [[no_unique_address]] ExtentType extent{};
  [[no_unique_address]] StrideType stride{};
};

template <class OffsetType, class ExtentType, class StrideType>
strided_slice(OffsetType, ExtentType, StrideType) -> strided_slice<OffsetType, ExtentType, StrideType>;

/// One dimension of a section, whatever specifier selected it: the `extent` indices offset,
/// offset + stride, ... of the base dimension. `kept` is false for an index (the dimension is
/// dropped: the section's rank is the number of kept slices); then extent is 1.
struct Slice {
  index_t offset = 0;
  index_t extent = 0;  ///< number of elements selected
  index_t stride = 1;
  bool kept = true;

  /// The base index of the section's index i.
  constexpr index_t at(index_t i) const noexcept { return offset + i * stride; }
  friend constexpr bool operator==(const Slice&, const Slice&) = default;
};

namespace detail {
/// An integral type or an integral constant (std::integral_constant<int, 3>), as submdspan's
/// index-pair-like and integral-constant-like; bool is neither.
template <class T>
concept integral_constant_like = requires { T::value; } && std::integral<std::remove_cv_t<decltype(T::value)>> &&
                                 !std::same_as<std::remove_cv_t<decltype(T::value)>, bool> &&
                                 std::convertible_to<T, std::remove_cv_t<decltype(T::value)>>;
template <class T>
concept index_like = (std::integral<T> && !std::same_as<T, bool>) || integral_constant_like<T>;

/// True for the slice specifiers that select one index and drop their dimension (rank-reducing):
/// an integer or an integral constant.
template <class S>
inline constexpr bool is_index_slice = index_like<std::remove_cvref_t<S>>;

template <class S>
inline constexpr bool is_strided_slice = false;
template <class O, class E, class St>
inline constexpr bool is_strided_slice<strided_slice<O, E, St>> =
    index_like<O> && index_like<E> && index_like<St>;

/// A [begin, end) pair: std::pair, std::tuple of two, std::array<I, 2> of integers.
template <class S>
concept pair_slice = !index_like<S> && requires { std::tuple_size<S>::value; } && std::tuple_size_v<S> == 2 &&
                     index_like<std::remove_cvref_t<std::tuple_element_t<0, S>>> &&
                     index_like<std::remove_cvref_t<std::tuple_element_t<1, S>>>;

/// x as a 64-bit index (integral constants by their value), or nothing when it does not fit.
template <index_like T>
constexpr bool fits_index(const T& x) noexcept {
  if constexpr (std::integral<T>) return std::in_range<index_t>(x);
  else return std::in_range<index_t>(T::value);
}
template <index_like T>
constexpr index_t as_index(const T& x) noexcept {
  if constexpr (std::integral<T>) return static_cast<index_t>(x);
  else return static_cast<index_t>(T::value);
}

/// The number of kept (not index) slices among S...: the rank of the section they select.
template <class... S>
inline constexpr std::size_t section_rank = (std::size_t{0} + ... + (is_index_slice<S> ? 0 : 1));
}  // namespace detail

/// A slice specifier of a section: full_extent, a strided_slice of integers, a [begin, end)
/// pair of integers (std::pair, std::tuple, std::array<I, 2>), or an index (an integer, which
/// drops its dimension). Integral constants count as integers.
template <class S>
concept SliceSpecifier = std::same_as<std::remove_cvref_t<S>, full_extent_t> ||
                         detail::is_strided_slice<std::remove_cvref_t<S>> ||
                         detail::pair_slice<std::remove_cvref_t<S>> || detail::is_index_slice<S>;

/// The Slice that spec selects of a dimension of base_extent indices (full_extent needs it). spec
/// must be valid there (slice_error(spec, base_extent, dim) empty); SectionLayout checks the
/// result again.
template <SliceSpecifier S>
constexpr Slice to_slice(const S& spec, index_t base_extent) noexcept {
  using T = std::remove_cvref_t<S>;
  if constexpr (std::same_as<T, full_extent_t>) {
    return Slice{0, base_extent, 1, true};
  } else if constexpr (detail::is_strided_slice<T>) {
    const index_t extent = detail::as_index(spec.extent), stride = detail::as_index(spec.stride);
    const index_t count = extent <= 0 || stride <= 0 ? 0 : 1 + (extent - 1) / stride;
    return Slice{detail::as_index(spec.offset), count, count > 1 ? stride : 1, true};
  } else if constexpr (detail::pair_slice<T>) {
    const index_t begin = detail::as_index(std::get<0>(spec)), end = detail::as_index(std::get<1>(spec));
    return Slice{begin, end - begin, 1, true};
  } else {
    return Slice{detail::as_index(spec), 1, 1, false};
  }
}

/// Why spec cannot slice dimension `dim` of base_extent indices, or "" when it can: an index
/// outside [0, base_extent), begin > end, an offset or extent below 0, a negative stride, stride 0
/// with extent > 0, indices beyond base_extent, values that do not fit a 64-bit index. Does not
/// throw (beyond std::bad_alloc), so that the ranks of a collective call can agree on the error
/// before any throws. The message names the slice, e.g. "slice 1 [4, 9) exceeds the extent 8".
template <SliceSpecifier S>
std::string slice_error(const S& spec, index_t base_extent, std::size_t dim) {
  using T = std::remove_cvref_t<S>;
  // The messages are built only when the slice is wrong: a valid one allocates nothing.
  auto name = [&] { return "slice " + std::to_string(dim); };
  auto extent = [&] { return std::to_string(base_extent); };
  if constexpr (std::same_as<T, full_extent_t>) {
    return {};
  } else if constexpr (detail::is_strided_slice<T>) {
    if (!detail::fits_index(spec.offset) || !detail::fits_index(spec.extent) || !detail::fits_index(spec.stride))
      return name() + " strided_slice does not fit a 64-bit index";
    const index_t o = detail::as_index(spec.offset), e = detail::as_index(spec.extent), s = detail::as_index(spec.stride);
    auto what = [&] {
      return name() + " strided_slice{offset " + std::to_string(o) + ", extent " + std::to_string(e) + ", stride " +
             std::to_string(s) + "}";
    };
    if (o < 0) return what() + " has a negative offset";
    if (e < 0) return what() + " has a negative extent";
    if (s < 0) return what() + " has a negative stride";
    if (s == 0 && e > 0) return what() + " has stride 0 with extent > 0";
    if (o > base_extent || e > base_extent - o) return what() + " exceeds the extent " + extent();
    return {};
  } else if constexpr (detail::pair_slice<T>) {
    if (!detail::fits_index(std::get<0>(spec)) || !detail::fits_index(std::get<1>(spec)))
      return name() + " [begin, end) does not fit a 64-bit index";
    const index_t b = detail::as_index(std::get<0>(spec)), e = detail::as_index(std::get<1>(spec));
    auto what = [&] { return name() + " [" + std::to_string(b) + ", " + std::to_string(e) + ")"; };
    if (b > e) return what() + " has begin > end";
    if (b < 0) return what() + " begins below 0";
    if (e > base_extent) return what() + " exceeds the extent " + extent();
    return {};
  } else {
    if (!detail::fits_index(spec)) return name() + ": the index does not fit a 64-bit index";
    const index_t x = detail::as_index(spec);
    if (x < 0 || x >= base_extent) return name() + ": index " + std::to_string(x) + " is outside [0, " + extent() + ")";
    return {};
  }
}

/// Why the Slice cannot slice dimension `dim` of base_extent indices, or "": an offset, extent or
/// stride out of range, indices beyond base_extent, or a dropped slice (kept == false) whose
/// extent is not 1. What SectionLayout's constructor checks. A valid slice allocates nothing.
inline std::string slice_error(const Slice& s, index_t base_extent, std::size_t dim) {
  auto what = [&] {
    return "slice " + std::to_string(dim) + " {offset " + std::to_string(s.offset) + ", extent " +
           std::to_string(s.extent) + ", stride " + std::to_string(s.stride) + "}";
  };
  if (s.offset < 0) return what() + " has a negative offset";
  if (s.extent < 0) return what() + " has a negative extent";
  if (s.stride < 1) return what() + " has a stride below 1";
  if (!s.kept && s.extent != 1) return what() + " drops its dimension but selects " + std::to_string(s.extent) + " indices";
  if (s.offset > base_extent) return what() + " exceeds the extent " + std::to_string(base_extent);
  if (s.extent > 0 && (s.offset == base_extent || (s.extent - 1) > (base_extent - 1 - s.offset) / s.stride))
    return what() + " exceeds the extent " + std::to_string(base_extent);
  return {};
}

/// The Slices of specs, one per dimension of base_extents (each valid: see slices_error).
template <std::size_t N, SliceSpecifier... S>
  requires(sizeof...(S) == N)
constexpr std::array<Slice, N> to_slices(const std::array<index_t, N>& base_extents, const S&... specs) noexcept {
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<Slice, N>{to_slice(specs, base_extents[I])...};
  }(std::make_index_sequence<N>{});
}

/// The first slice_error of specs over base_extents, or "" when all are valid.
template <std::size_t N, SliceSpecifier... S>
  requires(sizeof...(S) == N)
std::string slices_error(const std::array<index_t, N>& base_extents, const S&... specs) {
  std::string error;
  std::size_t d = 0;
  ((error.empty() ? (void)(error = slice_error(specs, base_extents[d], d)) : (void)0, ++d), ...);
  return error;
}

}  // namespace redist
