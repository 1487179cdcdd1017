// Catch2 main of the MPI tests: the MPI environment lives for the whole session.
#define CATCH_CONFIG_RUNNER
#include <boost/mpi/environment.hpp>
#include <catch2/catch.hpp>

int main(int argc, char* argv[]) {
  boost::mpi::environment env(argc, argv);
  return Catch::Session().run(argc, argv);
}
