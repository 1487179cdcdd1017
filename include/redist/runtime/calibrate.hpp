/// @file Defines calibrate(comm) and local_remote_ratio(comm): LMR's local/remote speed ratio, measured once per communicator.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <vector>

#include <mpi.h>

#include <boost/mpi/collectives/broadcast.hpp>
#include <boost/mpi/communicator.hpp>

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

}  // namespace redist::runtime
