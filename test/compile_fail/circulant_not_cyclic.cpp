// expected-error: redist::schedule::direct, indirect and hybrid require Cyclic<s> source and target distributions
#include <redist/redist.hpp>

void f(const boost::mpi::communicator& world) {
  redist::DistArray<double, redist::Cyclic<2>> a(world, 10);
  redist::DistArray<double, redist::Block> b(world, 10);
  redist::redistribute(a, b, redist::schedule::hybrid(1));
}
