/// @file Defines all_ok: a check that every rank agrees on, so that no rank stops while others wait.
#pragma once

#include <functional>

#include <boost/mpi/collectives/all_reduce.hpp>
#include <boost/mpi/communicator.hpp>

namespace redist::test {

/// The logical and of ok over all ranks of comm (Elemental's DistMatrix tests agree this way).
inline bool all_ok(const boost::mpi::communicator& comm, bool ok) {
  return boost::mpi::all_reduce(comm, ok, std::logical_and<bool>());
}

}  // namespace redist::test
