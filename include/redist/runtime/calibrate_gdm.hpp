/// @file Defines gdm_parameters(comm): the GDM model's startup Ts, per-byte Td and per-step Tstep of a communicator, measured once (a ping-pong at two message sizes, ring steps) and cached as an MPI attribute.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include <mpi.h>

#include <boost/mpi/collectives/broadcast.hpp>
#include <boost/mpi/communicator.hpp>

#include <redist/schedule/cost.hpp>

namespace redist::runtime {

/// The two message sizes gdm_parameters times (bytes): a startup-bound and a bandwidth-bound one.
inline constexpr std::size_t gdm_small_bytes = 8;
inline constexpr std::size_t gdm_large_bytes = std::size_t{1} << 18;
/// Round trips per size; the fastest counts.
inline constexpr int gdm_repetitions = 20;
/// The tag of the ping-pong.
inline constexpr int gdm_tag = 0x7EDF;

namespace detail {
inline int delete_gdm(MPI_Comm, int, void* value, void*) {
  delete static_cast<schedule::Machine*>(value);
  return MPI_SUCCESS;
}

inline int gdm_key() {
  static const int key = [] {
    int k = MPI_KEYVAL_INVALID;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, &delete_gdm, &k, nullptr);
    return k;
  }();
  return key;
}

/// Half the fastest round trip of `bytes` between ranks 0 and 1 (rank 0's value; others 0).
inline double ping_pong(MPI_Comm c, int rank, std::size_t bytes, std::vector<char>& buf) {
  double best = 1e300;
  const int n = static_cast<int>(bytes);
  for (int i = 0; i <= gdm_repetitions; ++i) {
    const double t0 = MPI_Wtime();
    if (rank == 0) {
      MPI_Send(buf.data(), n, MPI_BYTE, 1, gdm_tag, c);
      MPI_Recv(buf.data(), n, MPI_BYTE, 1, gdm_tag, c, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buf.data(), n, MPI_BYTE, 0, gdm_tag, c, MPI_STATUS_IGNORE);
      MPI_Send(buf.data(), n, MPI_BYTE, 0, gdm_tag, c);
    }
    if (i > 0) best = std::min(best, (MPI_Wtime() - t0) / 2);  // the first is a warm-up
  }
  return best;
}

/// The median of gdm_repetitions rounds of 8 chained ring steps of 8 bytes on all ranks (each
/// rank receives from its left neighbour and sends to its right one, then waits), per step: the
/// time of one synchronized contention-free step as this rank sees it. The median, not the
/// fastest: a step waits for the slowest partner, and that is what schedules pay.
inline double ring_step(MPI_Comm c, int rank, int size) {
  char out = 1, in = 0;
  MPI_Request req[2];
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  std::vector<double> t;
  MPI_Barrier(c);
  for (int i = 0; i <= gdm_repetitions; ++i) {
    const double t0 = MPI_Wtime();
    for (int k = 0; k < 8; ++k) {
      MPI_Irecv(&in, 1, MPI_BYTE, left, gdm_tag, c, &req[0]);
      MPI_Isend(&out, 1, MPI_BYTE, right, gdm_tag, c, &req[1]);
      MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    }
    if (i > 0) t.push_back((MPI_Wtime() - t0) / 8);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

/// Rank 0's measurement, broadcast (collective; only ranks 0 and 1 ping-pong, all take part in
/// the ring steps).
inline schedule::Machine measure_gdm(const boost::mpi::communicator& comm) {
  const MPI_Comm c = static_cast<MPI_Comm>(comm);
  const int rank = comm.size() > 1 ? comm.rank() : 2;
  double values[3] = {schedule::default_machine.ts, schedule::default_machine.td, schedule::default_machine.tstep};
  if (rank <= 1) {
    std::vector<char> buf(gdm_large_bytes, 1);
    const double small = ping_pong(c, rank, gdm_small_bytes, buf);
    const double large = ping_pong(c, rank, gdm_large_bytes, buf);
    // t(m) = Ts + m·Td through both points; both kept positive.
    const double td = std::max(1e-13, (large - small) / static_cast<double>(gdm_large_bytes - gdm_small_bytes));
    values[0] = std::max(1e-9, small - static_cast<double>(gdm_small_bytes) * td);
    values[1] = td;
  }
  if (comm.size() > 1) {
    // A step costs its message and the wait for it: what a ring step takes beyond one startup.
    double step = ring_step(c, comm.rank(), comm.size());
    double slowest = 0;
    MPI_Allreduce(&step, &slowest, 1, MPI_DOUBLE, MPI_MAX, c);
    if (comm.rank() == 0) values[2] = std::max(0.0, slowest - values[0]);
  }
  // Every rank gets rank 0's numbers, so that all of them choose the same schedules.
  boost::mpi::broadcast(comm, values, 3, 0);
  return schedule::Machine{values[0], values[1], values[2]};
}
}  // namespace detail

/// The GDM parameters of comm: Ts (seconds per message) and Td (seconds per byte) from a
/// ping-pong between ranks 0 and 1 at gdm_small_bytes and gdm_large_bytes, and Tstep (seconds
/// per synchronized step) from ring steps of 8 bytes on all ranks, less Ts. Collective on the
/// first call for a communicator (about a millisecond); later calls return the cached values
/// without communication. Every rank gets the same values (rank 0's). One process: the defaults.
/// Use them as `redistribute(a, b, schedule::modeled(runtime::gdm_parameters(comm)))`.
inline schedule::Machine gdm_parameters(const boost::mpi::communicator& comm) {
  const MPI_Comm c = static_cast<MPI_Comm>(comm);
  void* value = nullptr;
  int found = 0;
  MPI_Comm_get_attr(c, detail::gdm_key(), &value, &found);
  if (found) return *static_cast<const schedule::Machine*>(value);
  auto* m = new schedule::Machine(detail::measure_gdm(comm));
  MPI_Comm_set_attr(c, detail::gdm_key(), m);
  return *m;
}

}  // namespace redist::runtime
