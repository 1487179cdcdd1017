/// @file Defines Plan (one rank's index sets and schedule) and build_plan, the one plan builder of 1-D and N-D layouts, which needs no communication.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <redist/dist/distribution.hpp>
#include <redist/dist/grid.hpp>
#include <redist/index/grid.hpp>
#include <redist/index/intersect.hpp>
#include <redist/index/section.hpp>
#include <redist/plan/layout.hpp>
#include <redist/plan/walk.hpp>
#include <redist/schedule/schedule.hpp>

namespace redist {

namespace detail {
inline std::atomic<std::size_t>& plans_built_counter() noexcept {
  static std::atomic<std::size_t> count{0};
  return count;
}
}  // namespace detail

/// How many plans this process has built (assignments, redistribute, make_plan). A repeated
/// `b = a` between the same layouts reuses its plan and does not add to it.
inline std::size_t plans_built() noexcept { return detail::plans_built_counter().load(); }

/// The runs exchanged with one peer. runs[first, first + nruns) of the plan, packed in that order.
struct Message {
  int peer = -1;
  std::size_t first = 0;
  std::size_t nruns = 0;
  index_t size = 0;          ///< elements
  index_t offset = 0;        ///< element offset in the scratch buffer; unused when direct
  bool direct = false;       ///< one contiguous run: sent from / received into the array itself
  friend bool operator==(const Message&, const Message&) = default;
};

/// One rank's part of a redistribution: what it sends to and receives from each peer (as runs:
/// Run for 1-D layouts, Section for N-D ones), what it copies locally, and in which steps.
/// Building it needs no communication, so the plans of all ranks can be built in one process
/// (the virtual-rank simulator does).
template <class R>
struct BasicPlan {
  using run_type = R;
  int rank = 0;
  int nprocs = 1;
  std::vector<R> runs;                    ///< all runs: messages' and local
  std::vector<Message> sends;             ///< no message to self
  std::vector<Message> recvs;
  Message local;                          ///< runs copied directly, src -> dst, on this rank
  schedule::Schedule schedule;
  index_t send_scratch = 0;               ///< elements of scratch for packed sends
  index_t recv_scratch = 0;               ///< elements of scratch for unpacked receives
  /// 0: messages move whole. Otherwise every message (of every rank: the value must be the same
  /// on all ranks) moves in rounds, as pieces of at most `piece` elements: round j of a step
  /// moves elements [j·piece, (j+1)·piece) of each of the step's messages.
  index_t piece = 0;
  /// The source and the destination in storage order (plan/walk.hpp): with them, a message's
  /// packed order is the sender's storage order restricted to the pair (runtime::pack_message);
  /// without (plans not built from layouts), the order of its runs.
  Walk send_walk, recv_walk;

