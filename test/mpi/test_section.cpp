// MPI tests of sections: section(b, ...) = section(a, ...) between layouts, rank-reducing slices, transposed sections, sections of views over padded storage, errors on every rank.
#include <array>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <boost/mpi/communicator.hpp>
#include <catch2/catch.hpp>

#include <redist/redist.hpp>

#include "../support/array_values_nd.hpp"
#include "../support/mpi_check.hpp"

// This file's names, apart from the other files of its program: meson compiles them together
// (unity build).
namespace mpi_test_section {

using namespace redist;
namespace mpi = boost::mpi;
using redist::test::all_ok;
using redist::test::fill_nd;
using redist::test::for_each_local_index;

namespace {
double value_of(const std::array<index_t, 2>& g) { return 0.5 + static_cast<double>(g[0]) * 1000.0 + static_cast<double>(g[1]); }
constexpr double old_value = -3.0;

/// Every local element of b equals expect(global index) (which returns old_value outside the section).
template <class B, class F>
bool holds(const B& b, F&& expect) {
  bool ok = true;
  auto loc = b.local();
  for_each_local_index(b, [&](const auto& l) { ok = ok && loc[b.local_offset(l)] == expect(b.global_index(l)); });
  return ok;
}
}  // namespace

TEST_CASE("1-D strided sections between Block and Cyclic layouts: B(2:N:2) = A(1:N-1:2)", "[mpi][section]") {
  mpi::communicator world;
  std::mt19937_64 rng(5);
  bool ok = true;
  for (int trial = 0; trial < 10; ++trial) {
    const index_t n = static_cast<index_t>(2 + rng() % 150);
    DistArray<double, Block> a(world, n);
    DistArray<double, Cyclic<>> b(world, n, Cyclic<>{1 + rng() % 5});
    for (index_t l = 0; l < a.local_size(); ++l) a.local()[l] = static_cast<double>(a.global_index(l));
    for (double& x : b.local()) x = old_value;
    section(b, strided_slice{1, n - 1, 2}) = section(a, strided_slice{0, n - 1, 2});
    for (index_t l = 0; l < b.local_size(); ++l) {
      const index_t g = b.global_index(l);
      ok = ok && b.local()[l] == (g % 2 == 1 ? static_cast<double>(g - 1) : old_value);
    }
    // A [begin, end) pair against a stride-3 slice of the same extent.
    const index_t m = (n + 2) / 3;
    for (double& x : b.local()) x = old_value;
    section(b, std::pair{index_t{0}, m}) = section(a, strided_slice{index_t{0}, n, index_t{3}});
    for (index_t l = 0; l < b.local_size(); ++l) {
      const index_t g = b.global_index(l);
      ok = ok && b.local()[l] == (g < m ? static_cast<double>(3 * g) : old_value);
    }
  }
  CHECK(all_ok(world, ok));
}

TEST_CASE("2-D sections: odd rows of one layout into even rows of another, rows into columns, transposed",
          "[mpi][section][2d]") {
  mpi::communicator world;
  const int p = world.size();
  using A = Dist<Cyclic<>, Cyclic<>>;
  using B = Dist<Block, Collapsed>;
  std::mt19937_64 rng(9);
  bool ok = true;
  for (int trial = 0; trial < 6; ++trial) {
    const index_t rows = static_cast<index_t>(2 * (1 + rng() % 12)), cols = static_cast<index_t>(1 + rng() % 20);
    DistArray<double, A> a(world, {rows, cols}, A{Cyclic<>{1 + rng() % 3}, Cyclic<>{1 + rng() % 4}},
                           trial % 2 ? Grid{1, p} : Grid{p, 1});
    DistArray<double, B> b(world, {rows, cols}, Grid{p, 1});
    fill_nd(a, value_of);
    fill_nd(b, [](const auto&) { return old_value; });
    // B(0:rows:2, :) = A(1:rows:2, :) (0-based: even rows of b get the odd rows of a)
    section(b, strided_slice{index_t{0}, rows, index_t{2}}, full_extent) =
        section(a, strided_slice{index_t{1}, rows - 1, index_t{2}}, full_extent);
    ok = ok && holds(b, [&](const auto& g) { return g[0] % 2 == 0 ? value_of({g[0] + 1, g[1]}) : old_value; });
    // Row 1 of a (rank-reducing) into column 0 of a transposed-shape array, as far as it fits.
    const index_t k = std::min(rows, cols);
    fill_nd(b, [](const auto&) { return old_value; });
    section(b, std::pair{index_t{0}, k}, index_t{0}) = section(a, index_t{1}, std::pair{index_t{0}, k});
    ok = ok && holds(b, [&](const auto& g) { return g[1] == 0 && g[0] < k ? value_of({1, g[0]}) : old_value; });
    // b's leading k x k block = transpose(a's leading k x k block).
    fill_nd(b, [](const auto&) { return old_value; });
    section(b, std::pair{index_t{0}, k}, std::pair{index_t{0}, k}) =
        transpose(section(a, std::pair{index_t{0}, k}, std::pair{index_t{0}, k}));
    ok = ok && holds(b, [&](const auto& g) { return g[0] < k && g[1] < k ? value_of({g[1], g[0]}) : old_value; });
  }
  CHECK(all_ok(world, ok));
}

TEST_CASE("Sections of views over padded caller storage write nothing outside the section", "[mpi][section][view]") {
  mpi::communicator world;
  const int p = world.size();
  using A = Dist<Cyclic<>, Block>;
  const std::array<index_t, 2> ext{17, 9};
  const A da{Cyclic<>{2}, Block{}};
  const Grid g{1, p};
  const Storage st{column_major, 17 + 1 + world.rank() % 2};
  std::vector<double> mem(static_cast<std::size_t>(DistView<double, A>::required_span_size(world, ext, da, g, {0, 0}, st)) + 2,
                          old_value);
  DistView<double, A> v(mem, world, ext, da, g, {0, 0}, st);
  DistArray<double, Dist<Block, Block>> src(world, ext, Grid{p, 1});
  fill_nd(src, value_of);
  section(v, strided_slice{index_t{3}, index_t{12}, index_t{4}}, strided_slice{index_t{1}, index_t{8}, index_t{3}}) =
      section(src, strided_slice{index_t{0}, index_t{3}, index_t{1}}, strided_slice{index_t{6}, index_t{3}, index_t{1}});
  // Rows 3, 7, 11 and columns 1, 4, 7 of v hold src(0..2, 6..8); every other word of mem is untouched.
  std::vector<bool> written(mem.size(), false);
  bool ok = true;
  for_each_local_index(v, [&](const auto& l) {
    const auto gi = v.global_index(l);
    const auto at = static_cast<std::size_t>(v.local_offset(l));
    const bool in = gi[0] % 4 == 3 && gi[0] <= 11 && gi[1] % 3 == 1;
    if (in) {
      written[at] = true;
      ok = ok && mem[at] == value_of({(gi[0] - 3) / 4, 6 + (gi[1] - 1) / 3});
    }
  });
  for (std::size_t i = 0; i < mem.size(); ++i) ok = ok && (written[i] || mem[i] == old_value);
  CHECK(all_ok(world, ok));
}

TEST_CASE("Section errors are redist::error on every rank before data moves", "[mpi][section][errors]") {
  mpi::communicator world;
  const index_t n = 30;
  DistArray<double, Block> a(world, n);
  DistArray<double, Cyclic<2>> b(world, n);
  for (double& x : b.local()) x = old_value;
  auto message = [&](auto&& f) {
    std::string what;
    try {
      f();
    } catch (const redist::error& e) {
      what = e.what();
    }
    return what;
  };
  // Extents that differ.
  const std::string m1 = message([&] { section(b, std::pair{index_t{0}, index_t{10}}) = section(a, std::pair{index_t{0}, index_t{11}}); });
  CHECK(all_ok(world, m1.find("same extents") != std::string::npos || m1.find("src.size() to equal dst.size()") != std::string::npos));
  // A slice beyond the extent.
  const std::string m2 = message([&] { section(b, std::pair{index_t{25}, index_t{31}}) = section(a, std::pair{index_t{0}, index_t{6}}); });
  CHECK(all_ok(world, m2.find("redist::section(a, slices...) requires every slice to lie in a's extents") != std::string::npos));
  // Overlapping sections of one array; disjoint ones (odd and even) are fine.
  const std::string m3 = message([&] { section(b, std::pair{index_t{1}, index_t{11}}) = section(b, std::pair{index_t{0}, index_t{10}}); });
  CHECK(all_ok(world, m3.find("not to share elements") != std::string::npos));
  // b = section(b, ...): the source's elements are the destination's.
  const std::string m4 = message([&] { b = section(b, full_extent); });
  CHECK(all_ok(world, m4.find("requires the source's memory not to overlap the destination's") != std::string::npos));
  bool untouched = true;
  for (double x : b.local()) untouched = untouched && x == old_value;
  CHECK(all_ok(world, untouched));
  for (index_t l = 0; l < b.local_size(); ++l) b.local()[l] = static_cast<double>(b.global_index(l));
  section(b, strided_slice{index_t{1}, n - 1, index_t{2}}) = section(b, strided_slice{index_t{0}, n - 1, index_t{2}});
  bool ok = true;
  for (index_t l = 0; l < b.local_size(); ++l) {
    const index_t g = b.global_index(l);
    ok = ok && b.local()[l] == static_cast<double>(g % 2 ? g - 1 : g);
  }
  CHECK(all_ok(world, ok));
}

TEST_CASE("A repeated section assignment reuses its plan", "[mpi][section]") {
  mpi::communicator world;
  const index_t n = 64;
  DistArray<double, Block> a(world, n);
  DistArray<double, Cyclic<3>> b(world, n);
  section(b, strided_slice{index_t{1}, n - 1, index_t{2}}) = section(a, strided_slice{index_t{0}, n - 1, index_t{2}});
  const std::size_t built = plans_built();
  for (int i = 0; i < 3; ++i)
    section(b, strided_slice{index_t{1}, n - 1, index_t{2}}) = section(a, strided_slice{index_t{0}, n - 1, index_t{2}});
  CHECK(plans_built() == built);
}

}  // namespace mpi_test_section
