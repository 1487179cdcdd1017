/// @file Defines execute(plan, comm, src, dst): one rank's part of a redistribution over Boost.MPI.
#pragma once

#include <algorithm>
#include <climits>
#include <cstddef>
#include <span>
#include <vector>

#include <boost/mpi/communicator.hpp>
#include <boost/mpi/nonblocking.hpp>
#include <boost/mpi/request.hpp>

#include <redist/plan/plan.hpp>
#include <redist/runtime/pack.hpp>
#include <redist/runtime/scratch.hpp>

namespace redist::runtime {

/// The tag of redist's messages. Other traffic on the same communicator must not use it while a
/// redistribution is in flight.
inline constexpr int message_tag = 0x7EDD;

/// Messages longer than this many bytes go out as several MPI messages (MPI counts are int).
inline constexpr std::size_t max_chunk_bytes = static_cast<std::size_t>(INT_MAX) / 64 * 64;

/// Runs plan on this rank: src -> dst. Collective over comm (every rank of the plan calls it).
/// Per step, in the order of COSTA's exchange_async: post receives, pack, post sends, copy the
/// local runs (first step) while messages are in flight, wait for any receive and unpack it,
/// wait for the sends. Messages that are one contiguous run go from src / into dst directly.
template <class T>
void execute(const Plan& plan, const boost::mpi::communicator& comm, std::span<const T> src,
             std::span<T> dst, Scratch& scratch, std::size_t chunk_bytes = max_chunk_bytes) {
  static_assert(std::is_trivially_copyable_v<T>, "redist::runtime::execute requires a trivially copyable T");
  const std::size_t send_bytes = static_cast<std::size_t>(plan.send_scratch) * sizeof(T);
  const std::size_t total = send_bytes + static_cast<std::size_t>(plan.recv_scratch) * sizeof(T);
  std::byte* buffer = scratch.reserve(total);
  T* send_buf = reinterpret_cast<T*>(buffer);
  T* recv_buf = reinterpret_cast<T*>(buffer + send_bytes);

  std::vector<boost::mpi::request> requests;
  std::vector<std::size_t> owner;     // requests[i] belongs to receive owner[i]
  std::vector<std::size_t> pending;   // chunks still to arrive, per receive
  std::vector<boost::mpi::request> sends;
  pending.assign(plan.recvs.size(), 0);

  auto chunked = [&](const Message& m, auto* base, auto&& post) {
    auto* p = reinterpret_cast<std::conditional_t<std::is_const_v<std::remove_pointer_t<decltype(base)>>,
                                                  const char*, char*>>(base);
    std::size_t left = static_cast<std::size_t>(m.size) * sizeof(T);
    do {
      const std::size_t n = std::min(left, chunk_bytes);
      post(p, static_cast<int>(n));
      p += n;
      left -= n;
    } while (left > 0);
  };

  bool copied_local = false;
  auto copy_local = [&] {
    // Copy: local runs go straight from src to dst, without MPI.
    if (!copied_local) copy(plan.runs_of(plan.local), src.data(), dst.data());
    copied_local = true;
  };

  for (const schedule::Step& step : plan.schedule.steps) {
    // Post receives.
    requests.clear();
    owner.clear();
    for (std::size_t i : step.recvs) {
      const Message& m = plan.recvs[i];
      T* target = m.direct ? dst.data() + plan.runs[m.first].dst : recv_buf + m.offset;
      chunked(m, target, [&](char* p, int n) {
        requests.push_back(comm.irecv(m.peer, message_tag, p, n));
        owner.push_back(i);
        ++pending[i];
      });
    }
    // Pack.
    for (std::size_t i : step.sends) {
      const Message& m = plan.sends[i];
      if (!m.direct) pack(plan.runs_of(m), src.data(), send_buf + m.offset);
    }
    // Post sends.
    sends.clear();
    for (std::size_t i : step.sends) {
      const Message& m = plan.sends[i];
      const T* from = m.direct ? src.data() + plan.runs[m.first].src : send_buf + m.offset;
      chunked(m, from, [&](const char* p, int n) { sends.push_back(comm.isend(m.peer, message_tag, p, n)); });
    }
    copy_local();
    // Unpack: as each receive completes.
    while (!requests.empty()) {
      auto done = boost::mpi::wait_any(requests.begin(), requests.end()).second;
      const std::size_t k = static_cast<std::size_t>(done - requests.begin());
      const std::size_t i = owner[k];
      std::swap(requests[k], requests.back());
      std::swap(owner[k], owner.back());
      requests.pop_back();
      owner.pop_back();
      const Message& m = plan.recvs[i];
      if (--pending[i] == 0 && !m.direct) unpack(plan.runs_of(m), recv_buf + m.offset, dst.data());
    }
    boost::mpi::wait_all(sends.begin(), sends.end());
  }
  copy_local();
}

}  // namespace redist::runtime
