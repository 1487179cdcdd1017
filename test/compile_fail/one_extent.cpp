// expected-error: take their extents as \{e0, e1, \.\.\.\}, one per dimension
#include <redist/redist.hpp>

void f(const boost::mpi::communicator& world) {
  redist::DistArray<double, redist::Dist<redist::Block, redist::Block>> a(world, 100, redist::Grid{2, 2});
}
