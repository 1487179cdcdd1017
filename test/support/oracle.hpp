/// @file Defines the brute-force oracle: owner and local index of every element, dealt element by element.
#pragma once

#include <cstdint>
#include <vector>

#include <redist/dist/block.hpp>
#include <redist/dist/cyclic.hpp>
#include <redist/dist/gen_block.hpp>

namespace redist::test {

/// Ground truth of a layout, computed by walking the global indices one by one and dealing
/// them out as the HPF definition says — no division formulas, nothing shared with dist/.
struct Layout {
  std::vector<int> owner;                       ///< owner[g]
  std::vector<index_t> local;                   ///< local[g]: local index on its owner
  std::vector<std::vector<index_t>> globals;    ///< globals[p][l]: global index of p's element l
  bool copies = false;                          ///< every process holds every element (Replicated; owner 0)
};

inline Layout deal(index_t n, int nprocs, auto&& next_owner_after) {
  Layout o;
  o.owner.resize(static_cast<std::size_t>(n));
  o.local.resize(static_cast<std::size_t>(n));
  o.globals.assign(static_cast<std::size_t>(nprocs), {});
  for (index_t g = 0; g < n; ++g) {
    const int p = next_owner_after(g);
    o.owner[g] = p;
    o.local[g] = static_cast<index_t>(o.globals[p].size());
    o.globals[p].push_back(g);
  }
  return o;
}

inline Layout oracle(const Block&, index_t n, int nprocs) {
  // BLOCK: fill process 0 with ceil(n/P) elements, then process 1, ...
  index_t b = 0;
  while (b * nprocs < n) ++b;
  int p = 0;
  index_t filled = 0;
  return deal(n, nprocs, [&](index_t) {
    if (filled == b) { ++p; filled = 0; }
    ++filled;
    return p;
  });
}

template <std::size_t X>
Layout oracle(const Cyclic<X>& d, index_t n, int nprocs) {
  // CYCLIC(k): deal blocks of k elements round robin.
  int p = 0;
  index_t in_block = 0;
  return deal(n, nprocs, [&](index_t) {
    if (in_block == d.block_size()) { in_block = 0; p = (p + 1) % nprocs; }
    ++in_block;
    return p;
  });
}

inline Layout oracle(const GenBlock& d, index_t n, int nprocs) {
  int p = 0;
  index_t filled = 0;
  return deal(n, nprocs, [&](index_t) {
    while (filled == d.part_size(p)) { ++p; filled = 0; }
    ++filled;
    return p;
  });
}

}  // namespace redist::test
