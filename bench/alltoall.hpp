/// @file Defines the MPI_Alltoallv and MPI_Alltoallw baselines: one collective call per redistribution, driven by a redist plan's runs.
#pragma once

#include <mpi.h>

#include <climits>
#include <cstddef>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <boost/mpi/datatype.hpp>

#include <redist/plan/plan.hpp>
#include <redist/runtime/pack.hpp>

namespace redist::bench {

namespace detail {
/// v as an int, or std::length_error naming what when it does not fit (MPI counts are int).
inline int checked_int(index_t v, const char* what) {
  if (v < 0 || v > INT_MAX)
    throw std::length_error(std::string("redist::bench: ") + what + " (" + std::to_string(v) +
                            ") does not fit an MPI int count");
  return static_cast<int>(v);
}
}  // namespace detail

/// The one-collective reference (issue 7's lower bound). The plan's runs per peer are computed once; a
/// call is one pass of packing into one buffer, one MPI_Alltoallv of bytes, one pass of
/// unpacking, and the local runs copied straight from src to dst.
template <class T, class PlanT = Plan>
class AlltoallvExchange {
 public:
  explicit AlltoallvExchange(PlanT plan) : plan_{std::move(plan)} {
    const auto nprocs = static_cast<std::size_t>(plan_.nprocs);
    scount_.assign(nprocs, 0);
    rcount_.assign(nprocs, 0);
    sdispl_.assign(nprocs, 0);
    rdispl_.assign(nprocs, 0);
    for (const Message& m : plan_.only().sends) scount_[m.peer] = detail::checked_int(m.size * index_t{sizeof(T)}, "bytes to one peer");
    for (const Message& m : plan_.only().recvs) rcount_[m.peer] = detail::checked_int(m.size * index_t{sizeof(T)}, "bytes from one peer");
    index_t sbytes = 0, rbytes = 0;
    for (std::size_t p = 0; p < nprocs; ++p) {
      sdispl_[p] = detail::checked_int(sbytes, "send displacement");
      rdispl_[p] = detail::checked_int(rbytes, "receive displacement");
      sbytes += scount_[p];
      rbytes += rcount_[p];
    }
    // Left uninitialized, as redist's scratch: the first call touches the pages, not setup.
    ssize_ = static_cast<std::size_t>(sbytes) / sizeof(T);
    rsize_ = static_cast<std::size_t>(rbytes) / sizeof(T);
    sbuf_.reset(new T[ssize_]);
    rbuf_.reset(new T[rsize_]);
  }

  const PlanT& plan() const noexcept { return plan_; }
  /// The send and receive buffers, in bytes.
  std::size_t scratch_bytes() const noexcept { return (ssize_ + rsize_) * sizeof(T); }

  /// src -> dst (collective over comm).
  void run(MPI_Comm comm, std::span<const T> src, std::span<T> dst) {
    const auto& st = plan_.only();
    // Pack
    for (std::size_t i = 0; i < st.sends.size(); ++i)
      runtime::pack_message(st, i, src.data(), sbuf_.get() + sdispl_[st.sends[i].peer] / index_t{sizeof(T)});
    // Copy: the local runs, src -> dst.
    runtime::copy(st.runs_of(st.local), src.data(), dst.data());
    // Exchange
    MPI_Alltoallv(sbuf_.get(), scount_.data(), sdispl_.data(), MPI_BYTE, rbuf_.get(), rcount_.data(),
                  rdispl_.data(), MPI_BYTE, comm);
    // Unpack
    for (std::size_t i = 0; i < st.recvs.size(); ++i)
      runtime::unpack_message(st, i, rbuf_.get() + rdispl_[st.recvs[i].peer] / index_t{sizeof(T)}, dst.data());
  }

