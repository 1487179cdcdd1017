/// @file Defines SharedBuffer<T>: memory for the caller's own arrays in a shared-memory window of its node, so that a DistView over it redistributes on the node by copies, without messages.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <mutex>
#include <span>
#include <type_traits>
#include <vector>

#include <mpi.h>

#include <redist/array/communicator.hpp>
#include <redist/array/local_storage.hpp>
#include <redist/array/options.hpp>
#include <redist/runtime/node.hpp>

namespace redist {

/// n value-initialized elements of T on this rank, for the caller's own use (a ScaLAPACK local
/// matrix, an FFT buffer, ...), allocated in an MPI-3 shared-memory window of the rank's node when
/// options::shared_memory is on and the node has more than one rank of comm (ordinary memory
/// otherwise). A DistView whose data() is a SharedBuffer's data() (on the same communicator) is
/// read in place by the other ranks of its node when it is the source of `b = a`, as a DistArray
/// is (and as a DistView over an array's local().data() is: detail::shared_registry). Construction and destruction are collective over comm's node; n may differ per rank
/// (DistView<T, D>::required_span_size). Move-only; the buffer must outlive the views over it.
template <class T>
class SharedBuffer {
  static_assert(std::is_trivially_copyable_v<T>, "redist::SharedBuffer<T> requires T to be trivially copyable");

 public:
  SharedBuffer(Communicator comm, std::size_t n, const options& opts = default_options()) : size_{n} {
    const boost::mpi::communicator& c = comm.get();
    if (opts.shared_memory && c.size() > 1) {
      auto node = runtime::node_of(static_cast<MPI_Comm>(c), opts.node_size);
      if (node->size > 1) {
        segment_ = std::make_unique<runtime::SharedSegment>(std::move(node), n * sizeof(T), sizeof(T));
        std::uninitialized_value_construct_n(reinterpret_cast<T*>(segment_->data()), n);
        detail::shared_registry::instance().add(segment_.get());
        return;
      }
    }
    vector_.resize(n);
  }
  SharedBuffer(const SharedBuffer&) = delete;
  SharedBuffer& operator=(const SharedBuffer&) = delete;
  SharedBuffer(SharedBuffer&&) noexcept = default;
  SharedBuffer& operator=(SharedBuffer&& o) noexcept {
    release();
    vector_ = std::move(o.vector_);
    segment_ = std::move(o.segment_);
    size_ = o.size_;
    return *this;
  }
  ~SharedBuffer() { release(); }

  T* data() noexcept { return segment_ ? reinterpret_cast<T*>(segment_->data()) : vector_.data(); }
  const T* data() const noexcept { return segment_ ? reinterpret_cast<const T*>(segment_->data()) : vector_.data(); }
  std::size_t size() const noexcept { return size_; }
  std::span<T> span() noexcept { return {data(), size_}; }
  std::span<const T> span() const noexcept { return {data(), size_}; }
  /// True when the elements live in a shared window of the node.
  bool in_shared_memory() const noexcept { return segment_ != nullptr; }

 private:
  void release() noexcept {
    if (segment_) detail::shared_registry::instance().remove(segment_.get());
    segment_.reset();
  }
  std::vector<T> vector_;
  std::unique_ptr<runtime::SharedSegment> segment_;
  std::size_t size_ = 0;
};

}  // namespace redist
