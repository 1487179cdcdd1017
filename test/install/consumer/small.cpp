// A consumer that compiles in a third of consumer.cpp's time, for the builds of test/install/check.sh
// that test how a project finds redist rather than what b = a does: the umbrella header under the
// project's flags, an array, and a Boost.MPI collective (a link with Boost.MPI and MPI).
#include <redist/redist.hpp>

#include <boost/mpi/collectives/all_reduce.hpp>

#include <functional>

int main(int argc, char* argv[]) {
  boost::mpi::environment env(argc, argv);
  boost::mpi::communicator world;
  redist::DistArray<double, redist::Block> a(world, 100);
  const redist::index_t n = boost::mpi::all_reduce(world, a.local_size(), std::plus<>());
  return n == 100 ? 0 : 1;
}
