// Sections (HPF B(2:N:2) = A(1:N-1:2)): slice specifiers, and index::slice_ldds against brute force.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include <redist/dist/block.hpp>
#include <redist/dist/block_cyclic.hpp>
#include <redist/dist/collapsed.hpp>
#include <redist/dist/cyclic.hpp>
#include <redist/dist/gen_block.hpp>
#include <redist/dist/slice.hpp>
#include <redist/index/slice.hpp>

#include "../support/random_dists.hpp"

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

// index::slice_ldds against brute force.

namespace {
/// The base LDDs of one random 1-D distribution, per process, with a name for messages.
struct Base {
  std::string name;
  index_t n = 0;
  std::vector<std::vector<Ldd>> ldds;
};

template <class D>
Base base_of(std::string name, const D& d, index_t n, int nprocs) {
  const typename D::mapping m(d, n, nprocs);
  Base b{std::move(name), n, {}};
  for (int p = 0; p < nprocs; ++p) {
    const auto set = m.ldds(p);
    b.ldds.emplace_back(set.begin(), set.end());
  }
  return b;
}

Base random_base(index_t n, int nprocs, std::mt19937_64& rng) {
  switch (rng() % 7) {
    case 0: return base_of("Block", Block{}, n, nprocs);
    case 1: return base_of("Cyclic<1>", Cyclic<1>{}, n, nprocs);
    case 2: return base_of("Cyclic<4>", Cyclic<4>{}, n, nprocs);
    case 3: {
      const index_t k = test::random_block(n, rng);
      return base_of("Cyclic<>(" + std::to_string(k) + ")", Cyclic<>(k), n, nprocs);
    }
    case 4: {
      const index_t k = 1 + static_cast<index_t>(rng() % 9), f = 1 + static_cast<index_t>(rng() % static_cast<std::uint64_t>(k));
      return base_of("BlockCyclic{" + std::to_string(k) + ", " + std::to_string(f) + "}", BlockCyclic{k, f}, n, nprocs);
    }
    case 5: return base_of("GenBlock", GenBlock(test::random_parts(n, nprocs, rng)), n, nprocs);
    default: return base_of("Collapsed", Collapsed{}, n, 1);
  }
}

/// index -> local index of every element of the LDDs (their definition, element by element).
std::map<index_t, index_t> expand(const LddRange auto& ldds) {
  std::map<index_t, index_t> e;
  for (const Ldd& d : ldds)
    for (index_t u = 0; u < d.n; ++u)
      for (index_t j = 0; j < d.b; ++j) {
        const bool fresh = e.emplace(d.o + u * d.s + j, d.local + u * d.lblock + j * d.step).second;
        if (!fresh) FAIL("two LDDs hold index " << d.o + u * d.s + j);
      }
  return e;
}

void check_slice_ldds(const Base& base, const Slice& slice) {
  const int nprocs = static_cast<int>(base.ldds.size());
  INFO(base.name << ", n = " << base.n << ", P = " << nprocs << ", slice {offset " << slice.offset << ", extent "
                 << slice.extent << ", stride " << slice.stride << "}");
  // Brute force: the owner and local index of each base index, then of each section index.
  std::map<index_t, std::pair<int, index_t>> owner;
  for (int p = 0; p < nprocs; ++p)
    for (auto [g, l] : expand(base.ldds[p])) owner[g] = {p, l};
  std::vector<std::map<index_t, index_t>> expected(static_cast<std::size_t>(nprocs));
  for (index_t i = 0; i < slice.extent; ++i) {
    const auto [p, l] = owner.at(slice.at(i));
    expected[p][i] = l;
  }
  for (int p = 0; p < nprocs; ++p) {
    INFO("process " << p);
    const LddList got = index::slice_ldds(base.ldds[p], slice);
    // At most one LDD per nonempty block of a period, and two clipped blocks, per base LDD.
    std::size_t bound = 0;
    for (const Ldd& d : base.ldds[p]) {
      const index_t g = std::gcd(d.s, slice.stride);
      bound += static_cast<std::size_t>(std::min(slice.stride / g, d.s / g)) + 2;
    }
    CHECK(got.size() <= bound);
    for (const Ldd& d : got) {
      REQUIRE(!d.empty());
      REQUIRE((d.n == 1 || d.b <= d.s));
      REQUIRE(d.o >= 0);
      REQUIRE(d.end() <= slice.extent);
    }
    REQUIRE(expand(got) == expected[p]);
  }
}

Slice random_slice(index_t n, std::mt19937_64& rng) {
  Slice s;
  s.offset = static_cast<index_t>(rng() % static_cast<std::uint64_t>(n + 1));
  s.stride = 1 + static_cast<index_t>(rng() % 40);
  const index_t room = s.offset < n ? (n - 1 - s.offset) / s.stride + 1 : 0;
  switch (rng() % 5) {
    case 0: s.extent = 0; break;
    case 1: s.extent = std::min<index_t>(1, room); break;
    case 2: s.extent = room; break;
    default: s.extent = static_cast<index_t>(rng() % static_cast<std::uint64_t>(room + 1));
  }
  return s;
}
}  // namespace

