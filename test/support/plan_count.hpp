/// @file Defines first_run_plans: how many plans the first b = a of a Cyclic pair under
/// schedule::automatic builds at this process count, for the tests that count plans.
#pragma once

#include <cstddef>

#include <redist/redist.hpp>

namespace redist::test {

/// Plans the first b = a builds: its plan and, where some node's ranks copy from shared memory
/// (default options, arrays in node windows) and that plan forwards (the model's circulant choice
/// at some process counts, e.g. 7 and 8 ranks), the pair's plan of direct messages, which the
/// decision puts in its place on that run (Decider::on_run). Builds a plan itself: call it before
/// counting.
template <class A, class B>
std::size_t first_run_plans(const A& a, const B& b) {
  const bool direct = make_plan(a, b).plan().direct();
  const options& o = default_options();
  if (direct || !o.shared_memory || a.comm().size() < 2) return 1;
  return runtime::node_of(static_cast<MPI_Comm>(a.comm()), o.node_size)->crowded ? 2 : 1;
}

}  // namespace redist::test
