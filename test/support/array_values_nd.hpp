/// @file Defines fill_nd and holds_nd: set every local element of an N-D distributed array to f(global multi-index), and check it.
#pragma once

#include <array>
#include <cstddef>

#include <redist/config.hpp>

namespace redist::test {

/// Calls f(local multi-index) for every local element of a (padding excluded).
template <class A, class F>
void for_each_local_index(const A& a, F&& f) {
  constexpr std::size_t N = A::rank();
  const auto e = a.local_extents();
  for (index_t x : e)
    if (x == 0) return;
  std::array<index_t, N> l{};
  while (true) {
    f(l);
    std::size_t d = 0;
    while (d < N && ++l[d] == e[d]) l[d++] = 0;
    if (d == N) return;
  }
}

/// a(l) = f(global index of l) for every local element l.
template <class A, class F>
void fill_nd(A& a, F&& f) {
  auto loc = a.local();
  for_each_local_index(a, [&](const auto& l) { loc[a.local_offset(l)] = f(a.global_index(l)); });
}

/// Whether every local element equals f(its global multi-index) (this rank only; agree with all_ok).
template <class A, class F>
bool holds_nd(const A& a, F&& f) {
  auto loc = a.local();
  bool ok = true;
  for_each_local_index(a, [&](const auto& l) { ok = ok && loc[a.local_offset(l)] == f(a.global_index(l)); });
  return ok;
}

}  // namespace redist::test
