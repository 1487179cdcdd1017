/// @file Defines the first-run timings of the decision: time_plans (the slowest rank's times of candidate plans, interleaved), time_candidates and time_transports (packed messages against MPI derived datatypes), timed with MPI_Wtime so that a simulated MPI times in its own clock.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <span>
#include <utility>
#include <vector>

#include <boost/mpi/communicator.hpp>

#include <redist/plan/plan.hpp>
#include <redist/runtime/exchange.hpp>
#include <redist/runtime/node.hpp>

namespace redist::runtime {

/// The median of a plan's samples (0 when there are none).
inline double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

/// No preparation before a timed run (time_rounds' default).
struct no_prepare {
  void operator()(std::size_t) const noexcept {}
};

/// time_plans' rounds for any candidates: run(i) runs candidate i once (samples.size() of them);
/// prepare(i), untimed before each run's barrier, sets up what the run needs (a fold's identity).
template <class Run, class Prepare = no_prepare>
void time_rounds(std::span<const std::size_t> which, const boost::mpi::communicator& comm, int reps, double min_seconds,
                 std::vector<std::vector<double>>& samples, Run&& run, Prepare&& prepare = {}) {
  const std::size_t np = which.size();
  if (np == 0) return;
  const MPI_Comm c = static_cast<MPI_Comm>(comm);
  const auto least = static_cast<std::size_t>(std::max(reps, 1)), most = 64 * least;
  for (std::size_t i : which)
    if (samples[i].empty()) {
      prepare(i);
      run(i);
    }
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
      prepare(i);
      detail::check(MPI_Barrier(c), "MPI_Barrier");
      const double t0 = MPI_Wtime();
      run(i);
      const double t = MPI_Wtime() - t0;
      mine.push_back(t);
      ran.push_back(i);
      round += t;
    }
    ++rounds;
    // Every rank continues alike: the slowest rank's round.
    double longest = 0;
    detail::check(MPI_Allreduce(&round, &longest, 1, MPI_DOUBLE, MPI_MAX, c), "MPI_Allreduce");
    spent += longest;
  }
  slowest.resize(mine.size());
  detail::check(MPI_Allreduce(mine.data(), slowest.data(), static_cast<int>(mine.size()), MPI_DOUBLE, MPI_MAX, c),
                "MPI_Allreduce");
  for (std::size_t k = 0; k < ran.size(); ++k) samples[ran[k]].push_back(slowest[k]);
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
  samples.resize(plans.size());
  time_rounds(which, comm, reps, min_seconds, samples,
              [&](std::size_t i) { execute(plans[i], comm, src, dst, ws, chunk_bytes); });
}

/// Least time of a stage's rounds when timing candidate schedules (time_plans' min_seconds).
inline constexpr double tune_min_seconds = 0.01;

/// The medians of candidate plans for src -> dst (collective; every rank passes the same
/// candidates): each gets the piece all ranks agree on for `budget` elements, and those whose
/// stages fit the budget on every rank (one all-reduce for both) are timed by time_plans, `reps`
/// rounds and more; then those within 20 % of the fastest median twice as many more, so that the
/// close ones get the most samples. A candidate that does not fit gets 0. The candidates run in a
/// workspace of their own, released afterwards.
template <class PlanT, class T>
std::vector<double> time_candidates(std::span<PlanT> plans, const boost::mpi::communicator& comm,
                                    std::span<const T> src, std::span<T> dst, index_t budget, int reps,
                                    std::size_t chunk_bytes) {
  constexpr auto no_limit = static_cast<std::uint64_t>(index_t{-1} >> 1);
  std::vector<std::uint64_t> mine(2 * plans.size()), all(2 * plans.size());
  for (std::size_t i = 0; i < plans.size(); ++i) {
    mine[2 * i] = fits_budget(plans[i], budget) ? 1 : 0;
    const index_t piece = piece_limit(plans[i], budget);
    mine[2 * i + 1] = piece == 0 ? no_limit : static_cast<std::uint64_t>(piece);
  }
  detail::check(MPI_Allreduce(mine.data(), all.data(), static_cast<int>(mine.size()), MPI_UINT64_T, MPI_MIN,
                              static_cast<MPI_Comm>(comm)),
                "MPI_Allreduce");
  std::vector<std::size_t> which;
  for (std::size_t i = 0; i < plans.size(); ++i) {
    plans[i].piece = all[2 * i + 1] == no_limit ? 0 : static_cast<index_t>(all[2 * i + 1]);
    if (all[2 * i] != 0) which.push_back(i);
  }
  std::vector<double> medians(plans.size(), 0.0);
  if (which.size() < 2) return medians;
  Workspace ws;
  std::vector<std::vector<double>> samples;
  auto fastest = [&] {
    double best = 0;
    for (std::size_t i : which) {
      medians[i] = median_of(samples[i]);
      if (best == 0 || medians[i] < best) best = medians[i];
    }
    return best;
  };
  const std::span<const PlanT> all_plans(plans);
  time_plans(all_plans, std::span<const std::size_t>(which), comm, src, dst, ws, chunk_bytes, reps, tune_min_seconds, samples);
  const double lead = fastest();
  std::erase_if(which, [&](std::size_t i) { return medians[i] > 1.2 * lead; });
  if (which.size() >= 2)
    time_plans(all_plans, std::span<const std::size_t>(which), comm, src, dst, ws, chunk_bytes, 2 * reps,
               tune_min_seconds, samples);
  fastest();
  return medians;
}

