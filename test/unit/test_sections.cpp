// Sections (HPF B(2:N:2) = A(1:N-1:2)): slice specifiers, index::slice_ldds against brute force,
// and SectionLayout in the virtual-rank simulation against the brute-force oracle.
#include <algorithm>
#include <array>
#include <chrono>
#include <map>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>
#include <catch2/catch.hpp>

#include <redist/dist/block.hpp>
#include <redist/dist/block_cyclic.hpp>
#include <redist/dist/collapsed.hpp>
#include <redist/dist/cyclic.hpp>
#include <redist/dist/dist.hpp>
#include <redist/dist/gen_block.hpp>
#include <redist/dist/partial.hpp>
#include <redist/dist/replicated.hpp>
#include <redist/dist/slice.hpp>
#include <redist/index/grid.hpp>
#include <redist/index/slice.hpp>
#include <redist/plan/automatic.hpp>
#include <redist/plan/plan.hpp>
#include <redist/plan/sectioned.hpp>
#include <redist/plan/stepwise.hpp>
#include <redist/plan/transfers.hpp>
#include <redist/runtime/pack.hpp>
#include <redist/runtime/store.hpp>

#include "../support/oracle_nd.hpp"
#include "../support/random_dists.hpp"
#include "../support/random_grid.hpp"
#include "../support/simulator.hpp"

