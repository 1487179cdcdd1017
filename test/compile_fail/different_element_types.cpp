// expected-error: redist::DistArray assignment b = a requires a and b to have the same element type
#include <redist/redist.hpp>

void f(const boost::mpi::communicator& world) {
  redist::DistArray<double, redist::Block> a(world, 10);
  redist::DistArray<float, redist::Cyclic<2>> b(world, 10);
  b = a;
}
