/// @file Defines fill and holds: set every local element of a distributed array to f(global index), and check it.
#pragma once

#include <redist/config.hpp>

namespace redist::test {

/// a.local()[l] = f(a.global_index(l)) for every local element l.
template <class A, class F>
void fill(A& a, F&& f) {
  auto loc = a.local();
  for (index_t l = 0; l < a.local_size(); ++l) loc[l] = f(a.global_index(l));
}

/// Whether every local element equals f(its global index) (this rank only; agree with all_ok).
template <class A, class F>
bool holds(const A& a, F&& f) {
  auto loc = a.local();
  for (index_t l = 0; l < a.local_size(); ++l)
    if (!(loc[l] == f(a.global_index(l)))) return false;
  return true;
}

}  // namespace redist::test
