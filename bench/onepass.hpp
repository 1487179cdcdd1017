/// @file Defines OnePassAlltoallv, the MPI_Alltoallv baseline written the way a user writes it: runs from the arrays' own index queries, one pass to pack, one collective, one pass to unpack.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <boost/mpi/datatype.hpp>

#include <redist/config.hpp>

#include "alltoall.hpp"
#include "baselines.hpp"
#include "harness.hpp"

namespace redist::bench {

/// The one-collective baseline without redist's plans (issue "Speed at the memory system's limit"):
/// what a user with their own owner formulas writes. Nothing here comes from redist's plan or pack
/// code; setup only asks the arrays where their elements live (for_each_element, owner, local_index).
///
///   dst = src   as   pack (src storage order) ; MPI_Alltoallv ; unpack (dst storage order)
///
/// Setup scans the source's local elements in storage order and merges consecutive ones (consecutive
/// local offsets, same destination rank) into send runs {src offset, length, send-buffer offset}; the
/// send buffer is grouped by destination rank. It scans the destination's local elements the same
/// way into receive runs {dst offset, length, receive-buffer offset}, grouped by source rank.
///
/// Sender and receiver agree on the order of the elements of one (sender, receiver) pair because
/// each lists them in its own scan order, and both scans list them in the same order of global
/// index: for_each_element walks the local multi-index with dimension 0 fastest on both arrays
/// (which is storage order for the column-major local storage of every case), and every local
/// storage of these layouts (Block, Cyclic<X>, GenBlock per dimension) is increasing in the global
/// index per dimension. A layout that breaks this is caught at setup, which sends the global indices
/// in pack order once and has the receiver compare them with its own scan; setup throws
/// std::runtime_error when they differ.
///
/// The elements that stay on this rank are copied straight from src to dst by runs of their own
/// (consecutive on both sides), as a careful user does: sending them to itself through the
/// buffers would cost a pack, a copy inside MPI and an unpack instead of one copy.
template <class T>
class OnePassAlltoallv {
 public:
  /// A run of len consecutive elements: from `from` in one storage to `to` in another.
  struct Run {
    index_t from;
    index_t len;
    index_t to;
  };

  /// Collective over src's communicator. A: source array, B: destination array (1-D or N-D, same extents).
  template <class A, class B>
  OnePassAlltoallv(const A& src, const B& dst) {
    const MPI_Comm comm = static_cast<MPI_Comm>(src.comm());
    const int nprocs = src.comm().size();
    me_ = src.comm().rank();
    const auto P = static_cast<std::size_t>(nprocs);
    const auto mine = static_cast<std::size_t>(me_);

    // Counts per peer, in elements, from both scans.
    std::vector<index_t> scount(P, 0), rcount(P, 0);
    for_each_element(src, [&](const auto& g, index_t) { ++scount[static_cast<std::size_t>(dst.owner(g))]; });
    for_each_element(dst, [&](const auto& g, index_t) { ++rcount[static_cast<std::size_t>(src.owner(g))]; });
    scount[mine] = rcount[mine] = 0;  // copied directly, not sent

    // The senders' counts against this rank's scan; every rank agrees before any Alltoallv.
    std::vector<index_t> told(P, 0);
    MPI_Alltoall(scount.data(), 1, index_type(), told.data(), 1, index_type(), comm);
    int agree = told == rcount ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &agree, 1, MPI_INT, MPI_LAND, comm);
    if (!agree)
      throw std::runtime_error("redist::bench::OnePassAlltoallv: the counts a rank receives differ from its own scan");

    scount_.assign(P, 0);
    rcount_.assign(P, 0);
    sdispl_.assign(P, 0);
    rdispl_.assign(P, 0);
    std::vector<index_t> sfill(P, 0), rfill(P, 0);  // element displacements
    index_t sn = 0, rn = 0;
    for (std::size_t p = 0; p < P; ++p) {
      scount_[p] = detail::checked_int(scount[p] * index_t{sizeof(T)}, "bytes to one peer");
      rcount_[p] = detail::checked_int(rcount[p] * index_t{sizeof(T)}, "bytes from one peer");
      sdispl_[p] = detail::checked_int(sn * index_t{sizeof(T)}, "send displacement");
      rdispl_[p] = detail::checked_int(rn * index_t{sizeof(T)}, "receive displacement");
      sfill[p] = sn;
      rfill[p] = rn;
      sn += scount[p];
      rn += rcount[p];
    }
    ssize_ = static_cast<std::size_t>(sn);
    rsize_ = static_cast<std::size_t>(rn);
    bytes_sent_ = sn * index_t{sizeof(T)};
    for (std::size_t p = 0; p < P; ++p) messages_ += scount[p] > 0 ? 1 : 0;