  std::span<const R> runs_of(const Message& m) const noexcept {
    return std::span<const R>(runs).subspan(m.first, m.nruns);
  }
  index_t elements_sent() const noexcept {
    index_t s = 0;
    for (const auto& m : sends) s += m.size;
    return s;
  }
  index_t elements_received() const noexcept {
    index_t s = 0;
    for (const auto& m : recvs) s += m.size;
    return s;
  }
};

/// The plan of a 1-D redistribution.
using Plan = BasicPlan<Run>;
/// The plan of an N-D redistribution of rank N <= 4 (rank N: BasicPlan<section_for<N>>).
using GridPlan = BasicPlan<Section>;

/// The messages of a plan (sends, recvs, schedule, runs), for code that reads any plan's traffic:
/// a BasicPlan is its own; CyclePlan and CirculantPlan give theirs by the same name.
template <class R>
const BasicPlan<R>& messages_of(const BasicPlan<R>& plan) noexcept {
  return plan;
}

namespace detail {
enum class side { src, dst };

/// True when the runs, in order, tile one contiguous local range on that side: then the packed
/// message is that range itself and needs no pack or unpack.
template <class R>
bool contiguous_chain(const std::vector<R>& runs, side where) {
  index_t next = -1;
  for (const R& r : runs) {
    const bool contiguous = where == side::src ? r.src_contiguous() : r.dst_contiguous();
    const index_t start = where == side::src ? r.src : r.dst;
    if (!contiguous || (next >= 0 && start != next)) return false;
    next = start + r.size();
  }
  return !runs.empty();
}

/// Collects the runs of one message into plan.runs and describes them.
template <class R, class Collect>
Message collect_message(BasicPlan<R>& plan, int peer, side where, Collect&& collect) {
  Message m;
  m.peer = peer;
  m.first = plan.runs.size();
  std::vector<R> runs;
  collect(runs);
  for (const R& r : runs) m.size += r.size();
  m.nruns = runs.size();
  m.direct = contiguous_chain(runs, where);
  plan.runs.insert(plan.runs.end(), runs.begin(), runs.end());
  return m;
}

/// plan's messages with every other rank, and one all-at-once step: send(q, out) appends to out
/// the runs plan.rank sends to q, receive(q, out) those it receives from q (none: no message).
/// Peers are visited in the order rank+1, rank+2, ... for sends and rank-1, rank-2, ... for
/// receives (mod P), so that in an all-at-once exchange ranks do not all start with the same peer.
/// A packed message gets its place in the send or receive scratch; a contiguous one none.
template <class R, class Send, class Receive>
void add_messages(BasicPlan<R>& plan, Send&& send, Receive&& receive) {
  const int rank = plan.rank, nprocs = plan.nprocs;
  auto add = [&](int q, side where, auto& collect, std::vector<Message>& list, index_t& scratch) {
    Message m = collect_message(plan, q, where, [&](std::vector<R>& out) { collect(q, out); });
    if (m.size > 0) {
      if (!m.direct) m.offset = std::exchange(scratch, scratch + m.size);
      list.push_back(m);
    } else {
      plan.runs.resize(m.first);
    }
  };
  for (int d = 1; d < nprocs; ++d) add((rank + d) % nprocs, side::src, send, plan.sends, plan.send_scratch);
  for (int d = 1; d < nprocs; ++d) add((rank - d + nprocs) % nprocs, side::dst, receive, plan.recvs, plan.recv_scratch);
  plan.schedule = schedule::make_all_at_once(plan.sends.size(), plan.recvs.size());
}
}  // namespace detail

namespace detail {
/// The one plan builder: the plan of `rank` for moving an array from the layout fv (a grid view:
/// a grid layout, a transposed one, or a 1-D layout as rank_one) to `to`, with runs of type R
/// (Run for a 1-D pair, whose rank-1 sections are runs; section_for<N> otherwise). For every
/// peer the message is the Cartesian product of the per-dimension LDD intersections (seed 003;
/// index::grid_sections, seed 004); ranks outside a grid send or receive nothing. Requires the
/// same extents (after fv's permutation); the callers check them with their own messages. A
/// layout with an origin (detail::origin_of: a section's dropped dimensions) adds it to every
/// section's offset on its side.
/// No communication; O(Σ_d grid extent · period + sections) index work, nothing grows with the
/// array for periodic layouts.
template <class R, class From, class To>
BasicPlan<R> build_plan_of(const grid_view<From>& fv, const To& to, int rank) {
  const From& from = fv.m;
  constexpr std::size_t N = From::rank();
  const int nprocs = from.nprocs();
  REDIST_EXPECTS(rank >= 0 && rank < nprocs, "redist::build_plan(from, to, rank) requires rank to be in [0, P)");
  ++plans_built_counter();

  // Source dimension d goes to destination dimension dst_dim[d].
  std::array<std::size_t, N> dst_dim{};
  for (std::size_t k = 0; k < N; ++k) dst_dim[fv.perm[k]] = k;
  std::array<std::size_t, N> order{};
  for (std::size_t k = 0; k < N; ++k) order[k] = from.storage().order == Order::column_major ? k : N - 1 - k;

  BasicPlan<R> plan;
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
      const auto mine = from.ldds(d, cs[d]);
      t[d].resize(static_cast<std::size_t>(to.grid().extent(k)));
      for (int c = 0; c < to.grid().extent(k); ++c) index::intersect(mine, to.ldds(k, c), t[d][c]);
    }
    return t;
  };
  auto receiver_side = [&](const auto& cd) {
    Table t;
    for (std::size_t d = 0; d < N; ++d) {
      const auto mine = to.ldds(dst_dim[d], cd[dst_dim[d]]);
      t[d].resize(static_cast<std::size_t>(from.grid().extent(d)));
      for (int c = 0; c < from.grid().extent(d); ++c) index::intersect(from.ldds(d, c), mine, t[d][c]);
    }
    return t;
  };
  // The sections between sender coordinates cs (rank s) and receiver coordinates cd (rank r).
  auto pair_sections = [&](const Table& t, bool by_receiver, const auto& cs, int s, const auto& cd, int r,
                           std::vector<R>& out) {
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
    p.src_origin = origin_of(from, s);
    p.dst_origin = origin_of(to, r);
    index::grid_sections(p, out);
  };

