/// @file Defines fuse() and FusedExchange: the messages of several plans (several assignments, of any element types) to one peer as one MPI message, all posted at once, advanced by test() and completed by wait().
#pragma once

#include <mpi.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <span>
#include <type_traits>
#include <vector>

#include <boost/hana/for_each.hpp>
#include <boost/hana/size.hpp>
#include <boost/hana/tuple.hpp>
#include <boost/mpi/communicator.hpp>

#include <redist/plan/plan.hpp>
#include <redist/runtime/exchange.hpp>
#include <redist/runtime/node.hpp>
#include <redist/runtime/pack.hpp>
#include <redist/runtime/scratch.hpp>
#include <redist/runtime/store.hpp>

namespace redist::runtime {

/// The tag of started and fused exchanges (runtime::execute's is message_tag). Messages between
/// two ranks match in the order both post them, so several exchanges may be in flight at once
/// when every rank starts them in the same order.
inline constexpr int fused_tag = message_tag + 1;

/// Part `part`'s message `index` (of its plan's sends or receives) inside a fused message, at byte
/// `at` from the fused message's start (aligned for any element type).
struct FusedSegment {
  std::size_t part = 0;
  std::size_t index = 0;
  std::size_t at = 0;
};

/// One MPI message of a fused exchange: its peer, its segments (segments[first, first + count)),
/// its bytes and its place in the send or receive scratch. `direct`: the one segment is a
/// contiguous run of its array, sent from or received into the array itself.
struct FusedMessage {
  int peer = -1;
  std::size_t first = 0, count = 0;
  std::size_t bytes = 0;
  std::size_t offset = 0;
  bool direct = false;
};

/// What fuse() needs of one part: its plan's messages, its element size, and whether it may
/// receive straight into its destination (an assignment; a scaled update unpacks through its store).
struct PartShape {
  const std::vector<Message>* sends = nullptr;
  const std::vector<Message>* recvs = nullptr;
  std::size_t element_bytes = 1;
  bool receive_direct = true;
};

/// The messages of a fused exchange: per peer one send and one receive carrying every part's
/// pieces for that peer, every one posted at once. Built once per list of plans (fuse()).
struct FusedLayout {
  int rank = 0, nprocs = 1;
  std::vector<FusedSegment> send_segments, recv_segments;
  std::vector<FusedMessage> sends, recvs;
  std::size_t send_bytes = 0, recv_bytes = 0;  ///< scratch of the packed messages
};

namespace detail {
inline constexpr std::size_t segment_alignment = alignof(std::max_align_t);
inline std::size_t align_up(std::size_t n) noexcept {
  return (n + segment_alignment - 1) / segment_alignment * segment_alignment;
}
}  // namespace detail

/// The fused messages of parts (one per assignment, all on one communicator of nprocs ranks,
/// this rank `rank`): peers in the order rank + 1, rank + 2, ... for sends and rank - 1, ... for
/// receives, as a single plan's; none with the peers on `skip` (served from shared memory).
/// O(P · parts + messages); no communication.
inline FusedLayout fuse(std::span<const PartShape> parts, int rank, int nprocs, const Node* skip = nullptr) {
  FusedLayout f;
  f.rank = rank;
  f.nprocs = nprocs;
  std::vector<std::vector<std::pair<std::size_t, std::size_t>>> by_peer(static_cast<std::size_t>(nprocs));
  auto build = [&](bool sending, std::vector<FusedSegment>& segments, std::vector<FusedMessage>& messages,
                   std::size_t& scratch) {
    for (auto& v : by_peer) v.clear();
    for (std::size_t k = 0; k < parts.size(); ++k) {
      const auto& list = sending ? *parts[k].sends : *parts[k].recvs;
      for (std::size_t i = 0; i < list.size(); ++i)
        if (list[i].size > 0) by_peer[static_cast<std::size_t>(list[i].peer)].emplace_back(k, i);
    }
    for (int d = 1; d < nprocs; ++d) {
      const int peer = sending ? (rank + d) % nprocs : (rank - d + nprocs) % nprocs;
      const auto& mine = by_peer[static_cast<std::size_t>(peer)];
      if (mine.empty() || (skip != nullptr && skip->holds(peer))) continue;
      FusedMessage m;
      m.peer = peer;
      m.first = segments.size();
      m.count = mine.size();
      for (auto [k, i] : mine) {
        const Message& msg = sending ? (*parts[k].sends)[i] : (*parts[k].recvs)[i];
        m.bytes = detail::align_up(m.bytes);
        segments.push_back({k, i, m.bytes});
        m.bytes += static_cast<std::size_t>(msg.size) * parts[k].element_bytes;
      }
      const Message& only = sending ? (*parts[mine[0].first].sends)[mine[0].second]
                                    : (*parts[mine[0].first].recvs)[mine[0].second];
      m.direct = m.count == 1 && only.direct && (sending || parts[mine[0].first].receive_direct);
      if (!m.direct) {
        m.offset = scratch;
        scratch = detail::align_up(scratch + m.bytes);
      }
      messages.push_back(m);
    }
  };
  build(true, f.send_segments, f.sends, f.send_bytes);
  build(false, f.recv_segments, f.recvs, f.recv_bytes);
  return f;
}

/// One part of a fused exchange at run time: a plan of messages (BasicPlan), this rank's source
/// and destination elements, and how the destination stores what arrives (with_store(f) calls f
/// with the store operation: assign_op, scale_op, axpby_op, ...).
template <class T, class R, class Store>
struct FusedPart {
  using value_type = T;
  const BasicPlan<R>* plan = nullptr;
  std::span<const T> src;
  std::span<T> dst;
  Store store;
  const SharedSegment* source = nullptr;  ///< src's part of a node window, or nullptr
  index_t source_ld = 0;                  ///< the leading dimension src's layout was declared with (0: none)
};

/// A fused exchange's messages with every peer, and without the peers on this rank's node
/// (whose pieces are copied from their shared memory when every part's source is in a window).
struct FusedLayouts {
  FusedLayout all, off_node;
};

/// The requests and scratch of a fused exchange, kept between runs so that a repeated one
/// allocates nothing.
struct FusedState {
  const FusedLayout* active = nullptr;  ///< the messages of the current run
  std::vector<Workspace> copies;        ///< per part: its gathered copies from node peers
  MPI_Request node_barrier = MPI_REQUEST_NULL;  ///< node peers done reading this rank's sources
  Scratch buffer;
  std::vector<MPI_Request> recv_requests, send_requests;
  std::vector<std::size_t> owner;    ///< recv_requests[k] belongs to fused receive owner[k]
  std::vector<std::size_t> pending;  ///< per fused receive: chunks still to arrive
  std::vector<int> done;             ///< MPI_Testsome's indices
  std::size_t left = 0;              ///< fused receives not yet unpacked
  bool in_flight = false;
};

namespace detail {
/// Whether every rank of `node` can serve its node peers from shared memory for every part (each
/// source in a window of this node, assigned as it is, declared with one leading dimension across
/// the node): one all-reduce on the node, with the MPI_Win_syncs MPI-3's memory model asks for
/// around it (see execute_on_node). Collective on the node.
template <class Parts>
bool agree_on_node(Parts& parts, const Node& node) {
  constexpr std::size_t K = decltype(boost::hana::size(parts))::value;
  std::array<long long, 1 + 2 * K> mine{}, all{};
  bool able = true;
  std::size_t k = 0;
  boost::hana::for_each(parts, [&](auto& p) {
    able = able && p.store.assigns() && p.source != nullptr && &p.source->node() == &node &&
           (p.src.empty() || static_cast<const void*>(p.source->data()) == static_cast<const void*>(p.src.data()));
    mine[1 + 2 * k] = p.source_ld;
    mine[2 + 2 * k] = -p.source_ld;
    ++k;
  });
  mine[0] = able ? 0 : 1;
  if (able) boost::hana::for_each(parts, [](auto& p) { p.source->sync(); });  // this rank's stores
  check(MPI_Allreduce(mine.data(), all.data(), static_cast<int>(mine.size()), MPI_LONG_LONG, MPI_MAX, node.comm),
        "MPI_Allreduce");
  bool agreed = all[0] == 0;
  for (std::size_t j = 0; j < K; ++j) agreed = agreed && all[1 + 2 * j] == -all[2 + 2 * j];
  if (agreed) boost::hana::for_each(parts, [](auto& p) { p.source->sync(); });  // the peers' stores
  return agreed;
}

/// Calls f(part) for parts[k] of a hana tuple (k known at run time).
template <class Parts, class F>
void visit_part(Parts& parts, std::size_t k, F&& f) {
  std::size_t j = 0;
  boost::hana::for_each(parts, [&](auto& p) {
    if (j++ == k) f(p);
  });
}
}  // namespace detail

/// Starts a fused exchange (collective; every rank of the communicator starts the same list in
/// the same order): posts every receive, packs every part's pieces into one message per peer and
/// posts the sends, and copies every part's local runs. What arrives is unpacked by test() and
/// wait(). parts: a hana tuple of FusedPart.
template <class Parts>
void start(const FusedLayouts& layouts, Parts& parts, FusedState& s, const boost::mpi::communicator& comm,
           const Node* node = nullptr, std::size_t chunk_bytes = max_chunk_bytes) {
  REDIST_EXPECTS(!s.in_flight, "redist: an exchange was started again before it completed");
  const MPI_Comm c = static_cast<MPI_Comm>(comm);
  const bool on_node = node != nullptr && node->size > 1 && detail::agree_on_node(parts, *node);
  s.active = on_node ? &layouts.off_node : &layouts.all;
  const FusedLayout& f = *s.active;
  std::byte* send_buf = s.buffer.reserve(f.send_bytes + f.recv_bytes);
  std::byte* recv_buf = send_buf + f.send_bytes;
  s.recv_requests.clear();
  s.send_requests.clear();
  s.owner.clear();
  s.pending.assign(f.recvs.size(), 0);
  for (std::size_t j = 0; j < f.recvs.size(); ++j) {
    const FusedMessage& m = f.recvs[j];
    std::byte* target = recv_buf + m.offset;
    if (m.direct) {
      const FusedSegment& seg = f.recv_segments[m.first];
      detail::visit_part(parts, seg.part, [&](auto& p) {
        const Message& msg = p.plan->recvs[seg.index];
        target = reinterpret_cast<std::byte*>(p.dst.data() + p.plan->runs[msg.first].dst);
      });
    }
    const std::size_t posted = detail::post_receive(target, static_cast<index_t>(m.bytes), chunk_bytes, m.peer, c,
                                                    s.recv_requests, fused_tag);
    s.owner.insert(s.owner.end(), posted, j);
    s.pending[j] = posted;
  }
  for (const FusedMessage& m : f.sends) {
    const std::byte* from = send_buf + m.offset;
    for (std::size_t g = m.first; g < m.first + m.count; ++g) {
      const FusedSegment& seg = f.send_segments[g];
      detail::visit_part(parts, seg.part, [&](auto& p) {
        using T = typename std::remove_cvref_t<decltype(p)>::value_type;
        const Message& msg = p.plan->sends[seg.index];
        if (m.direct) from = reinterpret_cast<const std::byte*>(p.src.data() + p.plan->runs[msg.first].src);
        else pack_message(*p.plan, seg.index, p.src.data(), reinterpret_cast<T*>(send_buf + m.offset + seg.at));
      });
    }
    detail::post_send(from, static_cast<index_t>(m.bytes), chunk_bytes, m.peer, c, s.send_requests, fused_tag);
  }
  std::size_t k = 0;
  boost::hana::for_each(parts, [&](auto& p) {
    if (on_node) detail::copy_local_and_node(*p.plan, p.src, p.dst, s.copies[k], *p.source);
    else p.store([&](const auto& op) { copy(p.plan->runs_of(p.plan->local), p.src.data(), p.dst.data(), op); });
    ++k;
  });
  // The node's ranks are done reading each other's sources when this barrier completes (test, wait).
  if (on_node) detail::check(MPI_Ibarrier(node->comm, &s.node_barrier), "MPI_Ibarrier");
  s.left = f.recvs.size();
  s.in_flight = true;
}

namespace detail {
/// Fused receive j has arrived whole: its segments unpacked into their parts' destinations.
template <class Parts>
void unpack_fused(Parts& parts, FusedState& s, std::size_t j) {
  const FusedLayout& f = *s.active;
  const FusedMessage& m = f.recvs[j];
  --s.left;
  if (m.direct) return;
  const std::byte* in = s.buffer.reserve(0) + f.send_bytes + m.offset;
  for (std::size_t g = m.first; g < m.first + m.count; ++g) {
    const FusedSegment& seg = f.recv_segments[g];
    visit_part(parts, seg.part, [&](auto& p) {
      using T = typename std::remove_cvref_t<decltype(p)>::value_type;
      const T* at = reinterpret_cast<const T*>(in + seg.at);
      p.store([&](const auto& op) { unpack_message(*p.plan, seg.index, at, p.dst.data(), 0, -1, op); });
    });
  }
}
}  // namespace detail

/// Advances a started exchange without blocking: unpacks the receives that have arrived. Returns
/// true once everything has arrived and every send has completed (then the exchange is over).
template <class Parts>
bool test(Parts& parts, FusedState& s) {
  if (!s.in_flight) return true;
  if (s.left > 0 && !s.recv_requests.empty()) {
    s.done.resize(s.recv_requests.size());
    int count = 0;
    detail::check(MPI_Testsome(static_cast<int>(s.recv_requests.size()), s.recv_requests.data(), &count, s.done.data(),
                               MPI_STATUSES_IGNORE),
                  "MPI_Testsome");
    for (int k = 0; k < count && count != MPI_UNDEFINED; ++k) {
      const std::size_t j = s.owner[static_cast<std::size_t>(s.done[static_cast<std::size_t>(k)])];
      if (--s.pending[j] == 0) detail::unpack_fused(parts, s, j);
    }
  }
  if (s.left > 0) return false;
  int sent = 1, read = 1;
  detail::check(MPI_Testall(static_cast<int>(s.send_requests.size()), s.send_requests.data(), &sent, MPI_STATUSES_IGNORE),
                "MPI_Testall");
  detail::check(MPI_Test(&s.node_barrier, &read, MPI_STATUS_IGNORE), "MPI_Test");
  if (sent && read) s.in_flight = false;
  return sent && read;
}

/// Completes a started exchange: unpacks each receive as it arrives, then waits for the sends.
template <class Parts>
void wait(Parts& parts, FusedState& s) {
  if (!s.in_flight) return;
  while (s.left > 0) {
    int k = MPI_UNDEFINED;
    detail::check(MPI_Waitany(static_cast<int>(s.recv_requests.size()), s.recv_requests.data(), &k, MPI_STATUS_IGNORE),
                  "MPI_Waitany");
    if (k == MPI_UNDEFINED) break;
    const std::size_t j = s.owner[static_cast<std::size_t>(k)];
    if (--s.pending[j] == 0) detail::unpack_fused(parts, s, j);
  }
  detail::check(MPI_Waitall(static_cast<int>(s.send_requests.size()), s.send_requests.data(), MPI_STATUSES_IGNORE),
                "MPI_Waitall");
  detail::check(MPI_Wait(&s.node_barrier, MPI_STATUS_IGNORE), "MPI_Wait");
  s.in_flight = false;
}

}  // namespace redist::runtime
