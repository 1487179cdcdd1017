/// @file Defines execute(plan, comm, src, dst, workspace): one rank's part of a redistribution over MPI.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <span>
#include <vector>

#include <boost/mpi/communicator.hpp>
#include <boost/mpi/exception.hpp>

#include <redist/plan/plan.hpp>
#include <redist/runtime/node.hpp>
#include <redist/runtime/pack.hpp>
#include <redist/runtime/scratch.hpp>
#include <redist/runtime/store.hpp>
#include <redist/runtime/typed.hpp>

namespace redist::runtime {

/// The tag of redist's messages. Other traffic on the same communicator must not use it while a
/// redistribution is in flight.
inline constexpr int message_tag = 0x7EDD;

/// Messages longer than this many bytes go out as several MPI messages (MPI counts are int).
inline constexpr std::size_t max_chunk_bytes = static_cast<std::size_t>(INT_MAX) / 64 * 64;

/// Everything an exchange needs besides the plan, kept between calls so that a repeated
/// exchange allocates nothing: the scratch buffer and the request bookkeeping. Requests are raw
/// MPI_Requests, because Boost.MPI's wait_any allocates on every call.
struct Workspace {
  Scratch buffer;
  std::vector<MPI_Request> recv_requests, send_requests;
  std::vector<std::size_t> owner;     ///< recv_requests[k] belongs to receive owner[k]
  std::vector<std::size_t> pending;   ///< per receive: chunks still to arrive this round
  std::vector<index_t> recv_at;       ///< per receive: its offset in the round's receive scratch
  std::vector<index_t> send_at;       ///< per send: its offset in the round's send scratch
  std::vector<index_t> send_len, recv_len;  ///< per message: its elements in the round
  std::size_t high_water = 0;         ///< most scratch bytes one round has used
  Scratch intermediate;               ///< a plan's intermediate array (multiphase, two circulant phases), not counted in high_water
  std::vector<CopyItem> copies;       ///< the local and node peers' runs of a shared-memory run, ordered (order_gathered)
  std::size_t copies_alone = 0;       ///< how many of them are copied one after the other
  std::vector<const void*> copy_from, copied_from;  ///< the plan and source arrays of this run, and of `copies`
  /// Messages go as MPI derived datatypes over the arrays (`types`), without pack and unpack;
  /// chosen on every rank alike (choose_transport, runtime/choose_transport.hpp).
  bool typed = false;
  MessageTypes types;
};

namespace detail {
/// Receives `count` elements from peer into p as MPI messages of at most chunk bytes each,
/// appending their requests; returns how many it posted.
template <class T>
std::size_t post_receive(T* p, index_t count, std::size_t chunk, int peer, MPI_Comm comm,
                         std::vector<MPI_Request>& requests, int tag = message_tag) {
  auto* at = reinterpret_cast<std::byte*>(p);
  std::size_t bytes = static_cast<std::size_t>(count) * sizeof(T), posted = 0;
  do {
    const std::size_t n = std::min(bytes, chunk);
    requests.emplace_back();
    check(MPI_Irecv(at, static_cast<int>(n), MPI_BYTE, peer, tag, comm, &requests.back()), "MPI_Irecv");
    at += n;
    bytes -= n;
    ++posted;
  } while (bytes > 0);
  return posted;
}

/// Sends `count` elements at p to peer as MPI messages of at most chunk bytes each (the chunks
/// of post_receive), appending their requests.
template <class T>
void post_send(const T* p, index_t count, std::size_t chunk, int peer, MPI_Comm comm,
               std::vector<MPI_Request>& requests, int tag = message_tag) {
  const auto* at = reinterpret_cast<const std::byte*>(p);
  std::size_t bytes = static_cast<std::size_t>(count) * sizeof(T);
  do {
    const std::size_t n = std::min(bytes, chunk);
    requests.emplace_back();
    check(MPI_Isend(at, static_cast<int>(n), MPI_BYTE, peer, tag, comm, &requests.back()), "MPI_Isend");
    at += n;
    bytes -= n;
  } while (bytes > 0);
}
}  // namespace detail

namespace detail {
/// The local runs of plan and the runs it receives from peers on `node`'s node, copied straight
/// from src and from those peers' source arrays (in the window `node`) into dst, in one gathered
/// pass through dst. The items depend on the plan and the source arrays: rebuilt and ordered (in
/// ws) only when those change, so a repeated b = a between the same arrays only copies.
template <class T, class R>
void copy_local_and_node(const BasicPlan<R>& plan, std::span<const T> src, std::span<T> dst, Workspace& ws,
                         const SharedSegment& node) {
  auto on_node = [&](const Message& m) { return node.node().holds(m.peer); };
  ws.copy_from.clear();
  ws.copy_from.push_back(&plan);
  ws.copy_from.push_back(plan.runs.data());
  ws.copy_from.push_back(src.data());
  for (const Message& m : plan.recvs)
    if (on_node(m)) ws.copy_from.push_back(node.peer(m.peer));
  if (ws.copy_from != ws.copied_from) {
    ws.copies.clear();
    auto gather = [&](const Message& m, const T* from) {
      for (std::size_t k = m.first; k < m.first + m.nruns; ++k) ws.copies.push_back(copy_item(plan.runs[k], k, from));
    };
    gather(plan.local, src.data());
    for (const Message& m : plan.recvs)
      if (on_node(m)) gather(m, reinterpret_cast<const T*>(node.peer(m.peer)));
    ws.copies_alone = order_gathered(std::span<CopyItem>(ws.copies));
    ws.copied_from = ws.copy_from;
  }
  copy_gathered<T>(std::span<const R>(plan.runs), std::span<const CopyItem>(ws.copies), ws.copies_alone, dst.data());
}
}  // namespace detail

/// Runs plan on this rank: src -> dst. Collective over comm (every rank of the plan calls it).
/// Per step, and per round of pieces when plan.piece > 0, in the order of COSTA's
/// exchange_async: post receives, pack, post sends, copy the local runs (once) while messages
/// are in flight, wait for any receive and unpack it, wait for the sends. Messages whose runs tile
/// a contiguous range go from src / into dst directly. A plan built from layouts packs each message
/// in the sender's storage order along the message's own pieces (pack_message, plan/walk.hpp).
/// With `node` (the source array's shared window, runtime/node.hpp; see execute_on_node, which
/// synchronizes around it), the messages of peers on this rank's node are not sent: each rank
/// copies what it receives from such a peer straight out of the peer's source array, once.
/// With another store than assign_op (a scaled update, runtime/store.hpp), every element is
/// stored by op where it lands: received into scratch (never straight into dst) and unpacked or
/// copied locally through op, so that dst is read and written once; messages, no node, no datatypes.
template <class T, class R, class Op = assign_op>
void execute(const BasicPlan<R>& plan, const boost::mpi::communicator& comm, std::span<const T> src, std::span<T> dst,
             Workspace& ws, std::size_t chunk_bytes = max_chunk_bytes, const SharedSegment* node = nullptr,
             const Op& op = {}) {
  static_assert(std::is_trivially_copyable_v<T>, "redist::runtime::execute requires a trivially copyable T");
  REDIST_EXPECTS(Op::assigns || node == nullptr, "redist::runtime::execute: a scaled update goes by messages");
  const MPI_Comm c = static_cast<MPI_Comm>(comm);
  // Received straight into dst: one contiguous run, assigned.
  auto into_dst = [](const Message& m) { return Op::assigns && m.direct; };
  ws.pending.assign(plan.recvs.size(), 0);
  ws.recv_at.assign(plan.recvs.size(), 0);
  auto on_node = [&](const Message& m) { return node != nullptr && node->node().holds(m.peer); };
  bool copied_local = false;
  auto copy_local = [&] {
    if (copied_local) return;
    copied_local = true;
    // Copy: local runs go straight from src to dst, without MPI; with a node, so do the runs
    // of peers on it, from their source arrays, all in one gathered pass through dst.
    if (node == nullptr) {
      copy(plan.runs_of(plan.local), src.data(), dst.data(), op);
      return;
    }
    detail::copy_local_and_node(plan, src, dst, ws, *node);
  };
  if (Op::assigns && ws.typed) {
    // Derived datatypes: MPI reads src and writes dst itself; no scratch, no rounds.
    ws.types.build(plan, sizeof(T));
    for (const schedule::Step& step : plan.schedule.steps) {
      ws.recv_requests.clear();
      ws.send_requests.clear();
      for (std::size_t i : step.recvs)
        if (!on_node(plan.recvs[i])) {
          ws.recv_requests.emplace_back();
          detail::check(MPI_Irecv(dst.data(), 1, ws.types.recv(i), plan.recvs[i].peer, message_tag, c, &ws.recv_requests.back()),
                        "MPI_Irecv");
        }
      for (std::size_t i : step.sends)
        if (!on_node(plan.sends[i])) {
          ws.send_requests.emplace_back();
          detail::check(MPI_Isend(src.data(), 1, ws.types.send(i), plan.sends[i].peer, message_tag, c, &ws.send_requests.back()),
                        "MPI_Isend");
        }
      copy_local();
      detail::check(MPI_Waitall(static_cast<int>(ws.recv_requests.size()), ws.recv_requests.data(), MPI_STATUSES_IGNORE),
                    "MPI_Waitall");
      detail::check(MPI_Waitall(static_cast<int>(ws.send_requests.size()), ws.send_requests.data(), MPI_STATUSES_IGNORE),
                    "MPI_Waitall");
    }
    copy_local();
    return;
  }
  auto part = [&](const Message& m, index_t round, index_t& lo, index_t& hi) {
    lo = plan.piece == 0 ? 0 : round * plan.piece;
    hi = plan.piece == 0 ? m.size : std::min(m.size, lo + plan.piece);
    return lo < hi && !on_node(m);
  };

  for (const schedule::Step& step : plan.schedule.steps) {
    index_t rounds = 1;
    if (plan.piece > 0) {
      index_t longest = 0;
      for (std::size_t i : step.sends)
        if (!on_node(plan.sends[i])) longest = std::max(longest, plan.sends[i].size);
      for (std::size_t i : step.recvs)
        if (!on_node(plan.recvs[i])) longest = std::max(longest, plan.recvs[i].size);
      rounds = std::max<index_t>(1, (longest + plan.piece - 1) / plan.piece);
    }
    for (index_t round = 0; round < rounds; ++round) {
      index_t lo = 0, hi = 0, send_elems = 0, recv_elems = 0;
      for (std::size_t i : step.sends)
        if (!plan.sends[i].direct && part(plan.sends[i], round, lo, hi)) send_elems += hi - lo;
      for (std::size_t i : step.recvs)
        if (!into_dst(plan.recvs[i]) && part(plan.recvs[i], round, lo, hi)) {
          ws.recv_at[i] = recv_elems;
          recv_elems += hi - lo;
        }
      const std::size_t bytes = static_cast<std::size_t>(send_elems + recv_elems) * sizeof(T);
      ws.high_water = std::max(ws.high_water, bytes);
      std::byte* buffer = ws.buffer.reserve(bytes);
      T* send_buf = reinterpret_cast<T*>(buffer);
      T* recv_buf = send_buf + send_elems;

      // Post receives.
      ws.recv_requests.clear();
      ws.owner.clear();
      for (std::size_t i : step.recvs) {
        const Message& m = plan.recvs[i];
        if (!part(m, round, lo, hi)) continue;
        T* target = into_dst(m) ? dst.data() + plan.runs[m.first].dst + lo : recv_buf + ws.recv_at[i];
        const std::size_t posted = detail::post_receive(target, hi - lo, chunk_bytes, m.peer, c, ws.recv_requests);
        ws.owner.insert(ws.owner.end(), posted, i);
        ws.pending[i] += posted;
      }
      // Pack, and post sends.
      ws.send_requests.clear();
      index_t packed = 0;
      for (std::size_t i : step.sends) {
        const Message& m = plan.sends[i];
        if (!part(m, round, lo, hi)) continue;
        const T* from = src.data() + (m.direct ? plan.runs[m.first].src + lo : 0);
        if (!m.direct) {
          T* out = send_buf + packed;
          pack_message(plan, i, src.data(), out, lo, hi);
          from = out;
          packed += hi - lo;
        }
        detail::post_send(from, hi - lo, chunk_bytes, m.peer, c, ws.send_requests);
      }
      copy_local();
      // Unpack: as each receive completes.
      for (std::size_t left = ws.recv_requests.size(); left > 0; --left) {
        int k = MPI_UNDEFINED;
        detail::check(MPI_Waitany(static_cast<int>(ws.recv_requests.size()), ws.recv_requests.data(), &k,
                                  MPI_STATUS_IGNORE),
                      "MPI_Waitany");
        const std::size_t i = ws.owner[static_cast<std::size_t>(k)];
        const Message& m = plan.recvs[i];
        if (--ws.pending[i] > 0 || into_dst(m)) continue;
        part(m, round, lo, hi);
        const T* in = recv_buf + ws.recv_at[i];
        unpack_message(plan, i, in, dst.data(), lo, hi, op);
      }
      detail::check(MPI_Waitall(static_cast<int>(ws.send_requests.size()), ws.send_requests.data(),
                                MPI_STATUSES_IGNORE),
                    "MPI_Waitall");
    }
  }
  copy_local();
}

}  // namespace redist::runtime
