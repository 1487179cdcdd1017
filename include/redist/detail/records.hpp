/// @file Defines records, the vector of the record buffers that MPI fills or that are written whole next (an Indirect layout's directory requests and moves), which are not initialized first.
#pragma once

#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace redist::detail {

/// The allocator of record buffers: it default-initializes, so that a buffer of trivial records
/// (IndirectMove, DirectoryEntry) that MPI is about to fill is not written first (a permutation's
/// are a record per element).
template <class T>
struct records_allocator : std::allocator<T> {
  using value_type = T;
  template <class U>
  struct rebind {
    using other = records_allocator<U>;
  };
  records_allocator() = default;
  template <class U>
  records_allocator(const records_allocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... A>
  void construct(U* p, A&&... a) {
    ::new (static_cast<void*>(p)) U(std::forward<A>(a)...);
  }
};
/// A buffer of records (records_allocator).
template <class T>
using records = std::vector<T, records_allocator<T>>;

}  // namespace redist::detail
