/// @file Defines execute_on_node: a plan run with the pairs of ranks on one node served from shared memory (each element read once from its owner's source array and written once into the destination) and the other pairs by messages.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <span>
#include <type_traits>

#include <boost/mpi/communicator.hpp>

#include <redist/index/run.hpp>
#include <redist/plan/automatic.hpp>
#include <redist/plan/basic_cycle.hpp>
#include <redist/plan/circulant.hpp>
#include <redist/plan/plan.hpp>
#include <redist/runtime/exchange.hpp>
#include <redist/runtime/exchange_circulant.hpp>
#include <redist/runtime/exchange_cycles.hpp>
#include <redist/runtime/exchange_multiphase.hpp>
#include <redist/runtime/node.hpp>
#include <redist/runtime/tune.hpp>

namespace redist::runtime {

namespace detail {
template <class P>
struct is_basic_plan : std::false_type {};
template <class R>
struct is_basic_plan<BasicPlan<R>> : std::true_type {};
}  // namespace detail

/// The direct messages, with their runs, that a plan of another kind moves (the one-pass
/// basic-cycle exchange: its general plan; a circulant plan under automatic or modeled: its
/// complete BCC plan), or nullptr: a circulant plan of a forced policy (direct, indirect,
/// hybrid), whose messages are the schedule asked for, and a multiphase plan, which moves data
/// through its intermediate array.
inline const Plan* direct_messages(const CyclePlan& plan) noexcept { return &plan.general; }
inline const Plan* direct_messages(const CirculantPlan& plan) noexcept {
  return plan.kind == CirculantPlan::method::bcc || plan.fallback ? &plan.bcc.general : nullptr;
}
template <class From, class To>
const Plan* direct_messages(const TimedCyclicPlan<From, To>& plan) noexcept {
  return direct_messages(plan.plan);
}
template <class P>
const Plan* direct_messages(const P&) noexcept {
  return nullptr;
}

/// True when plan can run with shared memory on node: a plan of direct messages (BasicPlan) on
/// any node, with the other nodes served by its messages; a plan that forwards or reorders
/// messages only when the node holds every rank, where its direct messages all become copies.
template <class P>
bool runs_on_node(const P& plan, const Node& node) noexcept {
  if constexpr (detail::is_basic_plan<P>::value) return true;
  else return node.whole() && direct_messages(plan) != nullptr;
}

/// Runs plan on this rank, src -> dst, collective over comm. When every rank of this rank's
/// node has its source array in the same shared window (`source`: this rank's part, from
/// SharedSegment), declared with the same leading dimension `source_ld` (the plan computes a
/// peer's source offsets with this rank's value, and ScaLAPACK lets LLD differ per process) and
/// the plan can (runs_on_node), the node's ranks agree on it and each copies
/// what it receives from a node peer straight out of that peer's source array; messages cross
/// between nodes only. The synchronization MPI-3's memory model asks for: MPI_Win_sync after the
/// owners' stores, an all-reduce on the node (the agreement, which also orders the stores before
/// the loads), MPI_Win_sync, the copies, and a barrier on the node, so that no owner writes its
/// source again while a peer still reads it. Otherwise (no window, a rank alone on its node, a
/// node where some rank's source is private) the plan runs by messages as runtime::execute.
/// Returns true when shared memory was used.
template <class P, class T>
bool execute_on_node(const P& plan, const boost::mpi::communicator& comm, const Node& node,
                     const SharedSegment* source, index_t source_ld, std::span<const T> src, std::span<T> dst,
                     Workspace& ws, std::size_t chunk_bytes = max_chunk_bytes) {
  if (node.size <= 1) {
    execute(plan, comm, src, dst, ws, chunk_bytes);
    return false;
  }
  const bool able = runs_on_node(plan, node) && source != nullptr && &source->node() == &node &&
                    (src.empty() || static_cast<const void*>(source->data()) == static_cast<const void*>(src.data()));
  if (able) source->sync();  // this rank's stores to src, before the agreement
  const long long mine[3] = {able ? 0 : 1, source_ld, -source_ld};
  long long all[3] = {};
  detail::check(MPI_Allreduce(mine, all, 3, MPI_LONG_LONG, MPI_MAX, node.comm), "MPI_Allreduce");
  if (all[0] != 0 || all[1] != -all[2]) {
    execute(plan, comm, src, dst, ws, chunk_bytes);
    return false;
  }
  source->sync();  // the peers' stores, before this rank's loads
  if constexpr (detail::is_basic_plan<P>::value) execute(plan, comm, src, dst, ws, chunk_bytes, source);
  else execute(*direct_messages(plan), comm, src, dst, ws, chunk_bytes, source);
  detail::check(MPI_Barrier(node.comm), "MPI_Barrier");
  return true;
}

}  // namespace redist::runtime
