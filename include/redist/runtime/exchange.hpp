/// @file Defines the one executor of redist: start, test and wait (and execute, which is start then wait) run the stages of one or several plans over MPI — messages packed or as derived datatypes, in the schedule's steps and the budget's rounds, relayed, through an intermediate array, with node peers' pieces copied from shared memory.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <climits>
#include <cstdint>
#include <cstddef>
#include <cstring>
#include <memory>
#include <mutex>
#include <span>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/hana/at.hpp>
#include <boost/hana/for_each.hpp>
#include <boost/hana/size.hpp>
#include <boost/hana/tuple.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/datatype.hpp>

#include <redist/detail/hash.hpp>
#include <redist/dist/partial.hpp>
#include <redist/plan/collective.hpp>
#include <redist/plan/plan.hpp>
#include <redist/runtime/node.hpp>
#include <redist/runtime/pack.hpp>
#include <redist/runtime/store.hpp>
#include <redist/runtime/typed.hpp>

namespace redist::runtime {

/// The tag of redist's messages. Other traffic on the same communicator must not use it while a
/// redistribution is in flight.
inline constexpr int message_tag = 0x7EDD;
/// The tag of started exchanges (redist::start, redist::assign). Messages between two ranks match
/// in the order both post them, so several exchanges may be in flight at once when every rank
/// starts them in the same order; a blocking one (message_tag) may run meanwhile.
inline constexpr int started_tag = message_tag + 1;

/// Whether the MPI implements the neighbourhood collectives over distributed graphs (MPI-3), so
/// that Wire::neighbor may be timed: SimGrid's SMPI (bench/sim) declares them and aborts in them.
#if defined(SMPI_H)
inline constexpr bool has_neighbor_collectives = false;
#else
inline constexpr bool has_neighbor_collectives = true;
#endif

/// Messages longer than this many bytes go out as several MPI messages (MPI counts are int).
inline constexpr std::size_t max_chunk_bytes = static_cast<std::size_t>(INT_MAX) / 64 * 64;

/// Grows on demand and is kept between calls, so a repeated exchange allocates nothing.
/// Storage is aligned for any fundamental type.
class Scratch {
 public:
  std::byte* reserve(std::size_t bytes) {
    if (bytes > capacity_) {
      data_.reset(new std::max_align_t[(bytes + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t)]);
      capacity_ = bytes;
      ++allocations_;
    }
    return reinterpret_cast<std::byte*>(data_.get());
  }
  std::byte* data() noexcept { return reinterpret_cast<std::byte*>(data_.get()); }
  std::size_t capacity() const noexcept { return capacity_; }
  /// How many times the buffer was (re)allocated: a repeated exchange adds nothing.
  std::size_t allocations() const noexcept { return allocations_; }

 private:
  std::unique_ptr<std::max_align_t[]> data_;
  std::size_t capacity_ = 0;
  std::size_t allocations_ = 0;
};

/// One message as posted: `count` segments (each a part's message, elements [lo, hi)) to or from
/// one peer, `bytes` long, at `data` (the scratch, or in place: a direct message's run in its
/// buffer, a receive's place in the relay area).
struct WireMessage {
  int peer = -1;
  std::size_t first = 0, count = 0;
  std::size_t bytes = 0;
  std::size_t offset = 0;  ///< in the scratch, when not in place
  std::byte* data = nullptr;
  bool in_place = false;
  std::size_t group = 0;   ///< the step group it is posted in (within its unit)
  std::size_t pending = 0; ///< chunks still to arrive
};
struct WireSegment {
  std::size_t part = 0, index = 0;  ///< part k's message `index` (of its stage's sends or recvs)
  index_t lo = 0, hi = 0;
  std::size_t at = 0;               ///< byte offset in its wire message
  std::size_t wire = 0;             ///< the wire message it belongs to (fused lists)
};

/// What a plan's wire keeps between its runs (plan.hpp's Wire): the persistent requests of its
/// messages with the buffers, types and peers they were made for; the counts and displacements of
/// the collectives; the neighbourhood's distributed-graph communicator. Made by the first run that
/// needs them, freed with the object (unless MPI is finalized). A copy starts empty and makes its own.
class WireResources {
 public:
  /// What one message's requests were made for: a wire of the unit, its buffer (packed: the scratch
  /// or the array in place; typed: the array) and bytes or datatype.
  struct Key {
    int peer = -1;
    const std::byte* data = nullptr;
    std::size_t bytes = 0;
    MPI_Datatype type = MPI_BYTE;
    friend bool operator==(const Key&, const Key&) = default;
  };

  WireResources() = default;
  WireResources(const WireResources&) noexcept {}
  WireResources& operator=(const WireResources& o) noexcept {
    if (this != &o) release();
    return *this;
  }
  WireResources(WireResources&& o) noexcept { take(o); }
  WireResources& operator=(WireResources&& o) noexcept {
    if (this != &o) {
      release();
      take(o);
    }
    return *this;
  }
  ~WireResources() { release(); }

  /// Wire::persistent: one unit's requests (a group of steps of a round; with the one-pass pack of
  /// basic cycles, a round): per receive and send wire (receives first) its key and its requests
  /// [first, first + count) in recvs or sends.
  struct Unit {
    std::vector<Key> keys;
    std::vector<std::pair<std::size_t, std::size_t>> at;
    std::vector<MPI_Request> recvs, sends;
  };
  /// The units of the plan's stage, made for comm, tag and chunk size; the keys of the unit in flight.
  std::vector<Unit> units;
  std::vector<Key> probe;
  MPI_Comm made_on = MPI_COMM_NULL;
  int tag = 0;
  std::size_t chunk = 0;
  // The collectives (per peer, or per neighbour of the graph): counts, displacements, types.
  std::vector<int> send_counts, send_displs, recv_counts, recv_displs;
  std::vector<MPI_Aint> send_adispls, recv_adispls;
  std::vector<MPI_Datatype> send_types, recv_types;
  // Wire::neighbor: the graph of the stage's peers (ascending), made over graph_of for the stage
  // whose runs are at graph_for.
  MPI_Comm graph = MPI_COMM_NULL, graph_of = MPI_COMM_NULL;
  const void* graph_for = nullptr;
  std::vector<int> sources, destinations;
  // Wire::allgatherv, allreduce, reduce_scatter: the communicator of this rank's group (make_group), split from
  // group_of for the stage whose runs are at group_for; its members, ascending (its rank order).
  MPI_Comm group = MPI_COMM_NULL, group_of = MPI_COMM_NULL;
  const void* group_for = nullptr;
  std::vector<int> members;
  /// What the group was made for: Wire::allgatherv, Wire::allreduce or Wire::reduce_scatter; for a
  /// reduce-scatter, each member's elements, in member order (MPI_Reduce_scatter's counts).
  Wire group_wire = Wire::point_to_point;
  std::vector<int> reduce_counts;
  /// For a reduction, per member in member order: the index of this rank's send to it, -1 for
  /// this rank itself (its local copy).
  std::vector<int> reduce_sends;

  /// Frees the persistent requests (local).
  void release_requests() noexcept {
    for (Unit& u : units) release_unit(u);
    units.clear();
    made_on = MPI_COMM_NULL;
  }
  void release_unit(Unit& u) noexcept {
    if (mpi_alive())
      for (auto* v : {&u.recvs, &u.sends})
        for (MPI_Request& r : *v)
          if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
    u.recvs.clear();
    u.sends.clear();
    u.keys.clear();
    u.at.clear();
  }
  /// Makes `graph` over comm from `sources` and `destinations` (collective over comm).
  void make_graph(MPI_Comm comm) {
    load_topology_framework();
    detail::check(MPI_Dist_graph_create_adjacent(comm, static_cast<int>(sources.size()), sources.data(),
                                                 MPI_UNWEIGHTED, static_cast<int>(destinations.size()),
                                                 destinations.data(), MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph),
                  "MPI_Dist_graph_create_adjacent");
    graph_of = comm;
  }
  /// Frees the graph communicator (MPI_Comm_free: call it on every rank of the graph alike).
  void release_graph() noexcept {
    if (graph != MPI_COMM_NULL && mpi_alive()) MPI_Comm_free(&graph);
    graph = MPI_COMM_NULL;
    graph_of = MPI_COMM_NULL;
    graph_for = nullptr;
    sources.clear();
    destinations.clear();
  }
  /// Frees the group communicator (MPI_Comm_free: on every rank of the group alike).
  void release_group() noexcept {
    if (group != MPI_COMM_NULL && mpi_alive()) MPI_Comm_free(&group);
    group = MPI_COMM_NULL;
    group_of = MPI_COMM_NULL;
    group_for = nullptr;
    members.clear();
    group_wire = Wire::point_to_point;
    reduce_counts.clear();
    reduce_sends.clear();
  }
  void release() noexcept {
    release_requests();
    release_graph();
    release_group();
  }

 private:
  /// Open MPI 4.1 loads its topology components at a process's first topology call without a lock
  /// (mca_topo_base_lazy_init): two threads making their first graphs at once, each on its own
  /// communicator, can crash in it (test_threads did, about one run in eight of a bare reproducer).
  /// One graph over MPI_COMM_SELF, made once per process under std::call_once, loads them first;
  /// it involves no other process, so holding the once-flag cannot wait on a collective.
  static void load_topology_framework() {
    static std::once_flag loaded;
    std::call_once(loaded, [] {
      int none = 0;
      MPI_Comm self = MPI_COMM_NULL;
      detail::check(MPI_Dist_graph_create_adjacent(MPI_COMM_SELF, 0, &none, MPI_UNWEIGHTED, 0, &none,
                                                   MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &self),
                    "MPI_Dist_graph_create_adjacent");
      MPI_Comm_free(&self);
    });
  }
  static bool mpi_alive() noexcept {
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    return initialized && !finalized;
  }
  void take(WireResources& o) noexcept {
    units = std::move(o.units);
    made_on = std::exchange(o.made_on, MPI_COMM_NULL);
    tag = o.tag;
    chunk = o.chunk;
    graph = std::exchange(o.graph, MPI_COMM_NULL);
    graph_of = std::exchange(o.graph_of, MPI_COMM_NULL);
    graph_for = std::exchange(o.graph_for, nullptr);
    sources = std::move(o.sources);
    destinations = std::move(o.destinations);
    group = std::exchange(o.group, MPI_COMM_NULL);
    group_of = std::exchange(o.group_of, MPI_COMM_NULL);
    group_for = std::exchange(o.group_for, nullptr);
    members = std::move(o.members);
    group_wire = std::exchange(o.group_wire, Wire::point_to_point);
    reduce_counts = std::move(o.reduce_counts);
    reduce_sends = std::move(o.reduce_sends);
    o.units.clear();
  }
};

/// Wire::node_aggregated: what one plan's aggregated exchange keeps on this rank, made once per plan
/// and node partition (make_aggregation, collective on the node): its part of a node window (its
/// messages to other nodes packed at the front; as a receiving leader, the node pairs' messages
/// after them), where each of its messages is packed or is to be read, and the node pairs it
/// leads. A node pair (A, B) with messages from A's ranks to B's is led on A by A's rank number
/// B mod |A| (in parent-rank order), which gathers them, in the order of B's ranks and within each
/// of A's, into one message, and on B by B's rank number (A + 1) mod |B|, which receives it.
struct Aggregation {
  static constexpr std::size_t none = static_cast<std::size_t>(-1);
  std::unique_ptr<SharedSegment> window;
  const void* made_for = nullptr;  ///< the stage's runs it was made for
  const void* plan = nullptr;
  const Node* on = nullptr;
  std::vector<std::size_t> send_at;  ///< per send of the stage: its bytes' offset in this rank's part, or none (same node)
  /// Per receive of the stage: the parent rank whose part holds it (-1: same node) and the offset there.
  std::vector<std::pair<int, std::size_t>> recv_at;
  /// A node peer's packed message to gather: its parent rank, offset in its part, bytes.
  struct Piece {
    int rank = -1;
    std::size_t at = 0, bytes = 0;
  };
  /// A node pair this rank leads: the other end's leader (parent rank), the message's bytes, and
  /// its pieces [first, first + count) (sending) or its offset in this rank's part (receiving).
  struct Pair {
    int peer = -1;
    std::size_t bytes = 0, first = 0, count = 0, at = 0;
  };
  std::vector<Piece> pieces;
  std::vector<Pair> outs, ins;
  Scratch out;                       ///< the gathered messages of outs, one after the other
  std::vector<MPI_Request> requests;
  int phase = 0;                     ///< 0 done, 1 packed (barrier), 2 posted, 3 arrived (barrier)

