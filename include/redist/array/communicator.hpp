/// @file Defines Communicator, what every collective call of redist takes: a boost::mpi::communicator or a raw MPI_Comm.
#pragma once

#include <mpi.h>

#include <boost/mpi/communicator.hpp>

namespace redist {

/// A communicator argument: converts implicitly from a boost::mpi::communicator and from the
/// caller's own MPI_Comm (attached, not duplicated: redist never frees it, and its messages use
/// runtime::message_tag on it). Boost.MPI stays inside redist; callers need not wrap their comm.
class Communicator {
 public:
  Communicator(const boost::mpi::communicator& c) : comm_{c} {}        // implicit on purpose
  Communicator(MPI_Comm c) : comm_{c, boost::mpi::comm_attach} {}      // implicit on purpose

  const boost::mpi::communicator& get() const noexcept { return comm_; }

 private:
  boost::mpi::communicator comm_;
};

}  // namespace redist
