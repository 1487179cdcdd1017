/// @file Defines CallGuard: what redist checks when its collective calls come from several threads.
#pragma once

#include <algorithm>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <mpi.h>

#include <redist/config.hpp>

namespace redist::detail {

/// The thread level MPI was initialised with (MPI_Query_thread), asked once.
inline int mpi_thread_level() {
  static const int level = [] {
    int l = MPI_THREAD_SINGLE;
    MPI_Query_thread(&l);
    return l;
  }();
  return level;
}

inline const char* thread_level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    default: return "MPI_THREAD_MULTIPLE";
  }
}

/// The communicators on which a thread of this process is inside a redist collective call.
struct CallsInFlight {
  struct call {
    MPI_Comm comm;
    std::thread::id thread;
    int depth;  ///< nested calls of one thread on one communicator (a first run inside a run)
  };
  std::mutex mutex;
  std::vector<call> calls;

  static CallsInFlight& instance() {
    static CallsInFlight in_flight;
    return in_flight;
  }
};

/// True under SimGrid's SMPI, which runs every simulated rank as a thread of one simulator
/// process: its MPI_Is_thread_main is true on rank 0 only (SimGrid 3.32), so the main-thread check
/// is left out there (bench/sim/).
#ifdef SMPI_H
inline constexpr bool simulated_mpi = true;
#else
inline constexpr bool simulated_mpi = false;
#endif

/// Held for the duration of one collective redist call on comm (an agreement, a run of a plan).
/// Refuses, with redist::error and before the call communicates, what neither MPI nor redist
/// supports: a call from a thread other than the main one when MPI was initialised with
/// MPI_THREAD_FUNNELED or less; a call while another thread of this process is in one, unless MPI
/// was initialised with MPI_THREAD_MULTIPLE; and, at any level, two threads' calls on one
/// communicator at once (their messages would match each other's: give each thread its own
/// communicator, MPI_Comm_dup). Detected when the calls overlap in this process; the other
/// ranks cannot see it, so a program that does this may still hang there. One mutex and a
/// short scan per call; allocates only the first time.
class CallGuard {
 public:
  CallGuard(MPI_Comm comm, std::string_view call) : comm_{comm} {
    const int level = mpi_thread_level();
    if (level <= MPI_THREAD_FUNNELED && !simulated_mpi) {
      int main_thread = 1;
      MPI_Is_thread_main(&main_thread);
      if (!main_thread)
        report_error(std::string(call) + " was called from a thread other than the main one, and MPI was initialised with " +
                     thread_level_name(level) + " (initialise it with MPI_THREAD_MULTIPLE for calls from several threads)");
    }
    CallsInFlight& f = CallsInFlight::instance();
    const std::thread::id me = std::this_thread::get_id();
    std::lock_guard lock(f.mutex);
    for (CallsInFlight::call& c : f.calls) {
      if (c.thread == me) {
        if (c.comm == comm) {
          ++c.depth;
          return;
        }
        continue;
      }
      if (c.comm == comm)
        report_error(std::string(call) + " was called while another thread of this process is in a redist call on the same "
                     "communicator; concurrent calls need one communicator per thread (MPI_Comm_dup)");
      if (level < MPI_THREAD_MULTIPLE)
        report_error(std::string(call) + " was called while another thread of this process is in a redist call, and MPI "
                     "was initialised with " + thread_level_name(level) +
                     " (initialise it with MPI_THREAD_MULTIPLE for concurrent calls)");
    }
    f.calls.push_back({comm, me, 1});
  }
  ~CallGuard() {
    CallsInFlight& f = CallsInFlight::instance();
    const std::thread::id me = std::this_thread::get_id();
    std::lock_guard lock(f.mutex);
    auto it = std::find_if(f.calls.begin(), f.calls.end(), [&](const CallsInFlight::call& c) {
      return c.thread == me && c.comm == comm_;
    });
    if (it != f.calls.end() && --it->depth == 0) f.calls.erase(it);
  }
  CallGuard(const CallGuard&) = delete;
  CallGuard& operator=(const CallGuard&) = delete;

 private:
  MPI_Comm comm_;
};

}  // namespace redist::detail
