// expected-error: b = alpha \* op\(a\) \+ beta \* b does not take arrays with Partial dimensions
#include <redist/redist.hpp>

void f(const boost::mpi::communicator& world) {
  redist::DistArray<double, redist::Partial<>> a(world, 10);
  redist::DistArray<double, redist::Block> b(world, 10);
  b = 2.0 * a + 1.0 * b;
}