// This file's names, apart from the other files of its program: meson compiles them together
// (unity build).
namespace unit_test_sections {

using namespace redist;
using redist::test::PlanUnder;
namespace mp11 = boost::mp11;

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

// SectionLayout.

namespace {
using Dist2 = Dist<Cyclic<>, Block>;
using Map2 = Dist2::mapping;

Map2 small_map2(Order storage = Order::column_major, index_t ld = 0) {
  return Map2(Dist2{Cyclic<>(2), Block{}}, {10, 9}, Grid{2, 3}, {1, 0}, Storage{storage, ld}, 7);
}
}  // namespace

TEST_CASE("SectionLayout: a grid layout of the kept dimensions, on the ranks that own the dropped indices",
          "[sections][layout]") {
  const Map2 m = small_map2();
  // Column 4 of rows 1, 4, 7: dimension 1 dropped at index 4 (Block of 3 on 3: grid column 1).
  const SectionLayout<Map2, 1> col(m, to_slices(m.extents(), strided_slice{1, 7, 3}, 4));
  static_assert(GridLayout<SectionLayout<Map2, 1>> && GridSource<Transposed<SectionLayout<Map2, 2>>>);
  CHECK(col.rank() == 1);
  CHECK(col.extent(0) == 3);
  CHECK(col.size() == 3);
  CHECK(col.grid().extent(0) == 2);
  CHECK(col.base_dimension(0) == 0);
  CHECK(col.base_index({2}) == std::array<index_t, 2>{7, 4});
  for (int r = 0; r < 7; ++r) {
    const auto c = m.coords_of(r);
    INFO("rank " << r);
    CHECK(col.coords_of(r).has_value() == (c && (*c)[1] == 1));
    if (!col.coords_of(r)) continue;
    CHECK((*col.coords_of(r))[0] == (*c)[0]);
    // Index 4 of a Block of 3 is local index 1, times the column stride (the local rows).
    CHECK(col.origin(r) == 1 * m.strides(r)[1]);
    CHECK(col.strides(r)[0] == m.strides(r)[0]);
  }
  CHECK(col.origin(6) == 0);  // outside the grid
  // Equality and fingerprints follow the base and the slices.
  const SectionLayout<Map2, 1> same(m, to_slices(m.extents(), strided_slice{1, 7, 3}, 4));
  const SectionLayout<Map2, 1> other(m, to_slices(m.extents(), strided_slice{1, 7, 3}, 5));
  CHECK(col == same);
  CHECK(!(col == other));
  CHECK(col.fingerprint() == same.fingerprint());
  CHECK(col.fingerprint() != other.fingerprint());
  CHECK(col.fingerprint() != SectionLayout<Map2, 1>(m, to_slices(m.extents(), 4, full_extent)).fingerprint());
}

TEST_CASE("SectionLayout checks its slices with a sentence", "[sections][layout][errors]") {
  const Map2 m = small_map2();
  CHECK_THROWS_WITH((SectionLayout<Map2, 2>(m, to_slices(m.extents(), 3, full_extent))),
                    "redist::SectionLayout<M, 2>(base, slices) requires exactly 2 kept slices (got 1)");
  CHECK_THROWS_WITH((SectionLayout<Map2, 2>(m, {Slice{0, 4, 4, true}, Slice{0, 9, 1, true}})),
                    "redist::SectionLayout(base, slices) requires every slice to lie in its dimension: slice 0 {offset "
                    "0, extent 4, stride 4} exceeds the extent 10");
  CHECK_THROWS_AS((SectionLayout<Map2, 1>(m, {Slice{0, 4, 1, true}, Slice{9, 1, 1, false}})), redist::error);
}

TEST_CASE("A 1-D plan's runs must have unit steps: grid_sections reports an internal error", "[sections][errors]") {
  const Run r{0, 0, 3, 3, 3, 1, 2, 1};
  index::GridPair<1> p;
  p.runs[0] = std::span<const Run>(&r, 1);
  p.src_stride[0] = p.dst_stride[0] = 1;
  std::vector<Run> out;
  CHECK_THROWS_WITH(index::grid_sections(p, out),
                    "redist::index::grid_sections requires runs of unit steps for a 1-D plan: internal error");
}

// Sections in the virtual-rank simulation.

namespace {
/// A random section of a random layout of type Dist<D...>: the layout with its oracle, and the
/// slices, K of them kept, whose kept extents are `extents`.
template <class DistT, std::size_t N>
struct SectionCase {
  test::Case<DistT, N> base;
  std::array<Slice, N> slices;
};

template <std::size_t N>
using Multi = std::array<index_t, N>;

template <class... D, std::size_t K>
SectionCase<Dist<D...>, sizeof...(D)> random_section(const Multi<K>& extents, int nprocs, std::mt19937_64& rng,
                                                     int max_stride) {
  constexpr std::size_t N = sizeof...(D);
  static_assert(K <= N);
  // Which dimensions are kept: K of N, in order.
  std::array<bool, N> kept{};
  for (std::size_t k = 0; k < K; ++k) kept[k] = true;
  std::shuffle(kept.begin(), kept.end(), rng);
  std::array<Slice, N> slices{};
  Multi<N> base{};
  std::size_t k = 0;
  for (std::size_t d = 0; d < N; ++d) {
    if (!kept[d]) {
      base[d] = 1 + static_cast<index_t>(rng() % 5);
      slices[d] = Slice{static_cast<index_t>(rng() % static_cast<std::uint64_t>(base[d])), 1, 1, false};
      continue;
    }
    const index_t c = extents[k++];
    if (rng() % 4 == 0) {  // the whole dimension
      slices[d] = Slice{0, c, 1, true};
      base[d] = c;
      continue;
    }
    const index_t stride = 1 + static_cast<index_t>(rng() % static_cast<std::uint64_t>(max_stride));
    const index_t offset = static_cast<index_t>(rng() % 5);
    slices[d] = Slice{offset, c, stride, true};
    base[d] = (c == 0 ? offset : offset + (c - 1) * stride + 1) + static_cast<index_t>(rng() % 4);
  }
  return {test::random_case<D...>(base, nprocs, rng), slices};
}

template <std::size_t N, std::size_t K>
Multi<N> base_index(const std::array<Slice, N>& slices, const Multi<K>& i) {
  Multi<N> x{};
  std::size_t k = 0;
  for (std::size_t d = 0; d < N; ++d) x[d] = slices[d].kept ? slices[d].at(i[k++]) : slices[d].offset;
  return x;
}

/// What one side of a simulated section assignment is: its oracle, base extents and slices.
template <std::size_t N>
struct Side {
  const test::Layout& layout;
  Multi<N> extents;
  std::array<Slice, N> slices;
};

template <std::size_t N>
std::array<Slice, N> whole(const Multi<N>& extents) {
  std::array<Slice, N> s{};
  for (std::size_t d = 0; d < N; ++d) s[d] = Slice{0, extents[d], 1, true};
  return s;
}

/// Builds the plans of all ranks for from -> to, fills every source element with its base global
/// id, delivers the messages in memory, and checks that every element of the destination section
/// holds the source element of the same section multi-index (source section index perm-permuted:
/// src index j[perm[k]] = destination index i[k]), written exactly once, and that nothing else
/// of the destination (other elements, padding) is written.
template <class From, class To, std::size_t NA, std::size_t NB, std::size_t K, class MakePlan>
test::SimResult simulate_section(const From& from, const To& to, const Side<NA>& src, const Side<NB>& dst,
                                 const Multi<K>& extents, const std::array<std::size_t, K>& perm,
                                 test::SimChecks checks, MakePlan make_plan) {
  test::SimResult res;
  const auto fail = test::failer(res);
  const auto plans = test::all_rank_plans(from, to, make_plan);
  const int nprocs = from.nprocs();
  std::vector<std::vector<index_t>> in(nprocs), out(nprocs), expected(nprocs);
  std::vector<index_t> places(nprocs, 0), writes;
  for (int p = 0; p < nprocs; ++p) {
    in[p] = src.layout.globals[p];  // base global ids, -1 in padding
    out[p].assign(dst.layout.globals[p].size(), -2);
    expected[p] = out[p];
  }
  index_t count = 1;
  for (index_t e : extents) count *= e;
  for (index_t id = 0; id < count; ++id) {
    Multi<K> i{}, j{};
    index_t rest = id;
    for (std::size_t k = 0; k < K; ++k) i[k] = rest % extents[k], rest /= extents[k];
    for (std::size_t k = 0; k < K; ++k) j[perm[k]] = i[k];
    const index_t to_id = test::global_id(base_index(dst.slices, i), dst.extents);
    const int q = dst.layout.owner[to_id];
    expected[q][dst.layout.local[to_id]] = test::global_id(base_index(src.slices, j), src.extents);
    ++places[q];
  }
  test::deliver(plans, in, out, writes, res, checks, fail);
  test::check_delivered(out, expected, writes, places, fail);
  return res;
}

struct BuildSectionPlan {
  template <class From, class To>
  auto operator()(const From& from, const To& to, int rank) const {
    return build_plan(from, to, rank);
  }
};

/// Simulates from -> to under build_plan and the planners: all at once, automatic, and the
/// stepwise schedules (checked contention-free).
template <class From, class To, std::size_t NA, std::size_t NB, std::size_t K>
void check_all_planners(const From& from, const To& to, const Side<NA>& src, const Side<NB>& dst, const Multi<K>& extents,
                        const std::array<std::size_t, K>& perm, int trial) {
  const test::SimChecks strict{true, true};
  auto run = [&](const char* name, test::SimChecks checks, auto make_plan) {
    const auto res = simulate_section(from, to, src, dst, extents, perm, checks, make_plan);
    INFO(name << ": " << res.failure);
    REQUIRE(res.ok);
  };
  run("build_plan", {}, BuildSectionPlan{});
  switch (trial % 4) {
    case 0: run("all_at_once", {}, PlanUnder<schedule::all_at_once_t>{}); break;
    case 1: run("automatic", {}, PlanUnder<schedule::automatic_t>{}); break;
    case 2: run("caterpillar", strict, PlanUnder<schedule::caterpillar_t>{}); break;
    default: run("relative_group", strict, PlanUnder<schedule::relative_group_t>{}); break;
  }
}

template <std::size_t K>
Multi<K> random_extents(index_t max_extent, std::mt19937_64& rng) {
  Multi<K> e{};
  for (auto& x : e) {
    switch (rng() % 6) {
      case 0: x = 0; break;
      case 1: x = 1; break;
      default: x = 1 + static_cast<index_t>(rng() % static_cast<std::uint64_t>(max_extent));
    }
  }
  // Mostly nonempty sections: an empty one moves nothing.
  if (rng() % 4 != 0)
    for (auto& x : e) x = std::max<index_t>(x, 1);
  return e;
}

template <std::size_t K>
std::array<std::size_t, K> identity() {
  std::array<std::size_t, K> p{};
  for (std::size_t k = 0; k < K; ++k) p[k] = k;
  return p;
}

template <class DistT>
struct dims_of;
template <class... D>
struct dims_of<Dist<D...>> {
  template <std::size_t K>
  static auto random(const Multi<K>& e, int nprocs, std::mt19937_64& rng, int max_stride) {
    return random_section<D...>(e, nprocs, rng, max_stride);
  }
};

template <class DistT, std::size_t N, std::size_t K>
SectionLayout<typename DistT::mapping, K> layout_of(const SectionCase<DistT, N>& c) {
  return SectionLayout<typename DistT::mapping, K>(c.base.mapping, c.slices);
}

template <class DistT, std::size_t N>
Side<N> side_of(const SectionCase<DistT, N>& c) {
  return Side<N>{c.base.layout, c.base.spec.extents, c.slices};
}

/// The largest section extent drawn for sections of rank K of bases of rank up to base_rank
/// (with strides up to 7, the base arrays stay below about 10^4 elements).
template <std::size_t K>
index_t max_extent_for(std::size_t base_rank) {
  if (base_rank >= 3) return K == 1 ? 12 : (K == 2 ? 4 : 3);
  if (base_rank == 2) return K == 1 ? 24 : 8;
  return 60;
}
}  // namespace

// (source distribution, destination distribution, section rank)
template <class A, class B, std::size_t K>
using Triple = mp11::mp_list<A, B, std::integral_constant<std::size_t, K>>;
using SectionPairs = mp11::mp_list<
    Triple<Dist<Cyclic<>>, Dist<Cyclic<>>, 1>, Triple<Dist<Block>, Dist<GenBlock>, 1>, Triple<Dist<GenBlock>, Dist<Cyclic<>>, 1>,
    Triple<Dist<Cyclic<>, Block>, Dist<Cyclic<>>, 1>, Triple<Dist<Cyclic<>>, Dist<GenBlock, Cyclic<>>, 1>,
    Triple<Dist<Cyclic<>, Cyclic<>>, Dist<Block, GenBlock>, 2>, Triple<Dist<Collapsed, Cyclic<>>, Dist<Cyclic<>, Block>, 2>,
    Triple<Dist<Cyclic<>, Cyclic<>>, Dist<Cyclic<>, Cyclic<>>, 1>, Triple<Dist<Cyclic<>, Block, Cyclic<>>, Dist<Cyclic<>, GenBlock>, 2>,
    Triple<Dist<Cyclic<>, Cyclic<>, Cyclic<>>, Dist<Block, Collapsed, Cyclic<>>, 3>,
    Triple<Dist<GenBlock, Cyclic<>, Block>, Dist<Cyclic<>>, 1>>;

TEMPLATE_LIST_TEST_CASE("Random sections of random layouts are exact in the virtual-rank simulation",
                        "[sections][simulate]", SectionPairs) {
  using A = mp11::mp_first<TestType>;
  using B = mp11::mp_second<TestType>;
  constexpr std::size_t K = mp11::mp_third<TestType>::value;
  std::mt19937_64 rng(4000 + K);
  for (int t = 0; t < 200; ++t) {
    const int nprocs = 1 + static_cast<int>(rng() % 40);
    const auto e = random_extents<K>(max_extent_for<K>(std::max(A::rank(), B::rank())), rng);
    const auto a = dims_of<A>::random(e, nprocs, rng, 7);
    const auto b = dims_of<B>::random(e, nprocs, rng, 7);
    INFO("trial " << t << ", P = " << nprocs);
    check_all_planners(layout_of<A, A::rank(), K>(a), layout_of<B, B::rank(), K>(b), side_of(a), side_of(b), e,
                       identity<K>(), t);
  }
}

TEST_CASE("Whole layouts to sections and sections to whole layouts are exact", "[sections][simulate]") {
  std::mt19937_64 rng(4100);
  for (int t = 0; t < 150; ++t) {
    const int nprocs = 1 + static_cast<int>(rng() % 40);
    INFO("trial " << t << ", P = " << nprocs);
    const auto e2 = random_extents<2>(6, rng);
    const auto whole2 = test::random_case<Cyclic<>, GenBlock>(e2, nprocs, rng);
    const auto sec2 = random_section<Block, Cyclic<>, Cyclic<>>(e2, nprocs, rng, 7);
    const Side<2> w2{whole2.layout, e2, whole(e2)};
    check_all_planners(whole2.mapping, layout_of<Dist<Block, Cyclic<>, Cyclic<>>, 3, 2>(sec2), w2, side_of(sec2), e2,
                       identity<2>(), t);
    check_all_planners(layout_of<Dist<Block, Cyclic<>, Cyclic<>>, 3, 2>(sec2), whole2.mapping, side_of(sec2), w2, e2,
                       identity<2>(), t + 1);
    const auto e1 = random_extents<1>(40, rng);
    const auto whole1 = test::random_case<Cyclic<>>(e1, nprocs, rng);
    const auto sec1 = random_section<Cyclic<>>(e1, nprocs, rng, 7);
    const Side<1> w1{whole1.layout, e1, whole(e1)};
    check_all_planners(whole1.mapping, layout_of<Dist<Cyclic<>>, 1, 1>(sec1), w1, side_of(sec1), e1, identity<1>(), t + 2);
    check_all_planners(layout_of<Dist<Cyclic<>>, 1, 1>(sec1), whole1.mapping, side_of(sec1), w1, e1, identity<1>(), t + 3);
  }
}

TEST_CASE("Transposed sections are exact in the virtual-rank simulation", "[sections][simulate][transpose]") {
  std::mt19937_64 rng(4200);
  for (int t = 0; t < 150; ++t) {
    const int nprocs = 1 + static_cast<int>(rng() % 40);
    INFO("trial " << t << ", P = " << nprocs);
    const auto e = random_extents<2>(6, rng);
    const Multi<2> et{e[1], e[0]};
    const auto a = random_section<Cyclic<>, Block, GenBlock>(et, nprocs, rng, 7);
    const auto b = random_section<Cyclic<>, Cyclic<>>(e, nprocs, rng, 7);
    using SA = SectionLayout<Dist<Cyclic<>, Block, GenBlock>::mapping, 2>;
    // Destination (i, j) is the transposed source's (i, j), the source section's (j, i).
    check_all_planners(Transposed<SA>{layout_of<Dist<Cyclic<>, Block, GenBlock>, 3, 2>(a)},
                       layout_of<Dist<Cyclic<>, Cyclic<>>, 2, 2>(b), side_of(a), side_of(b), e,
                       std::array<std::size_t, 2>{1, 0}, t);
  }
}

namespace {
template <class D>
inline constexpr bool partial_dim = false;
template <class Op>
inline constexpr bool partial_dim<Partial<Op>> = true;

/// The oracle of a random case's layout as a source: every holder of an element listed, a
/// dimension of partial values read as one held in copies (every process of it holds a value).
template <class... D>
test::Layout holders_of(const test::Case<Dist<D...>, sizeof...(D)>& c) {
  constexpr std::size_t N = sizeof...(D);
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    std::array<test::Layout, N> dims{(partial_dim<D> ? test::oracle(Replicated{}, c.spec.extents[I], c.spec.grid[I])
                                                     : test::oracle_1d(c.dist.template get<I>(), c.spec.extents[I],
                                                                       c.spec.grid[I]))...};
    return test::oracle_nd(c.spec, dims);
  }(std::index_sequence_for<D...>{});
}

/// A base layout's oracle restricted to a section: each place of a section element holds the
/// element's section id (column-major over the section's extents `e`), every other place -1.
template <std::size_t N, std::size_t K>
test::Layout restricted(const test::Layout& base, const Multi<N>& base_extents, const std::array<Slice, N>& slices,
                        const Multi<K>& e) {
  std::map<index_t, index_t> id_of;  // base id -> section id
  index_t count = 1;
  for (index_t x : e) count *= x;
  for (index_t id = 0; id < count; ++id) {
    Multi<K> i{};
    index_t rest = id;
    for (std::size_t k = 0; k < K; ++k) i[k] = rest % e[k], rest /= e[k];
    id_of[test::global_id(base_index(slices, i), base_extents)] = id;
  }
  test::Layout out = base;
  for (auto& places : out.globals)
    for (index_t& g : places) {
      const auto it = g >= 0 ? id_of.find(g) : id_of.end();
      g = it == id_of.end() ? -1 : it->second;
    }
  return out;
}
}  // namespace

