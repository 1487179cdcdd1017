/// @file Defines choose_transport: a plan's messages packed by redist or described to MPI as derived datatypes, whichever the machine runs faster, decided on the first run (collective).
#pragma once

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <boost/mpi/communicator.hpp>

#include <redist/plan/plan.hpp>
#include <redist/runtime/exchange.hpp>
#include <redist/runtime/time_plans.hpp>

namespace redist::runtime {

/// Below this many bytes in any rank's messages, the transport is not timed: packed messages.
inline constexpr std::uint64_t typed_min_bytes = std::uint64_t{1} << 16;

/// Collective, once per plan (the caller's first run that exchanges messages): times plan's
/// messages packed (pack, MPI, unpack) and as MPI derived datatypes over src and dst (MessageTypes:
/// MPI reads and writes the arrays itself), `reps` rounds each, interleaved, each run after a
/// barrier and timed as the slowest rank's; keeps the smaller median in ws.typed, the same on
/// every rank. Not timed (packed) when reps <= 0, when no rank moves typed_min_bytes in messages,
/// or when some message is longer than chunk_bytes (one datatype per message). dst holds the
/// redistributed values afterwards. Returns the medians (packed, typed) in seconds, or zeros
/// when nothing was timed.
template <class R, class T>
std::pair<double, double> choose_transport(const BasicPlan<R>& plan, const boost::mpi::communicator& comm,
                                           std::span<const T> src, std::span<T> dst, Workspace& ws, int reps,
                                           std::size_t chunk_bytes = max_chunk_bytes) {
  ws.typed = false;
  const MPI_Comm c = static_cast<MPI_Comm>(comm);
  std::uint64_t bytes = 0, longest = 0;
  for (const Message& m : plan.sends) {
    bytes += static_cast<std::uint64_t>(m.size) * sizeof(T);
    longest = std::max<std::uint64_t>(longest, static_cast<std::uint64_t>(m.size) * sizeof(T));
  }
  for (const Message& m : plan.recvs) longest = std::max<std::uint64_t>(longest, static_cast<std::uint64_t>(m.size) * sizeof(T));
  std::uint64_t mine[2] = {bytes, longest > chunk_bytes ? 1u : 0u}, all[2] = {};
  detail::check(MPI_Allreduce(mine, all, 2, MPI_UINT64_T, MPI_MAX, c), "MPI_Allreduce");
  if (reps <= 0 || all[0] < typed_min_bytes || all[1] != 0) return {0.0, 0.0};

  std::vector<double> packed, typed;
  auto time_one = [&](bool as_types) {
    ws.typed = as_types;
    detail::check(MPI_Barrier(c), "MPI_Barrier");
    const auto t0 = std::chrono::steady_clock::now();
    execute(plan, comm, src, dst, ws, chunk_bytes);
    double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), slowest = 0;
    detail::check(MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, c), "MPI_Allreduce");
    return slowest;
  };
  time_one(false);  // first runs untimed: they grow the scratch and build the types
  time_one(true);
  for (int r = 0; r < reps; ++r) {
    const bool first_typed = r % 2 == 1;
    const double a = time_one(first_typed), b = time_one(!first_typed);
    (first_typed ? typed : packed).push_back(a);
    (first_typed ? packed : typed).push_back(b);
  }
  const double p = median_of(packed), t = median_of(typed);
  ws.typed = t < p;
  return {p, t};
}

}  // namespace redist::runtime
