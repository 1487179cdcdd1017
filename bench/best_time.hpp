/// @file Defines best_ms, the timer of the one-process benchmarks (walk-bench,
/// static-length-bench): the least wall time of several runs of a function.
#pragma once

#include <algorithm>
#include <chrono>

namespace redist::bench {

/// The least of `reps` wall times of f(), in milliseconds.
template <class F>
double best_ms(int reps, F&& f) {
  double best = 1e300;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

}  // namespace redist::bench
