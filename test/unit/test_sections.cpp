// Sections (HPF B(2:N:2) = A(1:N-1:2)): slice specifiers.
#include <array>
#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include <catch2/catch.hpp>

#include <redist/dist/slice.hpp>

using namespace redist;

// Slice specifiers.

static_assert(detail::is_index_slice<int> && detail::is_index_slice<const index_t&> &&
              detail::is_index_slice<std::integral_constant<int, 3>>);
static_assert(!detail::is_index_slice<full_extent_t> && !detail::is_index_slice<std::pair<int, int>> &&
              !detail::is_index_slice<strided_slice<int, int, int>> && !detail::is_index_slice<bool>);
static_assert(SliceSpecifier<full_extent_t> && SliceSpecifier<std::pair<int, long>> &&
              SliceSpecifier<std::tuple<std::size_t, int>> && SliceSpecifier<std::array<index_t, 2>> &&
              SliceSpecifier<strided_slice<int, index_t, std::integral_constant<int, 2>>> && SliceSpecifier<unsigned>);
static_assert(!SliceSpecifier<double> && !SliceSpecifier<std::tuple<int, int, int>> && !SliceSpecifier<bool>);
static_assert(detail::section_rank<int, full_extent_t, std::pair<int, int>, index_t> == 2);
static_assert(std::is_same_v<decltype(strided_slice{1, index_t{9}, 2}), strided_slice<int, index_t, int>>);
static_assert(noexcept(to_slice(strided_slice{1, 9, 2}, 10)));
static_assert(to_slice(strided_slice{1, 9, 2}, 10) == Slice{1, 5, 2, true});

TEST_CASE("Slice specifiers select what std::submdspan's select", "[sections][slice]") {
  CHECK(to_slice(full_extent, 8) == Slice{0, 8, 1, true});
  CHECK(to_slice(strided_slice{1, 9, 2}, 10) == Slice{1, 5, 2, true});  // 1 3 5 7 9
  CHECK(to_slice(strided_slice{1, 8, 2}, 10) == Slice{1, 4, 2, true});  // 1 3 5 7
  CHECK(to_slice(strided_slice{3, 0, 0}, 10) == Slice{3, 0, 1, true});
  CHECK(to_slice(strided_slice{3, 1, 7}, 10) == Slice{3, 1, 1, true});  // one element: the stride does not matter
  CHECK(to_slice(strided_slice{std::integral_constant<int, 2>{}, 6, 3}, 10) == Slice{2, 2, 3, true});
  CHECK(to_slice(std::pair{2, 5}, 10) == Slice{2, 3, 1, true});
  CHECK(to_slice(std::tuple{2u, index_t{5}}, 10) == Slice{2, 3, 1, true});
  CHECK(to_slice(std::array<index_t, 2>{4, 4}, 10) == Slice{4, 0, 1, true});
  CHECK(to_slice(7, 10) == Slice{7, 1, 1, false});
  CHECK(to_slice(std::integral_constant<int, 2>{}, 10) == Slice{2, 1, 1, false});
  CHECK(to_slices(std::array<index_t, 3>{8, 6, 4}, 3, strided_slice{1, 5, 2}, full_extent) ==
        std::array<Slice, 3>{Slice{3, 1, 1, false}, Slice{1, 3, 2, true}, Slice{0, 4, 1, true}});
}

TEST_CASE("slice_error names the slice and its values, and does not throw", "[sections][slice][errors]") {
  CHECK(slice_error(full_extent, 0, 0).empty());
  CHECK(slice_error(std::pair{4, 9}, 8, 1) == "slice 1 [4, 9) exceeds the extent 8");
  CHECK(slice_error(std::pair{5, 3}, 8, 0) == "slice 0 [5, 3) has begin > end");
  CHECK(slice_error(std::pair{-1, 3}, 8, 0) == "slice 0 [-1, 3) begins below 0");
  CHECK(slice_error(std::pair{8, 8}, 8, 0).empty());
  CHECK(slice_error(8, 8, 2) == "slice 2: index 8 is outside [0, 8)");
  CHECK(slice_error(-1, 8, 2) == "slice 2: index -1 is outside [0, 8)");
  CHECK(slice_error(0, 0, 0) == "slice 0: index 0 is outside [0, 0)");
  CHECK(slice_error(std::size_t(-1), 8, 0) == "slice 0: the index does not fit a 64-bit index");
  CHECK(slice_error(strided_slice{0, 4, -1}, 8, 0) ==
        "slice 0 strided_slice{offset 0, extent 4, stride -1} has a negative stride");
  CHECK(slice_error(strided_slice{0, 4, 0}, 8, 0) == "slice 0 strided_slice{offset 0, extent 4, stride 0} has stride 0 with extent > 0");
  CHECK(slice_error(strided_slice{0, 0, 0}, 8, 0).empty());
  CHECK(slice_error(strided_slice{6, 3, 1}, 8, 1) == "slice 1 strided_slice{offset 6, extent 3, stride 1} exceeds the extent 8");
  CHECK(slice_error(strided_slice{6, 2, 5}, 8, 1).empty());
  CHECK(slice_error(strided_slice{8, 0, 1}, 8, 1).empty());
  CHECK(slice_error(strided_slice{9, 0, 1}, 8, 1) == "slice 1 strided_slice{offset 9, extent 0, stride 1} exceeds the extent 8");
  CHECK(slice_error(strided_slice{-1, 0, 1}, 8, 1) == "slice 1 strided_slice{offset -1, extent 0, stride 1} has a negative offset");
  CHECK(slice_error(strided_slice{0, -2, 1}, 8, 1) == "slice 1 strided_slice{offset 0, extent -2, stride 1} has a negative extent");
  CHECK(slices_error(std::array<index_t, 3>{8, 8, 8}, full_extent, std::pair{4, 9}, 8) == "slice 1 [4, 9) exceeds the extent 8");
  CHECK(slices_error(std::array<index_t, 3>{8, 8, 8}, full_extent, std::pair{4, 8}, 7).empty());
  // Slices themselves (what SectionLayout checks).
  CHECK(slice_error(Slice{0, 2, 4, true}, 8, 0).empty());
  CHECK(slice_error(Slice{0, 3, 4, true}, 8, 0) == "slice 0 {offset 0, extent 3, stride 4} exceeds the extent 8");
  CHECK(slice_error(Slice{8, 1, 1, true}, 8, 0) == "slice 0 {offset 8, extent 1, stride 1} exceeds the extent 8");
  CHECK(slice_error(Slice{2, 2, 1, false}, 8, 0) == "slice 0 {offset 2, extent 2, stride 1} drops its dimension but selects 2 indices");
  CHECK(slice_error(Slice{2, 2, 0, true}, 8, 0) == "slice 0 {offset 2, extent 2, stride 0} has a stride below 1");
}