// (source, destination, section rank): sections whose bases hold dimensions of partial values, as
// sources (folded: simulate_fold), as destinations (process 0 of the dimension receives), or both.
using PartialSectionPairs = mp11::mp_list<
    Triple<Dist<Block, Partial<>>, Dist<Cyclic<>, Block>, 2>, Triple<Dist<Partial<>, Cyclic<>>, Dist<Cyclic<>>, 1>,
    Triple<Dist<Cyclic<>, Partial<>, Block>, Dist<GenBlock, Cyclic<>>, 2>, Triple<Dist<Cyclic<>, Block>, Dist<Block, Partial<>>, 2>,
    Triple<Dist<Cyclic<>>, Dist<Partial<>, Cyclic<>>, 1>, Triple<Dist<Block, Cyclic<>>, Dist<Partial<>, Block, Partial<>>, 2>,
    Triple<Dist<Partial<>, Block>, Dist<Cyclic<>, Partial<>>, 2>>;

TEMPLATE_LIST_TEST_CASE("Sections of layouts with Partial dimensions, kept or dropped, are exact in the simulation",
                        "[sections][simulate][partial]", PartialSectionPairs) {
  using A = mp11::mp_first<TestType>;
  using B = mp11::mp_second<TestType>;
  constexpr std::size_t K = mp11::mp_third<TestType>::value;
  constexpr bool fold = [] { return []<class... D>(Dist<D...>*) { return (partial_dim<D> || ...); }(static_cast<A*>(nullptr)); }();
  std::mt19937_64 rng(4300 + K);
  for (int t = 0; t < 150; ++t) {
    const int nprocs = 1 + static_cast<int>(rng() % 40);
    const auto e = random_extents<K>(max_extent_for<K>(std::max(A::rank(), B::rank())), rng);
    const auto a = dims_of<A>::random(e, nprocs, rng, 7);
    const auto b = dims_of<B>::random(e, nprocs, rng, 7);
    INFO("trial " << t << ", P = " << nprocs);
    const auto from = layout_of<A, A::rank(), K>(a);
    const auto to = layout_of<B, B::rank(), K>(b);
    REQUIRE(detail::any_partial(from) == fold);
    if constexpr (fold) {
      const test::Layout src = restricted(holders_of(a.base), a.base.spec.extents, a.slices, e);
      const test::Layout dst = restricted(b.base.layout, b.base.spec.extents, b.slices, e);
      for (const auto& res : {test::simulate_fold(test::all_rank_plans(from, to, BuildSectionPlan{}), src, dst),
                              test::simulate_fold(test::all_rank_plans(from, to, PlanUnder<schedule::all_at_once_t>{}), src, dst)}) {
        INFO(res.failure);
        REQUIRE(res.ok);
      }
    } else {
      check_all_planners(from, to, side_of(a), side_of(b), e, identity<K>(), t);
    }
  }
}

