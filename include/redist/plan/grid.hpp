/// @file Defines build_grid_plan and grid_transfers of N-D layouts (Dist<D...> on a Grid), and Transposed, the layout of a transposed 2-D array.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include <redist/dist/dist.hpp>
#include <redist/index/grid.hpp>
#include <redist/index/intersect.hpp>
#include <redist/plan/plan.hpp>
#include <redist/schedule/schedule.hpp>
#include <redist/schedule/transfer.hpp>

namespace redist {

/// True for a bound N-D layout (Dist<D...>::mapping, or a view of one such as Transposed).
template <class M>
concept GridLayout = requires(const M& m, int r, std::size_t d) {
  { M::rank() } -> std::convertible_to<std::size_t>;
  { m.coords_of(r) };
  { m.ldds(d, r) } -> std::same_as<LddSet>;
  { m.strides(r) };
  { m.fastest() } -> std::convertible_to<std::size_t>;
  { m.nprocs() } -> std::same_as<int>;
};

/// The layout M seen with its dimensions permuted: dimension k of the view is dimension perm[k]
/// of M. For a 2-D M, Transposed<M>{m} (perm = {1, 0}) is the layout of transpose(a): its element
/// (i, j) is a's element (j, i), stored where a stores it.
template <class M>
struct Transposed {
  using base_type = M;
  M base;
  static constexpr std::size_t rank() noexcept { return M::rank(); }
  friend bool operator==(const Transposed&, const Transposed&) = default;
  index_t size() const noexcept { return base.size(); }
  int nprocs() const noexcept { return base.nprocs(); }
  std::uint64_t fingerprint() const { return ~base.fingerprint(); }
};

namespace detail {
template <class M>
struct grid_view {
  static constexpr std::size_t N = M::rank();
  const M& m;
  std::array<std::size_t, N> perm;  // view dimension k is m's dimension perm[k]
};
template <class M>
grid_view<M> view_of(const M& m) {
  grid_view<M> v{m, {}};
  std::iota(v.perm.begin(), v.perm.end(), std::size_t{0});
  return v;
}
template <class M>
grid_view<M> view_of(const Transposed<M>& t) {
  grid_view<M> v{t.base, {}};
  for (std::size_t k = 0; k < M::rank(); ++k) v.perm[k] = M::rank() - 1 - k;
  return v;
}
template <class M>
const M& base_of(const M& m) { return m; }
template <class M>
const M& base_of(const Transposed<M>& t) { return t.base; }
}  // namespace detail

/// The plan of `rank` for moving an N-D array from the layout `from` to the layout `to`: the
/// same global extents (after from's permutation, if it is Transposed), any grids, any process
/// subsets of one communicator. For every peer, the message is the Cartesian product of the
/// per-dimension LDD intersections (index::grid_sections); ranks outside a grid send or receive
/// nothing. No communication; O(Σ_d grid extent · period + sections) index work, nothing grows
/// with the array for periodic layouts. Peers are visited from rank + 1 on, as build_plan does.
template <class From, class To>
auto build_grid_plan(const From& from_view, const To& to, int rank) {
  const auto fv = detail::view_of(from_view);
  const auto& from = fv.m;
  constexpr std::size_t N = std::remove_cvref_t<decltype(from)>::rank();
  static_assert(N == To::rank(), "redist::build_grid_plan(from, to, rank) requires layouts of the same rank");
  REDIST_EXPECTS(from.nprocs() == to.nprocs(),
                 "redist::build_grid_plan(from, to, rank) requires from and to to be on the same communicator size");
  for (std::size_t k = 0; k < N; ++k)
    REDIST_EXPECTS(from.extent(fv.perm[k]) == to.extent(k),
                   "redist::build_grid_plan(from, to, rank) requires from and to to have the same extents (dimension " +
                       std::to_string(k) + ": " + std::to_string(from.extent(fv.perm[k])) + " vs " +
                       std::to_string(to.extent(k)) + ")");
  const int nprocs = from.nprocs();
  REDIST_EXPECTS(rank >= 0 && rank < nprocs, "redist::build_grid_plan(from, to, rank) requires rank to be in [0, P)");
  ++detail::plans_built_counter();

  // Source dimension d goes to destination dimension dst_dim[d].
  std::array<std::size_t, N> dst_dim{};
  for (std::size_t k = 0; k < N; ++k) dst_dim[fv.perm[k]] = k;
  std::array<std::size_t, N> order{};
  for (std::size_t k = 0; k < N; ++k) order[k] = from.storage().order == Order::column_major ? k : N - 1 - k;

  using S = section_for<N>;
  BasicPlan<S> plan;
  plan.rank = rank;
  plan.nprocs = nprocs;
  const auto my_src = from.coords_of(rank);
  const auto my_dst = to.coords_of(rank);

  // runs[d][c]: source dimension d at coordinate cs[d] ∩ destination dimension dst_dim[d] at coordinate c.
  using Table = std::array<std::vector<std::vector<Run>>, N>;
  auto sender_side = [&](const auto& cs) {
    Table t;
    for (std::size_t d = 0; d < N; ++d) {
      const std::size_t k = dst_dim[d];
      const LddSet mine = from.ldds(d, cs[d]);
      t[d].resize(static_cast<std::size_t>(to.grid().extent(k)));
      for (int c = 0; c < to.grid().extent(k); ++c) index::intersect(mine, to.ldds(k, c), t[d][c]);
    }
    return t;
  };
  auto receiver_side = [&](const auto& cd) {
    Table t;
    for (std::size_t d = 0; d < N; ++d) {
      const LddSet mine = to.ldds(dst_dim[d], cd[dst_dim[d]]);
      t[d].resize(static_cast<std::size_t>(from.grid().extent(d)));
      for (int c = 0; c < from.grid().extent(d); ++c) index::intersect(from.ldds(d, c), mine, t[d][c]);
    }
    return t;
  };
  // The sections between sender coordinates cs (rank s) and receiver coordinates cd (rank r).
  auto pair_sections = [&](const Table& t, bool by_receiver, const auto& cs, int s, const auto& cd, int r,
                           std::vector<S>& out) {
    index::GridPair<N> p;
    const auto ss = from.strides(s);
    const auto ds = to.strides(r);
    for (std::size_t d = 0; d < N; ++d) {
      const std::size_t k = dst_dim[d];
      p.runs[d] = t[d][static_cast<std::size_t>(by_receiver ? cs[d] : cd[k])];
      p.src_stride[d] = ss[d];
      p.dst_stride[d] = ds[k];
    }
    p.order = order;
    index::grid_sections(p, out);
  };

  std::optional<Table> sends, recvs;
  if (my_src) sends = sender_side(*my_src);
  if (my_dst) recvs = receiver_side(*my_dst);
  if (my_src && my_dst)
    plan.local = detail::collect_message(plan, rank, detail::side::src, [&](std::vector<S>& out) {
      pair_sections(*sends, false, *my_src, rank, *my_dst, rank, out);
    });
  detail::add_messages(
      plan,
      [&](int q, std::vector<S>& out) {
        const auto cq = to.coords_of(q);
        if (my_src && cq) pair_sections(*sends, false, *my_src, rank, *cq, q, out);
      },
      [&](int q, std::vector<S>& out) {
        const auto cq = from.coords_of(q);
        if (my_dst && cq) pair_sections(*recvs, true, *cq, q, *my_dst, rank, out);
      });
  return plan;
}

namespace detail {
template <class M>
inline constexpr bool is_transposed = false;
template <class M>
inline constexpr bool is_transposed<Transposed<M>> = true;
}  // namespace detail

/// A source layout of an N-D redistribution: a grid layout or a transposed one.
template <class M>
concept GridSource = GridLayout<M> || (detail::is_transposed<M> && GridLayout<typename M::base_type>);

/// Every message of the redistribution from -> to, of every rank (seed 003's communication
/// table COM with sizes, local copies included), computed without communication: the size of
/// the (s, r) message is the product over dimensions of the 1-D intersection sizes, so the cost
/// is O(Σ_d Ps_d · Pt_d · period + Ps · Pt).
template <GridSource From, GridLayout To>
std::vector<schedule::Transfer> grid_transfers(const From& from_view, const To& to) {
  const auto fv = detail::view_of(from_view);
  const auto& from = fv.m;
  constexpr std::size_t N = To::rank();
  std::array<std::vector<std::vector<index_t>>, N> size;  // size[d][cs][ct]
  std::vector<Run> runs;
  for (std::size_t k = 0; k < N; ++k) {
    const std::size_t d = fv.perm[k];
    size[d].assign(static_cast<std::size_t>(from.grid().extent(d)),
                   std::vector<index_t>(static_cast<std::size_t>(to.grid().extent(k)), 0));
    for (int cs = 0; cs < from.grid().extent(d); ++cs)
      for (int ct = 0; ct < to.grid().extent(k); ++ct) {
        runs.clear();
        index::intersect(from.ldds(d, cs), to.ldds(k, ct), runs);
        for (const Run& r : runs) size[d][cs][ct] += r.size();
      }
  }
  std::vector<schedule::Transfer> out;
  for (int s = 0; s < from.nprocs(); ++s) {
    const auto cs = from.coords_of(s);
    if (!cs) continue;
    for (int r = 0; r < to.nprocs(); ++r) {
      const auto ct = to.coords_of(r);
      if (!ct) continue;
      index_t n = 1;
      for (std::size_t k = 0; k < N; ++k) n *= size[fv.perm[k]][(*cs)[fv.perm[k]]][(*ct)[k]];
      if (n > 0) out.push_back({s, r, n});
    }
  }
  return out;
}

}  // namespace redist
