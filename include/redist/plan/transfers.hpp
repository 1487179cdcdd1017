/// @file Defines transfers(from, to): every message of a redistribution of 1-D or N-D layouts (seed 003's communication table COM with sizes).
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include <redist/index/intersect.hpp>
#include <redist/plan/layout.hpp>
#include <redist/schedule/transfer.hpp>

namespace redist {

/// Every message of the redistribution from -> to, of every rank (seed 003's communication
/// table COM with sizes, local copies included), computed without communication: the size of
/// the (s, r) message (when s serves r, for a source held in copies) is the product over dimensions of the 1-D intersection sizes, so the cost
/// is O(Σ_d Ps_d · Pt_d · period + Ps · Pt).
template <GridSource From, GridLayout To>
constexpr std::vector<schedule::Transfer> transfers(const From& from_view, const To& to) {
  const auto fv = detail::view_of(from_view);
  const auto& from = fv.m;
  constexpr std::size_t N = To::rank();
  std::array<std::vector<std::vector<index_t>>, N> size;  // size[d][cs][ct]
  std::vector<Run> runs;
  for (std::size_t k = 0; k < N; ++k) {
    const std::size_t d = fv.perm[k];
    size[d].assign(static_cast<std::size_t>(from.grid().extent(d)),
                   std::vector<index_t>(static_cast<std::size_t>(to.grid().extent(k)), 0));
    for (int cs = 0; cs < from.grid().extent(d); ++cs) {
      const auto mine = from.ldds(d, cs);
      for (int ct = 0; ct < to.grid().extent(k); ++ct) {
        runs.clear();
        index::intersect(mine, to.ldds(k, ct), runs);
        for (const Run& r : runs) size[d][cs][ct] += r.size();
      }
    }
  }
  std::vector<schedule::Transfer> out;
  // A source held in copies: r reads from the ranks that serve it (detail::serves); a destination
  // of partial values: only the ranks that receive (detail::receives); as in build_plan.
  const bool replicas = detail::any_copies(from), partial_to = detail::any_partial(to);
  for (int s = 0; s < from.nprocs(); ++s) {
    const auto cs = from.coords_of(s);
    if (!cs) continue;
    for (int r = 0; r < to.nprocs(); ++r) {
      const auto ct = to.coords_of(r);
      if (!ct || (replicas && !detail::serves(from, s, r)) || (partial_to && !detail::receives(to, r))) continue;
      index_t n = 1;
      for (std::size_t k = 0; k < N; ++k) n *= size[fv.perm[k]][(*cs)[fv.perm[k]]][(*ct)[k]];
      if (n > 0) out.push_back({s, r, n});
    }
  }
  return out;
}

/// The rank-1 case: every message of the 1-D redistribution from -> to, O(P² · period).
template <LinearLayout From, LinearLayout To>
constexpr std::vector<schedule::Transfer> transfers(const From& from, const To& to) {
  return transfers(detail::rank_one<From>{from}, detail::rank_one<To>{to});
}

/// transfers of N-D layouts, by their N-D name.
template <GridSource From, GridLayout To>
constexpr std::vector<schedule::Transfer> grid_transfers(const From& from, const To& to) {
  return transfers(from, to);
}

}  // namespace redist