TEST_CASE("A section's plan costs O(period): Cyclic<4>, n = 10^9, stride 3", "[sections][period]") {
  using C4 = Dist<Cyclic<4>>;
  using C5 = Dist<Cyclic<5>>;
  auto runs_of = [](index_t n) {
    const C4::mapping a(C4{}, {n}, Grid{8}, {0}, Storage{}, 8);
    const SectionLayout<C4::mapping, 1> sec(a, to_slices(a.extents(), strided_slice{index_t{1}, n - 1, index_t{3}}));
    const C5::mapping b(C5{}, {sec.extent(0)}, Grid{8}, {0}, Storage{}, 8);
    std::size_t runs = 0;
    for (int r = 0; r < 8; ++r) runs += build_plan(sec, b, r).only().runs.size();
    return runs;
  };
  const auto start = std::chrono::steady_clock::now();
  // n - 1 a multiple of 480 = 3 · lcm(32, 40) (the pattern's period in base indices: Cyclic<4> and,
  // in section indices, Cyclic<5> on 8 processes), so that both sections end on a full period.
  const std::size_t big = runs_of(index_t{480} * 2'083'333 + 1);  // n ≈ 10^9
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::milliseconds(500));
  CHECK(big == runs_of(480 * 1000 + 1));
  CHECK(big < 1000);
}

