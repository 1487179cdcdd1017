/// @file Defines execute(MultiphasePlan, comm, src, dst, workspace): the multi-phase method's phases over MPI, through the intermediate array.
#pragma once

#include <cstddef>
#include <span>
#include <type_traits>

#include <boost/mpi/communicator.hpp>

#include <redist/plan/multiphase.hpp>
#include <redist/runtime/exchange.hpp>

namespace redist::runtime {

/// Runs the phases of a MultiphasePlan (collective): src -> dst directly, or
/// src -> CYCLIC(u) (the workspace's intermediate array) -> dst.
template <class T>
void execute(const MultiphasePlan& plan, const boost::mpi::communicator& comm, std::span<const T> src, std::span<T> dst,
             Workspace& ws, std::size_t chunk_bytes = max_chunk_bytes) {
  static_assert(std::is_trivially_copyable_v<T>, "redist::runtime::execute requires a trivially copyable T");
  if (plan.stages() == 1) {
    execute(plan.first, comm, src, dst, ws, chunk_bytes);
    return;
  }
  const auto n = static_cast<std::size_t>(plan.intermediate);
  T* mid = reinterpret_cast<T*>(ws.intermediate.reserve(n * sizeof(T)));
  // Phase 1: CYCLIC(s) -> CYCLIC(u), into the intermediate array.
  execute(plan.first, comm, src, std::span<T>(mid, n), ws, chunk_bytes);
  // Phase 2: CYCLIC(u) -> CYCLIC(t).
  execute(plan.second, comm, std::span<const T>(mid, n), dst, ws, chunk_bytes);
}

}  // namespace redist::runtime
