// expected-error: redist::redistribute\(src, dst\) requires src and dst to have the same rank
#include <redist/redist.hpp>

void f(const boost::mpi::communicator& world) {
  redist::DistArray<double, redist::Dist<redist::Block, redist::Block>> a(world, {10, 10}, redist::Grid{2, 1});
  redist::DistArray<double, redist::Dist<redist::Block, redist::Collapsed, redist::Block>> b(world, {10, 10, 1},
                                                                                           redist::Grid{2, 1, 1});
  b = a;
}
