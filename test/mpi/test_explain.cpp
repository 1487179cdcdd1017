// redist::explain against what a run really sends: this program interposes MPI_Isend, the
// persistent sends' MPI_Send_init and MPI_Start, and the all-to-all and all-gather collectives, blocking and not (the PMPI profiling
// interface) and counts, per rank, redist's messages (tag runtime::message_tag; a collective's
// non-empty sends) and their bytes, whichever wire the decision chose; after a repeated b = a, explain's messages and bytes must equal what that run posted, on
// the general, basic-cycle, circulant, multi-phase, GEN_BLOCK and node paths, at every process
// count the suite runs it with. And explain communicates nothing (no MPI call at all), before the
// first run as after.
#include <mpi.h>

#include <array>
#include <cstdint>
#include <functional>
#include <map>
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
/// The bytes of each persistent send with redist's tag, counted when it is started.
std::map<MPI_Request, long long> persistent_sends;

void count_collective(const int* counts, const MPI_Datatype* types, MPI_Datatype type, int n) {
  ++counted.calls;
  for (int k = 0; k < n; ++k) {
    if (counts[k] == 0) continue;
    int size = 0;
    PMPI_Type_size(types != nullptr ? types[k] : type, &size);
    ++counted.messages;
    counted.bytes += static_cast<long long>(size) * counts[k];
  }
}
/// Destinations of a neighbourhood collective's communicator.
int out_degree(MPI_Comm comm) {
  int in = 0, out = 0, weighted = 0;
  PMPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted);
  return out;
}
int comm_size(MPI_Comm comm) {
  int n = 0;
  PMPI_Comm_size(comm, &n);
  return n;
}
/// Wire::allgatherv: this rank's contribution (in place: its own count) goes to every other rank of
/// the group's communicator, a message each.
void count_gather(const int* rcounts, MPI_Datatype type, MPI_Comm comm) {
  ++counted.calls;
  int me = 0, size = 0;
  PMPI_Comm_rank(comm, &me);
  PMPI_Type_size(type, &size);
  if (rcounts[me] == 0) return;
  counted.messages += comm_size(comm) - 1;
  counted.bytes += static_cast<long long>(comm_size(comm) - 1) * size * rcounts[me];
}
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
int MPI_Send_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                  MPI_Request* request) {
  const int rc = PMPI_Send_init(buf, count, type, dest, tag, comm, request);
  if (tag == redist::runtime::message_tag) {
    int size = 0;
    PMPI_Type_size(type, &size);
    persistent_sends[*request] = static_cast<long long>(size) * count;
  }
  return rc;
}
int MPI_Start(MPI_Request* request) {
  ++counted.calls;
  const auto it = persistent_sends.find(*request);
  if (it != persistent_sends.end()) {
    ++counted.messages;
    counted.bytes += it->second;
  }
  return PMPI_Start(request);
}
int MPI_Request_free(MPI_Request* request) {
  persistent_sends.erase(*request);
  return PMPI_Request_free(request);
}
int MPI_Ialltoallv(const void* sbuf, const int* scounts, const int* sdispls, MPI_Datatype stype, void* rbuf,
                   const int* rcounts, const int* rdispls, MPI_Datatype rtype, MPI_Comm comm, MPI_Request* request) {
  count_collective(scounts, nullptr, stype, comm_size(comm));
  return PMPI_Ialltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, request);
}
int MPI_Ialltoallw(const void* sbuf, const int* scounts, const int* sdispls, const MPI_Datatype* stypes, void* rbuf,
                   const int* rcounts, const int* rdispls, const MPI_Datatype* rtypes, MPI_Comm comm, MPI_Request* request) {
  count_collective(scounts, stypes, MPI_BYTE, comm_size(comm));
  return PMPI_Ialltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm, request);
}
int MPI_Ineighbor_alltoallv(const void* sbuf, const int* scounts, const int* sdispls, MPI_Datatype stype, void* rbuf,
                            const int* rcounts, const int* rdispls, MPI_Datatype rtype, MPI_Comm comm,
                            MPI_Request* request) {
  count_collective(scounts, nullptr, stype, out_degree(comm));
  return PMPI_Ineighbor_alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, request);
}
int MPI_Ineighbor_alltoallw(const void* sbuf, const int* scounts, const MPI_Aint* sdispls, const MPI_Datatype* stypes,
                            void* rbuf, const int* rcounts, const MPI_Aint* rdispls, const MPI_Datatype* rtypes,
                            MPI_Comm comm, MPI_Request* request) {
  count_collective(scounts, stypes, MPI_BYTE, out_degree(comm));
  return PMPI_Ineighbor_alltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm, request);
}
// The blocking forms, which a b = a (started and waited for at once) calls on a collective wire.
int MPI_Alltoallv(const void* sbuf, const int* scounts, const int* sdispls, MPI_Datatype stype, void* rbuf,
                  const int* rcounts, const int* rdispls, MPI_Datatype rtype, MPI_Comm comm) {
  count_collective(scounts, nullptr, stype, comm_size(comm));
  return PMPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm);
}
int MPI_Alltoallw(const void* sbuf, const int* scounts, const int* sdispls, const MPI_Datatype* stypes, void* rbuf,
                  const int* rcounts, const int* rdispls, const MPI_Datatype* rtypes, MPI_Comm comm) {
  count_collective(scounts, stypes, MPI_BYTE, comm_size(comm));
  return PMPI_Alltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm);
}
int MPI_Neighbor_alltoallv(const void* sbuf, const int* scounts, const int* sdispls, MPI_Datatype stype, void* rbuf,
                           const int* rcounts, const int* rdispls, MPI_Datatype rtype, MPI_Comm comm) {
  count_collective(scounts, nullptr, stype, out_degree(comm));
  return PMPI_Neighbor_alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm);
}
int MPI_Neighbor_alltoallw(const void* sbuf, const int* scounts, const MPI_Aint* sdispls, const MPI_Datatype* stypes,
                           void* rbuf, const int* rcounts, const MPI_Aint* rdispls, const MPI_Datatype* rtypes,
                           MPI_Comm comm) {
  count_collective(scounts, stypes, MPI_BYTE, out_degree(comm));
  return PMPI_Neighbor_alltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm);
}
int MPI_Allgatherv(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int* rcounts, const int* displs,
                   MPI_Datatype rtype, MPI_Comm comm) {
  count_gather(rcounts, rtype, comm);
  return PMPI_Allgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm);
}
int MPI_Iallgatherv(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int* rcounts, const int* displs,
                    MPI_Datatype rtype, MPI_Comm comm, MPI_Request* request) {
  count_gather(rcounts, rtype, comm);
  return PMPI_Iallgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, request);
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

