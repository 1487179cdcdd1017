// expected-error: redist::redistribute\(src, dst\) requires src and dst to have the same rank
#include <redist/redist.hpp>

// A 1-D array is the rank-1 case of Dist: it takes a Dist<Block> array, not a 2-D one.
void f(const boost::mpi::communicator& world) {
  redist::DistArray<double, redist::Dist<redist::Block, redist::Block>> a(world, {10, 10}, redist::Grid{2, 1});
  redist::DistArray<double, redist::Block> b(world, 100);
  b = a;
}