  /// The node's barriers go through the window: each part starts with a flag (a cache line of its
  /// own) that its rank sets to the number of barriers it has entered; a rank has passed barrier e
  /// when every node peer's flag is at least e. No message, no progress of MPI needed.
  static constexpr std::size_t flag_bytes = 64;
  std::uint64_t epoch = 0;
  std::vector<std::uint64_t*> flags;  ///< every node peer's flag (this process's addresses)
  /// Enters the next barrier: this rank's stores to its part are made visible, then its flag.
  void arrive() {
    window->sync();
    std::atomic_ref<std::uint64_t>(*reinterpret_cast<std::uint64_t*>(window->data())).store(++epoch, std::memory_order_release);
  }
  /// Whether every node peer has entered the current barrier (with `block`, waits until so; a
  /// waiting rank yields its core, which an oversubscribed node's other ranks may need).
  bool passed(bool block) const {
    for (std::uint64_t* f : flags)
      while (std::atomic_ref<std::uint64_t>(*f).load(std::memory_order_acquire) < epoch) {
        if (!block) return false;
        std::this_thread::yield();
      }
    window->sync();  // the peers' stores before their flags
    return true;
  }
};

/// What an exchange keeps while it runs and between runs, so that a repeated one allocates nothing:
/// the scratch, the requests, the messages of the unit in flight and where it is.
struct ExchangeState {
  Scratch buffer;
  std::vector<MPI_Request> recv_requests, send_requests;
  std::vector<std::size_t> owner;    ///< recv_requests[k] belongs to receive owner[k]
  std::vector<WireMessage> sends, recvs;
  std::vector<WireSegment> send_segments, recv_segments, regrouped;
  std::vector<int> send_slot_of_peer, recv_slot_of_peer, done;
  std::vector<std::byte*> cycle_out;
  std::vector<const std::byte*> cycle_in;
  std::size_t high_water = 0;        ///< most scratch bytes one unit has used
  /// This rank's messages (before chunking into max_message_bytes) sent and received, and bytes
  /// sent, in the run so far (the last one, once complete).
  std::size_t messages_sent = 0, messages_received = 0, bytes_sent = 0;
  // Where the exchange is: the stage, its round and its group of steps (with the one-pass pack of
  // basic cycles, a round is one unit laid out at once and posted group by group).
  std::size_t stages = 0, stage = 0, group = 0, groups = 1;
  index_t round = 0, rounds = 1, per_round = 1;
  std::vector<std::pair<std::size_t, std::size_t>> group_steps;  ///< per group: its steps [first, last)
  int mode = 0;
  std::size_t left = 0;              ///< receives of the posted group not yet arrived
  bool posted = false, in_flight = false, copied = false;
  const Node* node = nullptr;        ///< node peers copy from shared memory (agree_on_node)
  MPI_Request node_barrier = MPI_REQUEST_NULL;
  /// How one plan's messages are posted (set by the decision, the same on every rank; a fused list
  /// posts point to point), what that wire keeps, and whether the unit in flight is one collective.
  Wire wire = Wire::point_to_point;
  WireResources wire_resources;
  bool collective = false;
  /// Wire::allreduce and Wire::reduce_scatter through the scratch: where the folded elements of this
  /// rank arrive, unpacked into the destination once the collective completes (null: none, or
  /// straight in the destination).
  const std::byte* reduced = nullptr;
  /// The exchange is waited for as soon as it is started (runtime::run, a blocking b = a): a
  /// collective wire then calls the blocking collective (MPI_Alltoallv ...), which MPI libraries
  /// complete in fewer steps than the nonblocking one and its wait.
  bool blocking = false;
  /// A collective wire is posted nonblocking even by runtime::run (start, then wait at once): set
  /// by the decision where it timed MPI's nonblocking collective and its wait faster than the
  /// blocking one (Open MPI's libnbc schedule against its tuned one, which wins depends on the
  /// machine and the pattern).
  bool nonblocking = false;
  std::size_t collective_recv_offset = 0;  ///< where a collective's receives start in the scratch
  /// Wire::node_aggregated: the parent's nodes (set by the caller of a run, the same partition on
  /// every rank; null: none known, the wire runs point to point), and whether this run aggregates.
  std::shared_ptr<const Node> nodes;
  bool aggregating = false;
  /// The rounds of a collective wire's stage on every rank (the most of any rank's, agreed:
  /// time_transports); a rank with fewer takes part in the last ones with nothing to move.
  index_t collective_rounds = 1;
};

/// What one plan keeps between its runs on this rank: its relay area and intermediate array, its
/// messages as MPI derived datatypes when the decision chose them, the gathered copies from node
/// peers, and (for a plan run alone) the exchange's state.
struct Workspace {
  Scratch relay, intermediate;
  /// Messages go as MPI derived datatypes over the arrays (`types`), without pack and unpack;
  /// chosen on every rank alike (the decision, plan/automatic.hpp).
  bool typed = false;
  MessageTypes types;
  std::vector<CopyItem> copies;       ///< the local and node peers' runs of a shared-memory run, ordered (order_gathered)
  std::size_t copies_alone = 0;       ///< how many of them are copied one after the other
  std::vector<const void*> copy_from, copied_from;  ///< the plan and source arrays of this run, and of `copies`
  /// The local runs are assigned, first, and only the peers' pieces (from node peers' memory, their
  /// staging, or messages) stored by the part's store: a fold of partial values whose local copy
  /// covers every destination element, its first contribution in place of the identity. Set around
  /// a run by Redistribution::run_update where the local copy precedes every other piece: one stage,
  /// and on the message path no one-pass unpack of basic cycles (which copies the local pieces with
  /// the others).
  bool local_assigns = false;
  /// Pack, then pull (node peers' pieces shorter than a cache line): this rank's part of a node
  /// window into which it packs its messages to node peers, in one pass over its source, before
  /// the node agrees (agree_on_node); made by the agreement that first finds the node's pieces short,
  /// collectively on the node. `staged`: this run's node peers' messages are read from their staging.
  std::unique_ptr<SharedSegment> staging;
  bool staged = false;
  /// The decision's pack, then pull, for the next run (set by the plan's holder after each
  /// decision; the same on every rank of the node): the agreement packs into staging only then.
  bool pack_next = false;
  /// What the last node agreement found, the same on every rank of the node: every rank's pieces
  /// from node peers are short (short_node_pieces) and some rank has some, with its staging part
  /// within `staging_budget`; some rank has no staging part large enough for this plan.
  bool node_pieces_short = false, staging_missing = false;
  std::size_t staging_budget = static_cast<std::size_t>(-1);  ///< bytes a staging part may take
  /// Seconds this rank's fastest node copy took pulling (from its second pull: the first builds the
  /// copy list) and packing then pulling (0: not run yet), the last pack's; the slowest rank's of
  /// the node as of the last agreement (node_*), which the decision compares.
  double pull_seconds = 0, staged_seconds = 0, pack_seconds = 0;
  int pull_runs = 0;
  /// The node's copies are timed (and their times agreed) while the decision compares the two ways
  /// (set by the plan's holder after each decision: short pieces, not both timed yet, tune_reps >
  /// 0); the same on every rank of the node. Never in a workspace no decision drives.
  bool node_timing = false;
  bool node_copy_timing() const noexcept { return node_timing; }
  /// This rank's node facts of the plan whose runs are at node_facts_for on node node_facts_on:
  /// its pieces from node peers are short, it has some, its staging part's bytes (computed once).
  const void* node_facts_for = nullptr;
  const void* node_facts_plan = nullptr;
  const Node* node_facts_on = nullptr;
  bool node_short = false, node_any = false;
  std::size_t node_staging_bytes = 0;
  double node_pull_seconds = 0, node_staged_seconds = 0;
  std::vector<std::byte*> staging_out;
  std::vector<const std::byte*> staging_in;
  Aggregation aggregation;
  ExchangeState exchange;
  /// The scratch of messages (the exchange's), and the most one unit used.
  const Scratch& buffer() const noexcept { return exchange.buffer; }
  std::size_t high_water() const noexcept { return exchange.high_water; }
};

/// One part of an exchange: a plan (BasicPlan), this rank's source and destination elements, how
/// the destination stores what arrives (a store operation of runtime/store.hpp, or AnyStore, chosen
/// at run time), the plan's workspace and, for node copies, src's part of a node window with the
/// leading dimension src's layout was declared with.
template <class T, class R, class Store = assign_op>
struct Part {
  using value_type = T;
  using run_type = R;
  const BasicPlan<R>* plan = nullptr;
  std::span<const T> src;
  std::span<T> dst;
  Store store{};
  Workspace* ws = nullptr;
  const SharedSegment* source = nullptr;
  index_t source_ld = 0;
};

template <class T, class R, class Store = assign_op>
Part<T, R, Store> part(const BasicPlan<R>& plan, std::span<const T> src, std::span<T> dst, Workspace& ws,
                       const Store& store = {}, const SharedSegment* source = nullptr, index_t source_ld = 0) {
  return {&plan, src, dst, store, &ws, source, source_ld};
}

namespace detail {
/// Calls f with the store operation of s (a StoreOp itself, or AnyStore's choice).
template <class S, class F>
void with_store(const S& s, F&& f) {
  if constexpr (StoreOp<S>) f(s);
  else s(f);
}
template <class S>
bool store_assigns(const S& s) noexcept {
  if constexpr (StoreOp<S>) return S::assigns;
  else return s.assigns();
}

/// Calls f(part) for parts[k] of a hana tuple (k known at run time).
template <class Parts, class F>
void visit_part(Parts& parts, std::size_t k, F&& f) {
  std::size_t j = 0;
  boost::hana::for_each(parts, [&](auto& p) {
    if (j++ == k) f(p);
  });
}
template <class Parts>
constexpr std::size_t count_parts() {
  return decltype(boost::hana::size(std::declval<Parts&>()))::value;
}

/// Calls f(at, n) for the MPI messages `bytes` at p go as: consecutive chunks of at most `chunk`
/// bytes (one, empty, for an empty message). Returns how many.
template <class Ptr, class F>
std::size_t for_each_chunk(Ptr p, std::size_t bytes, std::size_t chunk, F&& f) {
  std::size_t chunks = 0;
  do {
    const std::size_t n = std::min(bytes, chunk);
    f(p, static_cast<int>(n));
    p += n;
    bytes -= n;
    ++chunks;
  } while (bytes > 0);
  return chunks;
}

/// Receives `bytes` from peer into p as MPI messages of at most chunk bytes each, appending their
/// requests; returns how many it posted.
inline std::size_t post_receive(std::byte* p, std::size_t bytes, std::size_t chunk, int peer, MPI_Comm comm,
                                std::vector<MPI_Request>& requests, int tag) {
  return for_each_chunk(p, bytes, chunk, [&](std::byte* at, int n) {
    requests.emplace_back();
    check(MPI_Irecv(at, n, MPI_BYTE, peer, tag, comm, &requests.back()), "MPI_Irecv");
  });
}
/// Sends `bytes` at p to peer as MPI messages of at most chunk bytes each (the chunks of
/// post_receive), appending their requests.
inline void post_send(const std::byte* p, std::size_t bytes, std::size_t chunk, int peer, MPI_Comm comm,
                      std::vector<MPI_Request>& requests, int tag) {
  for_each_chunk(p, bytes, chunk, [&](const std::byte* at, int n) {
    requests.emplace_back();
    check(MPI_Isend(at, n, MPI_BYTE, peer, tag, comm, &requests.back()), "MPI_Isend");
  });
}

inline constexpr std::size_t segment_alignment = alignof(std::max_align_t);
inline std::size_t align_up(std::size_t n) noexcept {
  return (n + segment_alignment - 1) / segment_alignment * segment_alignment;
}

/// How a stage runs: its messages packed one by one (in pieces when the plan has them), the basic
/// cycles' one-pass pack, or MPI derived datatypes.
enum mode_t : int { by_messages = 0, by_cycles = 1, by_types = 2 };

/// How a stage of one plan runs on this rank: its mode and its rounds (of pieces under the scratch
/// budget, plan.piece), `per_round` cycles per round with the one-pass pack of basic cycles.
struct StageRounds {
  int mode = by_messages;
  index_t rounds = 1, per_round = 1;
};
/// The StageRounds of st: by MPI derived datatypes (`typed`: in one round), by the one-pass pack
/// of basic cycles when the stage has them (not on a node that holds every rank, whose copies do
/// it all), or by messages, in rounds of pieces.
template <class R>
StageRounds stage_rounds(const BasicPlan<R>& plan, const Stage<R>& st, bool typed, bool whole_node) {
  StageRounds r;
  if (typed) {
    r.mode = by_types;
  } else if (st.cycles && !st.forwards && (plan.piece == 0 || plan.piece >= st.cycles.quantum) && !whole_node) {
    // Every rank alike, whether its node copies or not: a message's packed order and its rounds
    // must be the same on both ends. A rank that copies from its node peers packs no message for
    // them and leaves its local sections to the node copy. On a node that holds every rank there
    // are no messages: the node copy does it all, and the pack's walk would only skip every element.
    r.mode = by_cycles;
    const index_t per = plan.piece == 0 ? std::max<index_t>(st.cycles.slots, 1) : plan.piece / st.cycles.quantum;
    r.rounds = std::max<index_t>(1, (st.cycles.slots + per - 1) / per);
    r.per_round = per;
  } else if (plan.piece > 0 && !st.forwards) {
    index_t longest = 0;
    for (const Message& m : st.sends) longest = std::max(longest, m.size);
    for (const Message& m : st.recvs) longest = std::max(longest, m.size);
    r.rounds = std::max<index_t>(1, (longest + plan.piece - 1) / plan.piece);
  }
  return r;
}

/// The most scratch bytes one round of stage st posted as one collective needs on this rank (every
/// message packed, none in place, the receives after the sends): what the decision holds
/// against the scratch budget before it times a collective wire. `rounds`: as many as every rank
/// runs (StageRounds' mode and pieces, plan.piece).
template <class R>
std::size_t collective_scratch(const BasicPlan<R>& plan, const Stage<R>& st, const StageRounds& sr, index_t rounds,
                               std::size_t elem) {
  std::size_t most = 0;
  for (index_t round = 0; round < std::max<index_t>(rounds, 1); ++round) {
    std::size_t bytes = 0;
    auto add = [&](const std::vector<Message>& list, const std::vector<index_t>* per_cycle) {
      for (std::size_t i = 0; i < list.size(); ++i) {
        const index_t size = list[i].size;
        index_t e = size;
        if (sr.mode == by_cycles) {
          const auto& c = st.cycles;
          const index_t a = std::min(c.slots, round * sr.per_round), b = std::min(c.slots, a + sr.per_round);
          e = c.elements_in((*per_cycle)[i], size, a, b);
        } else if (plan.piece > 0) {
          e = std::clamp<index_t>(size - round * plan.piece, 0, plan.piece);
        } else if (round > 0) {
          e = 0;
        }
        bytes += static_cast<std::size_t>(e) * elem;
      }
    };
    add(st.sends, &st.cycles.send_per_cycle);
    add(st.recvs, &st.cycles.recv_per_cycle);
    most = std::max(most, bytes);
    // By messages, a later round never holds more than the first.
    if (sr.mode != by_cycles) break;
  }
  return most;
}

/// The buffers of part p's stage: where its sends read and its receives and copies write.
template <class P>
auto* buffer_of(P& p, Buffer b) {
  using T = typename P::value_type;
  switch (b) {
    case Buffer::source: return const_cast<T*>(p.src.data());
    case Buffer::destination: return p.dst.data();
    case Buffer::intermediate: return reinterpret_cast<T*>(p.ws->intermediate.data());
    default: return reinterpret_cast<T*>(p.ws->relay.data());
  }
}

/// Node peers' pieces shorter than this (bytes, on average, contiguous in the source) are packed by
/// their sender and pulled as runs (pack, then pull) rather than pulled piece by piece: a receiver
/// pulling them loads nearly every cache line of its peer's source to take a part of each.
inline constexpr std::size_t staged_piece_bytes = 64;

/// Contiguous pieces of run r (or section s) in the source: how many separate reads pull it.
inline index_t source_pieces(const Run& r) noexcept {
  if (r.src_contiguous()) return 1;
  return r.len <= 1 || r.src_step == 1 ? r.count : r.size();
}
template <std::size_t D>
inline index_t source_pieces(const BasicSection<D>& s) noexcept {
  if (s.src_contiguous()) return 1;
  const auto n = nest_of(s, dense::none);
  // The loop contiguous in the source: the innermost, or an outer one (a transpose, which
  // copy_transposed reads in tiles of rows of 16 or more elements along it).
  for (std::size_t j = 0; j < n.depth; ++j)
    if (n.fs[j] == 1) {
      const index_t run = j == 0 ? n.count[0] : std::min<index_t>(n.count[j], 16);
      return std::max<index_t>(1, s.size() / std::max<index_t>(run, 1));
    }
  return std::max<index_t>(1, s.size());
}

/// The staging part's head: per node rank, where this rank's message to it starts in the data
/// (elements) and its elements; then whether the data was packed by basic cycles (1) or message by
/// message (0). The data follows at staging_head_bytes.
inline std::size_t staging_head_bytes(int node_size) noexcept {
  return align_up((2 * static_cast<std::size_t>(node_size) + 1) * sizeof(index_t));
}

/// Bytes of the staging part part p's stage needs on this rank (its messages to node peers), or 0
/// when the plan is not one stage of direct messages.
template <class P>
std::size_t staging_bytes(const P& p, const Node& node) {
  using T = typename P::value_type;
  if (p.plan->stages.size() != 1 || !p.plan->direct()) return 0;
  index_t elems = 0;
  for (const Message& m : p.plan->stages[0].sends)
    if (node.holds(m.peer)) elems += m.size;
  return staging_head_bytes(node.size) + static_cast<std::size_t>(elems) * sizeof(T);
}

/// Whether part p's messages from node peers are made of pieces shorter than staged_piece_bytes on
/// average (true also when it has none: it does not object), and whether it has any.
template <class P>
std::pair<bool, bool> short_node_pieces(const P& p, const Node& node) {
  using T = typename P::value_type;
  if (p.plan->stages.size() != 1) return {false, false};
  const auto& st = p.plan->stages[0];
  index_t elems = 0, pieces = 0;
  for (const Message& m : st.recvs) {
    if (!node.holds(m.peer)) continue;
    if (m.listed()) {
      elems += m.size;  // an element list: each element a read of its own
      pieces += m.size;
    }
    for (std::size_t k = m.first; k < m.first + m.nruns; ++k) {
      elems += st.runs[k].size();
      pieces += source_pieces(st.runs[k]);
    }
  }
  return {static_cast<std::size_t>(elems) * sizeof(T) < staged_piece_bytes * static_cast<std::size_t>(pieces), elems > 0};
}

/// short_node_pieces and staging_bytes of part p, computed once per plan and node (Workspace).
template <class P>
void node_facts(const P& p, const Node& node) {
  Workspace& ws = *p.ws;
  const void* key = p.plan->stages.empty() ? nullptr : p.plan->stages[0].identity();
  if (ws.node_facts_for == key && ws.node_facts_plan == p.plan && ws.node_facts_on == &node && key != nullptr) return;
  std::tie(ws.node_short, ws.node_any) = short_node_pieces(p, node);
  ws.node_staging_bytes = staging_bytes(p, node);
  ws.node_facts_for = key;
  ws.node_facts_plan = p.plan;
  ws.node_facts_on = &node;
}

/// Packs part p's messages to node peers into its staging part (the head, then each message's
/// elements in its packed order), in one pass over the source by basic cycles where the stage has
/// them, else message by message. False (nothing packed) when the staging part (which p's workspace
/// holds) is smaller than the plan needs.
template <class P>
bool pack_staging(P& p, const Node& node) {
  using T = typename P::value_type;
  Workspace& ws = *p.ws;
  node_facts(p, node);
  const std::size_t need = ws.node_staging_bytes;
  if (need == 0 || need > ws.staging->bytes()) return false;
  const auto& st = p.plan->stages[0];
  auto* head = reinterpret_cast<index_t*>(ws.staging->data());
  std::fill(head, head + 2 * node.size, index_t{0});
  T* data = reinterpret_cast<T*>(ws.staging->data() + staging_head_bytes(node.size));
  ws.staging_out.assign(st.sends.size(), nullptr);
  index_t at = 0;
  for (std::size_t i = 0; i < st.sends.size(); ++i) {
    const Message& m = st.sends[i];
    if (!node.holds(m.peer)) continue;
    const auto r = static_cast<std::size_t>(node.rank_of[static_cast<std::size_t>(m.peer)]);
    head[2 * r] = at;
    head[2 * r + 1] = m.size;
    ws.staging_out[i] = reinterpret_cast<std::byte*>(data + at);
    at += m.size;
  }
  const bool cycles = st.cycles && !st.forwards;
  head[2 * node.size] = cycles ? 1 : 0;
  if (cycles) {
    const auto& c = st.cycles;
    pack_cycles<T>(c, 0, c.slots, p.src.data(), static_cast<index_t>(p.src.size()),
                   reinterpret_cast<T**>(ws.staging_out.data()), nullptr);
  } else {
    for (std::size_t i = 0; i < st.sends.size(); ++i)
      if (ws.staging_out[i] != nullptr) pack_message(st, i, p.src.data(), reinterpret_cast<T*>(ws.staging_out[i]));
  }
  return true;
}

/// The local runs of stage st, and the messages from node peers unpacked from their staging parts
/// (pack, then pull: Workspace::staged), into dst, stored by op (the local runs assigned with
/// ws.local_assigns).
template <class T, class R, class Op = assign_op>
void copy_local_and_staged(const Stage<R>& st, std::span<const T> src, std::span<T> dst, Workspace& ws, const Node& node,
                           const Op& op = {}) {
  if (ws.local_assigns && !Op::assigns) copy_message(st, st.local, src.data(), dst.data());
  else copy_message(st, st.local, src.data(), dst.data(), op);
  const auto me = static_cast<std::size_t>(node.rank);
  const bool cycles = st.cycles && !st.forwards;
  ws.staging_in.assign(st.recvs.size(), nullptr);
  for (std::size_t j = 0; j < st.recvs.size(); ++j) {
    const Message& m = st.recvs[j];
    if (!node.holds(m.peer)) continue;
    const std::byte* part = ws.staging->peer(m.peer);
    const auto* head = reinterpret_cast<const index_t*>(part);
    REDIST_EXPECTS(head[2 * me + 1] == m.size && (head[2 * node.size] == 1) == cycles,
                   "redist: a node peer's staged message differs from this rank's plan of it: internal error");
    ws.staging_in[j] = part + staging_head_bytes(node.size) + static_cast<std::size_t>(head[2 * me]) * sizeof(T);
  }
  if (cycles) {
    const auto& c = st.cycles;
    unpack_cycles<T>(c, 0, c.slots, reinterpret_cast<const T**>(ws.staging_in.data()), dst.data(),
                     static_cast<index_t>(dst.size()), op);
  } else {
    for (std::size_t j = 0; j < st.recvs.size(); ++j)
      if (ws.staging_in[j] != nullptr)
        unpack_message(st, j, reinterpret_cast<const T*>(ws.staging_in[j]), dst.data(), 0, -1, op);
  }
}

/// The local runs of stage st and the runs it receives from peers on `node`'s node, copied
/// straight from src and from those peers' source arrays (in the window `node`) into dst, in one
/// gathered pass through dst. The items depend on the plan and the source arrays: rebuilt and
/// ordered (in ws) only when those change, so a repeated b = a between the same arrays only copies.
/// Each element is stored by op (a scaled update's, or a fold of partial values' contributions);
/// with ws.local_assigns, the local runs are assigned first, then the peers' pieces stored by op.
template <class T, class R, class Op = assign_op>
void copy_local_and_node(const Stage<R>& st, const void* plan, std::span<const T> src, std::span<T> dst, Workspace& ws,
                         const SharedSegment& node, const Op& op = {}) {
  auto on_node = [&](const Message& m) { return node.node().holds(m.peer); };
  const bool first = ws.local_assigns && !Op::assigns;
  if (first) copy_message(st, st.local, src.data(), dst.data());
  ws.copy_from.clear();
  ws.copy_from.push_back(plan);
  ws.copy_from.push_back(st.identity());
  ws.copy_from.push_back(src.data());
  ws.copy_from.push_back(first ? &ws : nullptr);  // the local runs among the items, or copied first
  for (const Message& m : st.recvs)
    if (on_node(m)) ws.copy_from.push_back(node.peer(m.peer));
  if (ws.copy_from != ws.copied_from) {
    ws.copies.clear();
    auto gather = [&](const Message& m, const T* from) {
      for (std::size_t k = m.first; k < m.first + m.nruns; ++k) ws.copies.push_back(copy_item(st.runs[k], k, from));
    };
    if (!first) gather(st.local, src.data());
    for (const Message& m : st.recvs)
      if (on_node(m)) gather(m, reinterpret_cast<const T*>(node.peer(m.peer)));
    ws.copies_alone = order_gathered(std::span<CopyItem>(ws.copies));
    ws.copied_from = ws.copy_from;
  }
  copy_gathered<T>(std::span<const R>(st.runs), std::span<const CopyItem>(ws.copies), ws.copies_alone, dst.data(), op);
  // Element lists (no copy items: an item per element would be larger than the list), after the
  // runs: the local one unless copied first, then the node peers'.
  if (!first && st.local.listed()) copy_message(st, st.local, src.data(), dst.data(), op);
  for (const Message& m : st.recvs)
    if (m.listed() && on_node(m)) copy_message(st, m, reinterpret_cast<const T*>(node.peer(m.peer)), dst.data(), op);
}

/// Makes part p's Aggregation (Wire::node_aggregated) for the node partition `nodes`: its node's
/// ranks tell each other their messages to and from other nodes (an all-gather on the node), then
/// each works out the node pairs it leads and where every message of its node is packed or is to be
/// read, and makes its part of a node window for them. Collective on the node; the plan must be one
/// stage of direct messages with one message per peer each way.
template <class P>
void make_aggregation(P& p, const Node& nodes) {
  using T = typename P::value_type;
  Aggregation& ag = p.ws->aggregation;
  const auto& st = p.plan->stages[0];
  // This rank's messages to and from other nodes: counts, then (peer, bytes) pairs, sends first.
  std::vector<long long> mine{0, 0};
  for (int send = 1; send >= 0; --send)
    for (const Message& m : send ? st.sends : st.recvs)
      if (!nodes.holds(m.peer) && m.size > 0) {
        mine.push_back(m.peer);
        mine.push_back(static_cast<long long>(m.size) * static_cast<long long>(sizeof(T)));
        ++mine[send ? 0 : 1];
      }
  const auto size = static_cast<std::size_t>(nodes.size);
  std::vector<int> counts(size), displs(size);
  int count = static_cast<int>(mine.size());
  check(MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, nodes.comm), "MPI_Allgather");
  int total = 0;
  for (std::size_t r = 0; r < size; ++r) displs[r] = std::exchange(total, total + counts[r]);
  std::vector<long long> all(static_cast<std::size_t>(total));
  check(MPI_Allgatherv(mine.data(), count, MPI_LONG_LONG, all.data(), counts.data(), displs.data(), MPI_LONG_LONG,
                       nodes.comm),
        "MPI_Allgatherv");
  // Per node rank r (in parent-rank order, as the node's members): its sends' and receives'
  // (peer, bytes, offset in its part), and its part's layout.
  struct Entry {
    int peer;
    std::size_t bytes, at;
  };
  const std::span<const int> members = nodes.members_of(nodes.index);
  const int here = nodes.index;
  std::vector<std::vector<Entry>> sends(size), recvs(size);
  std::vector<std::size_t> part_bytes(size);
  for (std::size_t q = 0; q < size; ++q) {
    const auto r = static_cast<std::size_t>(nodes.rank_of[static_cast<std::size_t>(members[q])]);
    const long long* a = all.data() + displs[r];
    std::size_t at = Aggregation::flag_bytes;  // the part's barrier flag first
    for (long long e = 0; e < a[0] + a[1]; ++e) {
      const auto peer = static_cast<int>(a[2 + 2 * e]);
      const auto bytes = static_cast<std::size_t>(a[3 + 2 * e]);
      if (e < a[0]) sends[q].push_back({peer, bytes, std::exchange(at, at + bytes)});
      else recvs[q].push_back({peer, bytes, 0});
    }
    // Receives in ascending peers (a node pair's message holds, per receiver, its senders in order).
    std::sort(recvs[q].begin(), recvs[q].end(), [](const Entry& x, const Entry& y) { return x.peer < y.peer; });
    REDIST_EXPECTS(std::adjacent_find(recvs[q].begin(), recvs[q].end(),
                                      [](const Entry& x, const Entry& y) { return x.peer == y.peer; }) == recvs[q].end(),
                   "redist: Wire::node_aggregated requires one message per peer each way");
    part_bytes[q] = align_up(at);  // the receives a leader holds follow its sends
  }
  auto leader = [&](int from, int to, bool sending) {
    const std::span<const int> m = nodes.members_of(sending ? from : to);
    const auto w = static_cast<int>(m.size());
    return m[static_cast<std::size_t>(sending ? to % w : (from + 1) % w)];
  };
  std::size_t self = 0;  // this rank among the node's members
  while (nodes.rank_of[static_cast<std::size_t>(members[self])] != nodes.rank) ++self;
  const int me = members[self];
  ag.pieces.clear();
  ag.outs.clear();
  ag.ins.clear();
  // Sending: per destination node B (ascending) this node's leader gathers, per rank of B
  // (ascending), each of this node's ranks' message to it.
  std::vector<int> others;
  for (const auto& v : sends)
    for (const Entry& e : v) others.push_back(nodes.node_index[static_cast<std::size_t>(e.peer)]);
  std::sort(others.begin(), others.end());
  others.erase(std::unique(others.begin(), others.end()), others.end());
  std::size_t out_bytes = 0;
  for (int b : others) {
    if (leader(here, b, true) != me) continue;
    Aggregation::Pair pair{leader(here, b, false), 0, ag.pieces.size(), 0, out_bytes};
    for (int to : nodes.members_of(b))
      for (std::size_t q = 0; q < size; ++q)
        for (const Entry& e : sends[q])
          if (e.peer == to) {
            ag.pieces.push_back({members[q], e.at, e.bytes});
            pair.bytes += e.bytes;
          }
    pair.count = ag.pieces.size() - pair.first;
    out_bytes += pair.bytes;
    ag.outs.push_back(pair);
  }
  // Receiving: per source node A (ascending), B's leader's part holds, per rank of B (ascending),
  // each of A's ranks' messages to it (ascending).
  others.clear();
  for (const auto& v : recvs)
    for (const Entry& e : v) others.push_back(nodes.node_index[static_cast<std::size_t>(e.peer)]);
  std::sort(others.begin(), others.end());
  others.erase(std::unique(others.begin(), others.end()), others.end());
  std::vector<std::pair<int, std::size_t>> where;  // per (peer) of this rank's receives: leader, offset
  std::vector<int> where_peer;
  for (int a : others) {
    const int lead = leader(a, here, false);
    const std::size_t q_lead = static_cast<std::size_t>(std::find(members.begin(), members.end(), lead) - members.begin());
    const std::size_t start = part_bytes[q_lead];
    std::size_t at = start;
    for (std::size_t q = 0; q < size; ++q)
      for (const Entry& e : recvs[q])  // ascending peers: A's ranks in order
        if (nodes.node_index[static_cast<std::size_t>(e.peer)] == a) {
          if (q == self) {
            where_peer.push_back(e.peer);
            where.emplace_back(lead, at);
          }
          at += e.bytes;
        }
    part_bytes[q_lead] = at;
    if (lead == me) ag.ins.push_back({leader(a, here, true), at - start, 0, 0, start});
  }
  // Where this rank's own messages are.
  ag.send_at.assign(st.sends.size(), Aggregation::none);
  for (std::size_t i = 0; i < st.sends.size(); ++i)
    for (const Entry& e : sends[self])
      if (e.peer == st.sends[i].peer && !nodes.holds(st.sends[i].peer)) ag.send_at[i] = e.at;
  ag.recv_at.assign(st.recvs.size(), {-1, Aggregation::none});
  for (std::size_t j = 0; j < st.recvs.size(); ++j)
    for (std::size_t w = 0; w < where_peer.size(); ++w)
      if (where_peer[w] == st.recvs[j].peer) ag.recv_at[j] = where[w];
  ag.window.reset();
  ag.window = std::make_unique<SharedSegment>(nodes.shared_from_this(), part_bytes[self], 1);
  std::memset(ag.window->data(), 0, part_bytes[self]);  // flags at 0 (no barrier entered), pages first touched
  ag.epoch = 0;
  ag.flags.clear();
  for (int r : members)
    if (r != me) ag.flags.push_back(reinterpret_cast<std::uint64_t*>(const_cast<std::byte*>(ag.window->peer(r))));
  // Every rank's flag is zeroed before any rank enters a barrier on it.
  check(MPI_Barrier(nodes.comm), "MPI_Barrier");
  ag.out.reserve(out_bytes);
  ag.requests.reserve(ag.outs.size() + ag.ins.size());
  ag.made_for = st.identity();
  ag.plan = p.plan;
  ag.on = &nodes;
}

// The plan's collective patterns (plan/collective.hpp).
using redist::detail::gathers;
using redist::detail::reduce_scratch;
using redist::detail::reduces;
using redist::detail::reduces_straight;
using redist::detail::same_source;

/// The predefined MPI operation of a store that folds partial values (fold_op of std::plus,
/// std::multiplies, redist::min_op or redist::max_op) on elements of type T, an arithmetic type
/// MPI knows: `exists` and op(); none for any other store or type (no reduction wire then).
template <class T, class Store>
struct mpi_reduction {
  static constexpr bool exists = false;
  static MPI_Op op() noexcept { return MPI_OP_NULL; }
};
/// 1 sum, 2 product, 3 min, 4 max; 0 for another fold.
template <class T, class Op>
constexpr int fold_kind() noexcept {
  if constexpr (std::is_same_v<Op, std::plus<>> || std::is_same_v<Op, std::plus<T>>) return 1;
  else if constexpr (std::is_same_v<Op, std::multiplies<>> || std::is_same_v<Op, std::multiplies<T>>) return 2;
  else if constexpr (std::is_same_v<Op, redist::min_op>) return 3;
  else if constexpr (std::is_same_v<Op, redist::max_op>) return 4;
  else return 0;
}
template <class T, class Op>
  requires(std::is_arithmetic_v<T> && !std::is_same_v<T, bool> && boost::mpi::is_mpi_builtin_datatype<T>::value &&
           fold_kind<T, Op>() != 0)
struct mpi_reduction<T, fold_op<Op>> {
  static constexpr bool exists = true;
  static MPI_Op op() noexcept {
    constexpr int k = fold_kind<T, Op>();
    return k == 1 ? MPI_SUM : k == 2 ? MPI_PROD : k == 3 ? MPI_MIN : MPI_MAX;
  }
};

/// Collective over comm: makes r.group, the communicator of this rank and its peers, when on every
/// rank the plan is one direct stage whose part `mine_of` accepts (gathers, or a reduction of the kind
/// `wire`), within groups whose members all name the same group and agree on `salt` (what the
/// members must agree on besides); returns whether they do, alike on every rank (a plan whose
/// groups overlap, or a rank that receives from ranks it does not send to, makes none).
template <class R, class Mine>
bool make_group(const BasicPlan<R>& plan, MPI_Comm comm, WireResources& r, Wire wire, Mine&& mine_of) {
  r.release_group();
  const Stage<R>* st = plan.direct() && plan.stages.size() == 1 ? &plan.stages.front() : nullptr;
  std::uint64_t salt = 0;
  const bool mine = st != nullptr && mine_of(*st, salt);
  std::vector<int> members{plan.rank};
  if (mine)
    for (const Message& m : st->sends) members.push_back(m.peer);
  std::sort(members.begin(), members.end());
  std::uint64_t h = redist::detail::hash_mix(redist::detail::hash_seed, salt);
  for (int q : members) h = redist::detail::hash_mix(h, static_cast<std::uint64_t>(q));
  MPI_Comm g = MPI_COMM_NULL;
  detail::check(MPI_Comm_split(comm, members.front(), plan.rank, &g), "MPI_Comm_split");
  int size = 0;
  detail::check(MPI_Comm_size(g, &size), "MPI_Comm_size");
  // The group's members agree when the least hash and the least complement are this rank's.
  std::uint64_t least[2] = {h, ~h};
  detail::check(MPI_Allreduce(MPI_IN_PLACE, least, 2, MPI_UINT64_T, MPI_MIN, g), "MPI_Allreduce");
  int ok = mine && static_cast<std::size_t>(size) == members.size() && least[0] == h && least[1] == ~h ? 1 : 0;
  detail::check(MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
  if (!ok) {
    MPI_Comm_free(&g);
    return false;
  }
  r.group = g;
  r.group_of = comm;
  r.group_for = st->identity();
  r.members = std::move(members);
  r.group_wire = wire;
  return true;
}

/// Wire::allgatherv, collective over comm: makes r.group when on every rank the plan is one direct
/// stage that gathers (gathers) within groups (make_group).
template <class R>
bool make_gather_group(const BasicPlan<R>& plan, MPI_Comm comm, WireResources& r) {
  return make_group(plan, comm, r, Wire::allgatherv, [](const Stage<R>& st, std::uint64_t&) { return gathers(st); });
}

/// Wire::allreduce or Wire::reduce_scatter (`wire`), collective over comm: makes r.group when on
/// every rank the plan is one direct stage that reduces so (reduces) within groups whose members
/// agree on each member's elements (r.reduce_counts, in member order: the local copy's for this
/// rank, each send's for its peer), which fit an int; r.reduce_sends keeps which send goes to each
/// member, so that a run packs its contributions in member order without a search.
template <class R>
bool make_reduce_group(const BasicPlan<R>& plan, MPI_Comm comm, WireResources& r, Wire wire) {
  std::vector<int> counts, sends;
  const bool made = make_group(plan, comm, r, wire, [&](const Stage<R>& st, std::uint64_t& salt) {
    if (reduces(st) != wire) return false;
    struct Part {
      int peer;
      index_t size;
      int send;  // -1: the local copy
    };
    std::vector<Part> of{{plan.rank, st.local.size, -1}};
    for (std::size_t i = 0; i < st.sends.size(); ++i)
      of.push_back({st.sends[i].peer, st.sends[i].size, static_cast<int>(i)});
    std::sort(of.begin(), of.end(), [](const Part& a, const Part& b) { return a.peer < b.peer; });
    salt = static_cast<std::uint64_t>(wire);
    for (const Part& x : of) {
      if (x.size > INT_MAX) return false;
      counts.push_back(static_cast<int>(x.size));
      sends.push_back(x.send);
      salt = redist::detail::hash_mix(salt, static_cast<std::uint64_t>(x.size));
    }
    return true;
  });
  if (made) {
    r.reduce_counts = std::move(counts);
    r.reduce_sends = std::move(sends);
  }
  return made;
}

/// The running of a list of parts (a hana tuple of Part) by one ExchangeState. Units are run one
/// after the other: for one part, per stage and round of the budget, a group of steps (or, with
/// the one-pass pack of basic cycles, every group of a round, posted group by group); several
/// parts (a fused list) run in one unit of one group, their messages to one peer fused into one.
/// In each group, in the order of COSTA's exchange_async: post receives, pack, post sends, copy
/// the local pieces (once per stage) while messages are in flight, unpack each receive as it
/// arrives, wait for the sends.
template <class Parts>
class Runner {
 public:
  static constexpr std::size_t K = count_parts<Parts>();

  Runner(Parts& parts, ExchangeState& s, MPI_Comm comm, std::size_t chunk, int tag)
      : parts_{parts}, s_{s}, comm_{comm}, chunk_{chunk}, tag_{tag} {}

  /// Starts the exchange: posts its first group. `node`: the ranks of this node agreed to copy
  /// from each other's sources (agree_on_node). `blocking`: advance(true) follows at once.
  void start(const Node* node, bool blocking = false) {
    REDIST_EXPECTS(!s_.in_flight, "redist: an exchange was started again before it completed");
    if constexpr (K > 1) {
      bool direct = true;
      boost::hana::for_each(parts_, [&](auto& p) { direct = direct && p.plan->direct(); });
      REDIST_EXPECTS(direct, "redist::runtime::start(parts): a fused list requires plans of one stage of direct messages");
    }
    s_.in_flight = true;
    s_.node = node;
    s_.blocking = blocking && !s_.nonblocking;
    s_.stage = 0;
    s_.posted = false;
    s_.messages_sent = s_.messages_received = s_.bytes_sent = 0;
    s_.node_barrier = MPI_REQUEST_NULL;
    s_.collective = false;
    s_.aggregating = false;
    s_.stages = 0;
    boost::hana::for_each(parts_, [&](auto& p) { s_.stages = std::max(s_.stages, p.plan->stages.size()); });
    if (begin_stage()) post_group();
  }

  /// Advances the exchange; with `block`, to its end. True once everything has arrived, every
  /// send has completed and (on a node) every peer is done reading this rank's sources.
  bool advance(bool block) {
    while (s_.in_flight) {
      if (s_.posted) {
        if (s_.aggregating && !progress_aggregation(block)) return false;
        if (s_.collective ? !progress_collective(block) : (!progress_receives(block) || !progress_sends(block)))
          return false;
        s_.posted = false;
        end_group();
        continue;
      }
      if (s_.stage == s_.stages) {
        int read = 1;
        if (block) check(MPI_Wait(&s_.node_barrier, MPI_STATUS_IGNORE), "MPI_Wait");
        else check(MPI_Test(&s_.node_barrier, &read, MPI_STATUS_IGNORE), "MPI_Test");
        if (!read) return false;
        s_.in_flight = false;
        break;
      }
      post_group();
    }
    return true;
  }

 private:
  /// Sets up stage s_.stage: its mode, rounds and groups, and its buffers. False when none is left.
  bool begin_stage() {
    if (s_.stage >= s_.stages) return false;
    s_.round = 0;
    s_.group = 0;
    s_.copied = false;
    s_.mode = by_messages;
    s_.rounds = 1;
    s_.groups = 1;
    s_.aggregating = false;
    if constexpr (K == 1) {
      auto& p = boost::hana::at_c<0>(parts_);
      const auto& plan = *p.plan;
      const auto& st = plan.stages[s_.stage];
      using T = typename std::remove_cvref_t<decltype(p)>::value_type;
      if (st.relay > 0) p.ws->relay.reserve(static_cast<std::size_t>(st.relay) * sizeof(T));
      if (plan.intermediate > 0) p.ws->intermediate.reserve(static_cast<std::size_t>(plan.intermediate) * sizeof(T));
      // Aggregated between nodes (its node barriers are flags in the plan's own window: several
      // exchanges may be in flight, as with every wire).
      const bool aggregate = s_.wire == Wire::node_aggregated && s_.nodes != nullptr && !s_.nodes->whole();
      const bool typed = p.ws->typed && plan.direct() && store_assigns(p.store) && !aggregate && s_.wire != Wire::allgatherv &&
                         !reducing();
      const StageRounds sr = stage_rounds(plan, st, typed, s_.node != nullptr && s_.node->whole());
      s_.mode = sr.mode;
      s_.rounds = sr.rounds;
      s_.per_round = sr.per_round;
      if (typed) p.ws->types.build(st, sizeof(T));
      s_.group_steps.clear();
      redist::detail::for_each_group(st.schedule, [&](std::size_t a, std::size_t b) { s_.group_steps.emplace_back(a, b); });
      if (s_.group_steps.empty()) s_.group_steps.emplace_back(0, 0);
      s_.groups = s_.group_steps.size();
      // A collective wire posts the stage's messages of a round at once, whatever its schedule
      // (none on a node that holds every rank: every rank alike copies). The decision chooses it
      // only for a direct plan whose rounds it agreed (measure.hpp's time_transports).
      s_.collective = (s_.wire == Wire::alltoallv || s_.wire == Wire::neighbor || s_.wire == Wire::allgatherv || reducing()) &&
                      !(s_.node != nullptr && s_.node->whole());
      // A reduction packs and unpacks its contribution by runs itself (post_reduce), in one round.
      if (s_.collective && reducing()) {
        s_.mode = by_messages;
        s_.rounds = 1;
      }
      if (s_.collective) {
        // As many rounds on every rank (the most of any, agreed by the decision): one collective each.
        REDIST_EXPECTS(plan.direct() && s_.rounds <= s_.collective_rounds,
                       "redist: a collective wire requires a plan of direct messages and its rounds agreed (the decision's choice)");
        if (s_.mode != by_types) s_.rounds = s_.collective_rounds;
        s_.group_steps.assign(1, {std::size_t{0}, st.schedule.size()});
        s_.groups = 1;
      }
      if (aggregate) {
        // Every rank of the node alike (the decision chose it for a direct plan of one round on every rank).
        REDIST_EXPECTS(plan.direct() && s_.rounds == 1,
                       "redist: Wire::node_aggregated requires a plan of direct messages in one round (the decision's choice)");
        s_.aggregating = true;
        s_.group_steps.assign(1, {std::size_t{0}, st.schedule.size()});
        s_.groups = 1;
        const Aggregation& ag = p.ws->aggregation;
        if (ag.window == nullptr || ag.made_for != st.identity() || ag.plan != p.plan ||
            ag.on != s_.nodes.get())
          make_aggregation(p, *s_.nodes);  // collective on the node: every rank's first run of this plan
      }
    }
    return true;
  }

  /// The groups laid out at once: with the one-pass pack, every group of the round; else one.
  std::size_t unit_groups() const noexcept { return s_.mode == by_cycles ? s_.groups : 1; }
  /// The steps [first, last) of a part's stage in group `sub` of the unit: every step for a fused
  /// list; for one part, that group.
  std::pair<std::size_t, std::size_t> steps_of(std::size_t nsteps, std::size_t sub) const {
    if constexpr (K > 1) return {0, nsteps};
    else return s_.group_steps[s_.mode == by_cycles ? sub : s_.group];
  }

  /// The elements [lo, hi) of a message of `size` elements this round moves.
  template <class P>
  std::pair<index_t, index_t> range_of(const P& p, const Stage<typename P::run_type>& st, std::size_t i, bool send,
                                       index_t size) const {
    if constexpr (K > 1) {
      return {0, size};
    } else {
      const index_t piece = p.plan->piece;
      if (s_.mode == by_cycles) {
        const auto& c = st.cycles;
        const index_t a = std::min(c.slots, s_.round * s_.per_round), b = std::min(c.slots, a + s_.per_round);
        const index_t lo = c.elements_in(send ? c.send_per_cycle[i] : c.recv_per_cycle[i], size, 0, a);
        return {lo, lo + c.elements_in(send ? c.send_per_cycle[i] : c.recv_per_cycle[i], size, a, b)};
      }
      if (s_.mode == by_types || piece == 0 || st.forwards) return {s_.round == 0 ? 0 : size, size};
      return {std::min(size, s_.round * piece), std::min(size, (s_.round + 1) * piece)};
    }
  }

  /// Lays out and posts the next group: in a new unit, collects its messages (per part, the steps of
  /// the group), fuses them per peer for several parts, and places them in the scratch.
  void post_group() {
    if (s_.mode != by_cycles || s_.group == 0) layout_unit();
    const std::size_t sub = s_.mode == by_cycles ? s_.group : 0;
    if (s_.collective) return post_collective();
    // Persistent requests, (re)made when this unit's messages differ from those they were made for.
    WireResources::Unit* unit = nullptr;
    if constexpr (K == 1)
      if (s_.wire == Wire::persistent) unit = &persistent_unit(sub);
    // Post receives.
    s_.recv_requests.clear();
    s_.owner.clear();
    s_.left = 0;
    for (std::size_t j = 0; j < s_.recvs.size(); ++j) {
      WireMessage& w = s_.recvs[j];
      if (w.group != sub) continue;
      if (unit != nullptr) {
        w.pending = start_persistent(unit->recvs, unit->at[j], s_.recv_requests);
        s_.owner.insert(s_.owner.end(), w.pending, j);
      } else if (s_.mode == by_types) {
        visit_part(parts_, s_.recv_segments[w.first].part, [&](auto& p) {
          s_.recv_requests.emplace_back();
          check(MPI_Irecv(p.dst.data(), 1, p.ws->types.recv(s_.recv_segments[w.first].index), w.peer, tag_, comm_,
                          &s_.recv_requests.back()),
                "MPI_Irecv");
        });
        s_.owner.push_back(j);
        w.pending = 1;
      } else {
        w.pending = post_receive(w.data, w.bytes, chunk_, w.peer, comm_, s_.recv_requests, tag_);
        s_.owner.insert(s_.owner.end(), w.pending, j);
      }
      ++s_.left;
      ++s_.messages_received;
    }
    // Pack (the one-pass pack packs the whole unit before its first group), and post sends.
    if (s_.mode == by_cycles && sub == 0) pack_cycles_unit();
    if (s_.aggregating) begin_aggregation();
    s_.send_requests.clear();
    for (std::size_t j = 0; j < s_.sends.size(); ++j) {
      WireMessage& w = s_.sends[j];
      if (w.group != sub) continue;
      if (unit != nullptr) {
        if (!w.in_place && s_.mode == by_messages) pack_wire(w);
        start_persistent(unit->sends, unit->at[s_.recvs.size() + j], s_.send_requests);
      } else if (s_.mode == by_types) {
        visit_part(parts_, s_.send_segments[w.first].part, [&](auto& p) {
          s_.send_requests.emplace_back();
          check(MPI_Isend(p.src.data(), 1, p.ws->types.send(s_.send_segments[w.first].index), w.peer, tag_, comm_,
                          &s_.send_requests.back()),
                "MPI_Isend");
        });
      } else {
        if (!w.in_place && s_.mode != by_cycles) pack_wire(w);
        post_send(w.data, w.bytes, chunk_, w.peer, comm_, s_.send_requests, tag_);
      }
      ++s_.messages_sent;
      s_.bytes_sent += w.bytes;
    }
    // Copy: the local pieces (and the node peers'), once per stage, while the messages are in flight.
    if (!s_.copied) copy_local();
    s_.posted = true;
  }

  /// Starts a wire's persistent requests [at.first, at.first + at.second) of `from`, appending them
  /// to `requests` (MPI marks them inactive when they complete; MPI_Waitany and MPI_Testsome then
  /// skip them). Returns how many.
  static std::size_t start_persistent(std::vector<MPI_Request>& from, std::pair<std::size_t, std::size_t> at,
                                      std::vector<MPI_Request>& requests) {
    for (std::size_t k = at.first; k < at.first + at.second; ++k) {
      check(MPI_Start(&from[k]), "MPI_Start");
      requests.push_back(from[k]);
    }
    return at.second;
  }

  /// The persistent requests of the unit in flight (one part; Wire::persistent): made again when
  /// its messages' buffers, sizes, types or peers, or the communicator, tag or chunk size, differ
  /// from those they were made for (a repeated b = a between the same arrays makes none).
  WireResources::Unit& persistent_unit(std::size_t sub) {
    auto& r = s_.wire_resources;
    auto& p = boost::hana::at_c<0>(parts_);
    const std::size_t per_round = s_.mode == by_cycles ? 1 : s_.groups;
    const std::size_t u = static_cast<std::size_t>(s_.round) * per_round + (s_.mode == by_cycles ? 0 : s_.group);
    if (r.made_on != comm_ || r.tag != tag_ || r.chunk != chunk_) {
      r.release_requests();
      r.made_on = comm_;
      r.tag = tag_;
      r.chunk = chunk_;
    }
    if (r.units.size() <= u) r.units.resize(u + 1);
    WireResources::Unit& unit = r.units[u];
    if (s_.mode == by_cycles && sub > 0) return unit;  // made with the round's first group
    auto key = [&](const WireMessage& w, bool send) {
      WireResources::Key k{w.peer, w.data, w.bytes, MPI_BYTE};
      if (s_.mode == by_types) {
        const WireSegment& g = (send ? s_.send_segments : s_.recv_segments)[w.first];
        k.data = send ? reinterpret_cast<const std::byte*>(p.src.data()) : reinterpret_cast<const std::byte*>(p.dst.data());
        k.type = send ? p.ws->types.send(g.index) : p.ws->types.recv(g.index);
      }
      return k;
    };
    r.probe.clear();
    for (const WireMessage& w : s_.recvs) r.probe.push_back(key(w, false));
    for (const WireMessage& w : s_.sends) r.probe.push_back(key(w, true));
    if (r.probe == unit.keys) return unit;
    r.release_unit(unit);
    unit.keys = r.probe;
    for (std::size_t j = 0; j < r.probe.size(); ++j) {
      const WireResources::Key& k = r.probe[j];
      const bool send = j >= s_.recvs.size();
      auto& reqs = send ? unit.sends : unit.recvs;
      const std::size_t first = reqs.size();
      if (k.type != MPI_BYTE) {
        reqs.emplace_back();
        if (send)
          check(MPI_Send_init(k.data, 1, k.type, k.peer, tag_, comm_, &reqs.back()), "MPI_Send_init");
        else
          check(MPI_Recv_init(const_cast<std::byte*>(k.data), 1, k.type, k.peer, tag_, comm_, &reqs.back()), "MPI_Recv_init");
      } else {
        // The chunks of post_receive and post_send.
        for_each_chunk(k.data, k.bytes, chunk_, [&](const std::byte* at, int n) {
          reqs.emplace_back();
          if (send)
            check(MPI_Send_init(at, n, MPI_BYTE, k.peer, tag_, comm_, &reqs.back()), "MPI_Send_init");
          else
            check(MPI_Recv_init(const_cast<std::byte*>(at), n, MPI_BYTE, k.peer, tag_, comm_, &reqs.back()), "MPI_Recv_init");
        });
      }
      unit.at.emplace_back(first, reqs.size() - first);
    }
    return unit;
  }

  /// Posts the round's messages as one collective (Wire::alltoallv or Wire::neighbor; one part, a
  /// direct plan): packed ones from and into the scratch (MPI_Ialltoallv, or
  /// MPI_Ineighbor_alltoallv over the graph of the stage's peers), derived datatypes over the arrays
  /// (MPI_Ialltoallw, MPI_Ineighbor_alltoallw); then copies the local pieces while it runs.
  void post_collective() {
    if constexpr (K == 1) {
      auto& p = boost::hana::at_c<0>(parts_);
      const auto& st = p.plan->stages[s_.stage];
      if (s_.wire == Wire::allgatherv) return post_gather(p, st);
      if (reducing()) return post_reduce(p, st);
      auto& r = s_.wire_resources;
      const bool graph = s_.wire == Wire::neighbor;
      const bool typed = s_.mode == by_types;
      MPI_Comm c = comm_;
      std::size_t nout = 0, nin = 0;
      if (graph) {
        if (r.graph == MPI_COMM_NULL || r.graph_of != comm_ || r.graph_for != st.identity()) {
          // Collective over comm: every rank's first run on this wire makes it.
          r.release_graph();
          for (const Message& m : st.recvs) r.sources.push_back(m.peer);
          for (const Message& m : st.sends) r.destinations.push_back(m.peer);
          for (auto* v : {&r.sources, &r.destinations}) {
            std::sort(v->begin(), v->end());
            v->erase(std::unique(v->begin(), v->end()), v->end());
          }
          r.make_graph(comm_);
          r.graph_for = st.identity();
        }
        c = r.graph;
        nout = r.destinations.size();
        nin = r.sources.size();
      } else {
        int size = 0;
        check(MPI_Comm_size(comm_, &size), "MPI_Comm_size");
        nout = nin = static_cast<std::size_t>(size);
      }
      auto slot = [&](int peer, bool send) {
        if (!graph) return static_cast<std::size_t>(peer);
        const auto& v = send ? r.destinations : r.sources;
        return static_cast<std::size_t>(std::lower_bound(v.begin(), v.end(), peer) - v.begin());
      };
      r.send_counts.assign(nout, 0);
      r.recv_counts.assign(nin, 0);
      r.send_displs.assign(nout, 0);
      r.recv_displs.assign(nin, 0);
      if (typed) {
        r.send_types.assign(nout, MPI_BYTE);
        r.recv_types.assign(nin, MPI_BYTE);
        r.send_adispls.assign(nout, 0);
        r.recv_adispls.assign(nin, 0);
      }
      // The receives' region of the scratch starts where layout_unit placed the first of them,
      // after the sends'. MPI forbids the two buffers to alias: without sends, the send buffer is
      // another (nothing is read from it).
      static const std::byte no_sends{};
      std::byte* const base = s_.buffer.data();
      std::byte* const recv_base = base + s_.collective_recv_offset;
      const std::byte* const send_base = s_.collective_recv_offset == 0 ? &no_sends : base;
      s_.left = 0;
      for (std::size_t j = 0; j < s_.recvs.size(); ++j) {
        WireMessage& w = s_.recvs[j];
        const std::size_t k = slot(w.peer, false);
        if (typed) {
          r.recv_counts[k] = 1;
          r.recv_types[k] = p.ws->types.recv(s_.recv_segments[w.first].index);
        } else {
          r.recv_counts[k] = static_cast<int>(w.bytes);
          r.recv_displs[k] = static_cast<int>(w.data - recv_base);
        }
        w.pending = 1;
        ++s_.left;
        ++s_.messages_received;
      }
      if (s_.mode == by_cycles) pack_cycles_unit();
      for (std::size_t j = 0; j < s_.sends.size(); ++j) {
        WireMessage& w = s_.sends[j];
        const std::size_t k = slot(w.peer, true);
        if (typed) {
          r.send_counts[k] = 1;
          r.send_types[k] = p.ws->types.send(s_.send_segments[w.first].index);
        } else {
          if (s_.mode == by_messages) pack_wire(w);
          r.send_counts[k] = static_cast<int>(w.bytes);
          r.send_displs[k] = static_cast<int>(w.data - base);
        }
        ++s_.messages_sent;
        s_.bytes_sent += w.bytes;
      }
      posted_one_collective();
      if (s_.blocking) {
        // Waited for at once: the local pieces first, then the blocking collective (its request
        // stays null, so progress_collective's wait returns at once).
        if (!s_.copied) copy_local();
        if (typed && graph)
          check(MPI_Neighbor_alltoallw(p.src.data(), r.send_counts.data(), r.send_adispls.data(), r.send_types.data(),
                                       p.dst.data(), r.recv_counts.data(), r.recv_adispls.data(), r.recv_types.data(), c),
                "MPI_Neighbor_alltoallw");
        else if (typed)
          check(MPI_Alltoallw(p.src.data(), r.send_counts.data(), r.send_displs.data(), r.send_types.data(), p.dst.data(),
                              r.recv_counts.data(), r.recv_displs.data(), r.recv_types.data(), c),
                "MPI_Alltoallw");
        else if (graph)
          check(MPI_Neighbor_alltoallv(send_base, r.send_counts.data(), r.send_displs.data(), MPI_BYTE, recv_base,
                                       r.recv_counts.data(), r.recv_displs.data(), MPI_BYTE, c),
                "MPI_Neighbor_alltoallv");
        else
          check(MPI_Alltoallv(send_base, r.send_counts.data(), r.send_displs.data(), MPI_BYTE, recv_base, r.recv_counts.data(),
                              r.recv_displs.data(), MPI_BYTE, c),
                "MPI_Alltoallv");
        return;
      }
      MPI_Request* req = s_.send_requests.data();
      if (typed && graph)
        check(MPI_Ineighbor_alltoallw(p.src.data(), r.send_counts.data(), r.send_adispls.data(), r.send_types.data(),
                                      p.dst.data(), r.recv_counts.data(), r.recv_adispls.data(), r.recv_types.data(), c, req),
              "MPI_Ineighbor_alltoallw");
      else if (typed)
        check(MPI_Ialltoallw(p.src.data(), r.send_counts.data(), r.send_displs.data(), r.send_types.data(), p.dst.data(),
                             r.recv_counts.data(), r.recv_displs.data(), r.recv_types.data(), c, req),
              "MPI_Ialltoallw");
      else if (graph)
        check(MPI_Ineighbor_alltoallv(send_base, r.send_counts.data(), r.send_displs.data(), MPI_BYTE, recv_base,
                                      r.recv_counts.data(), r.recv_displs.data(), MPI_BYTE, c, req),
              "MPI_Ineighbor_alltoallv");
      else
        check(MPI_Ialltoallv(send_base, r.send_counts.data(), r.send_displs.data(), MPI_BYTE, recv_base, r.recv_counts.data(),
                             r.recv_displs.data(), MPI_BYTE, c, req),
              "MPI_Ialltoallv");
      if (!s_.copied) copy_local();
    }
  }
  /// Whether this rank's part of a gather (Wire::allgatherv) can go straight into place: elements
  /// assigned from the source into the destination, every receive of the round whole and one
  /// range of the destination, and the local copy one range of it holding the elements the rank
  /// sends (its contribution lands where MPI_IN_PLACE reads it); the ranges' byte offsets fit an int.
  template <class P, class St>
  bool direct_gather(const P& p, const St& st) const {
    using T = typename P::value_type;
    if (!store_assigns(p.store) || st.from != Buffer::source || st.to != Buffer::destination) return false;
    const auto fits = [](index_t end) { return end <= static_cast<index_t>(INT_MAX / sizeof(T)); };
    for (const WireMessage& w : s_.recvs) {
      const Message& m = st.recvs[s_.recv_segments[w.first].index];
      if (!m.direct || w.bytes != static_cast<std::size_t>(m.size) * sizeof(T) || !fits(st.runs_of(m).front().dst + m.size))
        return false;
    }
    if (s_.sends.empty()) return true;
    const Message& own = st.sends[s_.send_segments[s_.sends.front().first].index];
    const auto local = st.runs_of(st.local), sent = st.runs_of(own);
    if (local.size() != sent.size() || st.local.size != own.size || !redist::detail::contiguous_chain(local, redist::detail::side::dst) ||
        !fits(local.front().dst + own.size) || s_.sends.front().bytes != static_cast<std::size_t>(own.size) * sizeof(T))
      return false;
    for (std::size_t k = 0; k < local.size(); ++k)
      if (!same_source(local[k], sent[k])) return false;
    return true;
  }

  /// A collective wire's group is posted as one request, send_requests[0] (null while a blocking
  /// collective runs: progress_collective's wait then returns at once).
  void posted_one_collective() {
    s_.recv_requests.clear();
    s_.owner.clear();
    s_.send_requests.assign(1, MPI_REQUEST_NULL);
    s_.posted = true;
  }

  /// Posts the round's messages as one MPI_Allgatherv over this rank's group (Wire::allgatherv; one
  /// part, a plan that gathers), every rank's contribution in place (MPI_IN_PLACE): straight in the
  /// destination (direct_gather: the local copy made first is the contribution, every peer's lands
  /// in its range), or through the scratch (the first send packed once, every peer's unpacked on
  /// arrival, the local copy while it runs). The group is made by the first run that needs it
  /// (collective over comm, as the graph of Wire::neighbor).
  template <class P, class St>
  void post_gather(P& p, const St& st) {
    REDIST_EXPECTS(s_.node == nullptr,
                   "redist: Wire::allgatherv requires the message path (no rank copying from node peers: the decision's choice)");
    auto& r = s_.wire_resources;
    if (r.group == MPI_COMM_NULL || r.group_of != comm_ || r.group_for != st.identity() ||
        r.group_wire != Wire::allgatherv)
      REDIST_EXPECTS(make_gather_group(*p.plan, comm_, r),
                     "redist: Wire::allgatherv requires a plan whose ranks gather within groups (the decision's choice)");
    using T = typename P::value_type;
    const std::size_t n = r.members.size();
    r.recv_counts.assign(n, 0);
    r.recv_displs.assign(n, 0);
    auto slot = [&](int peer) {
      return static_cast<std::size_t>(std::lower_bound(r.members.begin(), r.members.end(), peer) - r.members.begin());
    };
    // Straight into place when the rank's receives and its local copy are each one range of the
    // destination (direct_gather): the local copy first, then MPI reads the contribution from
    // there and writes every peer's into its range; no pack, no unpack. Else through the scratch.
    const bool direct = direct_gather(p, st);
    std::byte* const base = direct ? reinterpret_cast<std::byte*>(p.dst.data()) : s_.buffer.data();
    if (direct && !s_.copied) copy_local();
    s_.left = 0;
    for (WireMessage& w : s_.recvs) {
      if (direct) {
        w.in_place = true;
        w.data = base + st.runs_of(st.recvs[s_.recv_segments[w.first].index]).front().dst * static_cast<index_t>(sizeof(T));
      }
      const std::size_t k = slot(w.peer);
      r.recv_counts[k] = static_cast<int>(w.bytes);
      r.recv_displs[k] = static_cast<int>(w.data - base);
      w.pending = 1;
      ++s_.left;
      ++s_.messages_received;
    }
    if (!s_.sends.empty()) {
      WireMessage& own = s_.sends.front();
      const std::size_t k = slot(p.plan->rank);
      r.recv_counts[k] = static_cast<int>(own.bytes);
      if (direct) {
        r.recv_displs[k] = static_cast<int>(st.runs_of(st.local).front().dst * static_cast<index_t>(sizeof(T)));
      } else {
        if (s_.mode == by_cycles) pack_cycles_unit();
        else pack_wire(own);
        r.recv_displs[k] = static_cast<int>(own.data - base);
      }
    }
    for (const WireMessage& w : s_.sends) {
      ++s_.messages_sent;
      s_.bytes_sent += w.bytes;
    }
    posted_one_collective();
    if (s_.blocking) {
      if (!s_.copied) copy_local();
      check(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_BYTE, base, r.recv_counts.data(), r.recv_displs.data(), MPI_BYTE, r.group),
            "MPI_Allgatherv");
      return;
    }
    check(MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_BYTE, base, r.recv_counts.data(), r.recv_displs.data(), MPI_BYTE, r.group,
                          s_.send_requests.data()),
          "MPI_Iallgatherv");
    if (!s_.copied) copy_local();
  }

