/// @file Defines Steps and numbered: a GEN_BLOCK schedule as the papers print it, sets of 1-based message numbers per step.
#pragma once

#include <cstddef>
#include <set>
#include <vector>

#include <redist/schedule/gen_block.hpp>

namespace redist::test {

/// The paper's steps as sets of message numbers m1, m2, ... (1-based, as in the paper).
using Steps = std::vector<std::set<std::size_t>>;

/// A schedule's steps as the paper numbers them.
inline Steps numbered(const schedule::GlobalSchedule& s) {
  Steps out;
  for (const auto& step : s.steps) {
    std::set<std::size_t> ms;
    for (std::size_t i : step) ms.insert(i + 1);
    out.push_back(ms);
  }
  return out;
}

}  // namespace redist::test
