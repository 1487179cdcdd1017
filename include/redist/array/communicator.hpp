/// @file Defines Communicator, what every collective call of redist takes: a boost::mpi::communicator or a raw MPI_Comm; and balanced_grid, a grid over every process of one.
#pragma once

#include <mpi.h>

#include <array>
#include <cstddef>
#include <tuple>

#include <boost/mpi/communicator.hpp>

#include <redist/dist/grid.hpp>

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

/// The grid of rank N over every process of comm, its extents as close to each other as they can
/// be and in non-increasing order (MPI_Dims_create's balanced factorization): 12 processes give
/// 4 x 3 in 2-D, 8 give 2 x 2 x 2 in 3-D, a prime P gives P x 1. The rank of a grid is part of its
/// type, so it is the template argument. Not collective: every rank computes the same grid.
template <std::size_t N>
DynamicGrid<N> balanced_grid(Communicator comm) {
  static_assert(N >= 1, "redist::balanced_grid<N>(comm) requires N >= 1");
  std::array<int, N> dims{};  // 0: free to choose
  MPI_Dims_create(comm.get().size(), static_cast<int>(N), dims.data());
  return std::apply([](auto... e) { return DynamicGrid<N>(e...); }, dims);
}

}  // namespace redist