  bool reducing() const noexcept { return s_.wire == Wire::allreduce || s_.wire == Wire::reduce_scatter; }

  /// Posts the stage's partial values as one reduction over this rank's group (Wire::allreduce or
  /// Wire::reduce_scatter; one part, a plan that reduces, a store that folds by a predefined MPI
  /// operation): every member's contribution folded by MPI, element by element, in the order of
  /// the runs (the same on every member: reduces). An all-reduce straight in the destination when
  /// its local copy is one range of it (the local copy first, then MPI_IN_PLACE), else through the
  /// scratch (the contribution packed by the local copy's source side, folded in place, unpacked on
  /// completion); a reduce-scatter packs its contributions to the members in member order (its own
  /// by the local copy) and receives its elements straight in the destination when they are one
  /// range of it, else through the scratch. No local copy besides (the contribution is in the
  /// reduction). The group is made by the first run that needs it (collective over comm).
  template <class P, class St>
  void post_reduce(P& p, const St& st) {
    using T = typename P::value_type;
    using Store = std::remove_cvref_t<decltype(p.store)>;
    constexpr bool folds = mpi_reduction<T, Store>::exists;
    REDIST_EXPECTS(folds && s_.node == nullptr && st.from == Buffer::source && st.to == Buffer::destination,
                   "redist: a reduction wire requires partial values folded by a predefined MPI operation on the message "
                   "path (the decision's choice)");
    if constexpr (folds) post_reduction(p, st, mpi_reduction<T, Store>::op());
  }
  template <class P, class St>
  void post_reduction(P& p, const St& st, MPI_Op op) {
    using T = typename P::value_type;
    auto& r = s_.wire_resources;
    if (r.group == MPI_COMM_NULL || r.group_of != comm_ || r.group_for != st.identity() ||
        r.group_wire != s_.wire)
      REDIST_EXPECTS(make_reduce_group(*p.plan, comm_, r, s_.wire),
                     "redist: a reduction wire requires a plan whose ranks reduce within groups (the decision's choice)");
    const MPI_Datatype type = boost::mpi::get_mpi_datatype<T>();
    const auto local = st.runs_of(st.local);
    const index_t n = st.local.size;
    T* dst = buffer_of(p, st.to);
    const T* src = buffer_of(p, st.from);
    const bool straight = reduces_straight(st);
    // Every receive is in the reduction: none is unpacked on its own.
    for (WireMessage& w : s_.recvs) {
      w.in_place = true;
      w.pending = 1;
      ++s_.messages_received;
    }
    s_.left = s_.recvs.size();
    for (const WireMessage& w : s_.sends) {
      ++s_.messages_sent;
      s_.bytes_sent += w.bytes;
    }
    s_.copied = true;
    s_.reduced = nullptr;
    T* out = nullptr;  // where this rank's folded elements arrive
    if (s_.wire == Wire::allreduce) {
      if (straight && redist::detail::contiguous_chain(local, redist::detail::side::src)) {
        // From the source's range into the destination's: no copy at all.
        out = dst + local.front().dst;
        posted_one_collective();
        const T* from = src + local.front().src;
        if (s_.blocking)
          check(MPI_Allreduce(from, out, static_cast<int>(n), type, op, r.group), "MPI_Allreduce");
        else
          check(MPI_Iallreduce(from, out, static_cast<int>(n), type, op, r.group, s_.send_requests.data()), "MPI_Iallreduce");
        return;
      }
      if (straight) {
        copy(local, src, dst);
        out = dst + local.front().dst;
      } else {
        out = reinterpret_cast<T*>(s_.buffer.reserve(static_cast<std::size_t>(n) * sizeof(T)));
        pack(local, src, out);
        s_.reduced = reinterpret_cast<const std::byte*>(out);
      }
      posted_one_collective();
      if (s_.blocking)
        check(MPI_Allreduce(MPI_IN_PLACE, out, static_cast<int>(n), type, op, r.group), "MPI_Allreduce");
      else
        check(MPI_Iallreduce(MPI_IN_PLACE, out, static_cast<int>(n), type, op, r.group, s_.send_requests.data()),
              "MPI_Iallreduce");
      return;
    }
    // Reduce-scatter: the contributions in member order (this rank's own by its local copy), then
    // (unless straight) this rank's elements. Where the contributions are already one range of
    // the source in member order, MPI reads them there (no pack).
    index_t total = 0;
    for (int c : r.reduce_counts) total += c;
    auto each_contribution = [&](auto&& f) {
      for (int i : r.reduce_sends) f(i < 0 ? local : st.runs_of(st.sends[static_cast<std::size_t>(i)]));
    };
    index_t next = -1;
    bool in_source = true;
    each_contribution([&](auto runs) {
      in_source = in_source && redist::detail::contiguous_chain(runs, redist::detail::side::src) && (next < 0 || runs.front().src == next);
      if (in_source) next = runs.front().src + runs.front().size();
    });
    std::byte* base = s_.buffer.reserve(static_cast<std::size_t>((in_source ? 0 : total) + (straight ? 0 : n)) * sizeof(T));
    const T* in = in_source ? src + (next - total) : reinterpret_cast<const T*>(base);
    if (!in_source) {
      T* at = reinterpret_cast<T*>(base);
      each_contribution([&](auto runs) {
        pack(runs, src, at);
        for (const auto& run : runs) at += run.size();
      });
    }
    if (straight) {
      out = dst + local.front().dst;
    } else {
      out = reinterpret_cast<T*>(base) + (in_source ? 0 : total);
      s_.reduced = reinterpret_cast<const std::byte*>(out);
    }
    posted_one_collective();
    if (s_.blocking)
      check(MPI_Reduce_scatter(in, out, r.reduce_counts.data(), type, op, r.group), "MPI_Reduce_scatter");
    else
      check(MPI_Ireduce_scatter(in, out, r.reduce_counts.data(), type, op, r.group, s_.send_requests.data()),
            "MPI_Ireduce_scatter");
  }

