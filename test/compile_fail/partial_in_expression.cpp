// expected-error: takes Partial dimensions of sums only
#include <redist/redist.hpp>

void f(const boost::mpi::communicator& world) {
  redist::DistArray<double, redist::Partial<redist::max_op>> a(world, 10);
  redist::DistArray<double, redist::Block> b(world, 10);
  b = 2.0 * a + 1.0 * b;
}
