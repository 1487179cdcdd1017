// expected-error: redist::DistArray<T, D> requires T to be trivially copyable
#include <string>

#include <redist/redist.hpp>

void f(const boost::mpi::communicator& world) {
  redist::DistArray<std::string, redist::Block> a(world, 10);
}
