/// @file Defines execute(CirculantPlan, comm, src, dst, workspace): seed 001's direct, indirect and hybrid schedules over MPI, relays included.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <span>
#include <type_traits>

#include <boost/mpi/communicator.hpp>

#include <redist/plan/basic_cycle.hpp>
#include <redist/plan/circulant.hpp>
#include <redist/runtime/exchange.hpp>
#include <redist/runtime/exchange_cycles.hpp>
#include <redist/runtime/pack.hpp>

namespace redist::runtime {

namespace detail {
/// One R(K, P) phase: src -> dst through the relay area `held` and the round area `round`.
/// Steps run one after the other (a relay forwards what it received in an earlier step); the
/// direct part runs in groups of steps posted together (CirculantIo::group).
template <class T>
void run_circulant_phase(const CirculantPhase& ph, MPI_Comm comm, const T* src, T* dst, T* held, T* round,
                         Workspace& ws, std::size_t chunk_bytes) {
  auto deliver = [&](bool from_source) {
    for (std::size_t k : ph.deliveries) {
      const CirculantItem& it = ph.items[k];
      if ((it.held < 0) != from_source) continue;
      if (from_source) copy(ph.runs_of(it), src, dst);
      else unpack(ph.runs_of(it), held + it.held, dst);
    }
  };
  bool copied = false;
  std::size_t t = 0;
  while (t < ph.steps.size()) {
    std::size_t e = t + 1;
    while (e < ph.steps.size() && ph.steps[e].group == ph.steps[t].group) ++e;
    ws.recv_requests.clear();
    ws.send_requests.clear();
    // Post receives.
    for (std::size_t s = t; s < e; ++s) {
      const CirculantIo& io = ph.steps[s];
      const CirculantMessage& r = io.recv;
      if (r.peer < 0 || r.size == 0) continue;
      T* into = r.dst_at >= 0 ? dst + r.dst_at : (io.unpack_now ? round : held) + r.at;
      post_receive(into, r.size, chunk_bytes, r.peer, comm, ws.recv_requests);
    }
    // Pack, and post sends: own blocks from src, relayed ones from the relay area.
    for (std::size_t s = t; s < e; ++s) {
      const CirculantMessage& m = ph.steps[s].send;
      if (m.peer < 0 || m.size == 0) continue;
      const T* from = nullptr;
      if (m.source_at >= 0) {
        from = src + m.source_at;
      } else if (m.held_at >= 0) {
        from = held + m.held_at;
      } else {
        T* p = round + m.at;
        for (std::size_t k = m.first; k < m.first + m.count; ++k) {
          const CirculantItem& it = ph.items[ph.parts[k]];
          if (it.held < 0) pack(ph.runs_of(it), src, p);
          else std::memcpy(p, held + it.held, static_cast<std::size_t>(it.size) * sizeof(T));
          p += it.size;
        }
        from = round + m.at;
      }
      post_send(from, m.size, chunk_bytes, m.peer, comm, ws.send_requests);
    }
    // Copy: the blocks that stay, while the first messages are in flight.
    if (!copied) deliver(true);
    copied = true;
    check(MPI_Waitall(static_cast<int>(ws.recv_requests.size()), ws.recv_requests.data(), MPI_STATUSES_IGNORE),
          "MPI_Waitall");
    check(MPI_Waitall(static_cast<int>(ws.send_requests.size()), ws.send_requests.data(), MPI_STATUSES_IGNORE),
          "MPI_Waitall");
    // Unpack: the group's final blocks, freeing the round area for the next group.
    for (std::size_t s = t; s < e; ++s) {
      const CirculantIo& io = ph.steps[s];
      if (!io.unpack_now) continue;
      for (std::size_t k = io.recv.first; k < io.recv.first + io.recv.count; ++k) {
        const CirculantItem& it = ph.items[ph.parts[k]];
        unpack(ph.runs_of(it), round + it.held, dst);
      }
    }
    t = e;
  }
  if (!copied) deliver(true);
  // Unpack: every relayed block that ends here.
  deliver(false);
}
}  // namespace detail

/// Runs plan on this rank: src -> dst (collective over comm). A BCC plan, or a circulant one whose
/// ranks agreed to fall back (runs_circulant() is false), runs its CyclePlan plan.bcc;
/// a circulant plan runs its phases, the second (if any) from the CYCLIC(lcm) array that the
/// first fills, kept in the workspace with the relay and send areas: a repeated call with the
/// same workspace allocates nothing.
template <class T>
void execute(const CirculantPlan& plan, const boost::mpi::communicator& comm, std::span<const T> src,
             std::span<T> dst, Workspace& ws, std::size_t chunk_bytes = max_chunk_bytes) {
  static_assert(std::is_trivially_copyable_v<T>, "redist::runtime::execute requires a trivially copyable T");
  if (!plan.runs_circulant()) {
    execute(plan.bcc, comm, src, dst, ws, chunk_bytes);
    return;
  }
  const MPI_Comm c = static_cast<MPI_Comm>(comm);
  const std::size_t bytes = static_cast<std::size_t>(plan.scratch_elements()) * sizeof(T);
  ws.high_water = std::max(ws.high_water, bytes);
  T* base = reinterpret_cast<T*>(ws.buffer.reserve(bytes));
  T* mid = base;
  T* area = base + plan.intermediate;
  if (plan.phases.size() == 1) {
    const CirculantPhase& ph = plan.phases[0];
    detail::run_circulant_phase(ph, c, src.data(), dst.data(), area, area + ph.held_size, ws, chunk_bytes);
    return;
  }
  // Phase 1: CYCLIC(s) -> CYCLIC(lcm), into the intermediate array.
  const CirculantPhase& a = plan.phases[0];
  detail::run_circulant_phase(a, c, src.data(), mid, area, area + a.held_size, ws, chunk_bytes);
  // Phase 2: CYCLIC(lcm) -> CYCLIC(t).
  const CirculantPhase& b = plan.phases[1];
  detail::run_circulant_phase(b, c, static_cast<const T*>(mid), dst.data(), area, area + b.held_size, ws, chunk_bytes);
}

}  // namespace redist::runtime