  /// Waits for (block) or tests the collective; once it is complete, every receive has arrived.
  bool progress_collective(bool block) {
    if (block) {
      check(MPI_Wait(s_.send_requests.data(), MPI_STATUS_IGNORE), "MPI_Wait");
    } else {
      int done = 0;
      check(MPI_Test(s_.send_requests.data(), &done, MPI_STATUS_IGNORE), "MPI_Test");
      if (!done) return false;
    }
    for (std::size_t j = 0; j < s_.recvs.size(); ++j) arrived(j);
    if (s_.reduced != nullptr) {
      // The folded elements, through the scratch: into the local copy's places (which hold the
      // identity or this rank's contribution; the fold is complete, so they are assigned).
      auto& p = boost::hana::at_c<0>(parts_);
      using T = typename std::remove_cvref_t<decltype(p)>::value_type;
      const auto& st = p.plan->stages[s_.stage];
      unpack(st.runs_of(st.local), reinterpret_cast<const T*>(s_.reduced), buffer_of(p, st.to));
      s_.reduced = nullptr;
    }
    return true;
  }

  /// Collects the messages of the unit: per part, per step of its group(s), the sends and
  /// receives with elements in this round (none with node peers when they copy).
  void layout_unit() {
    s_.sends.clear();
    s_.recvs.clear();
    s_.send_segments.clear();
    s_.recv_segments.clear();
    const std::size_t subs = unit_groups();
    std::size_t k = 0;
    boost::hana::for_each(parts_, [&](auto& p) {
      using T = typename std::remove_cvref_t<decltype(p)>::value_type;
      const auto& plan = *p.plan;
      if (s_.stage < plan.stages.size()) {
        const auto& st = plan.stages[s_.stage];
        for (std::size_t sub = 0; sub < subs; ++sub) {
          const auto [a, b] = steps_of(st.schedule.size(), sub);
          for (std::size_t t = a; t < b; ++t) {
            for (std::size_t i : st.schedule.steps[t].sends)
              add(p, st, k, i, true, sub, sizeof(T));
            for (std::size_t i : st.schedule.steps[t].recvs)
              add(p, st, k, i, false, sub, sizeof(T));
          }
        }
      }
      ++k;
    });
    if constexpr (K > 1) {
      regroup(s_.sends, s_.send_segments);
      regroup(s_.recvs, s_.recv_segments);
    }
    // Places in the scratch: packed sends, then receives that are not in place (aligned for any
    // element type when the parts' types differ; one part's are one after the other). MPI's
    // derived datatypes read and write the arrays themselves: no scratch.
    if (s_.mode == by_types) return;
    std::size_t bytes = 0;
    auto next = [](std::size_t b) { return K > 1 ? align_up(b) : b; };
    // An all-gather packs its one contribution once, for all its sends: one place.
    const bool one_contribution = s_.collective && s_.wire == Wire::allgatherv;
    for (std::size_t j = 0; j < s_.sends.size(); ++j) {
      WireMessage& w = s_.sends[j];
      if (w.in_place) continue;
      w.offset = one_contribution && j > 0 ? s_.sends.front().offset : std::exchange(bytes, next(bytes + w.bytes));
    }
    s_.collective_recv_offset = bytes;
    for (WireMessage& w : s_.recvs)
      if (!w.in_place) w.offset = std::exchange(bytes, next(bytes + w.bytes));
    s_.high_water = std::max(s_.high_water, bytes);
    std::byte* base = s_.buffer.reserve(bytes);
    for (WireMessage& w : s_.sends)
      if (!w.in_place) w.data = base + w.offset;
    for (WireMessage& w : s_.recvs)
      if (!w.in_place) w.data = base + w.offset;
  }