/// One of the wires of packed messages (plan.hpp's wire_name), as the decision timed them.
bool packed_wire(const std::string& t) {
  return t == "messages" || t == "persistent" || t == "alltoallv" || t == "neighbor_alltoallv" || t == "allgatherv" ||
         t == "allgatherv_nonblocking" ||
         t == "node_aggregated";
}

template <class A>
void clear(A& a) {
  std::fill(a.local().begin(), a.local().end(), -1.0);
}

/// b = a under policy and opts (1-D or N-D), five times (the first run agrees, the second may
/// time; where a node first tries its copy both ways, the fourth or the fifth), then once more counted: explain's numbers must be that run's. Before the first run and after, explain
/// makes no MPI call. Returns what explain said after the runs.
template <class A, class B, class Check, class Policy = schedule::automatic_t>
Explanation check_explained(const mpi::communicator& world, const A& a, B& b, Check&& holds, Policy policy = {},
                            const options& opts = default_options()) {
  counted = {};
  const Explanation planned = explain(a, b, policy, opts);
  CHECK(counted.calls == 0);
  CHECK_FALSE(planned.ran);
  for (int i = 0; i < 5; ++i) redistribute(a, b, policy, opts);
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
    // Aggregated between nodes, a rank sends one message per node pair it leads, or none.
    if (e.transport.find("node_aggregated") == std::string::npos) CHECK(planned.messages <= e.messages);
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
    CHECK(packed_wire(ran.transport));
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
    // The second run may have kept the messages alone (timed faster than the node's copies for
    // this small array): then no rank copies.
    const bool copies = e.transport.rfind("shared_memory", 0) == 0;
    const bool by_messages = e.reason.find("node peers by messages") != std::string::npos;
    if (world.size() > 2 && default_options().shared_memory)
      CHECK(packed_wire(copies ? e.transport.substr(std::string("shared_memory+").size()) : e.transport));
    if (world.size() > 2 && default_options().shared_memory && !alone) CHECK(copies != by_messages);
    if (world.size() == 2 && default_options().shared_memory) CHECK((e.transport == "shared_memory" || by_messages));
    check_explained(world, a, b, holds_1d);
  }
  default_options() = saved;
}

TEST_CASE("explain on one node with shared memory: no message at all", "[explain][shared]") {
  mpi::communicator world;
  const index_t n = 200003;  // over 64 KiB a rank: the node's copies are not timed against messages alone
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
