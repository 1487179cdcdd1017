// expected-error: redist::DistArray<T, D> requires D to be a redist distribution
#include <redist/redist.hpp>

struct NotADistribution {};

void f(const boost::mpi::communicator& world) {
  redist::DistArray<double, NotADistribution> a(world, 10);
}
