/// @file Defines detail::LocalStorage<T>, a DistArray's local elements: in ordinary memory, or in a shared-memory window of the rank's node.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <type_traits>
#include <vector>

#include <mpi.h>

#include <redist/detail/records.hpp>
#include <redist/runtime/node.hpp>

namespace redist::detail {

/// n value-initialized elements of T, this rank's part of a distributed array. Constructed with
/// a node of more than one rank, they live in a window shared on that node (collective over the
/// node, as is destruction); otherwise in a std::vector. A copy is private: ordinary memory,
/// made by this rank alone (so copying an array is never collective); a move keeps the storage.
template <class T>
class LocalStorage {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  LocalStorage() = default;
  LocalStorage(std::size_t n, std::shared_ptr<const runtime::Node> node) {
    if (node == nullptr || node->size <= 1) {
      vector_.resize(n);
      return;
    }
    segment_ = std::make_unique<runtime::SharedSegment>(std::move(node), n * sizeof(T), sizeof(T));
    size_ = n;
    std::uninitialized_value_construct_n(reinterpret_cast<T*>(segment_->data()), n);
  }
  LocalStorage(const LocalStorage& o) : vector_(o.span().begin(), o.span().end()) {}
  LocalStorage(LocalStorage&&) noexcept = default;
  LocalStorage& operator=(LocalStorage&&) noexcept = default;
  LocalStorage& operator=(const LocalStorage&) = delete;  // DistArray's copy assignment redistributes

  std::span<T> span() noexcept {
    if (segment_) return {reinterpret_cast<T*>(segment_->data()), size_};
    return vector_;
  }
  std::span<const T> span() const noexcept {
    if (segment_) return {reinterpret_cast<const T*>(segment_->data()), size_};
    return vector_;
  }
  std::size_t size() const noexcept { return segment_ ? size_ : vector_.size(); }
  /// The shared window holding the elements, or nullptr in ordinary memory.
  const runtime::SharedSegment* segment() const noexcept { return segment_.get(); }

 private:
  std::vector<T, buffer_allocator<T>> vector_;  // (a large one on huge pages: acquire_buffer)
  std::unique_ptr<runtime::SharedSegment> segment_;
  std::size_t size_ = 0;
};

/// A DistArray's storage, as its first base class: constructed (empty) before the array's
/// layout, which allocates it before the ranks agree on the construction (DistArrayBase::bind).
template <class T>
struct OwnedStorage {
  LocalStorage<T> storage_;
};

}  // namespace redist::detail