namespace detail {
/// After one timed round of the candidates `which` (samples[i].front(): candidate i's first run,
/// the slowest rank's), those timed further: all where the fastest run took at most `long_call`
/// seconds, else those within twice the fastest (each further run costs as much as a call, and a
/// candidate that far behind does not win). Alike on every rank (the samples are).
inline void keep_close_candidates(std::vector<std::size_t>& which, const std::vector<std::vector<double>>& samples,
                                  double long_call) {
  double first = 0;
  for (std::size_t i : which)
    if (first == 0 || samples[i].front() < first) first = samples[i].front();
  if (first > long_call) std::erase_if(which, [&](std::size_t i) { return samples[i].front() > 2 * first; });
}
}  // namespace detail

/// Below this many bytes in any rank's messages, derived datatypes are not timed (the message
/// wires are: they matter most for small messages).
inline constexpr std::uint64_t typed_min_bytes = std::uint64_t{1} << 16;

/// Collective: times plan's transports against each other (Wire, packed or as MPI derived
/// datatypes), each run after a barrier and timed as the slowest rank's, in rounds of time_rounds
/// (`reps` and more while they took less than tune_min_seconds), interleaved; where the fastest
/// first run is over tune_min_seconds, a candidate over twice it is run no more. The candidates,
/// the same on every rank from one all-reduce of what each rank's messages allow:
///  - below typed_min_bytes in every rank's messages: packed messages point to point, persistent,
///    in one MPI_Ialltoallv and in one MPI_Ineighbor_alltoallv (has_neighbor_collectives);
///  - from typed_min_bytes on: point to point and one MPI_Ialltoallv(w), packed and as datatypes
///    (not when some message is longer than chunk_bytes: one datatype per message; nor when some
///    message is an element list: one displacement per element);
///  - at any size, one MPI_Allgatherv per group when every rank's plan gathers within groups
///    (make_gather_group: into Replicated) and no rank copies from node peers; and the same
///    nonblocking (MPI_Iallgatherv, waited for at once: ExchangeState::nonblocking).
///  - on nodes (`node`, the partition of comm; `source`, src's part of a node window, when it is
///    in one): the runs take the node path, as b = a does, and below typed_min_bytes, when comm
///    spans several nodes and one of them holds several ranks, Wire::node_aggregated too (one
///    message per node pair; every rank's plan in one round with one message per peer each way);
///    with `aggregation` always, it alone, whatever the messages' size, run once and not compared
///    (where it cannot run, the others as without). Where some rank's runs copy from node peers,
///    the candidates are marked so (TransportTiming::node), a node that holds every rank has one
///    (its copies: no message), and below typed_min_bytes the messages alone (point to point,
///    persistent, the all-to-all, the neighbourhood collective, and the all-gather where every
///    rank's plan gathers; no node, so no node agreement) are timed against them; a node holding
///    every rank times nothing otherwise. Those two are compared only with every node's copy
///    settled: where some rank's `copies_unsettled` (its node still compares pulling with packing
///    then pulling), nothing is timed and nullopt returned (the decision asks on a later run).
/// Each run waits at once (runtime::run: the blocking collective, but for the nonblocking candidate).
/// The collectives only when every rank's plan is direct, sends at most one message per peer, its
/// messages fit an int of bytes and a round's messages, all packed, fit `budget` elements of
/// scratch (0: no limit; collective_scratch); packed, one per round of the scratch budget's pieces, as many
/// rounds on every rank (ws.exchange.collective_rounds, the most of any rank's, kept afterwards).
/// Returns the candidates with their medians (empty when nothing was timed: reps <= 0, a plan that
/// is not direct on some rank; nullopt when not yet, above). ws's wire is point to point and untyped afterwards; dst holds the
/// redistributed values.
template <class R, class T>
std::optional<std::vector<TransportTiming>> time_transports(const BasicPlan<R>& plan, const boost::mpi::communicator& comm,
                                                            std::span<const T> src, std::span<T> dst, Workspace& ws, int reps,
                                                            std::size_t chunk_bytes = max_chunk_bytes, index_t budget = 0,
                                                            const SharedSegment* source = nullptr, const Node* node = nullptr,
                                                            NodeAggregation aggregation = NodeAggregation::timed,
                                                            bool copies_unsettled = false) {
  ws.typed = false;
  ws.exchange.wire = Wire::point_to_point;
  ws.exchange.nonblocking = false;
  const MPI_Comm c = static_cast<MPI_Comm>(comm);
  std::uint64_t bytes = 0, longest = 0, total = 0;
  bool one_per_peer = true, listed = false;
  for (const auto& st : plan.stages) {
    std::vector<int> peers;
    for (const auto* list : {&st.sends, &st.recvs}) {
      peers.clear();
      for (const Message& m : *list) {
        const auto b = static_cast<std::uint64_t>(m.size) * sizeof(T);
        longest = std::max(longest, b);
        total += b;
        peers.push_back(m.peer);
        listed = listed || m.listed();
      }
      std::sort(peers.begin(), peers.end());
      one_per_peer = one_per_peer && std::adjacent_find(peers.begin(), peers.end()) == peers.end();
    }
    for (const Message& m : st.sends) bytes += static_cast<std::uint64_t>(m.size) * sizeof(T);
  }
  const detail::StageRounds sr = plan.direct() ? detail::stage_rounds(plan, plan.stages[0], false, false) : detail::StageRounds{};
  const index_t rounds = sr.rounds;
  const bool counted = plan.direct() && one_per_peer && total + 128 <= INT_MAX;
  const std::size_t room = static_cast<std::size_t>(budget) * sizeof(T);
  const bool collective_ok =
      counted && (budget <= 0 || detail::collective_scratch(plan, plan.stages[0], sr, rounds, sizeof(T)) <= room);
  // An all-gather packs one contribution (its first send) and receives the others: at most that.
  std::uint64_t gather_bytes = 0;
  if (plan.direct()) {
    const auto& st = plan.stages[0];
    if (!st.sends.empty()) gather_bytes = static_cast<std::uint64_t>(st.sends.front().size) * sizeof(T);
    for (const Message& m : st.recvs) gather_bytes += static_cast<std::uint64_t>(m.size) * sizeof(T);
  }
  const bool gather_ok = counted && (budget <= 0 || gather_bytes <= room);
  // max: bytes, a message over chunk_bytes, a rank that cannot take a collective, a rank not
  // direct, the packed messages' rounds, a rank with two messages to or from one peer, a rank
  // without the room of an all-gather, a rank with an element list, a rank whose runs copy from
  // node peers (a source in a node window, on a node of several ranks), a rank whose node's copy is
  // not settled yet.
  const bool copies = source != nullptr && node != nullptr && node->size > 1;
  std::uint64_t mine[10] = {bytes, longest > chunk_bytes ? 1u : 0u, collective_ok ? 0u : 1u, plan.direct() ? 0u : 1u,
                            static_cast<std::uint64_t>(rounds), one_per_peer ? 0u : 1u, gather_ok ? 0u : 1u,
                            listed ? 1u : 0u, copies ? 1u : 0u, copies && copies_unsettled ? 1u : 0u};
  std::uint64_t all[10] = {};
  detail::check(MPI_Allreduce(mine, all, 10, MPI_UINT64_T, MPI_MAX, c), "MPI_Allreduce");
  if (all[3] != 0) return std::vector<TransportTiming>{};
  ws.exchange.collective_rounds = static_cast<index_t>(all[4]);
  // Node copies somewhere: the candidates run with them (TransportTiming::node). Below
  // typed_min_bytes the messages alone are timed against them too: a node's copies cost its ranks
  // two synchronisations a call (the agreement, the closing barrier), which can cost more than a
  // small array's messages (where ranks outnumber processors, each wait for a peer is a task
  // switch). Compared only once the node's copy is settled (pulling, or packing then pulling: what
  // the later runs do), not with its first tries.
  const bool on_node = all[8] != 0;
  const bool whole = node != nullptr && node->whole();  // the same on every rank
  const bool offer_messages = on_node && all[0] < typed_min_bytes && aggregation != NodeAggregation::always;
  if (offer_messages && all[9] != 0) return std::nullopt;
  // A node holding every rank sends no message: its copies are one candidate, or nothing to time.
  if (on_node && whole && !offer_messages) return std::vector<TransportTiming>{};

  // Offered for small messages (latency is what it saves); forced (always) whatever their size.
  const bool aggregates = aggregation != NodeAggregation::never && node != nullptr && node->crowded && !node->whole() &&
                          (all[0] < typed_min_bytes || aggregation == NodeAggregation::always) && all[4] == 1 &&
                          all[5] == 0 && plan.stages.size() == 1;
  const bool forced = aggregation == NodeAggregation::always && aggregates;
  if (reps <= 0 && !forced) return std::vector<TransportTiming>{};
  std::vector<TransportTiming> cands{{Wire::point_to_point, false, 0}};
  const bool collectives = all[2] == 0;
  // An all-gather within groups (into Replicated): one MPI_Allgatherv per group, when every rank's
  // plan gathers (make_gather_group, collective, alike on every rank) and no rank copies from node
  // peers (a contribution copied by some receivers and gathered by others has no one count).
  const bool gather = !forced && all[6] == 0 && (node == nullptr || !node->crowded) &&
                      detail::make_gather_group(plan, c, ws.exchange.wire_resources);
  if (forced) {
    cands.assign(1, {Wire::node_aggregated, false, 0});
  } else if (all[0] < typed_min_bytes) {
    cands.push_back({Wire::persistent, false, 0});
    if (collectives) {
      cands.push_back({Wire::alltoallv, false, 0});
      if (has_neighbor_collectives) cands.push_back({Wire::neighbor, false, 0});
    }
    if (gather) cands.push_back({Wire::allgatherv, false, 0});
    if (gather) cands.push_back({Wire::allgatherv, false, 0, false, true});
    if (aggregates) cands.push_back({Wire::node_aggregated, false, 0});
  } else {
    if (collectives) cands.push_back({Wire::alltoallv, false, 0});
    if (gather) cands.push_back({Wire::allgatherv, false, 0});
    if (gather) cands.push_back({Wire::allgatherv, false, 0, false, true});
    // Derived datatypes, not for element lists: a datatype of one displacement per element costs
    // more to build and to walk than the pack (a 2^22 permutation: 178-184 ms a call against
    // 35-40 packed, indirect-bench on 4 ranks).
    if (all[1] == 0 && all[7] == 0) {
      cands.push_back({Wire::point_to_point, true, 0});
      if (collectives) cands.push_back({Wire::alltoallv, true, 0});
    }
  }
  if (forced) {
    // Chosen, not compared: one run (which makes its window), its time the slowest rank's.
    ws.exchange.wire = Wire::node_aggregated;
    detail::check(MPI_Barrier(c), "MPI_Barrier");
    const double t0 = MPI_Wtime();
    execute(plan, comm, src, dst, ws, chunk_bytes, assign_op{}, source, node);
    double t = MPI_Wtime() - t0;
    detail::check(MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, c), "MPI_Allreduce");
    cands.front().median = std::max(t, 1e-9);
    cands.front().node = on_node;  // run with the node's copies where some node makes them
    ws.exchange.wire = Wire::point_to_point;
    return cands;
  }
  if (on_node) {
    if (whole) cands.assign(1, {Wire::point_to_point, false, 0});
    std::vector<TransportTiming> alone;  // the same wires without node copies
    for (TransportTiming& t : cands) {
      t.node = true;
      if (offer_messages && !t.datatypes && (t.wire == Wire::point_to_point || t.wire == Wire::persistent ||
                                             t.wire == Wire::alltoallv || t.wire == Wire::neighbor))
        alone.push_back({t.wire, false, 0});
    }
    if (offer_messages && whole) {
      // (the node's wires were not offered: it had no messages)
      alone.push_back({Wire::persistent, false, 0});
      if (collectives) alone.push_back({Wire::alltoallv, false, 0});
      if (collectives && has_neighbor_collectives) alone.push_back({Wire::neighbor, false, 0});
    }
    // Without node copies nobody copies from node peers: the all-gather within groups applies.
    if (offer_messages && all[6] == 0 && detail::make_gather_group(plan, c, ws.exchange.wire_resources)) {
      alone.push_back({Wire::allgatherv, false, 0});
      alone.push_back({Wire::allgatherv, false, 0, false, true});
    }
    cands.insert(cands.end(), alone.begin(), alone.end());
  }
  std::vector<std::size_t> which(cands.size());
  for (std::size_t i = 0; i < which.size(); ++i) which[i] = i;
  std::vector<std::vector<double>> samples(cands.size());
  auto run_candidate = [&](std::size_t i) {
    ws.typed = cands[i].datatypes;
    ws.exchange.wire = cands[i].wire;
    ws.exchange.nonblocking = cands[i].nonblocking;
    // Without node copies: no node, so no node agreement either (what a plan that keeps this runs).
    const bool alone = on_node && !cands[i].node;
    execute(plan, comm, src, dst, ws, chunk_bytes, assign_op{}, alone ? nullptr : source, alone ? nullptr : node);
  };
  // One round first; where a call is long (the fastest over tune_min_seconds: each run of a
  // candidate costs a call, and a large plan's timing is tens of calls), the candidates over
  // twice the fastest stop there (the samples are the slowest rank's: alike on every rank).
  time_rounds(std::span<const std::size_t>(which), comm, 1, 0.0, samples, run_candidate);
  double first_round = 0;  // (the slowest rank's runs: alike on every rank)
  for (std::size_t i : which) first_round += samples[i].front();
  detail::keep_close_candidates(which, samples, tune_min_seconds);
  // Then the other reps - 1 rounds (at least one), and more while those took less than
  // tune_min_seconds; with reps = 1, only when the first round was shorter than that.
  if (reps > 1 || first_round < tune_min_seconds)
    time_rounds(std::span<const std::size_t>(which), comm, std::max(reps - 1, 1), tune_min_seconds, samples, run_candidate);
  for (std::size_t i = 0; i < cands.size(); ++i) cands[i].median = median_of(samples[i]);
  ws.typed = false;
  ws.exchange.wire = Wire::point_to_point;
  ws.exchange.nonblocking = false;
  return cands;
}