  std::optional<Table> sends, recvs;
  if (my_src) sends = sender_side(*my_src);
  if (my_dst) recvs = receiver_side(*my_dst);
  if (my_src && my_dst)
    plan.local = collect_message(plan, rank, side::src, [&](std::vector<R>& out) {
      pair_sections(*sends, false, *my_src, rank, *my_dst, rank, out);
    });
  add_messages(
      plan,
      [&](int q, std::vector<R>& out) {
        const auto cq = to.coords_of(q);
        if (my_src && cq) pair_sections(*sends, false, *my_src, rank, *cq, q, out);
      },
      [&](int q, std::vector<R>& out) {
        const auto cq = from.coords_of(q);
        if (my_dst && cq) pair_sections(*recvs, true, *cq, q, *my_dst, rank, out);
      });

  // The walks, which define the packed order of the messages (plan/walk.hpp): the source in its
  // storage order (walk dimension k is source dimension order[k]), the destination in the same
  // order of dimensions. They need local indices that grow with global ones in every dimension
  // of both layouts and contiguous pieces (all built-in distributions: detail::walkable), and
  // neither layout may be a section (a layout with an origin, SectionLayout: make_walk leaves out
  // a dimension of one local element as if that element were at local index 0, and does not add
  // the origin). A pair without these properties gets no walks, on every rank alike, and its
  // messages are packed in the order of their runs.
  bool ordered = !HasOrigin<From> && !HasOrigin<To>;
  for (std::size_t d = 0; d < N && ordered; ++d) {
    for (int c = 0; c < from.grid().extent(d) && ordered; ++c) ordered = walkable(from.ldds(d, c));
    for (int c = 0; c < to.grid().extent(d) && ordered; ++c) ordered = walkable(to.ldds(d, c));
  }
  if (!ordered) return plan;
  auto extent_of = [](const auto& s) {
    index_t n = 0;
    for (const Ldd& l : s) n += l.size();
    return n;
  };
  std::array<WalkInput, N> dims{};
  // Message i's peer coordinates per walk dimension: coord(peer, k).
  auto peer_coords = [&](const std::vector<Message>& messages, auto&& coord) {
    std::vector<std::vector<index_t>> c(messages.size(), std::vector<index_t>(N));
    for (std::size_t i = 0; i < messages.size(); ++i)
      for (std::size_t k = 0; k < N; ++k) c[i][k] = coord(messages[i].peer, k);
    return c;
  };
  if (my_src) {
    const auto st = from.strides(rank);
    for (std::size_t k = 0; k < N; ++k)
      dims[k] = WalkInput{&(*sends)[order[k]], extent_of(from.ldds(order[k], (*my_src)[order[k]])), st[order[k]]};
    plan.send_walk = make_walk(
        dims, peer_coords(plan.sends, [&](int q, std::size_t k) { return index_t{(*to.coords_of(q))[dst_dim[order[k]]]}; }),
        true);
  }
  if (my_dst) {
    const auto st = to.strides(rank);
    for (std::size_t k = 0; k < N; ++k) {
      const std::size_t q = dst_dim[order[k]];
      dims[k] = WalkInput{&(*recvs)[order[k]], extent_of(to.ldds(q, (*my_dst)[q])), st[q]};
    }
    plan.recv_walk = make_walk(
        dims, peer_coords(plan.recvs, [&](int q, std::size_t k) { return index_t{(*from.coords_of(q))[order[k]]}; }),
        false);
    // A message received straight into dst needs the packed order to be dst's storage order:
    // the walk must go through dst in dst's own order of dimensions.
    bool own_order = true;
    for (std::size_t k = 0; k < N; ++k)
      own_order = own_order && dst_dim[order[k]] == (to.storage().order == Order::column_major ? k : N - 1 - k);
    if (!own_order)
      for (Message& m : plan.recvs)
        if (m.direct) {
          m.direct = false;
          m.offset = std::exchange(plan.recv_scratch, plan.recv_scratch + m.size);
        }
  }
  return plan;
}
}  // namespace detail

/// The plan of `rank` for moving a 1-D array laid out by `from` to the layout `to` (both bound
/// to the same n and P): per peer, the intersections of the LDDs (seed 003), as runs. It is the
/// rank-1 case of the N-D plan below, built by the same code.
/// Cost: O(P · period) index work; nothing grows with n for periodic layouts.
template <LinearLayout From, LinearLayout To>
Plan build_plan(const From& from, const To& to, int rank) {
  REDIST_EXPECTS(from.size() == to.size(),
                 "redist::build_plan(from, to, rank) requires from and to to have the same global size");
  REDIST_EXPECTS(from.nprocs() == to.nprocs(),
                 "redist::build_plan(from, to, rank) requires from and to to have the same process count");
  const detail::rank_one<From> f{from};
  const detail::rank_one<To> t{to};
  return detail::build_plan_of<Run>(detail::view_of(f), t, rank);
}

