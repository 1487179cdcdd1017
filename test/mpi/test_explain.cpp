// redist::explain against what a run really sends: this program interposes MPI_Isend (the PMPI
// profiling interface) and counts, per rank, redist's messages (tag runtime::message_tag) and their
// bytes; after a repeated b = a, explain's messages and bytes must equal what that run posted, on
// the general, basic-cycle, circulant, multi-phase, GEN_BLOCK and node paths, at every process
// count the suite runs it with. And explain communicates nothing (no MPI call at all), before the
// first run as after.
#include <mpi.h>

#include <array>
#include <cstdint>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <catch2/catch.hpp>

#include <redist/redist.hpp>

#include "../support/array_values.hpp"
#include "../support/array_values_nd.hpp"
#include "../support/mpi_check.hpp"

namespace {
/// What this rank called since the last reset.
struct Counts {
  long messages = 0;    ///< MPI_Isend with redist's tag
  long long bytes = 0;  ///< their bytes
  long calls = 0;       ///< MPI calls of any kind that communicate (the interposed ones)
};
Counts counted;
}  // namespace

extern "C" {
int MPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* request) {
  ++counted.calls;
  if (tag == redist::runtime::message_tag) {
    int size = 0;
    PMPI_Type_size(type, &size);
    ++counted.messages;
    counted.bytes += static_cast<long long>(size) * count;
  }
  return PMPI_Isend(buf, count, type, dest, tag, comm, request);
}
int MPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request* request) {
  ++counted.calls;
  return PMPI_Irecv(buf, count, type, source, tag, comm, request);
}
int MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  ++counted.calls;
  return PMPI_Send(buf, count, type, dest, tag, comm);
}
int MPI_Allreduce(const void* in, void* out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  ++counted.calls;
  return PMPI_Allreduce(in, out, count, type, op, comm);
}
int MPI_Barrier(MPI_Comm comm) {
  ++counted.calls;
  return PMPI_Barrier(comm);
}
int MPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  ++counted.calls;
  return PMPI_Ibarrier(comm, request);
}
int MPI_Bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  ++counted.calls;
  return PMPI_Bcast(buf, count, type, root, comm);
}
}

using namespace redist;
namespace mpi = boost::mpi;
using redist::test::all_ok;

namespace {
double value_1d(index_t g) { return 0.5 + 3.0 * static_cast<double>(g); }
double value_2d(const std::array<index_t, 2>& g) { return 0.25 + static_cast<double>(g[0]) * 1000.0 + static_cast<double>(g[1]); }

template <class A>
void clear(A& a) {
  std::fill(a.local().begin(), a.local().end(), -1.0);
}

/// b = a under policy and opts (1-D or N-D), three times (the first run agrees, the second may
/// time), then once more counted: explain's numbers must be that run's. Before the first run and after, explain
/// makes no MPI call. Returns what explain said after the runs.
template <class A, class B, class Check, class Policy = schedule::automatic_t>
Explanation check_explained(const mpi::communicator& world, const A& a, B& b, Check&& holds, Policy policy = {},
                            const options& opts = default_options()) {
  counted = {};
  const Explanation planned = explain(a, b, policy, opts);
  CHECK(counted.calls == 0);
  CHECK_FALSE(planned.ran);
  for (int i = 0; i < 3; ++i) redistribute(a, b, policy, opts);
  clear(b);
  counted = {};
  redistribute(a, b, policy, opts);
  const Counts run = counted;
  REQUIRE(all_ok(world, holds(b)));
  counted = {};
  const Explanation e = explain(a, b, policy, opts);
  CHECK(counted.calls == 0);
  INFO(e.str());
  CHECK(e.ran);
  CHECK(static_cast<long>(e.messages) == run.messages);
  CHECK(static_cast<long long>(e.bytes) == run.bytes);
  CHECK(!e.schedule.empty());
  CHECK(e.str().find(e.schedule) != std::string::npos);
  // A policy that does not adapt runs the schedule it planned; a scratch budget may cut its
  // messages into pieces, each a message of the run.
  if constexpr (!Decider<typename A::mapping_type, typename B::mapping_type, Policy>::adaptive) {
    CHECK(planned.schedule == e.schedule);
    CHECK(planned.messages <= e.messages);
  }
  return e;
}

auto holds_1d = [](const auto& b) { return redist::test::holds(b, value_1d); };
auto holds_2d = [](const auto& b) { return redist::test::holds_nd(b, value_2d); };
}  // namespace

