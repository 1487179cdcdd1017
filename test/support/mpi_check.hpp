/// @file Defines all_ok: a check that every rank agrees on, so that no rank stops while others wait.
#pragma once

#include <functional>
#include <string>

#include <boost/mpi/collectives/all_reduce.hpp>
#include <boost/mpi/communicator.hpp>

#include <redist/config.hpp>

namespace redist::test {

/// The logical and of ok over all ranks of comm (Elemental's DistMatrix tests agree this way).
inline bool all_ok(const boost::mpi::communicator& comm, bool ok) {
  return boost::mpi::all_reduce(comm, ok, std::logical_and<bool>());
}

/// Runs f on this rank and reports whether it threw redist::error with `what` in its message.
template <class F>
bool throws_with(F&& f, const std::string& what) {
  try {
    f();
  } catch (const redist::error& e) {
    return std::string(e.what()).find(what) != std::string::npos;
  }
  return false;
}

}  // namespace redist::test