TEST_CASE("A local copy of deep sections in lockstep stores what section by section stores", "[sections][copy]") {
  // 2-D block-cyclic pairs whose local message holds several families of three loops or more
  // (pieces, their cycles down a column, columns, their cycles): runtime::copy goes through them
  // with their outermost loops in lockstep (detail::lockstep_depth). Each element is stored once,
  // as the element-by-element walk of every section stores it, assigned and by a scaled update.
  using D2 = Dist<Cyclic<>, Cyclic<>>;
  struct Pair {
    index_t m, b, c;
    int rows;
  };
  for (const Pair& pr : {Pair{96, 2, 6, 2}, Pair{200, 8, 24, 2}, Pair{257, 4, 12, 2}, Pair{300, 16, 10, 4}}) {
    const D2::mapping from(D2{Cyclic(pr.b), Cyclic(pr.b)}, {pr.m, pr.m}, Grid{2, 2}, {0, 0}, Storage{}, 4);
    const D2::mapping to(D2{Cyclic(pr.c), Cyclic(pr.c)}, {pr.m, pr.m}, Grid{pr.rows, 4 / pr.rows}, {0, 0}, Storage{}, 4);
    for (int r = 0; r < 4; ++r) {
      INFO("m " << pr.m << ", blocks " << pr.b << " -> " << pr.c << ", rank " << r);
      const auto plan = build_plan(from, to, r);
      const auto& st = plan.only();
      const auto local = st.runs_of(st.local);
      std::size_t deep = 0;
      for (const auto& sec : local)
        deep += runtime::detail::nest_of(sec, runtime::detail::dense::none).depth >= runtime::detail::lockstep_depth;
      if (r == 0) CHECK(deep >= 2);  // the case this test is for: the lockstep path runs
      std::vector<double> src(static_cast<std::size_t>(from.local_size(r)));
      for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<double>(i) + 0.5;
      std::vector<double> want(static_cast<std::size_t>(to.local_size(r)), -1.0), writes(want.size(), 0.0);
      for (const auto& sec : local) {
        std::array<index_t, std::decay_t<decltype(sec)>::max_depth> i{};
        const index_t n = sec.size();
        for (index_t e = 0; e < n; ++e) {
          index_t f = sec.src, t = sec.dst, rest = e;
          for (std::size_t k = 0; k < sec.depth; ++k) {
            i[k] = rest % sec.loops[k].count;
            rest /= sec.loops[k].count;
            f += i[k] * sec.loops[k].src_stride;
            t += i[k] * sec.loops[k].dst_stride;
          }
          want[static_cast<std::size_t>(t)] = src[static_cast<std::size_t>(f)];
          writes[static_cast<std::size_t>(t)] += 1.0;
        }
      }
      CHECK(std::all_of(writes.begin(), writes.end(), [](double w) { return w <= 1.0; }));
      std::vector<double> got(want.size(), -1.0);
      runtime::copy(local, src.data(), got.data());
      CHECK(got == want);
      // A scaled update, b = 2 a + 3 b: every element read and written once.
      std::vector<double> upd(want.size(), 1.0), upd_want(want.size(), 1.0);
      for (std::size_t k = 0; k < want.size(); ++k)
        if (writes[k] > 0) upd_want[k] = 2.0 * want[k] + 3.0;
      runtime::copy(local, src.data(), upd.data(), runtime::axpby_op<double>{2.0, 3.0});
      CHECK(upd == upd_want);
    }
  }
}

}  // namespace unit_test_sections