 private:
  PlanT plan_;
  std::vector<int> scount_, sdispl_, rcount_, rdispl_;
  std::size_t ssize_ = 0, rsize_ = 0;
  std::unique_ptr<T[]> sbuf_, rbuf_;
};

/// MPI derived datatypes in place of packing: per peer, one struct of hvectors (one hvector per
/// run: count pieces of len elements, stride apart; nested hvectors per loop of an N-D section)
/// on each side, built once; a call is one MPI_Alltoallw straight from the source array into the
/// destination array, the local runs included (MPI copies them).
template <class T>
class AlltoallwExchange {
 public:
  template <class R>
  explicit AlltoallwExchange(const BasicPlan<R>& whole) {
    const auto nprocs = static_cast<std::size_t>(whole.nprocs);
    const Stage<R>& plan = whole.only();
    count_.assign(nprocs, 0);
    displ_.assign(nprocs, 0);
    stype_.assign(nprocs, MPI_BYTE);
    rcount_.assign(nprocs, 0);
    rtype_.assign(nprocs, MPI_BYTE);
    for (const Message& m : plan.sends) set(count_, stype_, m.peer, plan.runs_of(m), side::src);
    for (const Message& m : plan.recvs) set(rcount_, rtype_, m.peer, plan.runs_of(m), side::dst);
    if (plan.local.size > 0) {
      set(count_, stype_, whole.rank, plan.runs_of(plan.local), side::src);
      set(rcount_, rtype_, whole.rank, plan.runs_of(plan.local), side::dst);
    }
  }
  AlltoallwExchange(const AlltoallwExchange&) = delete;
  AlltoallwExchange& operator=(const AlltoallwExchange&) = delete;
  ~AlltoallwExchange() {
    for (auto* types : {&stype_, &rtype_})
      for (MPI_Datatype& t : *types)
        if (t != MPI_BYTE) MPI_Type_free(&t);
  }

  /// src -> dst (collective over comm).
  void run(MPI_Comm comm, std::span<const T> src, std::span<T> dst) {
    // Exchange: MPI packs and unpacks through the datatypes.
    MPI_Alltoallw(src.data(), count_.data(), displ_.data(), stype_.data(), dst.data(), rcount_.data(),
                  displ_.data(), rtype_.data(), comm);
  }

 private:
  enum class side { src, dst };

  /// The datatype of one run's pieces on one side.
  static MPI_Datatype type_of(const Run& r, side where, MPI_Aint& offset) {
    const MPI_Datatype element = boost::mpi::get_mpi_datatype<T>(T{});
    const index_t start = where == side::src ? r.src : r.dst;
    const index_t stride = where == side::src ? r.src_stride : r.dst_stride;
    MPI_Datatype v = MPI_DATATYPE_NULL;
    MPI_Type_create_hvector(detail::checked_int(r.count, "pieces of one run"), detail::checked_int(r.len, "run length"),
                            static_cast<MPI_Aint>(stride * index_t{sizeof(T)}), element, &v);
    offset = static_cast<MPI_Aint>(start * index_t{sizeof(T)});
    return v;
  }
  /// The datatype of one section's elements on one side: one hvector per loop, innermost first.
  static MPI_Datatype type_of(const Section& s, side where, MPI_Aint& offset) {
    MPI_Datatype t = boost::mpi::get_mpi_datatype<T>(T{});
    bool owned = false;
    for (std::size_t k = 0; k < s.depth; ++k) {
      const Loop& l = s.loops[k];
      MPI_Datatype v = MPI_DATATYPE_NULL;
      MPI_Type_create_hvector(detail::checked_int(l.count, "iterations of one loop"), 1,
                              static_cast<MPI_Aint>((where == side::src ? l.src_stride : l.dst_stride) * index_t{sizeof(T)}),
                              t, &v);
      if (owned) MPI_Type_free(&t);
      t = v;
      owned = true;
    }
    if (!owned) MPI_Type_contiguous(1, t, &t);
    offset = static_cast<MPI_Aint>((where == side::src ? s.src : s.dst) * index_t{sizeof(T)});
    return t;
  }

  /// counts[peer] = 1 and types[peer] = the runs' pieces on one side, as one committed datatype.
  template <class R>
  static void set(std::vector<int>& counts, std::vector<MPI_Datatype>& types, int peer, std::span<const R> runs,
                  side where) {
    std::vector<MPI_Datatype> pieces;
    std::vector<MPI_Aint> offsets;
    for (const R& r : runs) {
      MPI_Aint off = 0;
      pieces.push_back(type_of(r, where, off));
      offsets.push_back(off);
    }
    const std::vector<int> ones(pieces.size(), 1);
    MPI_Datatype t = MPI_DATATYPE_NULL;
    MPI_Type_create_struct(detail::checked_int(static_cast<index_t>(pieces.size()), "runs of one message"),
                           ones.data(), offsets.data(), pieces.data(), &t);
    MPI_Type_commit(&t);
    for (MPI_Datatype& v : pieces) MPI_Type_free(&v);
    counts[peer] = 1;
    types[peer] = t;
  }

  std::vector<int> count_, displ_, rcount_;
  std::vector<MPI_Datatype> stype_, rtype_;
};

}  // namespace redist::bench
