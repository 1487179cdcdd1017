/// @file Defines the brute-force N-D oracle: owner rank and local storage offset of every element of a Dist<D...> on a grid, dealt element by element.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include <redist/dist/collapsed.hpp>
#include <redist/dist/grid.hpp>
#include <redist/dist/partial.hpp>
#include <redist/dist/replicated.hpp>

#include "oracle.hpp"

namespace redist::test {

inline Layout oracle(const Collapsed&, index_t n, int nprocs) {
  return deal(n, nprocs, [](index_t) { return 0; });
}

/// PARTIAL as a destination: every process stores the whole dimension, process 0 receives it (its
/// elements at local index g), the others nothing (their places -1, never written: they hold the
/// identity, which the array layer writes, not the plan).
template <class Op>
inline Layout oracle(const Partial<Op>&, index_t n, int nprocs) {
  Layout o = deal(n, nprocs, [](index_t) { return 0; });
  for (int p = 1; p < nprocs; ++p) o.globals[p].assign(static_cast<std::size_t>(n), -1);
  return o;
}

/// REPLICATED: every process holds the whole dimension, element g at local index g; owner[g] is 0.
inline Layout oracle(const Replicated&, index_t n, int nprocs) {
  Layout o = deal(n, nprocs, [](index_t) { return 0; });
  for (int p = 1; p < nprocs; ++p) o.globals[p] = o.globals[0];
  o.copies = true;
  return o;
}

/// What the N-D oracle needs to know of a layout, spelled out without the library's mapping.
template <std::size_t N>
struct GridSpec {
  std::array<index_t, N> extents{};
  std::array<int, N> grid{};
  Order grid_order = Order::row_major;
  int first = 0;
  std::array<int, N> offsets{};
  Order storage = Order::column_major;
  index_t ld = 0;   ///< 0: tight
  int nprocs = 1;   ///< communicator size
  std::vector<int> ranks;  ///< a rank map (Grid::with_ranks): position k on ranks[k]; empty: first + k
};

/// Linear global id of multi-index g: column-major over the extents (the simulator's element value).
template <std::size_t N>
index_t global_id(const std::array<index_t, N>& g, const std::array<index_t, N>& extents) {
  index_t id = 0;
  for (std::size_t d = N; d-- > 0;) id = id * extents[d] + g[d];
  return id;
}

/// The N-D ground truth: per dimension the 1-D oracle `dims[d]` (from oracle(dist_d, n_d, P_d)),
/// the owner coordinate shifted by the offset, the rank by counting through the grid in its
/// order, the local offset from the local multi-index in the storage order with padding to ld.
/// globals[r][offset] is global_id of the element stored there, -1 for padding.
template <std::size_t N>
Layout oracle_nd(const GridSpec<N>& s, const std::array<Layout, N>& dims) {
  Layout out;
  out.globals.assign(static_cast<std::size_t>(s.nprocs), {});
  // Per rank: coordinates, local extents, storage.
  std::vector<std::array<int, N>> coords(static_cast<std::size_t>(s.nprocs));
  std::vector<bool> in_grid(static_cast<std::size_t>(s.nprocs), false);
  int gsize = 1;
  for (int e : s.grid) gsize *= e;
  {
    std::array<int, N> c{};
    for (int pos = 0; pos < gsize; ++pos) {
      const int r = s.ranks.empty() ? s.first + pos : s.ranks[static_cast<std::size_t>(pos)];
      coords[r] = c;
      in_grid[r] = true;
      // Next coordinate in the grid's order.
      if (s.grid_order == Order::row_major) {
        for (std::size_t d = N; d-- > 0;) { if (++c[d] < s.grid[d]) break; c[d] = 0; }
      } else {
        for (std::size_t d = 0; d < N; ++d) { if (++c[d] < s.grid[d]) break; c[d] = 0; }
      }
    }
  }
  std::vector<std::array<index_t, N>> ext(static_cast<std::size_t>(s.nprocs)), stride(static_cast<std::size_t>(s.nprocs));
  for (int r = 0; r < s.nprocs; ++r) {
    if (!in_grid[r]) continue;
    index_t total = 1;
    for (std::size_t d = 0; d < N; ++d) {
      const int v = ((coords[r][d] - s.offsets[d]) % s.grid[d] + s.grid[d]) % s.grid[d];
      ext[r][d] = static_cast<index_t>(dims[d].globals[v].size());
    }
    index_t step = 1;
    for (std::size_t k = 0; k < N; ++k) {
      const std::size_t d = s.storage == Order::column_major ? k : N - 1 - k;
      stride[r][d] = step;
      const index_t e = k == 0 ? std::max(s.ld, ext[r][d]) : ext[r][d];
      step *= e;
      total = step;
    }
    for (std::size_t d = 0; d < N; ++d) if (ext[r][d] == 0) total = 0;
    out.globals[r].assign(static_cast<std::size_t>(total), -1);
  }
  index_t count = 1;
  for (index_t e : s.extents) count *= e;
  out.owner.resize(static_cast<std::size_t>(count));
  out.local.resize(static_cast<std::size_t>(count));
  for (index_t id = 0; id < count; ++id) {
    std::array<index_t, N> g{};
    index_t rest = id;
    for (std::size_t d = 0; d < N; ++d) g[d] = rest % s.extents[d], rest /= s.extents[d];
    std::array<int, N> c{};
    for (std::size_t d = 0; d < N; ++d) c[d] = (dims[d].owner[g[d]] + s.offsets[d]) % s.grid[d];
    // Every holder: the owner's coordinates, but any along a dimension held in copies.
    auto holds = [&](const std::array<int, N>& q) {
      for (std::size_t d = 0; d < N; ++d)
        if (!dims[d].copies && q[d] != c[d]) return false;
      return true;
    };
    int r = -1;
    for (int q = 0; q < s.nprocs; ++q) {
      if (!in_grid[q] || !holds(coords[q])) continue;
      if (coords[q] == c) r = q;
      index_t at = 0;
      for (std::size_t d = 0; d < N; ++d) at += dims[d].local[g[d]] * stride[q][d];
      out.globals[q][at] = id;
    }
    index_t off = 0;
    for (std::size_t d = 0; d < N; ++d) off += dims[d].local[g[d]] * stride[r][d];
    out.owner[id] = r;
    out.local[id] = off;
  }
  return out;
}

}  // namespace redist::test
