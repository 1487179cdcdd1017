/// @file Defines execute(CyclePlan, comm, src, dst, workspace): the one-pass exchange of the basic-cycle calculation over MPI.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <span>
#include <utility>
#include <vector>

#include <boost/mpi/communicator.hpp>

#include <redist/plan/basic_cycle.hpp>
#include <redist/plan/plan.hpp>
#include <redist/runtime/exchange.hpp>
#include <redist/runtime/pack_cycles.hpp>

namespace redist::runtime {

/// Runs a CyclePlan on this rank: src -> dst. Collective over comm. plan.general.piece (agreed
/// by all ranks, see piece_limit(const CyclePlan&)) says how:
///  - 0 or >= plan.quantum: in rounds of basic cycles (all of them when 0). Per round: post the
///    first step's receives; Pack: one pass over the round's cycles of src, every message's part
///    appended to its buffer, local sections copied straight into dst; Exchange: step by step,
///    post the step's receives and sends and wait for them; Unpack: one pass over the round's
///    cycles of dst.
///  - otherwise the general execute of plan.general (run order, pieces of at most
///    plan.general.piece elements).
template <class T>
void execute(const CyclePlan& plan, const boost::mpi::communicator& comm, std::span<const T> src, std::span<T> dst,
             Workspace& ws, std::size_t chunk_bytes = max_chunk_bytes) {
  static_assert(std::is_trivially_copyable_v<T>, "redist::runtime::execute requires a trivially copyable T");
  const Plan& general = plan.general;
  if (general.piece > 0 && general.piece < plan.quantum) {
    execute(general, comm, src, dst, ws, chunk_bytes);
    return;
  }
  const MPI_Comm c = static_cast<MPI_Comm>(comm);
  const index_t per_round = general.piece == 0 ? std::max<index_t>(plan.slots, 1) : general.piece / plan.quantum;
  const std::size_t ns = general.sends.size(), nr = general.recvs.size();
  // Bookkeeping reused between calls (a repeated exchange allocates nothing): offsets in the
  // workspace, the per-message cursors in buffers kept per thread and element type.
  std::vector<index_t>& send_at = ws.send_at;
  std::vector<index_t>& send_len = ws.send_len;
  std::vector<index_t>& recv_at = ws.recv_at;
  std::vector<index_t>& recv_len = ws.recv_len;
  send_at.assign(ns, 0);
  send_len.assign(ns, 0);
  recv_at.assign(nr, 0);
  recv_len.assign(nr, 0);
  thread_local std::vector<T*> out;
  thread_local std::vector<const T*> in;
  out.assign(ns, nullptr);
  in.assign(nr, nullptr);

  for (index_t a = 0; a < plan.slots; a += per_round) {
    const index_t b = std::min(plan.slots, a + per_round);
    index_t send_elems = 0, recv_elems = 0;
    for (std::size_t i = 0; i < ns; ++i) {
      send_len[i] = plan.elements_in(plan.send_per_cycle[i], general.sends[i].size, a, b);
      send_at[i] = std::exchange(send_elems, send_elems + send_len[i]);
    }
    for (std::size_t i = 0; i < nr; ++i) {
      recv_len[i] = plan.elements_in(plan.recv_per_cycle[i], general.recvs[i].size, a, b);
      recv_at[i] = std::exchange(recv_elems, recv_elems + recv_len[i]);
    }
    const std::size_t bytes = static_cast<std::size_t>(send_elems + recv_elems) * sizeof(T);
    ws.high_water = std::max(ws.high_water, bytes);
    T* send_buf = reinterpret_cast<T*>(ws.buffer.reserve(bytes));
    T* recv_buf = send_buf + send_elems;
    for (std::size_t i = 0; i < ns; ++i) out[i] = send_buf + send_at[i];
    for (std::size_t i = 0; i < nr; ++i) in[i] = recv_buf + recv_at[i];

    auto post_receives = [&](const schedule::Step& step) {
      ws.recv_requests.clear();
      for (std::size_t i : step.recvs) {
        if (recv_len[i] == 0) continue;
        detail::post_receive(recv_buf + recv_at[i], recv_len[i], chunk_bytes, general.recvs[i].peer, c, ws.recv_requests);
      }
    };
    if (!general.schedule.steps.empty()) post_receives(general.schedule.steps.front());
    // Pack
    pack_cycles<T>(plan.send_pattern, plan.cycle, a, b, src.data(), static_cast<index_t>(src.size()), out.data(),
                   dst.data());
    // Exchange
    for (std::size_t k = 0; k < general.schedule.steps.size(); ++k) {
      const schedule::Step& step = general.schedule.steps[k];
      if (k > 0) post_receives(step);
      ws.send_requests.clear();
      for (std::size_t i : step.sends) {
        if (send_len[i] == 0) continue;
        detail::post_send(send_buf + send_at[i], send_len[i], chunk_bytes, general.sends[i].peer, c, ws.send_requests);
      }
      detail::check(MPI_Waitall(static_cast<int>(ws.recv_requests.size()), ws.recv_requests.data(), MPI_STATUSES_IGNORE),
                    "MPI_Waitall");
      detail::check(MPI_Waitall(static_cast<int>(ws.send_requests.size()), ws.send_requests.data(), MPI_STATUSES_IGNORE),
                    "MPI_Waitall");
    }
    // Unpack
    unpack_cycles<T>(plan.recv_pattern, plan.cycle, a, b, in.data(), dst.data(), static_cast<index_t>(dst.size()));
  }
}

}  // namespace redist::runtime
