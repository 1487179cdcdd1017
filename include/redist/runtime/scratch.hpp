/// @file Defines Scratch, the reusable buffer of packed sends and receives.
#pragma once

#include <cstddef>
#include <memory>

namespace redist::runtime {

/// Grows on demand and is kept between calls, so a repeated exchange allocates nothing.
/// Storage is aligned for any fundamental type.
class Scratch {
 public:
  std::byte* reserve(std::size_t bytes) {
    if (bytes > capacity_) {
      data_.reset(new std::max_align_t[(bytes + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t)]);
      capacity_ = bytes;
      ++allocations_;
    }
    return reinterpret_cast<std::byte*>(data_.get());
  }
  std::size_t capacity() const noexcept { return capacity_; }
  /// How many times the buffer was (re)allocated: a repeated exchange adds nothing.
  std::size_t allocations() const noexcept { return allocations_; }

 private:
  std::unique_ptr<std::max_align_t[]> data_;
  std::size_t capacity_ = 0;
  std::size_t allocations_ = 0;
};

}  // namespace redist::runtime
