// expected-error: b = alpha \* op\(a\) \+ beta \* c requires c to be b itself
#include <redist/redist.hpp>

void f(const boost::mpi::communicator& world) {
  redist::DistArray<double, redist::Block> a(world, 10), b(world, 10);
  redist::DistArray<double, redist::Cyclic<2>> c(world, 10);
  b = 2.0 * a + 1.0 * c;  // c is not b: a compile error, since its type differs from b's
}
