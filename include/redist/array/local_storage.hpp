/// @file Defines detail::LocalStorage<T>, a DistArray's local elements: in ordinary memory, or in a shared-memory window of the rank's node.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <mutex>
#include <span>
#include <type_traits>
#include <vector>

#include <mpi.h>

#include <redist/detail/records.hpp>
#include <redist/runtime/node.hpp>

namespace redist::detail {

/// The shared windows of the live SharedBuffers and DistArray storages of this process, by their
/// first byte, so that a DistView constructed over one (a SharedBuffer's data(), an array's
/// local().data(): a ghosted array's owned part) finds it (runtime::execute_on_node reads a node
/// peer's source in place only from a window).
class shared_registry {
 public:
  static shared_registry& instance() {
    static shared_registry r;
    return r;
  }
  void add(const runtime::SharedSegment* s) {
    std::lock_guard lock(mutex_);
    segments_.push_back(s);
  }
  void remove(const runtime::SharedSegment* s) {
    std::lock_guard lock(mutex_);
    segments_.erase(std::remove(segments_.begin(), segments_.end(), s), segments_.end());
  }
  /// The window whose part on this rank starts at p and holds at least `bytes`, or nullptr.
  const runtime::SharedSegment* find(const void* p, std::size_t bytes) const {
    std::lock_guard lock(mutex_);
    for (const runtime::SharedSegment* s : segments_)
      if (static_cast<const void*>(s->data()) == p && s->bytes() >= bytes) return s;
    return nullptr;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<const runtime::SharedSegment*> segments_;
};

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
    shared_registry::instance().add(segment_.get());
  }
  LocalStorage(const LocalStorage& o) : vector_(o.span().begin(), o.span().end()) {}
  LocalStorage(LocalStorage&&) noexcept = default;  // the window (and its registration) moves along
  LocalStorage& operator=(LocalStorage&& o) noexcept {
    if (this == &o) return *this;
    release();
    vector_ = std::move(o.vector_);
    segment_ = std::move(o.segment_);
    size_ = o.size_;
    return *this;
  }
  LocalStorage& operator=(const LocalStorage&) = delete;  // DistArray's copy assignment redistributes
  ~LocalStorage() { release(); }

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
  void release() noexcept {
    if (segment_) shared_registry::instance().remove(segment_.get());
    segment_.reset();
  }
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
