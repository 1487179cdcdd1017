// expected-error: b = a from Partial<Op> values requires Op to fold a's element type
#include <redist/redist.hpp>

struct Pair {
  int x, y;
};

void f(const boost::mpi::communicator& world) {
  redist::DistArray<Pair, redist::Partial<>> a(world, 10);
  redist::DistArray<Pair, redist::Block> b(world, 10);
  b = a;  // Pair has no operator+: its partial values cannot be summed
}