  /// Adds part p's message i (send or receive) of stage st to the unit, in group `sub`.
  template <class P, class St>
  void add(P& p, const St& st, std::size_t k, std::size_t i, bool send, std::size_t sub, std::size_t elem) {
    using T = typename P::value_type;
    const Message& m = send ? st.sends[i] : st.recvs[i];
    if (s_.node != nullptr && s_.node->holds(m.peer)) return;
    if (s_.aggregating && !s_.nodes->holds(m.peer)) return;  // to or from another node: aggregated
    const auto [lo, hi] = range_of(p, st, i, send, m.size);
    if (lo >= hi) return;
    auto& wires = send ? s_.sends : s_.recvs;
    auto& segs = send ? s_.send_segments : s_.recv_segments;
    const std::size_t bytes = static_cast<std::size_t>(hi - lo) * elem;
    // In place: a direct message of one part (assigned into the destination), or a receive kept
    // in the relay area.
    std::byte* in_place = nullptr;
    if (s_.mode == by_messages && !s_.collective) {
      const bool writes_dst = !send && st.to == Buffer::destination;
      if (m.direct && (!writes_dst || store_assigns(p.store))) {
        const auto& r = st.runs[m.first];
        const bool relay = st.relayed(m.first);
        T* base = buffer_of(p, relay ? Buffer::relay : send ? st.from : st.to);
        in_place = reinterpret_cast<std::byte*>(base + (send ? r.src : r.dst) + lo);
      } else if (!send && m.relay_at >= 0) {
        in_place = reinterpret_cast<std::byte*>(buffer_of(p, Buffer::relay) + m.relay_at);
      }
    }
    if constexpr (K > 1) {
      // Fused: one message per peer (a part's message in place only when it is alone).
      // Per peer, the index of its wire among the sends (or the receives) of this unit; a stale
      // entry is recognized by the wire it points to.
      auto& slots = send ? s_.send_slot_of_peer : s_.recv_slot_of_peer;
      if (slots.size() != static_cast<std::size_t>(p.plan->nprocs)) slots.assign(static_cast<std::size_t>(p.plan->nprocs), -1);
      int& slot = slots[static_cast<std::size_t>(m.peer)];
      if (slot >= 0 && static_cast<std::size_t>(slot) < wires.size() && wires[slot].peer == m.peer) {
        WireMessage& w = wires[static_cast<std::size_t>(slot)];
        w.bytes = align_up(w.bytes);
        segs.push_back({k, i, lo, hi, w.bytes, static_cast<std::size_t>(slot)});
        w.bytes += bytes;
        ++w.count;
        w.in_place = false;
        return;
      }
      slot = static_cast<int>(wires.size());
    }
    WireMessage w;
    w.peer = m.peer;
    w.first = segs.size();
    w.count = 1;
    w.bytes = bytes;
    w.group = sub;
    w.in_place = in_place != nullptr;
    w.data = in_place;
    segs.push_back({k, i, lo, hi, 0, wires.size()});
    wires.push_back(w);
  }

