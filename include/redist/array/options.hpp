/// @file Defines redist::options, the run-time switches of a redistribution, and default_options().
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>

#include <redist/runtime/exchange.hpp>

namespace redist {

/// The least default scratch budget (options::max_scratch_bytes = 0), in bytes: 1 MiB. Below it a
/// budget of the local array would cut small arrays' messages into rounds (a packed send and
/// receive of a whole local array need twice it), each round a latency, for memory that does not
/// matter; above it the default is the larger local array.
inline constexpr std::size_t default_scratch_floor_bytes = std::size_t{1} << 20;

/// Switches of a redistribution. Every rank must pass the same values (the consistency check
/// verifies it when the plan is first run).
struct options {
  /// All ranks agree (one small all-reduce) on the parameters when an array is constructed and
  /// when a plan is first run, or all throw redist::error naming what differs.
  bool check_consistency = true;
  /// Cap on this rank's scratch memory (packed sends and receives), in bytes. 0: the default,
  /// the size of this rank's larger local array (source or destination), at least
  /// default_scratch_floor_bytes (1 MiB). Messages are split into pieces moved in rounds so that
  /// no round needs more. A cap, not an allocation: a run allocates what its messages need.
  std::size_t max_scratch_bytes = 0;
  /// Longest single MPI message, in bytes; a longer piece goes as several messages.
  std::size_t max_message_bytes = runtime::max_chunk_bytes;
  /// schedule::automatic on a Cyclic pair: on the plan's first run, time each candidate schedule
  /// (BCC and the hybrid(d) within twice the GDM model's best prediction, redist::automatic_candidates)
  /// this many times, interleaved, and keep the one with the smallest median of the slowest
  /// rank's time. 0: no timing, the model's choice runs.
  int tune_reps = 5;
  /// Ranks on one node (MPI_COMM_TYPE_SHARED) redistribute through shared memory: a DistArray
  /// constructed with this on keeps its local storage in an MPI-3 shared-memory window of its
  /// node, and `b = a` copies each element once from its owner's source array into the
  /// destination, with no packing and no messages; pairs on different nodes exchange messages as
  /// before, in the same call. Off: storage in ordinary memory, and messages between every pair.
  bool shared_memory = true;
  /// Node emulation for testing the mixed path on one machine: 0 takes the machine's nodes;
  /// k > 0 cuts each into nodes of k consecutive ranks (shared memory within, messages between).
  int node_size = 0;
  /// Between nodes, a plan's messages may go aggregated, one message per pair of nodes gathered and
  /// split through node windows (Wire::node_aggregated; shared_memory on, the ranks on several
  /// nodes, one of them holding several; a direct plan whose messages of every rank fit one round,
  /// one per peer each way). timed: the decision times it among the wires of small messages (under
  /// 64 KiB in every rank's) on the plan's second run (tune_reps > 0) and keeps the fastest;
  /// always: a plan that can aggregates from its second run, untimed, whatever its messages' size
  /// (the window holds them all); never: it is not considered.
  NodeAggregation node_aggregation = NodeAggregation::timed;

  friend bool operator==(const options&, const options&) = default;
};

namespace detail {
/// The defaults, with three taken from the environment when set there: REDIST_SHARED_MEMORY=0
/// turns options::shared_memory off, REDIST_NODE_SIZE=k sets options::node_size (k ranks per
/// emulated node), REDIST_NODE_AGGREGATION=0 / 1 sets options::node_aggregation to never / always,
/// so that a job can choose its transport without recompiling.
inline options options_from_environment() noexcept {
  options o;
  if (const char* v = std::getenv("REDIST_SHARED_MEMORY"); v != nullptr && *v != '\0') o.shared_memory = std::atoi(v) != 0;
  if (const char* v = std::getenv("REDIST_NODE_SIZE"); v != nullptr && *v != '\0') o.node_size = std::max(0, std::atoi(v));
  if (const char* v = std::getenv("REDIST_NODE_AGGREGATION"); v != nullptr && *v != '\0')
    o.node_aggregation = std::atoi(v) != 0 ? NodeAggregation::always : NodeAggregation::never;
  return o;
}
}  // namespace detail

/// The options used when a call is given none (`b = a`, DistArray construction). Set them
/// before use, identically on every rank: `redist::default_options().check_consistency = false;`
/// Their initial values are options{}'s, except shared_memory, node_size and node_aggregation
/// where the environment sets them (REDIST_SHARED_MEMORY, REDIST_NODE_SIZE, REDIST_NODE_AGGREGATION).
inline options& default_options() noexcept {
  static options defaults = detail::options_from_environment();
  return defaults;
}

}  // namespace redist
