// expected-error: requires src and dst to both be 1-D arrays .* or both N-D arrays
#include <redist/redist.hpp>

void f(const boost::mpi::communicator& world) {
  redist::DistArray<double, redist::Dist<redist::Block>> a(world, {10}, redist::Grid{2});
  redist::DistArray<double, redist::Block> b(world, 10);
  b = a;
}