  /// Makes each wire's segments contiguous, [first, first + count), in the order they were added
  /// (a fused list adds a wire's segments part by part, interleaved with other wires').
  void regroup(std::vector<WireMessage>& wires, std::vector<WireSegment>& segs) {
    std::size_t at = 0;
    for (WireMessage& w : wires) w.first = std::exchange(at, at + w.count);
    s_.regrouped.resize(segs.size());
    for (WireMessage& w : wires) w.count = 0;
    for (const WireSegment& g : segs) {
      WireMessage& w = wires[g.wire];
      s_.regrouped[w.first + w.count++] = g;
    }
    segs.swap(s_.regrouped);
  }

  /// Packs the segments of a send into its place in the scratch.
  void pack_wire(WireMessage& w) {
    for (std::size_t g = w.first; g < w.first + w.count; ++g) {
      const WireSegment& seg = s_.send_segments[g];
      visit_part(parts_, seg.part, [&](auto& p) {
        using T = typename std::remove_cvref_t<decltype(p)>::value_type;
        const auto& st = p.plan->stages[s_.stage];
        pack_message(st, seg.index, buffer_of(p, st.from), reinterpret_cast<T*>(w.data + seg.at), seg.lo, seg.hi,
                     buffer_of(p, Buffer::relay));
      });
    }
  }

