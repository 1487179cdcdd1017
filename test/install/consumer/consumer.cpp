// A program built against an installed redist, found by find_package(redist) or pkg-config.
#include <redist/redist.hpp>

int main(int argc, char* argv[]) {
  boost::mpi::environment env(argc, argv);
  boost::mpi::communicator world;
  redist::DistArray<double, redist::Block> a(world, 100);
  redist::DistArray<double, redist::Cyclic<3>> b(world, 100);
  for (redist::index_t l = 0; l < a.local_size(); ++l) a.local()[l] = static_cast<double>(a.global_index(l));
  b = a;
  for (redist::index_t l = 0; l < b.local_size(); ++l)
    if (b.local()[l] != static_cast<double>(b.global_index(l))) return 1;
  return 0;
}