TEST_CASE("slice_ldds holds exactly the section's elements with their base local indices", "[sections][slice_ldds]") {
  std::mt19937_64 rng(31);
  for (int t = 0; t < 6000; ++t) {
    const index_t n = static_cast<index_t>(rng() % (t % 10 == 0 ? 8 : 400));
    const int nprocs = 1 + static_cast<int>(rng() % 12);
    check_slice_ldds(random_base(n, nprocs, rng), random_slice(n, rng));
  }
}

TEST_CASE("slice_ldds of a section of a section is exact: base LDDs with steps", "[sections][slice_ldds]") {
  std::mt19937_64 rng(32);
  for (int t = 0; t < 1500; ++t) {
    const index_t n = static_cast<index_t>(rng() % 300);
    const int nprocs = 1 + static_cast<int>(rng() % 8);
    Base base = random_base(n, nprocs, rng);
    const Slice outer = random_slice(n, rng);
    Base inner{base.name + " sliced", outer.extent, {}};
    for (const auto& l : base.ldds) {
      const LddList s = index::slice_ldds(l, outer);
      inner.ldds.emplace_back(s.begin(), s.end());
    }
    check_slice_ldds(inner, random_slice(outer.extent, rng));
  }
}

TEST_CASE("slice_ldds costs O(period): independent of n and of the stride", "[sections][slice_ldds][period]") {
  const index_t huge = index_t{1} << 50;
  // Cyclic<4> on 8 processes, every third element: period lcm(32, 3) = 96, three blocks of a process.
  const Cyclic<4>::mapping c4(Cyclic<4>{}, huge, 8);
  for (int p = 0; p < 8; ++p) CHECK(index::slice_ldds(c4.ldds(p), Slice{5, (huge - 6) / 3, 3}).size() <= 3 + 2);
  // Cyclic<1> on 1000 processes and a prime stride: a period of 999983 blocks of which one meets the section.
  const Cyclic<1>::mapping c1(Cyclic<1>{}, huge, 1000);
  const auto start = std::chrono::steady_clock::now();
  for (int p = 0; p < 1000; ++p) CHECK(index::slice_ldds(c1.ldds(p), Slice{7, huge / 999983 - 1, 999983}).size() <= 3);
  // Stride 2^40 + 1 over blocks of 3 out of 12: a period of 2^40 blocks, at most 12 section indices each.
  const Cyclic<3>::mapping c3(Cyclic<3>{}, huge, 4);
  for (int p = 0; p < 4; ++p)
    CHECK(index::slice_ldds(c3.ldds(p), Slice{1, 1000, (index_t{1} << 40) + 1}).size() <= 12 + 2);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(1));
}