/// The plan of `rank` for moving an N-D array from the layout `from` to the layout `to`: the
/// same global extents (after from's permutation, if it is Transposed), any grids, any process
/// subsets of one communicator (a BasicPlan<section_for<N>>). Peers are visited from rank + 1
/// on, as for 1-D layouts.
template <GridSource From, GridLayout To>
auto build_plan(const From& from_view, const To& to, int rank) {
  const auto fv = detail::view_of(from_view);
  const auto& from = fv.m;
  constexpr std::size_t N = std::remove_cvref_t<decltype(from)>::rank();
  static_assert(N == To::rank(), "redist::build_plan(from, to, rank) requires layouts of the same rank");
  REDIST_EXPECTS(from.nprocs() == to.nprocs(),
                 "redist::build_plan(from, to, rank) requires from and to to be on the same communicator size");
  for (std::size_t k = 0; k < N; ++k)
    REDIST_EXPECTS(from.extent(fv.perm[k]) == to.extent(k),
                   "redist::build_plan(from, to, rank) requires from and to to have the same extents (dimension " +
                       std::to_string(k) + ": " + std::to_string(from.extent(fv.perm[k])) + " vs " +
                       std::to_string(to.extent(k)) + ")");
  return detail::build_plan_of<section_for<N>>(fv, to, rank);
}

/// build_plan of N-D layouts, by its N-D name.
template <GridSource From, GridLayout To>
auto build_grid_plan(const From& from, const To& to, int rank) {
  return build_plan(from, to, rank);
}

/// The largest piece size C for which this rank's packed (not direct) messages of any one step,
/// cut into pieces of at most C elements, need at most `budget` elements of scratch per round:
/// Σ min(size, C) <= budget (water-filling). 0 when whole messages fit. Throws redist::error
/// when the budget is smaller than one element per packed message of a step.
template <class R>
index_t piece_limit(const BasicPlan<R>& plan, index_t budget) {
  index_t limit = 0;
  std::vector<index_t> sizes;
  for (const schedule::Step& step : plan.schedule.steps) {
    sizes.clear();
    for (std::size_t i : step.sends) if (!plan.sends[i].direct) sizes.push_back(plan.sends[i].size);
    for (std::size_t i : step.recvs) if (!plan.recvs[i].direct) sizes.push_back(plan.recvs[i].size);
    std::sort(sizes.begin(), sizes.end());
    index_t left = budget, c = 0;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      const auto rest = static_cast<index_t>(sizes.size() - i);
      if (sizes[i] <= left / rest) {
        left -= sizes[i];
        continue;
      }
      c = left / rest;
      break;
    }
    if (c == 0 && !sizes.empty() && std::accumulate(sizes.begin(), sizes.end(), index_t{0}) > budget)
      detail::report_error("redist::options requires max_scratch_bytes to hold at least one element per message of a step (" +
                           std::to_string(sizes.size()) + " messages, budget " + std::to_string(budget) + " elements)");
    if (c > 0) limit = limit == 0 ? c : std::min(limit, c);
  }
  return limit;
}

/// Elements of workspace a plan's runs use on this rank under a scratch budget of `budget`
/// elements, when the piece the ranks agree on is this rank's own piece_limit or smaller:
/// `buffer` for packed messages (runtime::Workspace::buffer), `intermediate` for an intermediate
/// array (Workspace::intermediate). A Redistribution allocates both before its first run's
/// agreement, so that a rank without the memory is an error on every rank.
struct WorkspaceNeed {
  index_t buffer = 0;
  index_t intermediate = 0;
};

/// A general plan: the most one step's packed (not direct) messages take, each cut at the piece.
/// A run that updates (b = alpha * a + beta * b) receives its direct messages through the
/// workspace too: `in_place_receives` false.
template <class R>
WorkspaceNeed workspace_need(const BasicPlan<R>& plan, index_t budget, bool in_place_receives = true) {
  const index_t piece = piece_limit(plan, budget);
  auto part = [&](const Message& m, bool direct) { return direct ? 0 : piece == 0 ? m.size : std::min(m.size, piece); };
  index_t most = 0;
  for (const schedule::Step& step : plan.schedule.steps) {
    index_t e = 0;
    for (std::size_t i : step.sends) e += part(plan.sends[i], plan.sends[i].direct);
    for (std::size_t i : step.recvs) e += part(plan.recvs[i], in_place_receives && plan.recvs[i].direct);
    most = std::max(most, e);
  }
  return {most, 0};
}

}  // namespace redist
