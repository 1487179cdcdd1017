// Shared memory on a node: arrays whose storage lives in an MPI-3 shared-memory window, `b = a`
// copying each element once from its owner's memory, the same call with shared memory off
// (messages), emulated nodes of two ranks (shared memory within, messages between), short pieces
// packed by their senders, then pulled, and messages between nodes aggregated, one per node pair.
// Runs on any number of processes.
#include <array>
#include <cstdio>
#include <functional>
#include <string>

#include <boost/mpi/collectives/all_reduce.hpp>
#include <redist/redist.hpp>

namespace mpi = boost::mpi;
using redist::index_t;

namespace {
double f(const std::array<index_t, 2>& g) { return static_cast<double>(g[0]) * 10000.0 + static_cast<double>(g[1]); }

template <class A>
void fill(A& a) {
  const auto e = a.local_extents();
  for (index_t j = 0; j < e[1]; ++j)
    for (index_t i = 0; i < e[0]; ++i) a.local()[a.local_offset({i, j})] = f(a.global_index({i, j}));
}
template <class A>
bool holds(const A& a) {
  const auto e = a.local_extents();
  for (index_t j = 0; j < e[1]; ++j)
    for (index_t i = 0; i < e[0]; ++i)
      if (a.local()[a.local_offset({i, j})] != f(a.global_index({i, j}))) return false;
  return true;
}
}  // namespace

int main(int argc, char* argv[]) {
  mpi::environment env(argc, argv);
  mpi::communicator world;
  const int p = world.size();
  const index_t m = 700, n = 400;
  using From = redist::Dist<redist::Cyclic<32>, redist::Cyclic<32>>;
  using To = redist::Dist<redist::Cyclic<128>, redist::Block>;

  // 1. On one node (the default, options::shared_memory): a and b live in the node's window, and
  //    b = a copies each element once, from a's owner into b, without messages.
  redist::DistArray<double, From> a(world, {m, n}, redist::Grid{p, 1});
  redist::DistArray<double, To> b(world, {m, n}, redist::Grid{1, p});
  fill(a);
  auto plan = redist::make_plan(a, b);
  plan.execute(a, b);
  bool ok = holds(b);
  const bool shared = plan.used_shared_memory();

  // 2. The same with shared memory off for this call: messages between every pair.
  redist::options messages = redist::default_options();
  messages.shared_memory = false;
  redist::DistArray<double, To> c(world, {m, n}, redist::Grid{1, p});
  redist::redistribute(a, c, redist::schedule::automatic, messages);
  ok = ok && holds(c);

  // 3. Emulated nodes of two ranks each (options::node_size; REDIST_NODE_SIZE=2 in the
  //    environment does the same): arrays constructed now share memory within their node, and
  //    b = a copies within nodes and sends messages between them, in one call.
  redist::default_options().node_size = 2;
  redist::DistArray<double, From> a2(world, {m, n}, redist::Grid{p, 1});
  redist::DistArray<double, To> b2(world, {m, n}, redist::Grid{1, p});
  fill(a2);
  b2 = a2;
  ok = ok && holds(b2);

  // 4. Between those nodes, the messages aggregated (options::node_aggregation always; timed: the
  //    decision's choice, the default): each node pair's messages gathered through the node's
  //    shared memory and sent as one message, split again on arrival (from the plan's second run).
  redist::options aggregated = redist::default_options();
  aggregated.node_aggregation = redist::NodeAggregation::always;
  redist::DistArray<double, To> d2(world, {m, n}, redist::Grid{1, p});
  for (int run = 0; run < 3; ++run) redist::redistribute(a2, d2, redist::schedule::automatic, aggregated);
  ok = ok && holds(d2);
  const redist::Explanation between = redist::explain(a2, d2, redist::schedule::automatic, aggregated);
  redist::default_options().node_size = 0;

  // 5. Pieces shorter than a cache line (CYCLIC(8) -> CYCLIC(5): 1-8 elements): from the run after
  //    the node finds them so, each rank packs what its node peers take into a node window of its
  //    own in one pass, and they copy those runs (explain's node_copy: "pack_then_pull").
  const index_t len = 100000;
  redist::DistArray<double, redist::Cyclic<8>> u(world, len);
  redist::DistArray<double, redist::Cyclic<5>> v(world, len);
  for (index_t l = 0; l < u.local_size(); ++l) u.local()[l] = 2.0 * static_cast<double>(u.global_index(l));
  for (int run = 0; run < 3; ++run) v = u;
  for (index_t l = 0; l < v.local_size(); ++l) ok = ok && v.local()[l] == 2.0 * static_cast<double>(v.global_index(l));
  const std::string node_copy = redist::explain(u, v).node_copy;

  ok = boost::mpi::all_reduce(world, ok, std::logical_and<bool>());
  if (world.rank() == 0)
    std::printf("%d processes: a in shared memory: %s; b = a %s; short pieces: %s; nodes of two, aggregated: %s, "
                "%zu messages from rank 0; %s\n",
                p, a.in_shared_memory() ? "yes" : "no", shared ? "copied from the owners' memory" : "by messages",
                node_copy.empty() ? "no node peers" : node_copy.c_str(), between.transport.c_str(), between.messages,
                ok ? "all values verified" : "WRONG VALUES");
  return ok ? 0 : 1;
}
