// expected-error: redist::schedule::tpdr, etpdr and list require GenBlock -> GenBlock
#include <redist/redist.hpp>

void f(const boost::mpi::communicator& world) {
  redist::DistArray<int, redist::Block> a(world, 10);
  redist::DistArray<int, redist::GenBlock> b(world, 10, redist::GenBlock{10});
  redist::redistribute(a, b, redist::schedule::etpdr);
}