  /// The one-pass pack of a round of basic cycles (one part): every send's elements of the round
  /// into its place, the local sections into the destination.
  void pack_cycles_unit() {
    auto& p = boost::hana::at_c<0>(parts_);
    using T = typename std::remove_cvref_t<decltype(p)>::value_type;
    const auto& st = p.plan->stages[s_.stage];
    const auto& c = st.cycles;
    point_cycles(s_.sends, s_.send_segments, st.sends.size(), s_.cycle_out);
    if (s_.aggregating) {
      // Messages to other nodes: into this rank's part of the aggregation window.
      const Aggregation& ag = p.ws->aggregation;
      for (std::size_t i = 0; i < ag.send_at.size(); ++i)
        if (ag.send_at[i] != Aggregation::none) s_.cycle_out[i] = ag.window->data() + ag.send_at[i];
    }
    const index_t a = std::min(c.slots, s_.round * s_.per_round), b = std::min(c.slots, a + s_.per_round);
    with_store(p.store, [&](const auto& op) {
      pack_cycles<T>(c, a, b, buffer_of(p, st.from), size_of(p, st.from),
                     reinterpret_cast<T**>(s_.cycle_out.data()), s_.node ? nullptr : buffer_of(p, st.to), op);
    });
  }
  /// out[i]: where message i's elements of the round go (each message is its own wire; null for
  /// one without: a node peer's, which copies).
  template <class Ptr>
  void point_cycles(const std::vector<WireMessage>& wires, const std::vector<WireSegment>& segs, std::size_t n,
                    std::vector<Ptr>& out) {
    out.assign(n, nullptr);
    for (const WireMessage& w : wires) out[segs[w.first].index] = w.data;
  }

