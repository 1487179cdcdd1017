/// @file Defines Plan (one rank's index sets and schedule) and build_plan, the one plan builder of 1-D and N-D layouts, which needs no communication.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <redist/detail/math.hpp>
#include <redist/detail/records.hpp>
#include <redist/dist/any.hpp>
#include <redist/dist/cyclic.hpp>
#include <redist/dist/distribution.hpp>
#include <redist/dist/grid.hpp>
#include <redist/dist/replicated.hpp>
#include <redist/index/basic_cycle.hpp>
#include <redist/index/grid.hpp>
#include <redist/index/intersect.hpp>
#include <redist/index/section.hpp>
#include <redist/plan/layout.hpp>
#include <redist/plan/moves.hpp>
#include <redist/plan/walk.hpp>
#include <redist/schedule/schedule.hpp>

namespace redist {

namespace detail {
inline std::atomic<std::size_t>& plans_built_counter() noexcept {
  static std::atomic<std::size_t> count{0};
  return count;
}
}  // namespace detail

/// How many plans this process has built (assignments, redistribute, make_plan). A repeated
/// `b = a` between the same layouts reuses its plan and does not add to it.
inline std::size_t plans_built() noexcept { return detail::plans_built_counter().load(); }

/// A buffer that a stage's messages and copies read or write, named so that one executor runs
/// every plan (runtime::execute): the arrays of the assignment, and the two buffers a plan may keep
/// in its workspace.
enum class Buffer : unsigned char {
  source,        ///< this rank's local part of the source array
  destination,   ///< this rank's local part of the destination array
  intermediate,  ///< an intermediate array (BasicPlan::intermediate elements: multi-phase, two circulant phases)
  relay          ///< a stage's relay area (Stage::relay elements): blocks received to be forwarded later (seed 001)
};

/// The runs exchanged with one peer: runs[first, first + nruns) of the stage, packed in that order
/// (or in the order of the stage's walks). Or, for a message whose pieces are mostly single
/// elements (an Indirect layout's permutation), an element list (list_at >= 0, nruns 0): its
/// elements in packed order are at the local places Stage::src_list(m) of the source and
/// Stage::dst_list(m) of the destination, 16 bytes an element where a run is 64.
struct Message {
  int peer = -1;
  std::size_t first = 0;
  std::size_t nruns = 0;
  index_t size = 0;          ///< elements
  /// One contiguous run: sent from, or received into, its buffer in place (no pack, no unpack).
  bool direct = false;
  /// A receive that lands in the relay area at this offset and stays there: its runs in the relay
  /// area (Stage::in_relay) are already in place, the others are unpacked from it. -1: none.
  index_t relay_at = -1;
  /// An element list: its source places at Stage::list[list_at, list_at + size), its destination
  /// places after them. -1: runs.
  index_t list_at = -1;
  bool listed() const noexcept { return list_at >= 0; }
  friend bool operator==(const Message&, const Message&) = default;
};

/// One section of a basic cycle bound to a stage's messages, in elements: what the one-pass pack
/// and unpack of runtime/pack.hpp (pack_cycles) follow.
struct CycleSection {
  index_t offset = 0;       ///< local offset in the basic cycle
  index_t len = 0;          ///< elements
  index_t peer_offset = 0;  ///< the peer's local offset (for a local section: in this rank's destination)
  int slot = 0;             ///< index of its message in the stage's sends (send pattern) or recvs (receive pattern), or local_section
  friend constexpr bool operator==(const CycleSection&, const CycleSection&) = default;
};

/// The slot of a section that stays on its rank: copied from source to destination by the pack.
inline constexpr int local_section = -1;

/// The basic-cycle templates of a stage (seed 000), as a second way of packing the same messages:
/// every message of a round of basic cycles in one pass over the local array, cycle by cycle (the
/// paper's order), instead of message by message. Empty (cycle == 0) for other stages.
struct Cycles {
  index_t cycle = 0;        ///< lcm(s, t): local elements of one basic cycle, on every rank
  index_t full_cycles = 0;  ///< C = n / (M · lcm(s, t)): the complete basic cycles of every local array
  index_t slots = 0;        ///< C, plus 1 when the last period is ragged: the cycles to move
  std::vector<CycleSection> send_pattern;  ///< this rank's send template as sections, in local order
  std::vector<CycleSection> recv_pattern;  ///< its receive template
  std::vector<index_t> send_per_cycle;     ///< per send: its elements in one full cycle (C = 0: all)
  std::vector<index_t> recv_per_cycle;     ///< per receive
  /// lcm(s, t) + 1, more than any rank sends another in one cycle; the same on every rank. An agreed
  /// piece >= quantum means piece / quantum cycles per round of the one-pass pack.
  index_t quantum = 1;

  explicit operator bool() const noexcept { return cycle > 0; }
  /// Elements of a message (per_cycle, size) in the cycle slots [a, b).
  constexpr index_t elements_in(index_t per_cycle, index_t msg_size, index_t a, index_t b) const noexcept {
    index_t e = std::max<index_t>(0, std::min(b, full_cycles) - a) * per_cycle;
    if (b > full_cycles && a <= full_cycles) e += msg_size - full_cycles * per_cycle;
    return e;
  }
  /// Elements of scratch one cycle of this rank's remote messages needs (sends and receives).
  constexpr index_t scratch_per_cycle() const noexcept {
    index_t e = 0;
    for (index_t x : send_per_cycle) e += x;
    for (index_t x : recv_per_cycle) e += x;
    return e;
  }
  friend bool operator==(const Cycles&, const Cycles&) = default;
};

/// One stage of a plan on one rank: messages between two named buffers (what it sends to and
/// receives from each peer, as runs: Run for 1-D layouts, sections for N-D ones), the runs it copies
/// locally, and the steps in which the messages go:
///   from |-> to, by sends, recvs and local, in schedule's steps.
/// A stage may forward: a send's runs may read the relay area, where an earlier step's receive
/// stays (in_relay, Message::relay_at). It may also carry its basic-cycle templates (cycles), a
/// second, one-pass way of packing its messages.
template <class R>
struct Stage {
  Buffer from = Buffer::source;
  Buffer to = Buffer::destination;
  std::vector<R> runs;                    ///< all runs: messages' and local
  std::vector<Message> sends;             ///< no message to self
  std::vector<Message> recvs;
  Message local;                          ///< runs copied directly, from -> to, on this rank
  schedule::Schedule schedule;
  /// The source and the destination in storage order (plan/walk.hpp): with them, a message's
  /// packed order is the sender's storage order restricted to the pair (runtime::pack_message);
  /// without (stages not built from layouts), the order of its runs.
  Walk send_walk, recv_walk;
  /// Per run, 1 when its side on this rank is the relay area: a send's run reads it (src offset in
  /// the area), a receive's run is kept there (dst offset). Empty: no run is.
  std::vector<unsigned char> in_relay;
  /// True when the stage's schedule forwards blocks through relay areas (an indirect or hybrid
  /// circulant phase). The same on every rank, unlike in_relay (a rank may hold nothing to
  /// forward): structural decisions (direct(), pieces, budget) use this.
  bool forwards = false;
  index_t relay = 0;                      ///< elements of the relay area
  Cycles cycles;
  /// The element lists of listed messages (Message::list_at): per message, its source places,
  /// then its destination places, both in packed order. Empty when no message is listed. Records
  /// (detail::records): an Indirect plan's are the buffer its element lists came in; written
  /// whole while the plan is built, then shared by the plan's copies (detail::shared_records).
  detail::shared_records<index_t> list;

