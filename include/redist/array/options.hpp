/// @file Defines redist::options, the run-time switches of a redistribution, and default_options().
#pragma once

#include <cstddef>

#include <redist/runtime/exchange.hpp>

namespace redist {

/// Switches of a redistribution. Every rank must pass the same values (the consistency check
/// verifies it when the plan is first run).
struct options {
  /// All ranks agree (one small all-reduce) on the parameters when an array is constructed and
  /// when a plan is first run, or all throw redist::error naming what differs.
  bool check_consistency = true;
  /// Cap on this rank's scratch memory (packed sends and receives), in bytes. 0: the default,
  /// which is the size of this rank's larger local array (source or destination). Messages are
  /// split into pieces moved in rounds so that no round needs more.
  std::size_t max_scratch_bytes = 0;
  /// Longest single MPI message, in bytes; a longer piece goes as several messages.
  std::size_t max_message_bytes = runtime::max_chunk_bytes;
  /// schedule::automatic on a Cyclic pair: on the plan's first run, time each candidate schedule
  /// (BCC and the hybrid(d) within twice the GDM model's best prediction, redist::automatic_candidates)
  /// this many times, interleaved, and keep the one with the smallest median of the slowest
  /// rank's time. 0: no timing, the model's choice runs.
  int tune_reps = 5;

  friend bool operator==(const options&, const options&) = default;
};

/// The options used when a call is given none (`b = a`, DistArray construction). Set them
/// before use, identically on every rank: `redist::default_options().check_consistency = false;`
inline options& default_options() noexcept {
  static options defaults;
  return defaults;
}

}  // namespace redist