TEST_CASE("explain's messages and bytes are what b = a sends: 1-D schedules", "[explain]") {
  mpi::communicator world;
  const index_t n = 20011;
  DistArray<double, Cyclic<8>> a8(world, n);
  DistArray<double, Cyclic<5>> b5(world, n);
  DistArray<double, Cyclic<2>> a2(world, n);
  DistArray<double, Cyclic<12>> b12(world, n);
  DistArray<double, Block> blk(world, n);
  redist::test::fill(a8, value_1d);
  redist::test::fill(a2, value_1d);
  // The basic-cycle calculation, forced and under automatic (model, then timed when run again); in
  // rounds of cycles under the default budget, whole with room (then as planned).
  Explanation e = check_explained(world, a8, b5, holds_1d, schedule::bcc);
  CHECK(e.schedule == "bcc");
  options room;
  room.max_scratch_bytes = std::size_t{1} << 24;
  room.shared_memory = false;
  {
    DistArray<double, Cyclic<5>> c5(world, n);
    const Explanation planned = explain(a8, c5, schedule::bcc, room);
    const Explanation ran = check_explained(world, a8, c5, holds_1d, schedule::bcc, room);
    CHECK(planned.messages == ran.messages);
    CHECK(planned.bytes == ran.bytes);
    CHECK(ran.transport == "messages");
  }
  check_explained(world, a8, b5, holds_1d, schedule::bcc_contention_free);
  e = check_explained(world, a8, b5, holds_1d);
  // Seed 001's circulant schedules: direct, indirect (relayed), and a general pair in two phases.
  options roomy;
  roomy.max_scratch_bytes = std::size_t{1} << 22;
  e = check_explained(world, a2, b12, holds_1d, schedule::direct, roomy);
  CHECK(e.schedule == "direct");
  e = check_explained(world, a2, b12, holds_1d, schedule::indirect, roomy);
  CHECK(e.schedule == "indirect");
  e = check_explained(world, a8, b5, holds_1d, schedule::indirect, roomy);
  CHECK(e.stages == 2);
  // The multi-phase baseline, two stages through CYCLIC(40).
  e = check_explained(world, a8, b5, holds_1d, schedule::multiphase);
  CHECK(e.stages == 2);
  // The general plan.
  e = check_explained(world, a8, blk, holds_1d, schedule::all_at_once);
  CHECK(e.schedule == "all_at_once");
  check_explained(world, blk, a2, holds_1d);
}

TEST_CASE("explain's messages and bytes are what b = a sends: GEN_BLOCK and N-D", "[explain]") {
  mpi::communicator world;
  const int p = world.size();
  std::vector<index_t> sizes(static_cast<std::size_t>(p)), other(sizes);
  for (int r = 0; r < p; ++r) {
    sizes[static_cast<std::size_t>(r)] = 100 + 37 * r;
    other[static_cast<std::size_t>(r)] = 100 + 37 * (p - 1 - r);
  }
  const index_t n = std::accumulate(sizes.begin(), sizes.end(), index_t{0});
  DistArray<double, GenBlock> g1(world, n, GenBlock(sizes));
  DistArray<double, GenBlock> g2(world, n, GenBlock(other));
  redist::test::fill(g1, value_1d);
  Explanation e = check_explained(world, g1, g2, holds_1d, schedule::tpdr);
  CHECK(e.schedule == "tpdr");
  check_explained(world, g1, g2, holds_1d);
  // N-D: a 2-D block-cyclic matrix to rows, and back transposed grids.
  using D = Dist<Cyclic<>, Cyclic<>>;
  const std::array<index_t, 2> ext{97, 61};
  DistArray<double, D> m1(world, ext, D{Cyclic<>{3}, Cyclic<>{4}}, Grid{p, 1});
  DistArray<double, D> m2(world, ext, D{Cyclic<>{8}, Cyclic<>{5}}, Grid{1, p});
  redist::test::fill_nd(m1, value_2d);
  e = check_explained(world, m1, m2, holds_2d);
  check_explained(world, m1, m2, holds_2d, schedule::relative_group);
  check_explained(world, m1, m2, holds_2d, schedule::caterpillar);
}

TEST_CASE("explain on emulated nodes: node peers copy, other pairs' messages are counted", "[explain][shared]") {
  mpi::communicator world;
  const options saved = default_options();
  default_options().node_size = 2;
  {
    const index_t n = 5003;
    DistArray<double, Cyclic<3>> a(world, n);  // in windows of two-rank nodes
    DistArray<double, Cyclic<7>> b(world, n);
    redist::test::fill(a, value_1d);
    const Explanation e = check_explained(world, a, b, holds_1d, schedule::bcc);
    // Nodes of two ranks: {0, 1}, {2, 3}, ...; at an odd size the last rank is alone on its node
    // and only sends messages.
    const bool alone = world.rank() == world.size() - 1 && world.size() % 2 == 1;
    INFO(e.str());
    if (world.size() > 2 && default_options().shared_memory)
      CHECK(e.transport == (alone ? "messages" : "shared_memory+messages"));
    if (world.size() == 2 && default_options().shared_memory) CHECK(e.transport == "shared_memory");
    check_explained(world, a, b, holds_1d);
  }
  default_options() = saved;
}

TEST_CASE("explain on one node with shared memory: no message at all", "[explain][shared]") {
  mpi::communicator world;
  const index_t n = 4099;
  DistArray<double, Cyclic<2>> a(world, n);
  DistArray<double, Cyclic<12>> b(world, n);
  redist::test::fill(a, value_1d);
  const Explanation e = check_explained(world, a, b, holds_1d);
  if (world.size() > 1 && default_options().shared_memory && default_options().node_size == 0) {
    // One node holds every rank: the pair's direct messages become copies. A plan that forwards
    // cannot copy and gives way to BCC; a direct one (the model's circulant direct) is kept.
    INFO(e.str());
    CHECK(e.transport == "shared_memory");
    CHECK(e.messages == 0);
    CHECK(e.steps == 0);
    CHECK((e.schedule.rfind("bcc", 0) == 0 || e.schedule == "direct"));
  }
}
