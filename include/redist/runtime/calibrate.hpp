/// @file Defines calibrate (LMR's local/remote speed ratio) and gdm_parameters (the GDM model's Ts, Td and Tstep): ping-pongs and ring steps measured once per communicator and cached as MPI attributes.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <vector>

#include <boost/mpi/collectives/broadcast.hpp>
#include <boost/mpi/communicator.hpp>

#include <redist/schedule/cost.hpp>

namespace redist::runtime {

/// What calibrate measured: the speed of a local copy (memcpy) and of an MPI point-to-point
/// message between ranks 0 and 1, on messages of calibration_bytes, and their ratio, which is
/// LMR's lmr_ratio (a local message of s elements costs s / ratio).
struct Calibration {
  double copy_bytes_per_second = 0;
  double remote_bytes_per_second = 0;
  double ratio = 1;
};

/// Size of the messages calibrate times (large enough to be bandwidth-bound).
inline constexpr std::size_t calibration_bytes = std::size_t{4} << 20;
/// Repetitions of each measurement; the fastest counts.
inline constexpr int calibration_repetitions = 5;
/// The tag of calibrate's messages.
inline constexpr int calibration_tag = 0x7EDE;

namespace detail {
inline int delete_calibration(MPI_Comm, int, void* value, void*) {
  delete static_cast<Calibration*>(value);
  return MPI_SUCCESS;
}

/// The attribute key under which a communicator keeps its Calibration (not copied by MPI_Comm_dup).
inline int calibration_key() {
  static const int key = [] {
    int k = MPI_KEYVAL_INVALID;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, &delete_calibration, &k, nullptr);
    return k;
  }();
  return key;
}

/// Rank 0's measurement (collective; ranks other than 0 and 1 only wait).
inline Calibration measure(const boost::mpi::communicator& comm) {
  const MPI_Comm c = static_cast<MPI_Comm>(comm);
  const int rank = comm.rank();
  std::vector<char> a(calibration_bytes, 1), b(calibration_bytes, 2);
  Calibration cal;
  double copy = 1e300, remote = 1e300;
  volatile int sink = 0;
  if (rank == 0) {
    // Local: a copy of calibration_bytes (after one warm-up).
    for (int i = 0; i <= calibration_repetitions; ++i) {
      a[static_cast<std::size_t>(i)] = static_cast<char>(i);
      const double t0 = MPI_Wtime();
      std::memcpy(b.data(), a.data(), a.size());
      const double t = MPI_Wtime() - t0;
      sink = sink + b[static_cast<std::size_t>(i)];  // the copy is used: not optimised away
      if (i > 0) copy = std::min(copy, t);
    }
  }
  if (comm.size() > 1 && rank <= 1) {
    // Remote: a ping-pong between ranks 0 and 1, half a round trip per message.
    const int peer = 1 - rank;
    const int n = static_cast<int>(calibration_bytes);
    for (int i = 0; i <= calibration_repetitions; ++i) {
      const double t0 = MPI_Wtime();
      if (rank == 0) {
        MPI_Send(a.data(), n, MPI_BYTE, peer, calibration_tag, c);
        MPI_Recv(b.data(), n, MPI_BYTE, peer, calibration_tag, c, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(b.data(), n, MPI_BYTE, peer, calibration_tag, c, MPI_STATUS_IGNORE);
        MPI_Send(b.data(), n, MPI_BYTE, peer, calibration_tag, c);
      }
      const double t = (MPI_Wtime() - t0) / 2;
      if (i > 0) remote = std::min(remote, t);
    }
  }
  double values[3] = {0, 0, 1};
  if (rank == 0) {
    values[0] = static_cast<double>(calibration_bytes) / std::max(copy, 1e-9);
    // One process: there is no remote message, and the ratio is 1.
    values[1] = comm.size() > 1 ? static_cast<double>(calibration_bytes) / std::max(remote, 1e-9) : values[0];
    values[2] = std::max(1.0, values[0] / values[1]);
  }
  // Every rank gets rank 0's numbers, so that all of them compute the same schedules.
  boost::mpi::broadcast(comm, values, 3, 0);
  cal.copy_bytes_per_second = values[0];
  cal.remote_bytes_per_second = values[1];
  cal.ratio = values[2];
  return cal;
}
}  // namespace detail

/// LMR's calibration of comm. Collective on the first call for a communicator, which measures
/// (a few milliseconds); later calls return the cached numbers without communication. Every rank
/// gets the same numbers (rank 0's), so schedules built from them agree. The ratio is at least 1.
inline Calibration calibrate(const boost::mpi::communicator& comm) {
  const MPI_Comm c = static_cast<MPI_Comm>(comm);
  void* value = nullptr;
  int found = 0;
  MPI_Comm_get_attr(c, detail::calibration_key(), &value, &found);
  if (found) return *static_cast<const Calibration*>(value);
  auto* cal = new Calibration(detail::measure(comm));
  MPI_Comm_set_attr(c, detail::calibration_key(), cal);
  return *cal;
}

/// The local/remote speed ratio of comm for LMR: pass it down in a policy, as in
/// `redistribute(a, b, schedule::etpdr_t{.lmr_ratio = runtime::local_remote_ratio(comm)})`.
inline double local_remote_ratio(const boost::mpi::communicator& comm) { return calibrate(comm).ratio; }


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
