/// @file Defines transfers(from, to), every message of a 1-D redistribution (seed 003's communication table COM with sizes).
#pragma once

#include <concepts>
#include <span>
#include <vector>

#include <redist/index/intersect.hpp>
#include <redist/plan/plan.hpp>
#include <redist/schedule/transfer.hpp>

namespace redist {

/// Every message of the 1-D redistribution from -> to, of every rank (local copies included),
/// computed without communication: O(P² · period).
template <LinearLayout From, LinearLayout To>
std::vector<schedule::Transfer> transfers(const From& from, const To& to) {
  std::vector<schedule::Transfer> out;
  std::vector<Run> runs;
  for (int s = 0; s < from.nprocs(); ++s) {
    const LddSet a = from.ldds(s);
    for (int r = 0; r < to.nprocs(); ++r) {
      runs.clear();
      index::intersect(a, to.ldds(r), runs);
      index_t n = 0;
      for (const Run& run : runs) n += run.size();
      if (n > 0) out.push_back({s, r, n});
    }
  }
  return out;
}

}  // namespace redist
