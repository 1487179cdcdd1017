// expected-error: take their extents as \{e0, e1, \.\.\.\}, one per dimension
#include <vector>

#include <redist/redist.hpp>

void f(const boost::mpi::communicator& world, std::vector<double>& memory) {
  redist::DistView<double, redist::Dist<redist::Block, redist::Cyclic<4>>> v(memory, world, 100, redist::Grid{2, 2});
}
