// expected-error: redist::schedule::multiphase requires Cyclic<s> source and target distributions
#include <redist/redist.hpp>

void f(const boost::mpi::communicator& world) {
  redist::DistArray<double, redist::Block> a(world, 10);
  redist::DistArray<double, redist::Cyclic<3>> b(world, 10);
  redist::redistribute(a, b, redist::schedule::multiphase);
}
