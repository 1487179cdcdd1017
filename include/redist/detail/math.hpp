/// @file Defines overflow-checked integer helpers: floor/ceil division, gcd, lcm, checked products.
#pragma once

#include <limits>
#include <numeric>
#include <string>

#include <redist/config.hpp>

namespace redist::detail {

constexpr index_t floor_div(index_t a, index_t b) noexcept {
  index_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

constexpr index_t ceil_div(index_t a, index_t b) noexcept { return -floor_div(-a, b); }

constexpr index_t floor_mod(index_t a, index_t b) noexcept { return a - floor_div(a, b) * b; }

/// a * b, or redist::error naming `what` when the product leaves 64 bits.
constexpr index_t checked_mul(index_t a, index_t b, const char* what) {
  index_t r = 0;
  if (__builtin_mul_overflow(a, b, &r))
    report_error(std::string("redist: ") + what + " overflows a 64-bit index");
  return r;
}

constexpr index_t checked_add(index_t a, index_t b, const char* what) {
  index_t r = 0;
  if (__builtin_add_overflow(a, b, &r))
    report_error(std::string("redist: ") + what + " overflows a 64-bit index");
  return r;
}

/// lcm(a, b) for positive a, b, checked for overflow.
constexpr index_t checked_lcm(index_t a, index_t b, const char* what) {
  return checked_mul(a / std::gcd(a, b), b, what);
}

}  // namespace redist::detail
