// expected-error: redist::section\(a, slices\.\.\.\) requires at least one slice that is not an index
#include <redist/redist.hpp>

void f(const boost::mpi::communicator& world) {
  redist::DistArray<double, redist::Dist<redist::Block, redist::Block>> a(world, {10, 10}, redist::Grid{2, 1});
  auto s = redist::section(a, 1, 2);
}
