/// @file Defines records, the vector of the record buffers that MPI fills or that are written whole next (an Indirect layout's directory requests and moves), which are not initialized first; shared_records, records that the copies of a plan share; buffer_allocator and acquire_buffer, which put large buffers on huge pages where the system gives them on request.
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace redist::detail {

/// A transparent huge page (x86-64's and AArch64's with 4 KiB base pages).
inline constexpr std::size_t huge_page_bytes = std::size_t{2} << 20;
/// Buffers of at least this many bytes are given transparent huge pages where the system offers
/// them on request (Linux's `madvise` mode): aligned to, and rounded up to, huge_page_bytes.
inline constexpr std::size_t huge_buffer_bytes = 4 * huge_page_bytes;

/// Memory for a buffer of `bytes` that is written whole soon after (records, a plan's lists):
/// from `operator new`, and for a large one 2 MiB-aligned with `madvise(MADV_HUGEPAGE)`, so that
/// writing it first takes a page fault per 2 MiB instead of per 4 KiB. Freed by release_buffer
/// with the same size.
inline void* acquire_buffer(std::size_t bytes) {
  if (bytes < huge_buffer_bytes) return ::operator new(bytes);
  const std::size_t whole = (bytes + huge_page_bytes - 1) / huge_page_bytes * huge_page_bytes;
  void* p = ::operator new(whole, std::align_val_t{huge_page_bytes});
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  (void)::madvise(p, whole, MADV_HUGEPAGE);  // advice: without huge pages the buffer is as before
#endif
  return p;
}
inline void release_buffer(void* p, std::size_t bytes) noexcept {
  if (bytes < huge_buffer_bytes) ::operator delete(p);
  else ::operator delete(p, std::align_val_t{huge_page_bytes});
}

/// std::allocator's, but for memory from acquire_buffer: a large buffer on huge pages where the
/// system gives them on request (an array's elements in ordinary memory, written whole when made).
template <class T>
struct buffer_allocator : std::allocator<T> {
  using value_type = T;
  template <class U>
  struct rebind {
    using other = buffer_allocator<U>;
  };
  buffer_allocator() = default;
  template <class U>
  buffer_allocator(const buffer_allocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    if (n > std::size_t(-1) / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(acquire_buffer(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t n) noexcept { release_buffer(p, n * sizeof(T)); }
};

/// The allocator of record buffers (buffer_allocator's memory): it default-initializes, so that a
/// buffer of trivial records (IndirectMove, DirectoryEntry) that MPI is about to fill is not
/// written first (a permutation's are a record per element).
template <class T>
struct records_allocator : buffer_allocator<T> {
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

/// Records written whole while a plan is built and only read after: copies of the plan share them
/// instead of copying (a plan's element lists, 16 bytes an element, which make_plan's copy of the
/// plan cached in b and that plan hold once between them).
template <class T>
class shared_records {
 public:
  shared_records() = default;
  explicit shared_records(records<T>&& r) : p_{std::make_shared<const records<T>>(std::move(r))} {}
  const T* data() const noexcept { return p_ ? p_->data() : nullptr; }
  std::size_t size() const noexcept { return p_ ? p_->size() : 0; }
  bool empty() const noexcept { return size() == 0; }
  /// How many plans hold these records (0: none are).
  long holders() const noexcept { return p_.use_count(); }

 private:
  std::shared_ptr<const records<T>> p_;
};

}  // namespace redist::detail
