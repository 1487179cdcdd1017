// expected-error: redist::redistribute\(src, dst, policy\) requires policy to be a redist::schedule policy
#include <redist/redist.hpp>

void f(const boost::mpi::communicator& world) {
  redist::DistArray<int, redist::Block> a(world, 10), b(world, 10);
  redist::redistribute(a, b, 42);
}
