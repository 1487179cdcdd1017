// Whether a test program is built with AddressSanitizer (scripts/sanitize.sh's build, -O0 with
// ASan and UBSan), where a property test that simulates every element costs 10-20x what it costs
// in the plain build: such tests draw a quarter of their random cases there. The plain build
// (the same README command, the same CI run) draws them all.
#pragma once

#include <algorithm>

namespace redist::test {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool sanitized = true;
#else
inline constexpr bool sanitized = false;
#endif

/// n random cases in the plain build, n / 4 (at least 1) under the sanitizers.
constexpr int trials(int n) { return sanitized ? std::max(1, n / 4) : n; }

}  // namespace redist::test
