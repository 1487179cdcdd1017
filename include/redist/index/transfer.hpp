/// @file Defines Transfer, one message of a redistribution: the type the index builders, the schedulers and the planners share.
#pragma once

#include <redist/config.hpp>

namespace redist::index {

/// One message of a redistribution: `size` elements from rank (or part) `sender` to rank (or
/// part) `receiver` of one communicator. sender == receiver is a local message, a copy that
/// needs no MPI. Whether it takes a step is the scheduler's model: the general schedulers leave
/// it out of every step, seed 002's GEN_BLOCK schedules let it occupy its node during its step.
/// redist::schedule::Transfer names the same type.
struct Transfer {
  int sender = 0;
  int receiver = 0;
  index_t size = 0;

  constexpr bool local() const noexcept { return sender == receiver; }
  friend constexpr bool operator==(const Transfer&, const Transfer&) = default;
};

}  // namespace redist::index
