/// @file Defines maybe_static<V>: a value that is a compile-time constant unless V == dynamic.
#pragma once

#include <cstddef>
#include <span>

#include <redist/config.hpp>

namespace redist::detail {

template <std::size_t V>
struct maybe_static {
  static constexpr index_t value() noexcept { return static_cast<index_t>(V); }
  friend constexpr bool operator==(maybe_static, maybe_static) noexcept { return true; }
};

template <>
struct maybe_static<std::dynamic_extent> {
  index_t v = 0;
  constexpr index_t value() const noexcept { return v; }
  friend constexpr bool operator==(maybe_static, maybe_static) = default;
};

}  // namespace redist::detail
