// expected-error: requires a grid of the same rank as Dist<D...>
#include <redist/redist.hpp>

void f(const boost::mpi::communicator& world) {
  redist::DistArray<double, redist::Dist<redist::Block, redist::Block>> a(world, {10, 10}, redist::Grid{2, 2, 1});
}
