/// @file Defines Bytes, the reader of a fuzzer's input shared by the fuzz harnesses: little numbers, zeros once the bytes run out.
#pragma once

#include <cstddef>
#include <cstdint>

namespace redist::test {

class Bytes {
 public:
  Bytes(const std::uint8_t* data, std::size_t size) : data_{data}, size_{size} {}
  /// The next nbytes bytes as a big-endian number (zeros past the end).
  std::uint64_t next(int nbytes) {
    std::uint64_t v = 0;
    for (int i = 0; i < nbytes; ++i) v = (v << 8) | (pos_ < size_ ? data_[pos_++] : 0);
    return v;
  }
  /// A number in [0, bound) from the next two bytes (0 when bound is 0).
  std::uint64_t below(std::uint64_t bound) { return bound == 0 ? 0 : next(2) % bound; }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

}  // namespace redist::test
