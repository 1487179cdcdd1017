// expected-error: redist::redistribute\(src, dst\) requires src and dst to have the same static extents
#include <redist/redist.hpp>

void f(const boost::mpi::communicator& world) {
  redist::DistArray<double, redist::Cyclic<8>, redist::Grid<4>, redist::Extents<1024>> a(world);
  redist::DistArray<double, redist::Cyclic<5>, redist::Grid<4>, redist::Extents<1000>> b(world);
  b = a;
}