/// Collective: times a plan of partial values (a Partial<Op> source, `store` its fold) by messages
/// against its reduction wire (Wire::allreduce or Wire::reduce_scatter, one MPI reduction per
/// group: make_reduce_group) when every rank's plan is one direct stage that reduces so in one
/// round (no piece of the scratch budget cuts a message), the fold is a predefined MPI operation on
/// T (mpi_reduction) and its scratch fits `budget` elements (0: no limit); with `node_candidate`
/// (the same on every rank), also the messages with node peers' pieces copied from their sources
/// (execute with `source` and `node`, this rank's node of more than one rank or nullptr; candidate
/// `node`), where the node agrees;
/// `reset()` writes the fold's identity into dst before each run (untimed), except with
/// `local_first` (a plan whose local copy precedes every other piece and writes every destination
/// element): then the runs by messages and node copies assign their local copy
/// (Workspace::local_assigns) and the reduction assigns its result to the local copy's places, as
/// run_update runs them, and nothing is written first. Interleaved
/// rounds as time_transports. The reduction is timed blocking and nonblocking (MPI_Iallreduce or
/// MPI_Ireduce_scatter waited for at once: ExchangeState::nonblocking). Returns the candidates with
/// their medians (empty when the wire does not apply or reps <= 0); ws's wire is point to point
/// and blocking afterwards, and dst holds the last run's values.
template <class R, class T, class Store, class Reset>
std::vector<TransportTiming> time_reduction(const BasicPlan<R>& plan, const boost::mpi::communicator& comm,
                                            std::span<const T> src, std::span<T> dst, Workspace& ws, int reps,
                                            const Store& store, Reset&& reset, index_t budget = 0,
                                            const SharedSegment* source = nullptr, const Node* node = nullptr,
                                            bool node_candidate = false, bool local_first = false) {
  ws.exchange.wire = Wire::point_to_point;
  ws.exchange.nonblocking = false;
  if (reps <= 0 || comm.size() < 2) return {};
  const MPI_Comm c = static_cast<MPI_Comm>(comm);
  // 0: the allreduce, 1: the reduce-scatter this rank's part would be, 2: neither; the least.
  // Neither on a rank whose source and destination share memory (a fold in place: each timed run
  // would fold the contributions again onto its result), so no rank times.
  std::uint64_t mine = 2;
  const bool shared_bytes = overlap(src, std::span<const T>(dst)).shares;
  if (!shared_bytes && detail::mpi_reduction<T, Store>::op() != MPI_OP_NULL && plan.direct() && plan.stages.size() == 1) {
    const auto& st = plan.stages.front();
    const Wire w = detail::reduces(st);
    index_t longest = st.local.size;
    for (const Message& m : st.sends) longest = std::max(longest, m.size);
    const bool one_round = plan.piece == 0 || longest <= plan.piece;
    const bool fits = budget <= 0 || w == Wire::point_to_point || detail::reduce_scratch(st, w) <= budget;
    if (w != Wire::point_to_point && one_round && fits) mine = w == Wire::allreduce ? 0 : 1;
  }
  std::uint64_t both[2] = {mine, ~mine}, all[2] = {};
  detail::check(MPI_Allreduce(both, all, 2, MPI_UINT64_T, MPI_MIN, c), "MPI_Allreduce");
  // Every rank alike: the same kind on every rank (least == most), or no reduction.
  if (all[0] != ~all[1] || all[0] > 1) return {};
  const Wire wire = all[0] == 0 ? Wire::allreduce : Wire::reduce_scatter;
  if (!detail::make_reduce_group(plan, c, ws.exchange.wire_resources, wire)) return {};
  // With a node: its copies from shared memory too (the node path is not always the faster one
  // for a fold: the messages' unpack reads the pieces while they are in cache).
  // The reduction blocking, and nonblocking with its wait at once (which MPI completes faster
  // depends on the library, the machine and the size: Open MPI 4.1's libnbc schedule beat its
  // tuned blocking all-reduce on one node of 4 ranks, 2 cores).
  std::vector<TransportTiming> cands{{Wire::point_to_point, false, 0}, {wire, false, 0}, {wire, false, 0, false, true}};
  if (node_candidate) cands.push_back({Wire::point_to_point, false, 0, true});
  ws.exchange.collective_rounds = 1;
  const std::size_t which[] = {0, 1, 2, 3};
  std::vector<std::vector<double>> samples(cands.size());
  time_rounds(
      std::span<const std::size_t>(which, cands.size()), comm, reps, tune_min_seconds, samples,
      [&](std::size_t i) {
        ws.exchange.wire = cands[i].wire;
        ws.exchange.nonblocking = cands[i].nonblocking;
        const bool shared = cands[i].node;  // node peers' pieces copied from shared memory (where the node agrees)
        ws.local_assigns = local_first;
        execute(plan, comm, src, dst, ws, max_chunk_bytes, store, shared ? source : nullptr, shared ? node : nullptr);
        ws.local_assigns = false;
      },
      [&](std::size_t) {
        if (!local_first) reset();
      });
  for (std::size_t i = 0; i < cands.size(); ++i) cands[i].median = median_of(samples[i]);
  ws.exchange.wire = Wire::point_to_point;
  ws.exchange.nonblocking = false;
  return cands;
}

}  // namespace redist::runtime