    // Send runs (and local runs), in source storage order; the global ids in pack order for the check.
    std::vector<index_t> sids(ssize_);
    int last = -1;
    for_each_element(src, [&](const auto& g, index_t off) {
      const int q = dst.owner(g);
      if (q == me_) {
        const index_t to = dst.local_index(g);
        if (last == me_ && !local_.empty() && local_.back().from + local_.back().len == off &&
            local_.back().to + local_.back().len == to)
          ++local_.back().len;
        else
          local_.push_back({off, 1, to});
      } else {
        index_t& pos = sfill[static_cast<std::size_t>(q)];
        sids[static_cast<std::size_t>(pos)] = linear_id(g, src.extents());
        if (last == q && sends_.back().from + sends_.back().len == off && sends_.back().to + sends_.back().len == pos)
          ++sends_.back().len;
        else
          sends_.push_back({off, 1, pos});
        ++pos;
      }
      last = q;
    });

    // Receive runs, in destination storage order; the global ids this rank expects there.
    std::vector<index_t> expected(rsize_);
    last = -1;
    for_each_element(dst, [&](const auto& g, index_t off) {
      const int p = src.owner(g);
      if (p != me_) {
        index_t& pos = rfill[static_cast<std::size_t>(p)];
        expected[static_cast<std::size_t>(pos)] = linear_id(g, dst.extents());
        if (last == p && recvs_.back().to + recvs_.back().len == off && recvs_.back().from + recvs_.back().len == pos)
          ++recvs_.back().len;
        else
          recvs_.push_back({pos, 1, off});
        ++pos;
      }
      last = p;
    });

    // Check: one Alltoallv of the global ids in pack order, compared with this rank's scan.
    std::vector<int> ic(P), id(P), jc(P), jd(P);
    for (std::size_t p = 0; p < P; ++p) {
      ic[p] = detail::checked_int(scount[p], "elements to one peer");
      id[p] = detail::checked_int(sdispl_[p] / index_t{sizeof(T)}, "send displacement");
      jc[p] = detail::checked_int(rcount[p], "elements from one peer");
      jd[p] = detail::checked_int(rdispl_[p] / index_t{sizeof(T)}, "receive displacement");
    }
    std::vector<index_t> rids(rsize_);
    MPI_Alltoallv(sids.data(), ic.data(), id.data(), index_type(), rids.data(), jc.data(), jd.data(), index_type(),
                  comm);
    if (rids != expected)
      throw std::runtime_error(
          "redist::bench::OnePassAlltoallv: sender and receiver list a pair's elements in different orders "
          "(a local storage is not increasing in the global index per dimension)");

    // Left uninitialized, as the other baselines' buffers: the first call touches the pages.
    sbuf_.reset(new T[ssize_]);
    rbuf_.reset(new T[rsize_]);
  }

  /// src -> dst (collective over comm).
  void run(MPI_Comm comm, std::span<const T> src, std::span<T> dst) {
    const T* in = src.data();
    T* out = dst.data();
    T* sbuf = sbuf_.get();
    const T* rbuf = rbuf_.get();
    // Pack
    for (const Run& r : sends_) copy(in + r.from, sbuf + r.to, r.len);
    // Copy: the elements that stay here, src -> dst.
    for (const Run& r : local_) copy(in + r.from, out + r.to, r.len);
    // Exchange
    MPI_Alltoallv(sbuf_.get(), scount_.data(), sdispl_.data(), MPI_BYTE, rbuf_.get(), rcount_.data(), rdispl_.data(),
                  MPI_BYTE, comm);
    // Unpack
    for (const Run& r : recvs_) copy(rbuf + r.from, out + r.to, r.len);
  }

  /// Bytes this rank sends to other ranks, and to how many of them.
  std::int64_t bytes_sent() const noexcept { return bytes_sent_; }
  std::int64_t messages() const noexcept { return messages_; }
  /// The send and receive buffers, in bytes (the run lists not counted, as for AlltoallvExchange).
  std::size_t scratch_bytes() const noexcept { return (ssize_ + rsize_) * sizeof(T); }

 private:
  static MPI_Datatype index_type() { return boost::mpi::get_mpi_datatype<index_t>(index_t{}); }

  /// The global index as one number: itself in 1-D, the column-major linear id of a multi-index.
  template <class G, class E>
  static index_t linear_id(const G& g, const E& extents) {
    if constexpr (std::is_integral_v<G>) return g;
    else return global_id(g, extents);
  }

  /// One run: element by element when short (no call for the 1-element runs of cyclic layouts), memcpy otherwise.
  static void copy(const T* from, T* to, index_t len) {
    if (len <= 2) {
      for (index_t k = 0; k < len; ++k) to[k] = from[k];
    } else {
      std::memcpy(to, from, static_cast<std::size_t>(len) * sizeof(T));
    }
  }

  int me_ = 0;
  std::vector<Run> sends_, local_, recvs_;
  std::vector<int> scount_, sdispl_, rcount_, rdispl_;
  std::size_t ssize_ = 0, rsize_ = 0;
  std::int64_t bytes_sent_ = 0, messages_ = 0;
  std::unique_ptr<T[]> sbuf_, rbuf_;
};

}  // namespace redist::bench
