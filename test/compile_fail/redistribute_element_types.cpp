// expected-error: redist::redistribute\(src, dst\) requires src and dst to have the same element type
#include <redist/redist.hpp>

void f(const boost::mpi::communicator& world) {
  redist::DistArray<int, redist::Block> a(world, 10);
  redist::DistArray<long, redist::Block> b(world, 10);
  redist::redistribute(a, b);
}
