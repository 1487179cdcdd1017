/// @file Defines hash_mix, hash_seed and hash_string: the FNV-1a hash of the consistency fingerprints.
#pragma once

#include <cstdint>
#include <string_view>

namespace redist::detail {

/// FNV-1a, 64 bits.
constexpr std::uint64_t hash_mix(std::uint64_t h, std::uint64_t v) noexcept {
  for (int i = 0; i < 8; ++i) {
    h ^= (v >> (8 * i)) & 0xff;
    h *= 0x100000001b3ull;
  }
  return h;
}
inline constexpr std::uint64_t hash_seed = 0xcbf29ce484222325ull;

constexpr std::uint64_t hash_string(std::uint64_t h, std::string_view s) noexcept {
  for (char c : s) h = hash_mix(h, static_cast<unsigned char>(c));
  return h;
}

}  // namespace redist::detail
