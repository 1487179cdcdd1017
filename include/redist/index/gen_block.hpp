/// @file Defines gen_block_messages: the messages of a GEN_BLOCK -> GEN_BLOCK redistribution, by merging two cut lists (seed 002).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include <redist/config.hpp>
#include <redist/dist/gen_block.hpp>
#include <redist/index/transfer.hpp>

namespace redist::index {

/// The messages of GEN_BLOCK(from_sizes) -> GEN_BLOCK(to_sizes), the edges of seed 002's
/// bipartite graph from source part `sender` (SP) to destination part `receiver` (DP), in
/// increasing global order (message k is seed 002's m_{k+1}). O(P): a merge of the two lists of cuts
///   [S_i, S_{i+1}) ∩ [D_j, D_{j+1}) ≠ ∅  |->  Transfer{i, j, min(S_{i+1}, D_{j+1}) − max(S_i, D_j)}.
/// The messages tile [0, n) in list order: message k holds the elements from the sum of the
/// sizes before it on. Empty parts send and receive nothing. Because both layouts are
/// contiguous, a part's messages are consecutive in this list and go to consecutive non-empty
/// parts of the other side (the consecutive-communication property), and each pair of parts
/// exchanges at most one message. A local message (sender == receiver) is listed like any other.
constexpr std::vector<Transfer> gen_block_messages(std::span<const index_t> from_sizes,
                                                   std::span<const index_t> to_sizes) {
  if (from_sizes.size() != to_sizes.size())
    redist::detail::report_error("redist::index::gen_block_messages(from, to) requires from and to to have as many parts");
  const int nparts = static_cast<int>(from_sizes.size());
  std::vector<Transfer> out;
  int i = 0, j = 0;
  index_t pos = 0;          // everything before pos has been assigned to a message
  index_t s_end = 0, d_end = 0;
  if (nparts > 0) {
    s_end = from_sizes[0];
    d_end = to_sizes[0];
  }
  while (i < nparts && j < nparts) {
    // Skip exhausted (or empty) parts on either side.
    if (s_end == pos) {
      if (++i < nparts) s_end += from_sizes[i];
      continue;
    }
    if (d_end == pos) {
      if (++j < nparts) d_end += to_sizes[j];
      continue;
    }
    const index_t end = s_end < d_end ? s_end : d_end;
    out.push_back(Transfer{i, j, end - pos});
    pos = end;
  }
  // Whatever is left on either side must be empty parts, or the sizes do not sum alike.
  for (++i; i < nparts; ++i) s_end += from_sizes[i];
  for (++j; j < nparts; ++j) d_end += to_sizes[j];
  if (s_end != pos || d_end != pos)
    redist::detail::report_error("redist::index::gen_block_messages(from, to) requires the sizes of from and to to have the same sum");
  return out;
}

/// The messages between two bound GenBlock layouts (same n and P).
inline std::vector<Transfer> gen_block_messages(const GenBlock::mapping& from, const GenBlock::mapping& to) {
  REDIST_EXPECTS(from.nprocs() == to.nprocs() && from.size() == to.size(),
                 "redist::index::gen_block_messages(from, to) requires from and to to have the same n and P");
  std::vector<index_t> fs(static_cast<std::size_t>(from.nprocs())), ts(fs.size());
  for (int p = 0; p < from.nprocs(); ++p) {
    fs[p] = from.local_size(p);
    ts[p] = to.local_size(p);
  }
  return gen_block_messages(std::span<const index_t>(fs), std::span<const index_t>(ts));
}

}  // namespace redist::index
