// The 1-D public surface of redist in one program: distributions as types, DistArray, b = a,
// redistribute with a schedule policy, plans held by the user, a distribution chosen at run time
// (AnyDist), how a reused plan posts its messages between nodes, and the errors bad input raises.
#include <cstdio>
#include <vector>

#include <boost/mpi/collectives.hpp>
#include <redist/redist.hpp>

namespace mpi = boost::mpi;
using redist::index_t;

int main(int argc, char* argv[]) {
  mpi::environment env(argc, argv);
  mpi::communicator world;
  const index_t n = 1000;

  // Distributions are types: a static block size lives in the type, a dynamic one in the object.
  redist::DistArray<double, redist::Cyclic<4>> a_cyc4(world, n);
  redist::DistArray<double, redist::Cyclic<3>> b_cyc3(world, n);
  redist::DistArray<double, redist::Block> c_block(world, n);
  redist::DistArray<double, redist::Cyclic<redist::dynamic>> d_cyck(world, n, redist::Cyclic<redist::dynamic>{7});
  std::vector<index_t> sizes(static_cast<std::size_t>(world.size()), 0);
  sizes.back() = n;  // GEN_BLOCK: everything on the last process, the others empty
  redist::DistArray<double, redist::GenBlock> e_gen(world, n, redist::GenBlock{sizes});

  // Fill by global index: local() is this rank's part in local order.
  auto loc = a_cyc4.local();
  for (index_t l = 0; l < a_cyc4.local_size(); ++l) loc[l] = static_cast<double>(a_cyc4.global_index(l));

  b_cyc3 = a_cyc4;                                              // collective redistribution
  redist::redistribute(b_cyc3, c_block, redist::schedule::all_at_once);
  d_cyck = c_block;
  e_gen = d_cyck;

  // Who owns global element 999 in each layout, and where.
  if (world.rank() == 0)
    std::printf("element 999: Cyclic<4> rank %d local %lld, GenBlock rank %d local %lld\n", a_cyc4.owner(999),
                static_cast<long long>(a_cyc4.local_index(999)), e_gen.owner(999),
                static_cast<long long>(e_gen.local_index(999)));

  // A plan the user holds: built without communication, executed as often as needed.
  auto plan = redist::make_plan(e_gen, a_cyc4);
  plan.execute(e_gen, a_cyc4);
  const std::size_t planned = redist::plans_built();
  b_cyc3 = a_cyc4;  // the layouts of the first b_cyc3 = a_cyc4: its cached plan is reused
  const bool reused = redist::plans_built() == planned;

  bool ok = reused;

  // Between nodes (here: shared memory off), a plan run again times how to post its messages —
  // point to point, persistent requests, one MPI_Alltoallv, a neighbourhood collective; for large
  // messages MPI derived datatypes too — and keeps the fastest, the same on every rank.
  redist::options between_nodes;
  between_nodes.shared_memory = false;
  auto posted = redist::make_plan(e_gen, a_cyc4, redist::schedule::automatic, between_nodes);
  for (int run = 0; run < 3; ++run) posted.execute(e_gen, a_cyc4);
  if (world.rank() == 0)
    std::printf("messages posted as %s (%zu transports timed)\n",
                redist::wire_name(posted.wire(), posted.uses_datatypes()).c_str(), posted.decision().transports.size());
  ok = ok && (world.size() == 1) == posted.decision().transports.empty();
  for (index_t l = 0; l < b_cyc3.local_size(); ++l)
    ok = ok && b_cyc3.local()[l] == static_cast<double>(b_cyc3.global_index(l));

  // A 1-D array is Dist<D> on a rank-1 grid: it assigns to and from Dist<D> arrays, which may
  // live on part of the communicator (here its last rank). Every constructor takes a raw MPI_Comm.
  redist::DistArray<double, redist::Dist<redist::Cyclic<2>>> f_last(MPI_COMM_WORLD, {n},
                                                                     redist::Grid{1}.with_first(world.size() - 1));
  redist::DistArray<double, redist::Block> g_block(MPI_COMM_WORLD, n);
  f_last = b_cyc3;
  g_block = f_last;
  for (index_t l = 0; l < g_block.local_size(); ++l)
    ok = ok && g_block.local()[l] == static_cast<double>(g_block.global_index(l));
  ok = ok && f_last.local_size() == (world.rank() == world.size() - 1 ? n : 0);

  // A distribution chosen at run time (read from input, say): AnyDist holds a Block, Cyclic<>,
  // GenBlock or Collapsed and answers as the one it holds (the C interface's layouts are these).
  for (const redist::AnyDist& chosen : {redist::AnyDist{redist::Cyclic<>{5}}, redist::AnyDist{redist::GenBlock{sizes}}}) {
    redist::DistArray<double, redist::AnyDist> h_any(world, n, chosen);
    h_any = g_block;
    for (index_t l = 0; l < h_any.local_size(); ++l)
      ok = ok && h_any.local()[l] == static_cast<double>(h_any.global_index(l));
  }

  // Bad input throws redist::error on every rank before any data moves.
  try {
    redist::DistArray<double, redist::Block> wrong(world, n + 1);
    wrong = a_cyc4;
    ok = false;
  } catch (const redist::error& e) {
    if (world.rank() == 0) std::printf("as expected: %s\n", e.what());
  }
  ok = mpi::all_reduce(world, ok, std::logical_and<bool>());
  if (world.rank() == 0) std::printf("%s\n", ok ? "basics: all values arrived" : "basics: WRONG");
  return ok ? 0 : 1;
}
