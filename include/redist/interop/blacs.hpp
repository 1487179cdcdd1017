/// @file Defines blacs_grid(ctxt, comm), which reads a BlacsGrid from a BLACS context, and the PDGEMR2D-shaped gemr2d on `int desc[9]` (opt-in: link BLACS/ScaLAPACK).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include <mpi.h>

#include <boost/mpi/communicator.hpp>

#include <redist/array/communicator.hpp>
#include <redist/interop/scalapack.hpp>

// The BLACS routine this header calls (Debian's libscalapack-openmpi: 32-bit integers).
// A program that includes this header and calls blacs_grid or this gemr2d must link BLACS.
extern "C" {
void Cblacs_gridinfo(int icontxt, int* nprow, int* npcol, int* myrow, int* mycol);
}

namespace redist::scalapack {

namespace detail {
/// The grids of the BLACS contexts ctxts[k] (one per matrix; -1 on ranks outside), read with
/// Cblacs_gridinfo and one all-gather over comm, so that every rank learns every grid. Cblacs_pnum
/// cannot serve: for a context made by Cblacs_gridmap it numbers processes within the context.
/// Returns the grids, or the same error on every rank.
template <std::size_t K>
std::array<BlacsGrid, K> blacs_grids(const std::array<int, K>& ctxts, const boost::mpi::communicator& comm,
                                     const char* call, const std::array<const char*, K>& names) {
  std::array<int, 4 * K> mine{};
  for (std::size_t k = 0; k < K; ++k) {
    int nprow = -1, npcol = -1, myrow = -1, mycol = -1;
    if (ctxts[k] != -1) Cblacs_gridinfo(ctxts[k], &nprow, &npcol, &myrow, &mycol);
    if (myrow < 0 || mycol < 0) nprow = npcol = myrow = mycol = -1;  // not in the context after all
    mine[4 * k] = nprow, mine[4 * k + 1] = npcol, mine[4 * k + 2] = myrow, mine[4 * k + 3] = mycol;
  }
  const int p = comm.size();
  std::vector<int> all(static_cast<std::size_t>(4 * K) * static_cast<std::size_t>(p));
  MPI_Allgather(mine.data(), static_cast<int>(mine.size()), MPI_INT, all.data(), static_cast<int>(mine.size()),
                MPI_INT, static_cast<MPI_Comm>(comm));
  std::array<BlacsGrid, K> grids{};
  for (std::size_t k = 0; k < K; ++k) {
    auto at = [&](int r, int f) { return all[static_cast<std::size_t>(r) * 4 * K + 4 * k + static_cast<std::size_t>(f)]; };
    auto fail = [&](const std::string& what) {
      report_error(std::string(call) + " requires " + names[k] + "'s BLACS context " + what);
    };
    int first = -1, members = 0;
    for (int r = 0; r < p; ++r)
      if (at(r, 0) > 0) {
        if (first < 0) first = r;
        ++members;
        if (at(r, 0) != at(first, 0) || at(r, 1) != at(first, 1))
          fail("to have the same shape on every process");
      }
    if (first < 0) {
      grids[k] = BlacsGrid{0, 0, Order::row_major, 0};  // nobody is in it
      continue;
    }
    const int nprow = at(first, 0), npcol = at(first, 1);
    if (members != nprow * npcol)
      fail("to cover " + std::to_string(nprow * npcol) + " processes of comm (it covers " + std::to_string(members) +
           ")");
    // The rank of each grid position, row-major; BlacsGrid::with_ranks recognises consecutive
    // ranks in row- or column-major order (BLACS "Row" / "Col") and keeps any other map.
    std::vector<int> ranks(static_cast<std::size_t>(nprow * npcol), -1);
    for (int r = 0; r < p; ++r)
      if (at(r, 0) > 0) {
        if (at(r, 2) >= nprow || at(r, 3) >= npcol)
          fail("to place its processes inside its grid (rank " + std::to_string(r) + " is process (" +
               std::to_string(at(r, 2)) + ", " + std::to_string(at(r, 3)) + "))");
        int& slot = ranks[static_cast<std::size_t>(at(r, 2) * npcol + at(r, 3))];
        if (slot >= 0)
          fail("to place one process at each grid position (ranks " + std::to_string(slot) + " and " +
               std::to_string(r) + " are both (" + std::to_string(at(r, 2)) + ", " + std::to_string(at(r, 3)) + "))");
        slot = r;
      }
    const BlacsGrid g = BlacsGrid{nprow, npcol}.with_ranks(ranks);
    grids[k] = g;
  }
  return grids;
}
}  // namespace detail

/// The grid of the BLACS context ctxt as a BlacsGrid on the ranks of comm. Collective over
/// comm: every rank calls it, those outside the context with ctxt = -1, and every rank gets the
/// grid (Cblacs_gridinfo on each process and one all-gather). Throws redist::error on every
/// rank when no rank is in the context. A grid whose processes are ranks first, first + 1, ...
/// of comm numbered row- or column-major is reported as such (a grid of one row or one column
/// row_major: both orders number it alike); any other (a general Cblacs_gridmap) with its rank
/// map (BlacsGrid::with_ranks).
inline BlacsGrid blacs_grid(int ctxt, Communicator comm_arg) {
  const boost::mpi::communicator& comm = comm_arg.get();
  const char* call = "redist::scalapack::blacs_grid(ctxt, comm)";
  const BlacsGrid g = detail::blacs_grids<1>({ctxt}, comm, call, {"ctxt"})[0];
  if (g.size() == 0) detail::report_error(std::string(call) + " requires some rank of comm to be in the context ctxt");
  return g;
}

/// PDGEMR2D's signature on ScaLAPACK descriptors, `int desc[9]`: as gemr2d(m, n, a, ia, ja, desca,
/// grida, b, ib, jb, descb, gridb, comm) with each grid read from its BLACS context by
/// blacs_grid. A process outside a context passes desc[1] = -1. comm is the communicator of
/// PDGEMR2D's ictxt (every process of both contexts, usually MPI_COMM_WORLD). Collective; errors
/// (a bad descriptor, a context redist cannot express) throw redist::error on every rank.
template <class T>
void gemr2d(int m, int n, const T* a, int ia, int ja, const int* desca, T* b, int ib, int jb, const int* descb,
            Communicator comm_arg) {
  const boost::mpi::communicator& comm = comm_arg.get();
  const char* call = "redist::scalapack::gemr2d(m, n, a, ia, ja, desca, b, ib, jb, descb, comm)";
  std::optional<std::string> error;
  Descriptor da, db;
  try {
    da = Descriptor(desca);
    db = Descriptor(descb);
  } catch (const redist::error& e) {
    error = e.what();
  }
  // Every rank reads both grids (one all-gather), even when its descriptors failed, so that all
  // ranks make the same collective calls; an error here is the same on every rank, and a
  // descriptor's own error takes precedence.
  BlacsGrid ga, gb;
  try {
    const int ca = desca == nullptr ? -1 : desca[1], cb = descb == nullptr ? -1 : descb[1];
    const auto grids = detail::blacs_grids<2>({ca, cb}, comm, call, {"desca", "descb"});
    ga = grids[0], gb = grids[1];
  } catch (const redist::error& e) {
    if (!error) error = e.what();
  }
  detail::gemr2d_impl<T>(m, n, a, ia, ja, da, ga, b, ib, jb, db, gb, comm, std::move(error));
}

}  // namespace redist::scalapack

namespace redist {
using scalapack::gemr2d;
}  // namespace redist
