/// @file Defines MessageTypes: a plan's messages as MPI derived datatypes over the local arrays (nested hvectors per run or section, a struct per message), so that MPI reads and writes the arrays itself, without redist's pack and unpack.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <span>
#include <utility>
#include <vector>

#include <redist/index/run.hpp>
#include <redist/index/section.hpp>
#include <redist/plan/plan.hpp>
#include <redist/runtime/node.hpp>
#include <redist/runtime/pack.hpp>

namespace redist::runtime {

/// One committed MPI datatype per send and per receive of a plan, for elements of `elem` bytes:
/// a message is a struct of its runs (sections), each a nest of hvectors over contiguous pieces,
/// displaced by its offset in the local array; the send type walks the runs' source side, the
/// receive type their destination side, in the same order, so the two type signatures (bytes)
/// match. Freed with the object (unless MPI is finalized).
class MessageTypes {
 public:
  MessageTypes() = default;
  MessageTypes(const MessageTypes&) = delete;
  MessageTypes& operator=(const MessageTypes&) = delete;
  MessageTypes(MessageTypes&& o) noexcept
      : elem_{std::exchange(o.elem_, 0)}, of_{std::exchange(o.of_, nullptr)}, send_{std::move(o.send_)},
        recv_{std::move(o.recv_)} {
    o.send_.clear();
    o.recv_.clear();
  }
  MessageTypes& operator=(MessageTypes&& o) noexcept {
    if (this != &o) {
      release();
      elem_ = std::exchange(o.elem_, 0);
      of_ = std::exchange(o.of_, nullptr);
      send_ = std::move(o.send_);
      recv_ = std::move(o.recv_);
      o.send_.clear();
      o.recv_.clear();
    }
    return *this;
  }
  ~MessageTypes() { release(); }

  /// The types of a stage's messages for elements of elem bytes (built once; again if elem or the
  /// stage changes).
  template <class R>
  void build(const Stage<R>& plan, std::size_t elem) {
    if (elem_ == elem && of_ == plan.identity() && send_.size() == plan.sends.size() && recv_.size() == plan.recvs.size())
      return;
    release();
    elem_ = elem;
    of_ = plan.identity();
    for (const Message& m : plan.sends)
      send_.push_back(m.listed() ? list_type(plan.src_list(m), elem) : message_type(plan.runs_of(m), elem, true));
    for (const Message& m : plan.recvs)
      recv_.push_back(m.listed() ? list_type(plan.dst_list(m), elem) : message_type(plan.runs_of(m), elem, false));
  }
  bool empty() const noexcept { return elem_ == 0; }
  MPI_Datatype send(std::size_t i) const noexcept { return send_[i]; }
  MPI_Datatype recv(std::size_t i) const noexcept { return recv_[i]; }

 private:
  void release() noexcept {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) {
      for (MPI_Datatype& t : send_) MPI_Type_free(&t);
      for (MPI_Datatype& t : recv_) MPI_Type_free(&t);
    }
    send_.clear();
    recv_.clear();
    elem_ = 0;
    of_ = nullptr;
  }

  /// count copies of inner, stride elements apart, as one type.
  static MPI_Datatype pieces(index_t stride, index_t count, std::size_t elem, MPI_Datatype inner) {
    MPI_Datatype t = MPI_DATATYPE_NULL;
    detail::check(MPI_Type_create_hvector(static_cast<int>(count), 1, static_cast<MPI_Aint>(stride) * static_cast<MPI_Aint>(elem),
                                          inner, &t),
                  "MPI_Type_create_hvector");
    return t;
  }
  static MPI_Datatype bytes(index_t elements, std::size_t elem) {
    MPI_Datatype t = MPI_DATATYPE_NULL;
    detail::check(MPI_Type_contiguous(static_cast<int>(static_cast<std::size_t>(elements) * elem), MPI_BYTE, &t),
                  "MPI_Type_contiguous");
    return t;
  }
  /// A nest of loops (innermost first) with strides on one side, as nested hvectors.
  template <std::size_t D>
  static MPI_Datatype nest_type(const detail::Nest<D>& n, bool source, std::size_t elem) {
    if (n.depth == 0) return bytes(1, elem);
    std::size_t k = 0;
    MPI_Datatype t;
    if (n.fs[0] == 1 && n.ts[0] == 1) {
      t = bytes(n.count[0], elem);
      k = 1;
    } else {
      t = bytes(1, elem);
    }
    for (; k < n.depth; ++k) {
      MPI_Datatype outer = pieces(source ? n.fs[k] : n.ts[k], n.count[k], elem, t);
      MPI_Type_free(&t);
      t = outer;
    }
    return t;
  }
  static MPI_Datatype run_type(const Run& r, std::size_t elem, bool source) {
    MPI_Datatype piece = bytes(r.len, elem);
    if (r.count == 1) return piece;
    MPI_Datatype t = pieces(source ? r.src_stride : r.dst_stride, r.count, elem, piece);
    MPI_Type_free(&piece);
    return t;
  }
  template <std::size_t D>
  static MPI_Datatype run_type(const BasicSection<D>& s, std::size_t elem, bool source) {
    return nest_type(detail::nest_of(s, detail::dense::none), source, elem);
  }
  template <class R>
  static MPI_Datatype message_type(std::span<const R> runs, std::size_t elem, bool source) {
    std::vector<int> lengths(runs.size(), 1);
    std::vector<MPI_Aint> at(runs.size());
    std::vector<MPI_Datatype> types(runs.size());
    for (std::size_t k = 0; k < runs.size(); ++k) {
      at[k] = static_cast<MPI_Aint>(source ? runs[k].src : runs[k].dst) * static_cast<MPI_Aint>(elem);
      types[k] = run_type(runs[k], elem, source);
    }
    MPI_Datatype t = MPI_DATATYPE_NULL;
    detail::check(MPI_Type_create_struct(static_cast<int>(runs.size()), lengths.data(), at.data(), types.data(), &t),
                  "MPI_Type_create_struct");
    for (MPI_Datatype& x : types) MPI_Type_free(&x);
    detail::check(MPI_Type_commit(&t), "MPI_Type_commit");
    return t;
  }

  /// An element list's places (elements of elem bytes) as one type: one element at each.
  static MPI_Datatype list_type(std::span<const index_t> places, std::size_t elem) {
    std::vector<MPI_Aint> at(places.size());
    for (std::size_t k = 0; k < places.size(); ++k) at[k] = static_cast<MPI_Aint>(places[k]) * static_cast<MPI_Aint>(elem);
    MPI_Datatype one = bytes(1, elem), t = MPI_DATATYPE_NULL;
    detail::check(MPI_Type_create_hindexed_block(static_cast<int>(places.size()), 1, at.data(), one, &t),
                  "MPI_Type_create_hindexed_block");
    MPI_Type_free(&one);
    detail::check(MPI_Type_commit(&t), "MPI_Type_commit");
    return t;
  }

  std::size_t elem_ = 0;
  const void* of_ = nullptr;
  std::vector<MPI_Datatype> send_, recv_;
};

}  // namespace redist::runtime
