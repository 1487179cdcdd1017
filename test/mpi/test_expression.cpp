// Scaled and transposed updates (issue 16): b = alpha * op(a) + beta * b against the element-by-element
// oracle, 1-D and 2-D, on random layouts and grids, for real, integer and complex element types;
// beta = 0 never reads b, alpha = 0 never reads a; errors on every rank before data moves.
#include <cmath>
#include <complex>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <boost/mpi/communicator.hpp>
#include <catch2/catch.hpp>

#include <redist/redist.hpp>

#include "../support/array_values_nd.hpp"
#include "../support/mpi_check.hpp"
#include "../support/random_dists.hpp"

// This file's names, apart from the other files of its program: meson compiles them together
// (unity build).
namespace mpi_test_expression {

using namespace redist;
namespace mpi = boost::mpi;
using redist::test::all_ok;
using redist::test::fill_nd;
using redist::test::for_each_local_index;
using redist::test::make_dist;

namespace {

/// A value of element type T for global index (i, j) and a tag: exact in float and int.
template <class T>
T val(index_t i, index_t j, int tag) {
  const auto v = static_cast<double>((i * 37 + j * 11 + tag * 5) % 61) - 30;
  if constexpr (std::is_same_v<T, std::complex<double>>) return {v, 0.5 * v + tag};
  else return static_cast<T>(v);
}

template <class T>
bool near(const T& x, const T& y) {
  if constexpr (std::is_integral_v<T>) return x == y;
  else return std::abs(x - y) <= 1e-5 * std::max(1.0, static_cast<double>(std::abs(y)));
}

template <class T>
T nan_or_junk() {
  if constexpr (std::is_integral_v<T>) return T{99};
  else return T{std::numeric_limits<float>::quiet_NaN()};
}

/// The scalars of a case: 0, 1 and another, per term.
template <class T>
T scalar(int k) {
  if (k == 0) return T{0};
  if (k == 1) return T{1};
  if constexpr (std::is_same_v<T, std::complex<double>>) return {-2, 1};
  else return static_cast<T>(-2);
}

/// 1-D: b = alpha * a + beta * b between random layouts of Block, Cyclic<3>, Cyclic<dynamic>, GenBlock.
template <class T, class DA, class DB>
bool case_1d(const mpi::communicator& world, std::mt19937_64& rng, std::string& what) {
  const index_t n = static_cast<index_t>(rng() % 120);
  DistArray<T, DA> a(world, n, make_dist<DA>(n, world.size(), rng));
  DistArray<T, DB> b(world, n, make_dist<DB>(n, world.size(), rng));
  const int ka = static_cast<int>(rng() % 3), kb = static_cast<int>(rng() % 3);
  const T alpha = scalar<T>(ka), beta = scalar<T>(kb);
  auto la = a.local();
  auto lb = b.local();
  for (index_t l = 0; l < static_cast<index_t>(la.size()); ++l) la[l] = ka == 0 ? nan_or_junk<T>() : val<T>(a.global_index(l), 0, 1);
  for (index_t l = 0; l < static_cast<index_t>(lb.size()); ++l) lb[l] = kb == 0 ? nan_or_junk<T>() : val<T>(b.global_index(l), 0, 2);
  const bool with_beta = kb != 0 && rng() % 2 == 0;
  if (with_beta) b = alpha * a + beta * b;
  else b = alpha * a;  // beta = 0: b is not read
  what = "1-D n = " + std::to_string(n) + " alpha " + std::to_string(ka) + " beta " + std::to_string(kb);
  bool ok = true;
  for (index_t l = 0; l < static_cast<index_t>(lb.size()); ++l) {
    const index_t g = b.global_index(l);
    const T want = (ka == 0 ? T{0} : alpha * val<T>(g, 0, 1)) + (with_beta ? beta * val<T>(g, 0, 2) : T{0});
    ok = ok && near(lb[l], want);
  }
  return ok;
}

template <class T>
void run_1d(int cases, unsigned seed) {
  mpi::communicator world;
  std::mt19937_64 rng(seed);
  std::string first;
  int failures = 0;
  auto one = [&](bool ok, const std::string& what) {
    if (!all_ok(world, ok) && failures++ == 0) first = what;
  };
  for (int k = 0; k < cases; ++k) {
    std::string what;
    switch (rng() % 5) {
      case 0: one(case_1d<T, Block, Cyclic<3>>(world, rng, what), what); break;
      case 1: one(case_1d<T, Cyclic<3>, Cyclic<dynamic>>(world, rng, what), what); break;  // a Cyclic pair: all_at_once
      case 2: one(case_1d<T, GenBlock, Block>(world, rng, what), what); break;
      case 3: one(case_1d<T, Cyclic<dynamic>, GenBlock>(world, rng, what), what); break;
      default: one(case_1d<T, Block, Block>(world, rng, what), what); break;
    }
  }
  INFO("first failing case: " << first);
  REQUIRE(failures == 0);
}

/// 2-D: b = alpha * op(a) + beta * b, a and b on random grids with random block sizes, offsets
/// and padded storage (column- or row-major); the padding must stay as it was.
template <class T, int Op>  // Op 0: a, 1: transpose(a), 2: conj_transpose(a)
bool case_2d(const mpi::communicator& world, std::mt19937_64& rng, std::string& what) {
  using D = Dist<Cyclic<>, Cyclic<>>;
  const index_t m = static_cast<index_t>(rng() % 40), n = static_cast<index_t>(1 + rng() % 40);
  auto grid = [&] {
    const int size = 1 + static_cast<int>(rng() % static_cast<unsigned>(world.size()));
    const int rows = 1 + static_cast<int>(rng() % static_cast<unsigned>(size));
    return Grid{rows, size / rows};
  };
  auto block = [&] { return static_cast<index_t>(1 + rng() % 7); };
  const std::array<index_t, 2> ea = Op == 0 ? std::array<index_t, 2>{m, n} : std::array<index_t, 2>{n, m};
  const auto ga = grid(), gb = grid();
  DistArray<T, D> a(world, ea, D{Cyclic<>{block()}, Cyclic<>{block()}}, ga);
  const Storage sb{rng() % 2 ? Order::row_major : Order::column_major, 0};
  DistArray<T, D> b(world, {m, n}, D{Cyclic<>{block()}, Cyclic<>{block()}}, gb, {0, 0}, sb);
  const int ka = static_cast<int>(rng() % 3), kb = static_cast<int>(rng() % 3);
  const T alpha = scalar<T>(ka), beta = scalar<T>(kb);
  fill_nd(a, [&](const auto& g) { return ka == 0 ? nan_or_junk<T>() : val<T>(g[0], g[1], 1); });
  fill_nd(b, [&](const auto& g) { return kb == 0 ? nan_or_junk<T>() : val<T>(g[0], g[1], 2); });
  if constexpr (Op == 0) b = alpha * a + beta * b;
  else if constexpr (Op == 1) b = alpha * transpose(a) + beta * b;
  else b = alpha * conj_transpose(a) + beta * b;
  what = "2-D " + std::to_string(m) + " x " + std::to_string(n) + " op " + std::to_string(Op) + " alpha " +
         std::to_string(ka) + " beta " + std::to_string(kb);
  bool ok = true;
  auto lb = b.local();
  for_each_local_index(b, [&](const auto& l) {
    const auto g = b.global_index(l);
    T x = Op == 0 ? val<T>(g[0], g[1], 1) : val<T>(g[1], g[0], 1);
    if constexpr (Op == 2 && std::is_same_v<T, std::complex<double>>) x = std::conj(x);
    const T want = (ka == 0 ? T{0} : alpha * x) + (kb == 0 ? T{0} : beta * val<T>(g[0], g[1], 2));
    ok = ok && near(lb[b.local_offset(l)], want);
  });
  return ok;
}

template <class T, int Op>
void run_2d(int cases, unsigned seed) {
  mpi::communicator world;
  std::mt19937_64 rng(seed);
  std::string first;
  int failures = 0;
  for (int k = 0; k < cases; ++k) {
    std::string what;
    if (!all_ok(world, case_2d<T, Op>(world, rng, what)) && failures++ == 0) first = what;
  }
  INFO("first failing case: " << first);
  REQUIRE(failures == 0);
}

}  // namespace

TEST_CASE("b = alpha * a + beta * b on random 1-D layouts, for double, float, int and complex", "[mpi][expression]") {
  run_1d<double>(60, 1);
  run_1d<float>(30, 2);
  run_1d<int>(30, 3);
  run_1d<std::complex<double>>(30, 4);
}

TEST_CASE("b = alpha * op(a) + beta * b on random 2-D layouts and grids", "[mpi][expression][2d]") {
  run_2d<double, 0>(40, 5);
  run_2d<double, 1>(40, 6);
  run_2d<double, 2>(20, 7);  // conj_transpose of a real matrix is its transpose
  run_2d<std::complex<double>, 1>(30, 8);
  run_2d<std::complex<double>, 2>(30, 9);
  run_2d<int, 1>(20, 10);
}

TEST_CASE("b = conj_transpose(a) and updates over views and sections", "[mpi][expression][view][section]") {
  mpi::communicator world;
  using C = std::complex<double>;
  using D = Dist<Cyclic<>, Cyclic<>>;
  DistArray<C, D> a(world, {6, 9}, D{Cyclic<>{2}, Cyclic<>{3}}, Grid{1, world.size()});
  fill_nd(a, [](const auto& g) { return val<C>(g[0], g[1], 1); });
  // b over the caller's memory, its leading dimension padded by 2: the padding keeps its value.
  const D db{Cyclic<>{4}, Cyclic<>{1}};
  const Grid gb{world.size(), 1};
  const index_t tight = DistView<C, D>::required_span_size(world, {9, 6}, db, gb);
  const index_t lld = std::max<index_t>(1, tight / 6) + 2;
  const Storage padded{Order::column_major, lld};
  std::vector<C> memory(static_cast<std::size_t>(DistView<C, D>::required_span_size(world, {9, 6}, db, gb, {0, 0}, padded)),
                        C{-7, -7});
  DistView<C, D> b(memory.data(), world, {9, 6}, db, gb, {0, 0}, padded);
  auto untouched = [&] {
    std::size_t elements = 0, minus7 = 0;
    for_each_local_index(b, [&](const auto&) { ++elements; });
    for (const C& x : memory) minus7 += x == C{-7, -7};
    return minus7 == memory.size() - elements;
  };
  b = conj_transpose(a);
  REQUIRE(all_ok(world, test::holds_nd(b, [](const auto& g) { return std::conj(val<C>(g[1], g[0], 1)); }) && untouched()));
  // Even rows of b: 2i times a's transpose (from every other column of a); odd rows: a's
  // transpose added to what they hold (conj(x) + x = 2 Re x).
  section(b, strided_slice{0, 9, 2}, full_extent) = C{0, 2} * transpose(section(a, full_extent, strided_slice{0, 9, 2}));
  auto odd = section(b, strided_slice{1, 7, 2}, full_extent);
  odd = C{1, 0} * transpose(section(a, full_extent, strided_slice{1, 7, 2})) + C{1, 0} * odd;
  const bool ok = test::holds_nd(b, [](const auto& g) {
    const C x = val<C>(g[1], g[0], 1);
    return g[0] % 2 == 0 ? C{0, 2} * x : C{2 * x.real(), 0};
  });
  REQUIRE(all_ok(world, ok && untouched()));
}

TEST_CASE("Wrong updates throw redist::error on every rank before data moves", "[mpi][expression][errors]") {
  mpi::communicator world;
  DistArray<double, Block> a(world, 20), b(world, 20), c(world, 21);
  for (double& x : b.local()) x = 5;
  // The second term must be b itself: another array of b's type is refused.
  DistArray<double, Block> other(world, 20);
  REQUIRE(all_ok(world, test::throws_with([&] { b = 2.0 * a + 1.0 * other; }, "requires c to be b itself")));
  REQUIRE(all_ok(world, test::throws_with([&] { c = 2.0 * a; }, "src.size() to equal dst.size()")));
  REQUIRE(all_ok(world, test::throws_with([&] { b = 2.0 * b + 1.0 * b; }, "another array than b")));
  bool same = true;
  for (double x : b.local()) same = same && x == 5;
  REQUIRE(all_ok(world, same));
  // The same where a rank holds no element of either (their local storage alike empty).
  std::vector<index_t> sizes(static_cast<std::size_t>(world.size()), 0);
  sizes.front() = 20;
  DistArray<double, GenBlock> e(world, 20, GenBlock(sizes)), f(world, 20, GenBlock(sizes));
  for (double& x : e.local()) x = 5;
  REQUIRE(all_ok(world, test::throws_with([&] { e = 2.0 * a + 1.0 * f; }, "requires c to be b itself")));
  REQUIRE(all_ok(world, test::throws_with([&] { assign(e <<= 2.0 * a + 1.0 * f); }, "requires c to be b itself")));
  for (double& x : a.local()) x = 1;
  e = 2.0 * a + 1.0 * e;  // b itself: fine on every rank
  bool ok = true;
  for (double x : e.local()) ok = ok && x == 7;
  auto whole = section(e, strided_slice{0, 20, 1});
  whole = 1.0 * a + 3.0 * whole;  // a section of b, given as both
  for (double x : e.local()) ok = ok && x == 22;
  REQUIRE(all_ok(world, ok));
}

TEST_CASE("A repeated update plans nothing", "[mpi][expression][plan]") {
  mpi::communicator world;
  DistArray<double, Cyclic<3>> a(world, 100);
  DistArray<double, Block> b(world, 100);
  for (double& x : a.local()) x = 1;
  for (double& x : b.local()) x = 0;
  b = 1.0 * a + 1.0 * b;
  const std::size_t planned = plans_built();
  for (int k = 0; k < 5; ++k) b = 1.0 * a + 1.0 * b;
  REQUIRE(plans_built() == planned);
  bool ok = true;
  for (double x : b.local()) ok = ok && x == 6;
  REQUIRE(all_ok(world, ok));
}

}  // namespace mpi_test_expression
