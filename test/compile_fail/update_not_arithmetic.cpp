// expected-error: b = alpha \* op\(a\) \+ beta \* b requires an arithmetic or std::complex element type
#include <redist/redist.hpp>

struct Pair {
  int x, y;
};

void f(const boost::mpi::communicator& world) {
  redist::DistArray<Pair, redist::Block> a(world, 10), b(world, 10);
  b = Pair{1, 2} * a + Pair{0, 0} * b;
}
