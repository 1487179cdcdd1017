// expected-error: redist::redistribute\(src, dst\) requires src and dst to have the same rank
#include <utility>

#include <redist/redist.hpp>

void f(const boost::mpi::communicator& world) {
  redist::DistArray<double, redist::Dist<redist::Block, redist::Block>> a(world, {10, 10}, redist::Grid{2, 1});
  redist::DistArray<double, redist::Block> b(world, 10);
  // A rank-1 section of b from a rank-2 section of a.
  redist::section(b, redist::full_extent) = redist::section(a, std::pair{0, 5}, std::pair{0, 2});
}