  std::span<const R> runs_of(const Message& m) const noexcept {
    return std::span<const R>(runs).subspan(m.first, m.nruns);
  }
  /// A listed message's source places, in packed order.
  std::span<const index_t> src_list(const Message& m) const noexcept {
    return std::span<const index_t>(list.data(), list.size())
        .subspan(static_cast<std::size_t>(m.list_at), static_cast<std::size_t>(m.size));
  }
  /// A listed message's destination places, in packed order.
  std::span<const index_t> dst_list(const Message& m) const noexcept {
    return std::span<const index_t>(list.data(), list.size())
        .subspan(static_cast<std::size_t>(m.list_at + m.size), static_cast<std::size_t>(m.size));
  }
  /// What identifies the stage's pieces while the plan lives (its runs' storage, else its lists'):
  /// the key under which the runtime keeps what it made for them (types, windows, graphs).
  const void* identity() const noexcept {
    return runs.data() != nullptr ? static_cast<const void*>(runs.data()) : static_cast<const void*>(list.data());
  }
  bool relayed(std::size_t run) const noexcept { return !in_relay.empty() && in_relay[run] != 0; }
  index_t elements_sent() const noexcept {
    index_t s = 0;
    for (const auto& m : sends) s += m.size;
    return s;
  }
  index_t elements_received() const noexcept {
    index_t s = 0;
    for (const auto& m : recvs) s += m.size;
    return s;
  }
};

/// One rank's part of a redistribution: a list of stages (one for most plans; two through an
/// intermediate array for the multi-phase method and two-phase circulant schedules), run one after
/// the other by runtime::execute. Building it needs no communication, so the plans of all ranks
/// can be built in one process (the virtual-rank simulator does). Every schedule of redist, and
/// every user schedule (planner<Policy>), builds this one type.
template <class R>
struct BasicPlan {
  using run_type = R;
  int rank = 0;
  int nprocs = 1;
  std::vector<Stage<R>> stages;
  index_t intermediate = 0;               ///< elements of the intermediate array (Buffer::intermediate)
  /// 0: messages move whole. Otherwise every message (of every rank: the value must be the same
  /// on all ranks) moves in rounds, as pieces of at most `piece` elements: round j moves elements
  /// [j·piece, (j+1)·piece) of each message; a stage with basic cycles moves piece / quantum
  /// cycles per round when piece >= its quantum. Stages that forward (relay) move whole.
  index_t piece = 0;
  /// The schedule it runs, as explain() names it ("all_at_once", "bcc", "hybrid(2)", ...).
  std::string schedule_name = "all_at_once";