  /// Wire::node_aggregated, once this rank's messages to other nodes are packed (by messages here;
  /// the one-pass pack of basic cycles did it already): makes them visible to the node and enters
  /// its first barrier, after which the leaders gather.
  void begin_aggregation() {
    auto& p = boost::hana::at_c<0>(parts_);
    using T = typename std::remove_cvref_t<decltype(p)>::value_type;
    Aggregation& ag = p.ws->aggregation;
    const auto& st = p.plan->stages[s_.stage];
    if (s_.mode == by_messages)
      for (std::size_t i = 0; i < ag.send_at.size(); ++i)
        if (ag.send_at[i] != Aggregation::none)
          pack_message(st, i, buffer_of(p, st.from), reinterpret_cast<T*>(ag.window->data() + ag.send_at[i]));
    ag.arrive();
    ag.phase = 1;
  }
  /// Advances the aggregated exchange: after the first node barrier the leaders post their node
  /// pairs' receives and gather and send theirs; once they are complete, a second barrier; then
  /// every rank unpacks its messages from other nodes out of their leaders' parts (by messages; the
  /// one-pass unpack of basic cycles at the end of the round). True when it is done.
  bool progress_aggregation(bool block) {
    auto& p = boost::hana::at_c<0>(parts_);
    using T = typename std::remove_cvref_t<decltype(p)>::value_type;
    Aggregation& ag = p.ws->aggregation;
    if (ag.phase == 1) {
      if (!ag.passed(block)) return false;  // the node peers' messages are packed
      ag.requests.clear();
      for (const Aggregation::Pair& in : ag.ins)
        post_receive(ag.window->data() + in.at, in.bytes, chunk_, in.peer, comm_, ag.requests, tag_);
      std::byte* out = ag.out.data();
      for (const Aggregation::Pair& o : ag.outs) {
        std::byte* at = out + o.at;
        for (std::size_t k = o.first; k < o.first + o.count; ++k) {
          const Aggregation::Piece& g = ag.pieces[k];
          std::memcpy(at, ag.window->peer(g.rank) + g.at, g.bytes);
          at += g.bytes;
        }
        post_send(out + o.at, o.bytes, chunk_, o.peer, comm_, ag.requests, tag_);
        ++s_.messages_sent;
        s_.bytes_sent += o.bytes;
      }
      s_.messages_received += ag.ins.size();
      ag.phase = 2;
    }
    if (ag.phase == 2) {
      int flag = 1;
      if (block)
        check(MPI_Waitall(static_cast<int>(ag.requests.size()), ag.requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
      else
        check(MPI_Testall(static_cast<int>(ag.requests.size()), ag.requests.data(), &flag, MPI_STATUSES_IGNORE), "MPI_Testall");
      if (!flag) return false;
      ag.arrive();  // the messages received into this rank's part
      ag.phase = 3;
    }
    if (ag.phase == 3) {
      if (!ag.passed(block)) return false;  // the leaders' received messages
      ag.phase = 0;
      if (s_.mode == by_messages) {
        const auto& st = p.plan->stages[s_.stage];
        T* to = buffer_of(p, st.to);
        for (std::size_t j = 0; j < ag.recv_at.size(); ++j) {
          if (ag.recv_at[j].first < 0) continue;
          const T* in = reinterpret_cast<const T*>(ag.window->peer(ag.recv_at[j].first) + ag.recv_at[j].second);
          with_store(p.store, [&](const auto& op) { unpack_message(st, j, in, to, 0, -1, op); });
        }
      }
    }
    return true;
  }

  /// The smaller of a kept time (0: none yet) and a new one: the node copies are compared by their
  /// fastest runs (the first run also builds what later runs reuse, and a rank may be preempted).
  static double least(double kept, double t) noexcept { return kept > 0 ? std::min(kept, t) : t; }

  void copy_local() {
    s_.copied = true;
    bool any = false;
    boost::hana::for_each(parts_, [&](auto& p) {
      using T = typename std::remove_cvref_t<decltype(p)>::value_type;
      const auto& plan = *p.plan;
      if (s_.stage >= plan.stages.size()) return;
      const auto& st = plan.stages[s_.stage];
      if (s_.node != nullptr && p.ws->staged) {
        const double t0 = MPI_Wtime();
        with_store(p.store, [&](const auto& op) { copy_local_and_staged(st, p.src, p.dst, *p.ws, *s_.node, op); });
        p.ws->staged_seconds = least(p.ws->staged_seconds, p.ws->pack_seconds + (MPI_Wtime() - t0));
        any = true;
      } else if (s_.node != nullptr) {
        // Timed where the decision may compare it with packing (short pieces); the first pull of a
        // workspace also builds the ordered copy list: not timed.
        const bool timed = p.ws->node_copy_timing();
        const double t0 = timed ? MPI_Wtime() : 0.0;
        with_store(p.store, [&](const auto& op) { copy_local_and_node(st, p.plan, p.src, p.dst, *p.ws, *p.source, op); });
        if (timed && ++p.ws->pull_runs > 1) p.ws->pull_seconds = least(p.ws->pull_seconds, MPI_Wtime() - t0);
        any = true;
      } else if (s_.mode != by_cycles && (st.local.nruns > 0 || st.local.listed())) {
        const T* from = buffer_of(p, st.from);
        T* to = buffer_of(p, st.to);
        if (st.to == Buffer::destination && !p.ws->local_assigns)
          with_store(p.store, [&](const auto& op) { copy_message(st, st.local, from, to, op); });
        else
          copy_message(st, st.local, from, to);
      }
    });
    // The node's ranks are done reading each other's sources when this barrier completes.
    if (any) check(MPI_Ibarrier(s_.node->comm, &s_.node_barrier), "MPI_Ibarrier");
  }

  /// Waits for (block) or tests the posted receives, unpacking each as it arrives. True when all have.
  bool progress_receives(bool block) {
    while (s_.left > 0) {
      if (block) {
        int k = MPI_UNDEFINED;
        check(MPI_Waitany(static_cast<int>(s_.recv_requests.size()), s_.recv_requests.data(), &k, MPI_STATUS_IGNORE),
              "MPI_Waitany");
        if (k == MPI_UNDEFINED) break;
        arrived(s_.owner[static_cast<std::size_t>(k)]);
      } else {
        s_.done.resize(s_.recv_requests.size());
        int count = 0;
        check(MPI_Testsome(static_cast<int>(s_.recv_requests.size()), s_.recv_requests.data(), &count, s_.done.data(),
                           MPI_STATUSES_IGNORE),
              "MPI_Testsome");
        if (count == MPI_UNDEFINED || count == 0) return s_.left == 0;
        for (int j = 0; j < count; ++j) arrived(s_.owner[static_cast<std::size_t>(s_.done[static_cast<std::size_t>(j)])]);
      }
    }
    return true;
  }
  /// A chunk of receive j has arrived; when the whole message has, it is unpacked.
  void arrived(std::size_t j) {
    WireMessage& w = s_.recvs[j];
    if (--w.pending > 0) return;
    --s_.left;
    if (s_.mode != by_messages) return;  // the one-pass unpack, or MPI's datatypes
    for (std::size_t g = w.first; g < w.first + w.count; ++g) {
      const WireSegment& seg = s_.recv_segments[g];
      visit_part(parts_, seg.part, [&](auto& p) {
        using T = typename std::remove_cvref_t<decltype(p)>::value_type;
        const auto& st = p.plan->stages[s_.stage];
        const Message& m = st.recvs[seg.index];
        if (w.in_place && m.relay_at < 0) return;  // received straight into its place
        const T* in = reinterpret_cast<const T*>(w.data + seg.at);
        T* to = buffer_of(p, st.to);
        T* relay = buffer_of(p, Buffer::relay);
        if (st.to == Buffer::destination)
          with_store(p.store, [&](const auto& op) { unpack_message(st, seg.index, in, to, seg.lo, seg.hi, op, relay); });
        else
          unpack_message(st, seg.index, in, to, seg.lo, seg.hi, assign_op{}, relay);
      });
    }
  }
  bool progress_sends(bool block) {
    if (block) {
      check(MPI_Waitall(static_cast<int>(s_.send_requests.size()), s_.send_requests.data(), MPI_STATUSES_IGNORE),
            "MPI_Waitall");
      return true;
    }
    int done = 1;
    check(MPI_Testall(static_cast<int>(s_.send_requests.size()), s_.send_requests.data(), &done, MPI_STATUSES_IGNORE),
          "MPI_Testall");
    return done != 0;
  }

  /// After a group: the next group, round or stage (the one-pass unpack at the end of a round).
  void end_group() {
    if (++s_.group < s_.groups) return;
    if (s_.mode == by_cycles) unpack_cycles_unit();
    s_.group = 0;
    if (++s_.round < s_.rounds) return;
    ++s_.stage;
    begin_stage();
  }
  void unpack_cycles_unit() {
    auto& p = boost::hana::at_c<0>(parts_);
    using T = typename std::remove_cvref_t<decltype(p)>::value_type;
    const auto& st = p.plan->stages[s_.stage];
    const auto& c = st.cycles;
    point_cycles(s_.recvs, s_.recv_segments, st.recvs.size(), s_.cycle_in);
    if (s_.aggregating) {
      // Messages from other nodes: in their leaders' parts of the aggregation window.
      const Aggregation& ag = p.ws->aggregation;
      for (std::size_t j = 0; j < ag.recv_at.size(); ++j)
        if (ag.recv_at[j].first >= 0) s_.cycle_in[j] = ag.window->peer(ag.recv_at[j].first) + ag.recv_at[j].second;
    }
    const index_t a = std::min(c.slots, s_.round * s_.per_round), b = std::min(c.slots, a + s_.per_round);
    with_store(p.store, [&](const auto& op) {
      unpack_cycles<T>(c, a, b, reinterpret_cast<const T**>(s_.cycle_in.data()),
                       buffer_of(p, st.to), size_of(p, st.to), op);
    });
  }
  /// Elements of a part's buffer on this rank (source, destination or intermediate).
  template <class P>
  static index_t size_of(const P& p, Buffer b) noexcept {
    if (b == Buffer::source) return static_cast<index_t>(p.src.size());
    if (b == Buffer::destination) return static_cast<index_t>(p.dst.size());
    return p.plan->intermediate;
  }

  Parts& parts_;
  ExchangeState& s_;
  MPI_Comm comm_;
  std::size_t chunk_;
  int tag_;
};
}  // namespace detail

/// Whether every rank of `node` can serve its node peers from shared memory for every part (each
/// source in a window of this node, declared with one leading dimension across
/// the node, its plan of direct messages or able to become one: `direct_capable`): one all-reduce
/// on the node, with the MPI_Win_syncs MPI-3's memory model asks for around it (store, sync,
/// synchronize, sync, load). Collective on the node; the same answer on every rank of it.
///
/// The same all-reduce settles, per part, how node peers' messages are copied this run. A part
/// whose workspace holds a staging part (make_staging: the decision's pack, then pull) packs its
/// messages to node peers into it first (pack_staging); when every rank of the node did, receivers
/// read them from there (Workspace::staged), else piece by piece from the peers' sources. It also
/// reports, in the workspace, what the decision needs: whether the node's pieces are short,
/// whether some rank lacks a staging part for this plan, and the slowest rank's last copy each way.
template <class Parts>
bool agree_on_node(Parts& parts, const Node& node, bool direct_capable) {
  constexpr std::size_t K = detail::count_parts<Parts>();
  // Per part: ld, -ld, not packed, long pieces, needs staging, has node messages; then, while some
  // part's copies are timed (Workspace::node_copy_timing, the same on every rank of the node), per
  // part its fastest copy's nanoseconds pulling and packing then pulling.
  constexpr std::size_t per = 6;
  std::array<long long, 1 + (per + 2) * K> mine{}, all{};
  bool able = direct_capable, timing = false;
  boost::hana::for_each(parts, [&](auto& p) {
    able = able && p.source != nullptr && &p.source->node() == &node &&
           (p.src.empty() || static_cast<const void*>(p.source->data()) == static_cast<const void*>(p.src.data()));
    timing = timing || p.ws->node_copy_timing();
  });
  std::size_t k = 0;
  boost::hana::for_each(parts, [&](auto& p) {
    long long* m = mine.data() + 1 + per * k;
    long long* t = mine.data() + 1 + per * K + 2 * k++;
    m[0] = p.source_ld;
    m[1] = -p.source_ld;
    bool packed = false, short_pieces = false, any = false;
    std::size_t need = 0;
    if (able) {
      if (p.ws->staging != nullptr && p.ws->pack_next) {
        const double t0 = MPI_Wtime();
        packed = detail::pack_staging(p, node);
        p.ws->pack_seconds = MPI_Wtime() - t0;
      }
      detail::node_facts(p, node);
      short_pieces = p.ws->node_short;
      any = p.ws->node_any;
      need = p.ws->node_staging_bytes;
    }
    m[2] = packed ? 0 : 1;
    m[3] = short_pieces && need <= p.ws->staging_budget ? 0 : 1;
    m[4] = need > 0 && (p.ws->staging == nullptr || p.ws->staging->bytes() < need) ? 1 : 0;
    m[5] = any ? 1 : 0;
    t[0] = static_cast<long long>(p.ws->pull_seconds * 1e9);
    t[1] = static_cast<long long>(p.ws->staged_seconds * 1e9);
    if (packed) p.ws->staging->sync();  // this rank's stores to its staging part
  });
  mine[0] = able ? 0 : 1;
  if (able) boost::hana::for_each(parts, [](auto& p) { p.source->sync(); });  // this rank's stores
  const int count = static_cast<int>(1 + per * K + (timing ? 2 * K : 0));
  detail::check(MPI_Allreduce(mine.data(), all.data(), count, MPI_LONG_LONG, MPI_MAX, node.comm), "MPI_Allreduce");
  bool agreed = all[0] == 0;
  for (std::size_t j = 0; j < K; ++j) agreed = agreed && all[1 + per * j] == -all[2 + per * j];
  k = 0;
  boost::hana::for_each(parts, [&](auto& p) {
    const long long* a = all.data() + 1 + per * k;
    const long long* t = all.data() + 1 + per * K + 2 * k++;
    p.ws->staged = agreed && a[2] == 0;
    if (p.ws->staged) p.ws->staging->sync();  // the peers' stores
    p.ws->node_pieces_short = agreed && a[3] == 0 && a[5] == 1;
    p.ws->staging_missing = agreed && a[4] == 1;
    if (timing) {
      p.ws->node_pull_seconds = static_cast<double>(t[0]) * 1e-9;
      p.ws->node_staged_seconds = static_cast<double>(t[1]) * 1e-9;
    }
  });
  if (agreed) boost::hana::for_each(parts, [](auto& p) { p.source->sync(); });  // the peers' stores
  return agreed;
}

/// Makes every part's staging part (its messages to node peers, pack_staging) anew, for the runs
/// after this one: collective on the node (MPI_Win_allocate_shared), called by every rank of it
/// alike after an agreement that found a staging part missing (Workspace::staging_missing), when
/// the decision chose pack, then pull.
template <class Parts>
void make_staging(Parts& parts, const Node& node) {
  boost::hana::for_each(parts, [&](auto& p) {
    p.ws->staging.reset();
    p.ws->staging = std::make_unique<SharedSegment>(p.source->node_ptr(), detail::staging_bytes(p, node), 1);
    // First touched here, by its owner, rather than in the first pack (whose time the decision reads).
    std::memset(p.ws->staging->data(), 0, p.ws->staging->bytes());
    p.ws->staging_missing = false;
    p.ws->staged = false;  // some rank had none large enough: nobody packed this run
    // The staged runs' pointers, allocated now rather than in a later (repeated) run.
    p.ws->staging_out.reserve(p.plan->stages[0].sends.size());
    p.ws->staging_in.reserve(p.plan->stages[0].recvs.size());
  });
}

/// Starts an exchange of parts (a hana tuple of Part; collective: every rank of comm starts the
/// same list in the same order): posts its first group of messages and copies the local pieces.
/// `node`: this rank's node when its ranks agreed to copy from each other's sources
/// (agree_on_node; every part's plan then is direct), else nullptr. Complete it with wait() or test().
template <class Parts>
void start(Parts& parts, ExchangeState& s, MPI_Comm comm, const Node* node = nullptr,
           std::size_t chunk_bytes = max_chunk_bytes, int tag = started_tag) {
  detail::Runner<Parts>(parts, s, comm, chunk_bytes, tag).start(node);
}

/// Advances a started exchange without blocking (unpacks what has arrived, posts the next groups).
/// True once it is complete.
template <class Parts>
bool test(Parts& parts, ExchangeState& s, MPI_Comm comm, std::size_t chunk_bytes = max_chunk_bytes, int tag = started_tag) {
  return detail::Runner<Parts>(parts, s, comm, chunk_bytes, tag).advance(false);
}

/// Completes a started exchange.
template <class Parts>
void wait(Parts& parts, ExchangeState& s, MPI_Comm comm, std::size_t chunk_bytes = max_chunk_bytes, int tag = started_tag) {
  detail::Runner<Parts>(parts, s, comm, chunk_bytes, tag).advance(true);
}

/// Runs an exchange to its end (start, then wait, with nothing between them: a collective wire
/// calls the blocking collective).
template <class Parts>
void run(Parts& parts, ExchangeState& s, MPI_Comm comm, const Node* node = nullptr,
         std::size_t chunk_bytes = max_chunk_bytes, int tag = started_tag) {
  detail::Runner<Parts> runner(parts, s, comm, chunk_bytes, tag);
  runner.start(node, true);
  runner.advance(true);
}

/// Runs one plan on this rank: src -> dst, each element stored by op (runtime/store.hpp; assigned
/// by default). Collective over comm (every rank of the plan calls it). With `node` (this rank's
/// node) and `source` (src's part of a node window), the node's ranks first agree (agree_on_node,
/// collective on the node) whether each copies what it receives from a node peer straight out of
/// that peer's source array — when every rank's source is in the window and the plan is direct;
/// messages cross between nodes only. `node` is also the partition Wire::node_aggregated aggregates
/// by (ws.exchange.nodes). Returns true when it copied from shared memory.
template <class T, class R, class Op = assign_op>
bool execute(const BasicPlan<R>& plan, const boost::mpi::communicator& comm, std::span<const T> src, std::span<T> dst,
             Workspace& ws, std::size_t chunk_bytes = max_chunk_bytes, const Op& op = {},
             const SharedSegment* source = nullptr, const Node* node = nullptr) {
  static_assert(std::is_trivially_copyable_v<T>, "redist::runtime::execute requires a trivially copyable T");
  auto parts = boost::hana::make_tuple(part(plan, src, dst, ws, op, source));
  if (ws.exchange.nodes.get() != node) ws.exchange.nodes = node != nullptr ? node->shared_from_this() : nullptr;
  const bool on_node = node != nullptr && node->size > 1 && agree_on_node(parts, *node, plan.direct());
  run(parts, ws.exchange, static_cast<MPI_Comm>(comm), on_node ? node : nullptr, chunk_bytes, message_tag);
  return on_node;
}

}  // namespace redist::runtime
