/// @file Defines time_plans: the slowest rank's times of several plans for the same src -> dst, measured interleaved in shuffled rounds (collective), and median_of.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <random>
#include <span>
#include <vector>

#include <boost/mpi/communicator.hpp>

#include <redist/runtime/exchange.hpp>

namespace redist::runtime {

/// The median of a plan's samples (0 when there are none).
inline double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

/// Runs the plans plans[which[0]], plans[which[1]], … from src into dst in rounds and appends, per
/// run, the slowest rank's time in seconds to samples[i] of plan i: the same values on every
/// rank. A plan without samples yet first runs once untimed (its first run grows the workspace).
/// There are at least `reps` rounds, and more while the rounds so far took less than
/// `min_seconds` in all (at most 64 · reps), so that short calls, which vary most, get enough
/// samples. In a round every plan runs once, after a barrier, in an order shuffled from round to
/// round (the same on every rank), so that neither a change in the machine's load nor the state
/// one plan leaves in the caches for the next weighs on one plan more than on another.
/// Collective over comm; every rank must pass plans for the same redistribution, and the same
/// `which`. dst holds the redistributed values afterwards (every plan computes them).
template <class PlanT, class T>
void time_plans(std::span<const PlanT> plans, std::span<const std::size_t> which, const boost::mpi::communicator& comm,
                std::span<const T> src, std::span<T> dst, Workspace& ws, std::size_t chunk_bytes, int reps,
                double min_seconds, std::vector<std::vector<double>>& samples) {
  const std::size_t np = which.size();
  if (np == 0) return;
  samples.resize(plans.size());
  const auto least = static_cast<std::size_t>(std::max(reps, 1)), most = 64 * least;
  for (std::size_t i : which)
    if (samples[i].empty()) execute(plans[i], comm, src, dst, ws, chunk_bytes);
  std::vector<double> mine, slowest;
  mine.reserve(np * least);
  std::vector<std::size_t> order(which.begin(), which.end()), ran;  // ran[k]: the plan of run k
  std::minstd_rand shuffle_with(20261122u);
  double spent = 0;
  std::size_t rounds = 0;
  while (rounds < least || (spent < min_seconds && rounds < most)) {
    double round = 0;
    if (rounds > 0) std::shuffle(order.begin(), order.end(), shuffle_with);
    for (std::size_t i : order) {
      comm.barrier();
      const auto t0 = std::chrono::steady_clock::now();
      execute(plans[i], comm, src, dst, ws, chunk_bytes);
      const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      mine.push_back(t);
      ran.push_back(i);
      round += t;
    }
    ++rounds;
    // Every rank continues alike: the slowest rank's round.
    double longest = 0;
    detail::check(MPI_Allreduce(&round, &longest, 1, MPI_DOUBLE, MPI_MAX, static_cast<MPI_Comm>(comm)),
                  "MPI_Allreduce");
    spent += longest;
  }
  slowest.resize(mine.size());
  detail::check(MPI_Allreduce(mine.data(), slowest.data(), static_cast<int>(mine.size()), MPI_DOUBLE, MPI_MAX,
                              static_cast<MPI_Comm>(comm)),
                "MPI_Allreduce");
  for (std::size_t k = 0; k < ran.size(); ++k) samples[ran[k]].push_back(slowest[k]);
}

}  // namespace redist::runtime