  /// The stage of a one-stage plan (the general plan, BCC, GEN_BLOCK, the stepwise schedules).
  const Stage<R>& only() const {
    REDIST_EXPECTS(stages.size() == 1, "redist::BasicPlan::only() requires a plan of one stage");
    return stages.front();
  }
  Stage<R>& only() {
    REDIST_EXPECTS(stages.size() == 1, "redist::BasicPlan::only() requires a plan of one stage");
    return stages.front();
  }
  /// Messages this rank sends to other ranks, over all stages.
  std::size_t messages_sent() const noexcept {
    std::size_t n = 0;
    for (const auto& st : stages) n += st.sends.size();
    return n;
  }
  index_t elements_sent() const noexcept {
    index_t n = 0;
    for (const auto& st : stages) n += st.elements_sent();
    return n;
  }
  /// Steps of the schedule, over all stages (every rank of a stage has the same number).
  std::size_t steps() const noexcept {
    std::size_t n = 0;
    for (const auto& st : stages) n += st.schedule.size();
    return n;
  }
  /// True when the plan is one stage from the source to the destination that forwards nothing:
  /// its messages are the pairs' own, which node peers can copy from shared memory instead.
  bool direct() const noexcept {
    return stages.size() == 1 && stages[0].from == Buffer::source && stages[0].to == Buffer::destination &&
           !stages[0].forwards;
  }
};

/// How a direct plan's messages are posted (its wire): chosen per plan by the decision, timed on
/// the plan's second run (plan/automatic.hpp), the same on every rank; the runtime posts them
/// (runtime/exchange.hpp). Each carries packed messages or MPI derived datatypes alike.
enum class Wire : unsigned char {
  point_to_point,  ///< MPI_Irecv / MPI_Isend per message, in the schedule's groups of steps
  persistent,      ///< the same messages as persistent requests (MPI_Recv_init / MPI_Send_init), made by
                   ///< the first run on these buffers and started (MPI_Start) by every run after
  alltoallv,       ///< every message of the stage in one MPI_Alltoallv (MPI_Alltoallw with datatypes;
                   ///< the nonblocking forms when the exchange is started and waited for later)
  neighbor,        ///< one MPI_Neighbor_alltoallv (w) over a distributed-graph communicator of the
                   ///< plan's peers, made once per plan (nonblocking likewise when started)
  allgatherv,      ///< one MPI_Allgatherv over a communicator of each group of ranks that send each
                   ///< other the same elements (an all-gather: into Replicated), made once per plan;
                   ///< straight into the destination where its ranges are contiguous, else each
                   ///< rank's contribution packed once (nonblocking when started)
  node_aggregated,  ///< between nodes, one message per pair of nodes: each rank packs its messages to
                    ///< other nodes into a node window, one rank per node pair gathers and sends them,
                    ///< one receives and its node's ranks unpack theirs (runtime/exchange.hpp); within
                    ///< a node, as the node path or point to point. One plan at a time (a fused list
                    ///< posts point to point)
  allreduce,        ///< partial values (Partial<Op>) folded by one MPI_Allreduce per group of ranks that
                    ///< send each other the same elements into the same places (into Replicated);
                    ///< straight in the destination where its range is contiguous
  reduce_scatter    ///< partial values folded by one MPI_Reduce_scatter per group of ranks whose
                    ///< contributions to each member land in that member's local places (into a
                    ///< split dimension)
};

/// Whether a plan's messages between nodes may go aggregated (options::node_aggregation): timed
/// among the wires, always where a plan can, or never.
enum class NodeAggregation : unsigned char { timed, always, never };

/// The wire's name in explain's transport ("messages", "persistent", "alltoallv", "neighbor_alltoallv",
/// "allgatherv", "node_aggregated"; with derived datatypes "datatypes", "persistent_datatypes", "alltoallw", "neighbor_alltoallw").
inline std::string wire_name(Wire w, bool datatypes, bool nonblocking = false) {
  // Only a collective has a nonblocking form to choose.
  if (nonblocking && w != Wire::point_to_point && w != Wire::persistent && w != Wire::node_aggregated)
    return wire_name(w, datatypes) + "_nonblocking";
  switch (w) {
    case Wire::persistent: return datatypes ? "persistent_datatypes" : "persistent";
    case Wire::alltoallv: return datatypes ? "alltoallw" : "alltoallv";
    case Wire::neighbor: return datatypes ? "neighbor_alltoallw" : "neighbor_alltoallv";
    case Wire::allgatherv: return "allgatherv";
    case Wire::node_aggregated: return "node_aggregated";
    case Wire::allreduce: return "allreduce";
    case Wire::reduce_scatter: return "reduce_scatter";
    default: return datatypes ? "datatypes" : "messages";
  }
}

/// One transport the decision timed: the wire, packed or as derived datatypes, and the slowest
/// rank's median (seconds).
struct TransportTiming {
  Wire wire = Wire::point_to_point;
  bool datatypes = false;
  double median = 0;
  /// Node peers' pieces copied from shared memory, the other messages on `wire` (false: every
  /// piece a message, where some node copies otherwise).
  bool node = false;
  /// A collective wire posted nonblocking and waited for at once (ExchangeState::nonblocking).
  bool nonblocking = false;
  std::string name() const {
    if (!node) return wire_name(wire, datatypes, nonblocking);
    if (wire == Wire::point_to_point && !datatypes) return "shared_memory";
    return "shared_memory+" + wire_name(wire, datatypes, nonblocking);
  }
};

/// The plan of a 1-D redistribution.
using Plan = BasicPlan<Run>;
/// The plan of an N-D redistribution of rank N <= 4 (rank N: BasicPlan<section_for<N>>).
using GridPlan = BasicPlan<Section>;

namespace detail {
template <class P>
inline constexpr bool is_basic_plan = false;
template <class R>
inline constexpr bool is_basic_plan<BasicPlan<R>> = true;
}  // namespace detail

/// What a planner builds and runtime::execute runs: a BasicPlan<R> (stages of messages between
/// named buffers) for a run type R (Run, or an N-D section).
template <class P>
concept StagedPlan = detail::is_basic_plan<P>;

namespace detail {
enum class side { src, dst };

/// True when the runs, in order, tile one contiguous local range on that side: then the packed
/// message is that range itself and needs no pack or unpack.
template <class R>
bool contiguous_chain(std::span<const R> runs, side where) {
  index_t next = -1;
  for (const R& r : runs) {
    const bool contiguous = where == side::src ? r.src_contiguous() : r.dst_contiguous();
    const index_t start = where == side::src ? r.src : r.dst;
    if (!contiguous || (next >= 0 && start != next)) return false;
    next = start + r.size();
  }
  return !runs.empty();
}
template <class R>
bool contiguous_chain(const std::vector<R>& runs, side where) {
  return contiguous_chain(std::span<const R>(runs), where);
}

/// The message to `peer` whose runs are st.runs[first, end).
template <class R>
Message message_of_runs(const Stage<R>& st, int peer, side where, std::size_t first) {
  Message m;
  m.peer = peer;
  m.first = first;
  const std::span<const R> runs(st.runs.data() + first, st.runs.size() - first);
  for (const R& r : runs) m.size += r.size();
  m.nruns = runs.size();
  m.direct = contiguous_chain(runs, where);
  return m;
}

/// Collects the runs of one message into st.runs and describes them.
template <class R, class Collect>
Message collect_message(Stage<R>& st, int peer, side where, Collect&& collect) {
  std::vector<R> runs;
  collect(runs);
  const std::size_t first = st.runs.size();
  st.runs.insert(st.runs.end(), runs.begin(), runs.end());
  return message_of_runs(st, peer, where, first);
}

/// The peers in the order a rank visits them: rank + sign, rank + 2 sign, ... (mod P), so that in
/// an all-at-once exchange ranks do not all start with the same peer.
inline void order_peers(std::vector<int>& peers, int rank, int nprocs, int sign) {
  std::sort(peers.begin(), peers.end(), [&](int x, int y) {
    return floor_mod(sign * (x - rank), nprocs) < floor_mod(sign * (y - rank), nprocs);
  });
}

/// st's messages with every other rank, and one all-at-once step: send(q, out) appends to out
/// the runs `rank` sends to q, receive(q, out) those it receives from q (none: no message).
/// Peers are visited in the order rank+1, rank+2, ... for sends and rank-1, rank-2, ... for
/// receives (mod P), so that in an all-at-once exchange ranks do not all start with the same peer.
/// `send_peers` and `recv_peers`, when given, are the only ranks that may share elements with
/// this one (in any order): the others are not asked.
template <class R, class Send, class Receive>
void add_messages(Stage<R>& st, int rank, int nprocs, Send&& send, Receive&& receive,
                  std::optional<std::vector<int>> send_peers = std::nullopt,
                  std::optional<std::vector<int>> recv_peers = std::nullopt) {
  auto add = [&](int q, side where, auto& collect, std::vector<Message>& list) {
    Message m = collect_message(st, q, where, [&](std::vector<R>& out) { collect(q, out); });
    if (m.size > 0) list.push_back(m);
    else st.runs.resize(m.first);
  };
  auto visit = [&](std::optional<std::vector<int>>& peers, int sign, side where, auto& collect, std::vector<Message>& list) {
    if (!peers) {
      for (int d = 1; d < nprocs; ++d) add(static_cast<int>(floor_mod(rank + sign * d, nprocs)), where, collect, list);
      return;
    }
    order_peers(*peers, rank, nprocs, sign);
    for (int q : *peers)
      if (q != rank) add(q, where, collect, list);
  };
  visit(send_peers, 1, side::src, send, st.sends);
  visit(recv_peers, -1, side::dst, receive, st.recvs);
  st.schedule = schedule::make_all_at_once(st.sends.size(), st.recvs.size());
}
}  // namespace detail

namespace detail {
/// The plan of `rank` made of its moves (an Indirect layout's, by formula or from the directory,
/// plan/indirect.hpp): per peer the moves it sends and receives, in the order the moves come (the
/// same on both ends: the formula's side made them, or the directory sent them to both, in one
/// order), consecutive ones joined into runs, so that a list that is really a block costs what a
/// block costs; the local moves copied directly; one all-at-once step. A message (or
/// the local copy) whose runs would average fewer than `list_below` elements is an element list
/// instead (Message::list_at: 16 bytes an element, where a run is 64), and so is one that has
/// element lists made whole (moves.blocks): the plan's list is then their buffer (moves.lists,
/// taken), a message of one block listed where it lies, any other listed message after it. Two
/// passes over the moves (count, then write each in its place): O(moves + P), no sort, no copy of
/// the blocks.
inline Plan plan_of_moves(const IndirectMoves& moves, int rank, int nprocs, index_t list_below = 4) {
  Plan plan;
  plan.rank = rank;
  plan.nprocs = nprocs;
  Stage<Run>& st = plan.stages.emplace_back();
  // Slots: the local copy, then the sends by receiver, then the receives by sender, then the
  // moves not this rank's.
  const auto np = static_cast<std::size_t>(nprocs);
  const std::size_t slots = 2 * np + 2;
  auto slot = [&](const IndirectMove& m) -> std::size_t {
    if (m.from == rank) return m.to == rank ? 0 : 1 + static_cast<std::size_t>(m.to);
    return m.to == rank ? 1 + np + static_cast<std::size_t>(m.from) : 2 * np + 1;
  };
  // Pass 1: per slot, its elements and its runs once consecutive moves are joined.
  std::vector<index_t> elems(slots, 0), nruns(slots, 0), src_end(slots, -1), dst_end(slots, -1);
  auto joins = [&](std::size_t k, const IndirectMove& m) { return src_end[k] == m.src && dst_end[k] == m.dst; };
  auto each = [&](auto&& f) {
    for (const IndirectMove& m : moves.made) f(m);
    for (const IndirectMove& m : moves.received) f(m);
  };
  each([&](const IndirectMove& m) {
    const std::size_t k = slot(m);
    if (m.len <= 0 || k == slots - 1) return;
    elems[k] += m.len;
    if (!joins(k, m)) ++nruns[k];
    src_end[k] = m.src + m.len;
    dst_end[k] = m.dst + m.len;
  });
  // Element lists made whole: their buffer becomes the plan's list; a slot of one block and no
  // moves is listed where its block lies (in_place), any other after the buffer.
  std::vector<index_t> blocks_of(slots, 0);
  std::vector<std::size_t> block_at(moves.blocks.size(), 0);  // each block's offset in the buffer
  records<index_t> list;  // the stage's, written here and shared once written
  std::size_t listed_elems = 0;
  if (!moves.blocks.empty()) {
    REDIST_EXPECTS(moves.lists != nullptr && !moves.lists->empty(),
                   "redist: the element lists of an Indirect plan are taken by the one plan made of them");
    const index_t* base = moves.lists->data();
    for (std::size_t i = 0; i < moves.blocks.size(); ++i) {
      const ListedBlock& b = moves.blocks[i];
      REDIST_EXPECTS(b.places.data() >= base && b.places.data() + b.places.size() <= base + moves.lists->size(),
                     "redist: an Indirect plan's element lists lie in the buffer given with them");
      block_at[i] = static_cast<std::size_t>(b.places.data() - base);
      const std::size_t k = slot(IndirectMove{b.from, b.to, 0, 0, b.size()});
      if (b.size() <= 0 || k == slots - 1) continue;
      elems[k] += b.size();
      ++blocks_of[k];
    }
    list = std::move(*moves.lists);
    listed_elems = list.size();
  }
  std::vector<std::ptrdiff_t> in_place(slots, -1);
  for (std::size_t i = 0; i < moves.blocks.size(); ++i) {
    const ListedBlock& b = moves.blocks[i];
    const std::size_t k = slot(IndirectMove{b.from, b.to, 0, 0, b.size()});
    if (b.size() > 0 && k != slots - 1 && blocks_of[k] == 1 && nruns[k] == 0)
      in_place[k] = static_cast<std::ptrdiff_t>(block_at[i]);
  }
  // Where each slot's runs (or list) go.
  std::vector<unsigned char> listed(slots, 0);
  std::vector<std::size_t> at(slots, 0);
  std::size_t runs = 0;
  for (std::size_t k = 0; k + 1 < slots; ++k) {
    listed[k] = blocks_of[k] != 0 || (nruns[k] > 1 && elems[k] < list_below * nruns[k]) ? 1 : 0;
    if (in_place[k] >= 0) {
      at[k] = static_cast<std::size_t>(in_place[k]);
    } else if (listed[k] != 0) {
      at[k] = listed_elems;
      listed_elems += 2 * static_cast<std::size_t>(elems[k]);
    } else {
      at[k] = runs;
      runs += static_cast<std::size_t>(nruns[k]);
    }
  }
  st.runs.resize(runs);
  list.resize(listed_elems);
  std::vector<std::size_t> next(at);
  // Pass 2: each move into its slot's runs (joined to the slot's last run where it continues it)
  // or its list (sources, then destinations).
  std::fill(src_end.begin(), src_end.end(), -1);
  std::fill(dst_end.begin(), dst_end.end(), -1);
  each([&](const IndirectMove& m) {
    const std::size_t k = slot(m);
    if (m.len <= 0 || k == slots - 1) return;
    if (listed[k] != 0) {
      index_t* s = list.data() + next[k];
      index_t* d = s + elems[k];
      for (index_t j = 0; j < m.len; ++j) {
        s[j] = m.src + j;
        d[j] = m.dst + j;
      }
      next[k] += static_cast<std::size_t>(m.len);
    } else if (joins(k, m)) {
      Run& r = st.runs[next[k] - 1];
      r.len += m.len;
      r.src_stride = r.dst_stride = r.len;
    } else {
      st.runs[next[k]++] = Run{m.src, m.dst, m.len, m.len, m.len, 1};
    }
    src_end[k] = m.src + m.len;
    dst_end[k] = m.dst + m.len;
  });
  for (std::size_t i = 0; i < moves.blocks.size(); ++i) {
    const ListedBlock& b = moves.blocks[i];
    const std::size_t k = slot(IndirectMove{b.from, b.to, 0, 0, b.size()});
    if (b.size() <= 0 || k == slots - 1 || in_place[k] >= 0) continue;
    // Copied from where the block lies in the list (the buffer, taken: `places` may have moved).
    const index_t* from = list.data() + block_at[i];
    index_t* s = list.data() + next[k];
    const auto half = static_cast<std::size_t>(b.size());
    std::copy_n(from, half, s);
    std::copy_n(from + half, half, s + elems[k]);
    next[k] += half;
  }
  st.list = shared_records<index_t>(std::move(list));
  auto message = [&](std::size_t k, int peer, side where) {
    Message msg;
    msg.peer = peer;
    msg.size = elems[k];
    if (listed[k] != 0) {
      msg.list_at = static_cast<index_t>(at[k]);
      return msg;
    }
    msg.first = at[k];
    msg.nruns = static_cast<std::size_t>(nruns[k]);
    msg.direct = msg.nruns > 0 && contiguous_chain(st.runs_of(msg), where);
    return msg;
  };
  st.local = message(0, rank, side::src);
  std::vector<int> to, from;  // the peers
  for (std::size_t q = 0; q < np; ++q) {
    if (elems[1 + q] > 0) to.push_back(static_cast<int>(q));
    if (elems[1 + np + q] > 0) from.push_back(static_cast<int>(q));
  }
  order_peers(to, rank, nprocs, 1);
  order_peers(from, rank, nprocs, -1);
  for (int q : to) st.sends.push_back(message(1 + static_cast<std::size_t>(q), q, side::src));
  for (int q : from) st.recvs.push_back(message(1 + np + static_cast<std::size_t>(q), q, side::dst));
  st.schedule = schedule::make_all_at_once(st.sends.size(), st.recvs.size());
  return plan;
}
/// plan_of_moves of one list of moves.
inline Plan plan_of_moves(std::span<const IndirectMove> moves, int rank, int nprocs, index_t list_below = 4) {
  return plan_of_moves(IndirectMoves{moves, {}}, rank, nprocs, list_below);
}
}  // namespace detail

namespace detail {
/// True for the mapping of a Cyclic<X>.
template <class M>
concept cyclic_1d = requires { typename M::distribution_type; } && is_cyclic_distribution<typename M::distribution_type>;

/// The 1-D CYCLIC mapping a dimension's 1-D mapping is (Cyclic<X>::mapping, or AnyDist's when it
/// holds one; nullptr when it does not), or nullptr (std::nullptr_t) for one that never is.
template <class M>
auto cyclic_of(const M& m) noexcept {
  if constexpr (cyclic_1d<M>)
    return &m;
  else if constexpr (std::is_same_v<M, AnyDist::mapping>)
    return m.template get_if<Cyclic<dynamic>::mapping>();
  else
    return nullptr;
}

/// True for the 1-D mappings of the built-in distributions, whose LDDs are walkable (detail::walkable)
/// at every process, so that a plan needs not ask every process for them.
template <class M>
concept builtin_mapping = std::same_as<M, Block::mapping> || std::same_as<M, GenBlock::mapping> ||
                          std::same_as<M, Collapsed::mapping> || std::same_as<M, AnyDist::mapping> || cyclic_1d<M> ||
                          std::same_as<M, Replicated::mapping>;

/// A 1-D layout seen through rank_one (grid coordinate c is process c, no offset).
template <class L>
inline constexpr bool is_rank_one = false;
template <class M>
inline constexpr bool is_rank_one<rank_one<M>> = true;

/// The communicator rank at grid coordinates c of layout l.
template <class M>
constexpr int peer_rank(const rank_one<M>&, const std::array<int, 1>& c) noexcept {
  return c[0];
}
template <class L, std::size_t N>
  requires requires(const L& l, const std::array<int, N>& c) { l.grid().rank_of(c); }
constexpr int peer_rank(const L& l, const std::array<int, N>& c) noexcept {
  return l.grid().rank_of(c);
}

/// f(mapping, offset) with dimension d's 1-D mapping as its type states it and the layout's offset
/// along d (grid coordinate c holds the mapping's process floor_mod(c - offset, extent)); returns
/// false, without calling f, for a layout that does not show its mappings.
template <class L, class F>
bool visit_mapping(const L& l, std::size_t d, F&& f) {
  if constexpr (is_rank_one<L>) {
    f(l.m, 0);
    return true;
  } else if constexpr (requires { l.visit_dimension(d, [](const auto&, auto) {}); l.offsets(); }) {
    l.visit_dimension(d, [&](const auto& m, auto) { f(m, l.offsets()[d]); });
    return true;
  } else {
    return false;
  }
}

/// Appends to `out` processes of the 1-D mapping m among which are all holders of an element of
/// [lo, hi) (a superset: the intersection decides), and returns true; false when m's type has no
/// such cheap answer.
template <class M>
bool owners_of_range(const M& m, index_t lo, index_t hi, std::vector<int>& out) {
  if (hi <= lo) return true;
  if constexpr (std::same_as<M, Block::mapping> || std::same_as<M, GenBlock::mapping> || std::same_as<M, Collapsed::mapping>) {
    for (int v = m.owner(lo), e = m.owner(hi - 1); v <= e; ++v) out.push_back(v);  // owners grow with the index
    return true;
  } else if constexpr (cyclic_1d<M>) {
    const index_t k = m.block_size(), b0 = lo / k, b1 = (hi - 1) / k;
    const int p = m.nprocs();
    if (b1 - b0 + 1 >= p)
      for (int v = 0; v < p; ++v) out.push_back(v);
    else
      for (index_t b = b0; b <= b1; ++b) out.push_back(static_cast<int>(b % p));
    return true;
  } else if constexpr (replicated_mapping<M>) {
    for (int v = 0; v < m.nprocs(); ++v) out.push_back(v);  // every process holds a copy
    return true;
  } else if constexpr (std::same_as<M, AnyDist::mapping>) {
    bool known = false;
    auto held = [&](const auto* x) {
      if (x != nullptr) known = owners_of_range(*x, lo, hi, out);
    };
    held(m.template get_if<Block::mapping>());
    held(m.template get_if<Cyclic<dynamic>::mapping>());
    held(m.template get_if<GenBlock::mapping>());
    held(m.template get_if<Collapsed::mapping>());
    held(m.template get_if<Replicated::mapping>());
    return known;
  } else {
    return false;
  }
}

/// The grid coordinates along dimension k of layout `other` that may share an element with the LDDs
/// `mine` (sorted, distinct), when finding them costs less than intersecting with every coordinate:
/// the owners of mine's blocks, by formula. Nothing when every coordinate must be tried.
template <class L, class R>
std::optional<std::vector<int>> candidate_coords(const L& other, std::size_t k, const R& mine, int extent) {
  index_t blocks = 0;
  for (const Ldd& l : mine) blocks += l.empty() ? 0 : l.n;
  if (blocks >= extent) return std::nullopt;
  std::vector<int> out;
  bool known = true;
  const bool shown = visit_mapping(other, k, [&](const auto& m, int offset) {
    for (const Ldd& l : mine)
      for (index_t u = 0; u < (l.empty() ? 0 : l.n) && known; ++u) known = owners_of_range(m, l.o + l.s * u, l.o + l.s * u + l.b, out);
    for (int& v : out) v = static_cast<int>(floor_mod(v + offset, extent));
  });
  if (!shown || !known) return std::nullopt;
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

/// True when layout l's LDDs along dimension d are walkable at every grid coordinate: known from
/// the type for the built-in distributions, asked of every coordinate otherwise. Every rank gets
/// the same answer.
template <class L>
bool walkable_dimension(const L& l, std::size_t d) {
  bool builtin = false;
  visit_mapping(l, d, [&](const auto& m, int) { builtin = builtin_mapping<std::remove_cvref_t<decltype(m)>>; });
  if (builtin) return true;
  for (int c = 0; c < l.grid().extent(d); ++c)
    if (!walkable(l.ldds(d, c))) return false;
  return true;
}

/// The run provider of one dimension pair of a plan: t.of(c), for every grid coordinate c of the
/// other side's dimension that shares elements with coordinate `mine` of this side's dimension,
/// the runs between the two (who: the side this rank is on; dimension d of `from`, dimension k of
/// `to`); the other coordinates are not in t. A Cyclic to Cyclic
/// pair on the same number of processes takes the basic-cycle templates of seed 000
/// (index::cycle_table; static tables when both block sizes and the grid's extent along the
/// dimension are in the layouts' types); any other pair, the LDD intersection of seed 003. Both
/// give the same runs.
template <class From, class To>
void dimension_table(const From& from, std::size_t d, int mine, const To& to, std::size_t k, index::side who,
                     PeerRuns& t) {
  const bool sender = who == index::side::sender;
  const int other_extent = sender ? to.grid().extent(k) : from.grid().extent(d);
  t = {};
  bool done = false;
  if constexpr (requires { from.visit_dimension(d, [](const auto&, auto) {}); to.visit_dimension(k, [](const auto&, auto) {}); }) {
    // The first layout's facts are taken in the outer lambda, as values: the inner one captures
    // nothing whose type depends on the outer one's parameters (clang checks such uses when the
    // outer lambda is instantiated; g++ 12 loses their type).
    from.visit_dimension(d, [&](const auto& mf, auto pf) {
      const auto cf = cyclic_of(mf);
      if constexpr (!std::is_null_pointer_v<decltype(cf)>) {
        if (cf == nullptr) return;
        constexpr auto static_from = std::remove_cvref_t<decltype(*cf)>::distribution_type::static_block_size();
        constexpr std::size_t extent_from = decltype(pf)::value;
        const index_t block_from = cf->block_size(), n = cf->size();
        const int np = cf->nprocs();
        to.visit_dimension(k, [&](const auto& mt, auto pt) {
          const auto ct = cyclic_of(mt);
          if constexpr (!std::is_null_pointer_v<decltype(ct)>) {
            if (ct == nullptr || np != ct->nprocs() || n != ct->size()) return;
            using CT = std::remove_cvref_t<decltype(*ct)>;
            constexpr std::size_t P = extent_from == decltype(pt)::value ? extent_from : dynamic;
            auto virtual_of = [&](int c, int offset) { return static_cast<int>(floor_mod(c - offset, np)); };
            const int vm = virtual_of(mine, sender ? from.offsets()[d] : to.offsets()[k]);
            index::cycle_table<static_from, CT::distribution_type::static_block_size(), P>(
                block_from, ct->block_size(), np, n, vm, who, t);
            // Processes of the other side to its grid coordinates.
            const int other_offset = sender ? to.offsets()[k] : from.offsets()[d];
            for (int& v : t.peers) v = static_cast<int>(floor_mod(v + other_offset, np));
            t.sort();
            done = true;
          }
        });
      }
    });
  }
  if (done) return;
  // The LDD intersection with the coordinates that may hold one of this side's elements (found by
  // formula: a plan follows the rank's messages, not P), or with every coordinate.
  std::vector<Run> runs;
  auto each_candidate = [&](const auto& m, const auto& other, std::size_t along, auto&& f) {
    auto one = [&](int c) {
      runs.clear();
      f(c);
      if (!runs.empty()) t.push(c, runs);
    };
    if (const auto cand = candidate_coords(other, along, m, other_extent))
      for (int c : *cand) one(c);
    else
      for (int c = 0; c < other_extent; ++c) one(c);
  };
  if (sender) {
    const auto m = from.ldds(d, mine);
    each_candidate(m, to, k, [&](int c) { index::intersect(m, to.ldds(k, c), runs); });
  } else {
    const auto m = to.ldds(k, mine);
    each_candidate(m, from, d, [&](int c) { index::intersect(from.ldds(d, c), m, runs); });
  }
}

/// The one plan builder: the plan of `rank` for moving an array from the layout fv (a grid view:
/// a grid layout, a transposed one, or a 1-D layout as rank_one) to `to`, with runs of type R
/// (Run for a 1-D pair, whose rank-1 sections are runs; section_for<N> otherwise). For every
/// peer the message is the Cartesian product of the per-dimension LDD intersections (seed 003;
/// index::grid_sections, seed 004); ranks outside a grid send or receive nothing. Requires the
/// same extents (after fv's permutation); the callers check them with their own messages. A
/// layout with an origin (detail::origin_of: a section's dropped dimensions) adds it to every
/// section's offset on its side.
/// No communication. Index work per dimension over the other side's coordinates that may share
/// elements with this rank's (by formula for the built-in distributions: owners of this rank's
/// blocks, or the basic-cycle templates; every coordinate for others), then per message: it follows
/// the rank's messages, not P, and nothing grows with the array for periodic layouts.
template <class R, class From, class To>
BasicPlan<R> build_plan_of(const grid_view<From>& fv, const To& to, int rank) {
  const From& from = fv.m;
  constexpr std::size_t N = From::rank();
  const int nprocs = from.nprocs();
  REDIST_EXPECTS(rank >= 0 && rank < nprocs, "redist::build_plan(from, to, rank) requires rank to be in [0, P)");
  ++plans_built_counter();
  // A layout with an Indirect dimension: its sets are lists only the directory knows, which gave
  // this rank its moves (indirect_moves_scope, set by the array layer).
  if constexpr (indirect_layout<From> || indirect_layout<To>) {
    static_assert(std::is_same_v<R, Run>,
                  "redist: an array of an Indirect layout is redistributed whole (b = a, redistribute, make_plan), not "
                  "as a section or a transposed view");
    if (indirect_moves() == nullptr)
      report_error("redist: a plan with an Indirect layout is made of the moves its directory gives: b = a, "
                   "redistribute, make_plan and explain ask it (collective); expressions and fused lists do not take "
                   "Indirect arrays");
    if constexpr (std::is_same_v<R, Run>) return plan_of_moves(*indirect_moves(), rank, nprocs);
  }

  // Source dimension d goes to destination dimension dst_dim[d].
  std::array<std::size_t, N> dst_dim{};
  for (std::size_t k = 0; k < N; ++k) dst_dim[fv.perm[k]] = k;
  std::array<std::size_t, N> order{};
  for (std::size_t k = 0; k < N; ++k) order[k] = from.storage().order == Order::column_major ? k : N - 1 - k;

  BasicPlan<R> plan;
  plan.rank = rank;
  plan.nprocs = nprocs;
  Stage<R>& stage = plan.stages.emplace_back();
  const auto my_src = from.coords_of(rank);
  const auto my_dst = to.coords_of(rank);

  // t[d].of(c): source dimension d at coordinate cs[d] ∩ destination dimension dst_dim[d] at coordinate c
  // (c a destination coordinate in a sender's table, a source coordinate in a receiver's).
  using Table = std::array<PeerRuns, N>;
  auto holds_none = [](const auto& ldds) {
    for (const Ldd& l : ldds)
      if (!l.empty()) return false;
    return true;
  };
  // Each dimension's runs from its run provider (dimension_table): the basic-cycle templates for
  // Cyclic to Cyclic, the LDD intersection otherwise.
  auto sender_side = [&](const auto& cs) {
    Table t;
    for (std::size_t d = 0; d < N; ++d)
      if (holds_none(from.ldds(d, cs[d]))) return t;  // this rank holds nothing: no message
    for (std::size_t d = 0; d < N; ++d) {
      dimension_table(from, d, cs[d], to, dst_dim[d], index::side::sender, t[d]);
      if (t[d].peers.empty()) break;  // no element shared along d: no message, whatever the others
    }
    return t;
  };
  auto receiver_side = [&](const auto& cd) {
    Table t;
    for (std::size_t d = 0; d < N; ++d)
      if (holds_none(to.ldds(d, cd[d]))) return t;
    for (std::size_t d = 0; d < N; ++d) {
      dimension_table(from, d, cd[dst_dim[d]], to, dst_dim[d], index::side::receiver, t[d]);
      if (t[d].peers.empty()) break;
    }
    return t;
  };
  // The sections between sender coordinates cs (rank s) and receiver coordinates cd (rank r).
  auto pair_sections = [&](const Table& t, bool by_receiver, const auto& cs, int s, const auto& cd, int r,
                           std::vector<R>& out) {
    index::GridPair<N> p;
    const auto ss = from.strides(s);
    const auto ds = to.strides(r);
    for (std::size_t d = 0; d < N; ++d) {
      const std::size_t k = dst_dim[d];
      p.runs[d] = t[d].of(by_receiver ? cs[d] : cd[k]);
      p.src_stride[d] = ss[d];
      p.dst_stride[d] = ds[k];
    }
    p.order = order;
    p.src_origin = origin_of(from, s);
    p.dst_origin = origin_of(to, r);
    index::grid_sections(p, out);
  };

  // A source held in copies along some dimensions (Replicated): receiver r reads the copy of rank
  // s only when s serves r (detail::serves: r's own copy when it holds one, else one on r's node
  // first), so that each element arrives once. A destination of partial values (Partial): only
  // the ranks that receive (process 0 of those dimensions) get the elements. Sender and receiver
  // decide it alike. (A source of partial values needs nothing here: every holder sends, and the
  // receiver folds.)
  const bool replicas = any_copies(from), partial_to = any_partial(to);
  auto reads = [&](int s, int r) { return (!replicas || serves(from, s, r)) && (!partial_to || receives(to, r)); };

  std::optional<Table> sends, recvs;
  if (my_src) sends = sender_side(*my_src);
  if (my_dst) recvs = receiver_side(*my_dst);
  if (my_src && my_dst && reads(rank, rank))
    stage.local = collect_message(stage, rank, side::src, [&](std::vector<R>& out) {
      pair_sections(*sends, false, *my_src, rank, *my_dst, rank, out);
    });
  // The peers: the ranks at the coordinates that have runs in every dimension's table (a message
  // is the product of its dimensions' runs; the other ranks share nothing with this one), so that
  // the work follows the rank's messages and not P. Sender tables are indexed by destination
  // coordinates (along dst_dim[d]), receiver tables by source coordinates.
  auto peers_of = [&](const std::optional<Table>& t, const auto& layout, bool by_dst) -> std::optional<std::vector<int>> {
    if constexpr (!requires { peer_rank(layout, std::array<int, N>{}); }) {
      return std::nullopt;
    } else {
      std::vector<int> out;
      if (!t) return out;
      for (std::size_t d = 0; d < N; ++d)
        if ((*t)[d].peers.empty()) return out;
      std::array<std::size_t, N> i{};
      std::array<int, N> c{};
      for (;;) {
        for (std::size_t d = 0; d < N; ++d) c[by_dst ? dst_dim[d] : d] = (*t)[d].peers[i[d]];
        const int q = peer_rank(layout, c);
        if (by_dst ? reads(rank, q) : reads(q, rank)) out.push_back(q);
        std::size_t d = 0;
        while (d < N && ++i[d] == (*t)[d].peers.size()) i[d++] = 0;
        if (d == N) break;
      }
      return out;
    }
  };
  add_messages(
      stage, rank, nprocs,
      [&](int q, std::vector<R>& out) {
        const auto cq = to.coords_of(q);
        if (my_src && cq && reads(rank, q)) pair_sections(*sends, false, *my_src, rank, *cq, q, out);
      },
      [&](int q, std::vector<R>& out) {
        const auto cq = from.coords_of(q);
        if (my_dst && cq && reads(q, rank)) pair_sections(*recvs, true, *cq, q, *my_dst, rank, out);
      },
      peers_of(sends, to, true), peers_of(recvs, from, false));

  // The walks, which define the packed order of the messages (plan/walk.hpp): the source in its
  // storage order (walk dimension k is source dimension order[k]), the destination in the same
  // order of dimensions. They need local indices that grow with global ones in every dimension
  // of both layouts and contiguous pieces (all built-in distributions: detail::walkable), and
  // neither layout may be a section (a layout with an origin, SectionLayout: make_walk leaves out
  // a dimension of one local element as if that element were at local index 0, and does not add
  // the origin). A pair without these properties gets no walks, on every rank alike, and its
  // messages are packed in the order of their runs.
  bool ordered = !HasOrigin<From> && !HasOrigin<To>;
  for (std::size_t d = 0; d < N && ordered; ++d) ordered = walkable_dimension(from, d) && walkable_dimension(to, d);
  if (!ordered) return plan;
  auto extent_of = [](const auto& s) {
    index_t n = 0;
    for (const Ldd& l : s) n += l.size();
    return n;
  };
  std::array<WalkInput, N> dims{};
  // Message i's peer per walk dimension, as its position among the dimension's peers: coord(peer, k).
  auto peer_coords = [&](const std::vector<Message>& messages, auto&& coord) {
    std::vector<std::vector<index_t>> c(messages.size(), std::vector<index_t>(N));
    for (std::size_t i = 0; i < messages.size(); ++i)
      for (std::size_t k = 0; k < N; ++k) c[i][k] = coord(messages[i].peer, k);
    return c;
  };
  if (my_src) {
    const auto st = from.strides(rank);
    for (std::size_t k = 0; k < N; ++k)
      dims[k] = WalkInput{&(*sends)[order[k]], extent_of(from.ldds(order[k], (*my_src)[order[k]])), st[order[k]]};
    stage.send_walk = make_walk(
        dims, peer_coords(stage.sends, [&](int q, std::size_t k) {
          return static_cast<index_t>((*sends)[order[k]].position((*to.coords_of(q))[dst_dim[order[k]]]));
        }),
        true);
  }
  if (my_dst) {
    const auto st = to.strides(rank);
    for (std::size_t k = 0; k < N; ++k) {
      const std::size_t q = dst_dim[order[k]];
      dims[k] = WalkInput{&(*recvs)[order[k]], extent_of(to.ldds(q, (*my_dst)[q])), st[q]};
    }
    stage.recv_walk = make_walk(
        dims, peer_coords(stage.recvs, [&](int q, std::size_t k) {
          return static_cast<index_t>((*recvs)[order[k]].position((*from.coords_of(q))[order[k]]));
        }),
        false);
    // A message received straight into dst needs the packed order to be dst's storage order:
    // the walk must go through dst in dst's own order of dimensions.
    bool own_order = true;
    for (std::size_t k = 0; k < N; ++k)
      own_order = own_order && dst_dim[order[k]] == (to.storage().order == Order::column_major ? k : N - 1 - k);
    if (!own_order)
      for (Message& m : stage.recvs) m.direct = false;
  }
  return plan;
}
}  // namespace detail

/// The plan of `rank` for moving a 1-D array laid out by `from` to the layout `to` (both bound
/// to the same n and P): per peer, the intersections of the LDDs (seed 003), as runs. It is the
/// rank-1 case of the N-D plan below, built by the same code.
/// Cost: index work over the peers that may share elements with `rank` (detail::build_plan_of);
/// nothing grows with n for periodic layouts.
template <LinearLayout From, LinearLayout To>
Plan build_plan(const From& from, const To& to, int rank) {
  REDIST_EXPECTS(from.size() == to.size(),
                 "redist::build_plan(from, to, rank) requires from and to to have the same global size");
  REDIST_EXPECTS(from.nprocs() == to.nprocs(),
                 "redist::build_plan(from, to, rank) requires from and to to have the same process count");
  const detail::rank_one<From> f{from};
  const detail::rank_one<To> t{to};
  return detail::build_plan_of<Run>(detail::view_of(f), t, rank);
}

/// The plan of `rank` for moving an N-D array from the layout `from` to the layout `to`: the
/// same global extents (after from's permutation, if it is Transposed), any grids, any process
/// subsets of one communicator (a BasicPlan<section_for<N>>; for rank 1, a Plan of runs). Peers
/// are visited from rank + 1 on, as for 1-D layouts.
template <GridSource From, GridLayout To>
auto build_plan(const From& from_view, const To& to, int rank) {
  const auto fv = detail::view_of(from_view);
  const auto& from = fv.m;
  constexpr std::size_t N = std::remove_cvref_t<decltype(from)>::rank();
  static_assert(N == To::rank(), "redist::build_plan(from, to, rank) requires layouts of the same rank");
  REDIST_EXPECTS(from.nprocs() == to.nprocs(),
                 "redist::build_plan(from, to, rank) requires from and to to be on the same communicator size");
  for (std::size_t k = 0; k < N; ++k)
    REDIST_EXPECTS(from.extent(fv.perm[k]) == to.extent(k),
                   "redist::build_plan(from, to, rank) requires from and to to have the same extents (dimension " +
                       std::to_string(k) + ": " + std::to_string(from.extent(fv.perm[k])) + " vs " +
                       std::to_string(to.extent(k)) + ")");
  // A rank-1 pair without origins (a 1-D array on any grid of the communicator: a subset, an
  // offset, a rank map) has unit strides: its sections are runs, and its plan is a Plan.
  using From0 = std::remove_cvref_t<decltype(from)>;
  if constexpr (N == 1 && !detail::HasOrigin<From0> && !detail::HasOrigin<To>)
    return detail::build_plan_of<Run>(fv, to, rank);
  else
    return detail::build_plan_of<section_for<N>>(fv, to, rank);
}

/// build_plan of N-D layouts, by its N-D name.
template <GridSource From, GridLayout To>
auto build_grid_plan(const From& from, const To& to, int rank) {
  return build_plan(from, to, rank);
}

namespace detail {
/// Calls f(first, last) for each group of consecutive steps of a schedule posted together
/// (a step with joins_previous joins the group of the step before it).
template <class F>
void for_each_group(const schedule::Schedule& s, F&& f) {
  std::size_t k = 0;
  while (k < s.steps.size()) {
    std::size_t e = k + 1;
    while (e < s.steps.size() && s.steps[e].joins_previous) ++e;
    f(k, e);
    k = e;
  }
}

/// The largest piece size C for which this rank's packed (not direct) messages of any one group
/// of steps of st (the steps posted together, for_each_group), cut into pieces of at most C
/// elements, need at most `budget` elements of scratch per round: Σ min(size, C) <= budget
/// (water-filling). 0 when whole messages fit. Throws redist::error when the budget is smaller
/// than one element per packed message of a group.
template <class R>
index_t step_piece_limit(const Stage<R>& st, index_t budget) {
  index_t limit = 0;
  std::vector<index_t> sizes;
  for_each_group(st.schedule, [&](std::size_t first, std::size_t last) {
    sizes.clear();
    for (std::size_t t = first; t < last; ++t) {
      const schedule::Step& step = st.schedule.steps[t];
      for (std::size_t i : step.sends) if (!st.sends[i].direct) sizes.push_back(st.sends[i].size);
      for (std::size_t i : step.recvs) if (!st.recvs[i].direct) sizes.push_back(st.recvs[i].size);
    }
    std::sort(sizes.begin(), sizes.end());
    index_t left = budget, c = 0;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      const auto rest = static_cast<index_t>(sizes.size() - i);
      if (sizes[i] <= left / rest) {
        left -= sizes[i];
        continue;
      }
      c = left / rest;
      break;
    }
    if (c == 0 && !sizes.empty() && std::accumulate(sizes.begin(), sizes.end(), index_t{0}) > budget)
      detail::report_error("redist::options requires max_scratch_bytes to hold at least one element per message of a step (" +
                           std::to_string(sizes.size()) + " messages, budget " + std::to_string(budget) + " elements)");
    if (c > 0) limit = limit == 0 ? c : std::min(limit, c);
  });
  return limit;
}

/// The piece size of a stage with basic cycles, which also says (the same on every rank, once
/// agreed) how it runs:
///  - 0: everything fits; the one-pass pack moves all cycles in one round;
///  - >= quantum: the one-pass pack, piece / quantum cycles per round (each round's scratch is
///    at most that many cycles' worth of this rank's remote elements, within budget);
///  - in [1, quantum): message by message (run order), in pieces of at most `piece` elements —
///    when one cycle does not fit the budget, or that way needs smaller pieces anyway.
template <class R>
index_t cycles_piece_limit(const Stage<R>& st, index_t budget) {
  const Cycles& c = st.cycles;
  if (st.elements_sent() + st.elements_received() <= budget) return 0;
  const index_t need = c.scratch_per_cycle();
  const index_t cycles = need == 0 ? c.slots : std::min(c.slots, budget / need);
  const index_t general = step_piece_limit(st, budget);
  const index_t small = c.quantum - 1;  // >= 1 here: some message does not fit
  if (cycles >= 1 && (general == 0 || general >= small))
    return detail::checked_mul(cycles, c.quantum, "the piece of a basic-cycle round");
  return general == 0 ? small : std::min(general, small);
}

/// Elements of scratch one step group of a forwarding stage posts at once: its packed sends and
/// the receives that are neither direct nor kept in the relay area.
template <class R>
index_t relay_group_scratch(const Stage<R>& st, std::size_t first, std::size_t last) {
  index_t e = 0;
  for (std::size_t k = first; k < last; ++k) {
    for (std::size_t i : st.schedule.steps[k].sends) e += st.sends[i].direct ? 0 : st.sends[i].size;
    for (std::size_t i : st.schedule.steps[k].recvs)
      e += st.recvs[i].direct || st.recvs[i].relay_at >= 0 ? 0 : st.recvs[i].size;
  }
  return e;
}

/// Elements of scratch a forwarding stage needs besides its relay area: its largest group's.
template <class R>
index_t relay_scratch(const Stage<R>& st) {
  index_t most = 0;
  for_each_group(st.schedule, [&](std::size_t a, std::size_t b) { most = std::max(most, relay_group_scratch(st, a, b)); });
  return most;
}
}  // namespace detail

/// The largest piece size for which this rank's messages fit a scratch budget of `budget`
/// elements per round, over the plan's stages (the smallest nonzero one); 0 when whole messages
/// fit. The ranks agree on the smallest value (every rank then cuts alike). A stage that forwards
/// (relay) is not cut: it needs its relay area and scratch whatever the budget, which fits_budget
/// tells.
/// Throws redist::error when the budget is smaller than one element per message of a step.
template <class R>
index_t piece_limit(const BasicPlan<R>& plan, index_t budget) {
  index_t limit = 0;
  for (const Stage<R>& st : plan.stages) {
    if (st.forwards) continue;
    const index_t c = st.cycles ? detail::cycles_piece_limit(st, budget) : detail::step_piece_limit(st, budget);
    if (c > 0) limit = limit == 0 ? c : std::min(limit, c);
  }
  return limit;
}

/// True when the stages that cannot be cut into pieces (those that forward) fit `budget` elements.
template <class R>
bool fits_budget(const BasicPlan<R>& plan, index_t budget) {
  for (const Stage<R>& st : plan.stages)
    if (st.forwards && st.relay + detail::relay_scratch(st) + plan.intermediate > budget) return false;
  return true;
}

/// Elements of workspace a plan's runs use on this rank under a scratch budget of `budget`
/// elements, when the piece the ranks agree on is this rank's own piece_limit or smaller:
/// `buffer` for messages (runtime::Workspace's scratch), `relay` for the relay area of a stage
/// that forwards, `intermediate` for the intermediate array. A Redistribution allocates them
/// before its first run's agreement, so that a rank without the memory is an error on every rank.
struct WorkspaceNeed {
  index_t buffer = 0;
  index_t relay = 0;
  index_t intermediate = 0;
  index_t total() const noexcept { return buffer + relay + intermediate; }
};

/// Per stage: a general stage, the most one group of steps' packed (not direct) messages take, each cut
/// at the piece (a run that updates, b = alpha * a + beta * b, receives its direct messages through
/// the workspace too: `in_place_receives` false); a stage with basic cycles, its remote elements
/// (all, or at most the budget in rounds); a forwarding stage, its largest step group's scratch and
/// its relay area. The largest stage's, and the intermediate array.
template <class R>
WorkspaceNeed workspace_need(const BasicPlan<R>& plan, index_t budget, bool in_place_receives = true) {
  const index_t piece = piece_limit(plan, budget);
  index_t most = 0, relay = 0;
  for (const Stage<R>& st : plan.stages) {
    index_t need = 0;
    if (st.forwards) {
      need = detail::relay_scratch(st);
      relay = std::max(relay, st.relay);
    } else if (st.cycles && (piece == 0 || piece >= st.cycles.quantum)) {
      const index_t remote = st.elements_sent() + st.elements_received();
      need = piece == 0 ? remote : std::min(remote, budget);
    } else {
      auto part = [&](const Message& m, bool direct) { return direct ? 0 : piece == 0 ? m.size : std::min(m.size, piece); };
      detail::for_each_group(st.schedule, [&](std::size_t first, std::size_t last) {
        index_t e = 0;
        for (std::size_t t = first; t < last; ++t) {
          const schedule::Step& step = st.schedule.steps[t];
          for (std::size_t i : step.sends) e += part(st.sends[i], st.sends[i].direct);
          for (std::size_t i : step.recvs) e += part(st.recvs[i], in_place_receives && st.recvs[i].direct);
        }
        need = std::max(need, e);
      });
    }
    most = std::max(most, need);
  }
  return {most, relay, plan.intermediate};
}

/// Whether the plan may run with source and destination in one buffer on this rank, the source's
/// local element k at the destination's local place k + src_at (a ghosted array's owned part as the
/// source of the ghosts' update: PETSc's VecGhost, Tpetra's offset views): true when the plan is
/// one stage from source to destination that forwards nothing and has no basic-cycle pass, its
/// receives write no place the source's elements occupy ([src_at, src_at + src_size) of the
/// destination's dst_size), and its local copy writes there only elements onto themselves (source
/// place p to destination place p + src_at), which the runtime skips. Then no element is written
/// before every read of it, whatever the order of the pieces. 1-D plans (runs of Run); false for
/// others. O(the places the plan writes).
///
/// `folds`: the plan's receives are folded into the destination (partial values, Indirect<Op> or
/// Partial<Op> sources: PETSc's VecGhostUpdate with ADD_VALUES, SCATTER_REVERSE), its local copy
/// being each element's first contribution, assigned. Receives may then land on the source's
/// places, so instead its sends must read none of them, and its local copy must neither read nor
/// write them but an element onto itself: each such element's own value is its first
/// contribution, in place, and the receives fold onto it.
template <class R>
bool writes_over_source_only_itself(const BasicPlan<R>& plan, index_t src_at, index_t src_size, index_t dst_size,
                                    bool folds = false) {
  if constexpr (!std::is_same_v<R, Run>) {
    return false;
  } else {
    if (!plan.direct() || plan.intermediate != 0 || plan.stages[0].cycles) return false;
    const Stage<R>& st = plan.stages[0];
    const index_t lo = std::max<index_t>(0, src_at), hi = std::min(dst_size, src_at + src_size);
    if (lo >= hi) return true;
    const auto over = [&](index_t place) { return place >= lo && place < hi; };
    // Whether f(source place, destination place) holds for each element of m; a run of the local
    // copy whose every element lands on itself is not looked into (`self`).
    const auto all_of = [&](const Message& m, bool self, auto&& f) {
      if (m.listed()) {
        const auto s = st.src_list(m), d = st.dst_list(m);
        for (std::size_t k = 0; k < d.size(); ++k)
          if (!f(s[k], d[k])) return false;
      }
      for (const Run& r : st.runs_of(m)) {
        if (self && r.src + src_at == r.dst && (r.count == 1 || r.src_stride == r.dst_stride) &&
            (r.len <= 1 || r.src_step == r.dst_step))
          continue;
        for (index_t j = 0; j < r.count; ++j)
          for (index_t e = 0; e < r.len; ++e)
            if (!f(r.src + j * r.src_stride + e * r.src_step, r.dst + j * r.dst_stride + e * r.dst_step)) return false;
      }
      return true;
    };
    if (folds) {
      for (const Message& m : st.sends)
        if (!all_of(m, false, [&](index_t s, index_t) { return !over(s + src_at); })) return false;
      return all_of(st.local, true, [&](index_t s, index_t d) { return (!over(d) && !over(s + src_at)) || s + src_at == d; });
    }
    for (const Message& m : st.recvs)
      if (!all_of(m, false, [&](index_t, index_t d) { return !over(d); })) return false;
    return all_of(st.local, true, [&](index_t s, index_t d) { return !over(d) || s + src_at == d; });
  }
}

}  // namespace redist
