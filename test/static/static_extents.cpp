// Compile-time tests of static array extents: the message table of a fully static redistribution
// (distributions, grid and extents in the types) is a constant expression, computed by the plan
// builders' own transfer list; here it is checked against a brute force that deals the elements
// one by one and shares nothing with the library's index code. Compiling is passing.
#include <array>
#include <cstddef>
#include <type_traits>

#include <redist/redist.hpp>

using namespace redist;

namespace {

// Owner of global index g in one dimension: block of ceil(n / p) (Block), or blocks of x dealt
// round-robin (Cyclic<x>); x = 0 stands for Block.
constexpr int owner_1d(index_t g, index_t n, int p, index_t x) {
  if (x == 0) return static_cast<int>(g / ((n + p - 1) / p));
  return static_cast<int>((g / x) % p);
}

// The message table of a rank-2 redistribution by dealing every element: (i, j) goes from the
// owner of (i, j) in the source (row-major grid numbering: rank = c0 * P1 + c1) to its owner in
// the destination.
template <int P>
constexpr std::array<std::array<index_t, P>, P> brute_2d(index_t n0, index_t n1, std::array<int, 2> gs,
                                                          std::array<index_t, 2> xs, std::array<int, 2> gd,
                                                          std::array<index_t, 2> xd) {
  std::array<std::array<index_t, P>, P> t{};
  for (index_t i = 0; i < n0; ++i)
    for (index_t j = 0; j < n1; ++j) {
      const int s = owner_1d(i, n0, gs[0], xs[0]) * gs[1] + owner_1d(j, n1, gs[1], xs[1]);
      const int r = owner_1d(i, n0, gd[0], xd[0]) * gd[1] + owner_1d(j, n1, gd[1], xd[1]);
      ++t[static_cast<std::size_t>(s)][static_cast<std::size_t>(r)];
    }
  return t;
}

// 1-D: 16 elements, Block -> Cyclic<2> on 4 processes. Rank 0 holds 0..3: 0, 1 stay, 2, 3 go
// to rank 1; rank 1 holds 4..7: 4, 5 go to rank 2, 6, 7 to rank 3; ranks 2 and 3 likewise.
using B16 = DistArray<double, Block, Grid<4>, Extents<16>>;
using C16 = DistArray<double, Cyclic<2>, Grid<4>, Extents<16>>;
constexpr auto t1 = message_table<B16, C16>();
static_assert(t1[0] == std::array<index_t, 4>{2, 2, 0, 0});
static_assert(t1[1] == std::array<index_t, 4>{0, 0, 2, 2});
static_assert(t1[2] == std::array<index_t, 4>{2, 2, 0, 0});
static_assert(t1[3] == std::array<index_t, 4>{0, 0, 2, 2});
static_assert(t1 == brute_2d<4>(16, 1, {4, 1}, {0, 0}, {4, 1}, {2, 0}));

// 1-D, ragged: 13 elements, Cyclic<3> -> Cyclic<2> on 3 processes.
using C3 = DistArray<float, Cyclic<3>, Grid<3>, Extents<13>>;
using C2 = DistArray<float, Cyclic<2>, Grid<3>, Extents<13>>;
static_assert(message_table<C3, C2>() == brute_2d<3>(13, 1, {3, 1}, {3, 0}, {3, 1}, {2, 0}));

// 2-D: 8 x 6, (Block, Cyclic<2>) on a 2 x 2 grid -> (Cyclic<1>, Block) on a 4 x 1 grid.
using M1 = DistArray<double, Dist<Block, Cyclic<2>>, Grid<2, 2>, Extents<8, 6>>;
using M2 = DistArray<double, Dist<Cyclic<1>, Block>, Grid<4, 1>, Extents<8, 6>>;
constexpr auto t2 = message_table<M1, M2>();
static_assert(t2 == brute_2d<4>(8, 6, {2, 2}, {0, 2}, {4, 1}, {1, 0}));
// Every element is counted once: the table sums to the array's size.
static_assert([] {
  index_t sum = 0;
  for (const auto& row : t2)
    for (index_t x : row) sum += x;
  return sum;
}() == 48);

// A dimension of one process (Collapsed on the grid's second dimension) and a static extent
// alongside a dynamic one in another array type: both are still arrays of rank 2.
using M3 = DistArray<double, Dist<Cyclic<3>, Collapsed>, Grid<4, 1>, Extents<8, 6>>;
static_assert(message_table<M3, M2>() == brute_2d<4>(8, 6, {4, 1}, {3, 0}, {4, 1}, {1, 0}));
static_assert(DistArray<double, Dist<Block, Block>, void, Extents<8, dynamic>>::static_extent(0) == 8);
static_assert(DistArray<double, Dist<Block, Block>, void, Extents<8, dynamic>>::static_extent(1) == dynamic);
static_assert(!DistArray<double, Dist<Block, Block>, void, Extents<8, dynamic>>::has_static_extents());
static_assert(DistArray<double, Block>::static_extent(0) == dynamic);

// The layout keeps what the type states: the grid type and the static extents are the mapping's.
static_assert(std::is_same_v<M1::mapping_type, Dist<Block, Cyclic<2>>::basic_mapping<Grid<2, 2>, Extents<8, 6>>>);
static_assert(std::is_same_v<M1::mapping_type::grid_type, Grid<2, 2>> && M1::mapping_type::static_extent(1) == 6);
static_assert(C16::mapping_type::grid_type::static_extent(0) == 4);
static_assert(std::is_same_v<DistArray<double, Block>::mapping_type, Dist<Block>::mapping>);

}  // namespace

int main() { return 0; }
