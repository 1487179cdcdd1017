/// @file Defines the collective part of Indirect layouts: the directory an array of one makes (and the checks of its lists), the moves a pair asks of it before its plan is built, Indirect<Op>::from_owners, and what an Indirect<Op> destination's other holders hold.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <memory>
#include <ranges>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/mpi/collectives/broadcast.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/serialization/string.hpp>

#include <redist/array/communicator.hpp>
#include <redist/config.hpp>
#include <redist/dist/indirect.hpp>
#include <redist/plan/indirect.hpp>
#include <redist/plan/layout.hpp>
#include <redist/plan/moves.hpp>
#include <redist/plan/plan.hpp>
#include <redist/runtime/node.hpp>

namespace redist::detail {

/// The counts and displacements of one MPI_Alltoallv of records (out_counts[q] for rank q, one
/// rank's after the other's), agreed over comm: in_counts gets the counts per rank to receive. A
/// count above INT_MAX records (to or from one rank), or displacements past it, is a
/// redist::error on every rank, before anything moves. Collective.
struct RecordCounts {
  std::vector<int> sc, sd, rc, rd;
  std::size_t received = 0;
};
inline RecordCounts agree_record_counts(MPI_Comm comm, std::span<const index_t> out_counts, std::vector<index_t>& in_counts,
                                        const char* what) {
  int p = 1;
  runtime::detail::check(MPI_Comm_size(comm, &p), "MPI_Comm_size");
  static_assert(sizeof(long long) == sizeof(index_t));
  in_counts.assign(static_cast<std::size_t>(p), 0);
  runtime::detail::check(MPI_Alltoall(out_counts.data(), 1, MPI_LONG_LONG, in_counts.data(), 1, MPI_LONG_LONG, comm),
                         "MPI_Alltoall");
  int big = 0;
  for (int q = 0; q < p; ++q)
    big = big || out_counts[static_cast<std::size_t>(q)] > INT_MAX || in_counts[static_cast<std::size_t>(q)] > INT_MAX;
  int any = 0;
  runtime::detail::check(MPI_Allreduce(&big, &any, 1, MPI_INT, MPI_MAX, comm), "MPI_Allreduce");
  if (any != 0)
    report_error(std::string("redist: ") + what + " requires at most INT_MAX records between two ranks of its directory");
  RecordCounts c;
  c.sc.resize(static_cast<std::size_t>(p));
  c.sd.resize(static_cast<std::size_t>(p));
  c.rc.resize(static_cast<std::size_t>(p));
  c.rd.resize(static_cast<std::size_t>(p));
  long long s = 0, r = 0;
  for (std::size_t q = 0; q < static_cast<std::size_t>(p); ++q) {
    c.sc[q] = static_cast<int>(out_counts[q]);
    c.rc[q] = static_cast<int>(in_counts[q]);
    c.sd[q] = static_cast<int>(std::min<long long>(s, INT_MAX));
    c.rd[q] = static_cast<int>(std::min<long long>(r, INT_MAX));
    s += c.sc[q];
    r += c.rc[q];
  }
  if (s > INT_MAX || r > INT_MAX)  // displacements past INT_MAX records: a rank's own limit, agreed below
    big = 1;
  runtime::detail::check(MPI_Allreduce(&big, &any, 1, MPI_INT, MPI_MAX, comm), "MPI_Allreduce");
  if (any != 0) report_error(std::string("redist: ") + what + " requires at most INT_MAX records per rank in one round");
  c.received = static_cast<std::size_t>(r);
  return c;
}

/// The MPI_Alltoallv of records (sizeof(T) bytes each) that agree_record_counts agreed: from
/// `send`, into `recv`. Collective.
template <class T>
void alltoallv_records(MPI_Comm comm, const RecordCounts& c, const T* send, T* recv) {
  MPI_Datatype record = MPI_DATATYPE_NULL;
  runtime::detail::check(MPI_Type_contiguous(static_cast<int>(sizeof(T)), MPI_BYTE, &record), "MPI_Type_contiguous");
  runtime::detail::check(MPI_Type_commit(&record), "MPI_Type_commit");
  const int rc_all = MPI_Alltoallv(send, c.sc.data(), c.sd.data(), record, recv, c.rc.data(), c.rd.data(), record, comm);
  MPI_Type_free(&record);
  runtime::detail::check(rc_all, "MPI_Alltoallv");
}

/// One MPI_Alltoallv of the records of `data` (out_counts[q] for rank q, one rank's after the
/// other's; a record is sizeof(T) bytes) over comm: appends the records received to `in`, one
/// rank's after the other's, and writes their counts per rank to `in_counts`. Collective. A count
/// above INT_MAX records (to or from one rank) is a redist::error on every rank, before anything
/// moves.
template <class T>
void exchange_records_into(MPI_Comm comm, std::span<const index_t> out_counts, std::span<const T> data,
                           std::vector<index_t>& in_counts, const char* what, records<T>& in) {
  const RecordCounts c = agree_record_counts(comm, out_counts, in_counts, what);
  const std::size_t at = in.size();
  in.resize(at + c.received);
  alltoallv_records(comm, c, data.data(), in.data() + at);
}

/// exchange_records_into a new vector: the records received.
template <class T>
records<T> exchange_records(MPI_Comm comm, const Outbox<T>& out, std::vector<index_t>& in_counts, const char* what) {
  records<T> in;
  exchange_records_into(comm, std::span<const index_t>(out.counts), std::span<const T>(out.data), in_counts, what, in);
  return in;
}

/// The 1-D mapping of a layout (a 1-D array's rank-1 layout: its linear() mapping; a 1-D mapping: itself).
template <class L>
const auto& one_dimensional_mapping(const L& l) {
  if constexpr (requires { l.linear(); }) return l.linear();
  else return l;
}

/// The directory of an Indirect layout (rank r's part of it, on rank r), made and checked when its
/// array is made: every rank sends its list's pieces (runs of consecutive indices at consecutive
/// places) to the indices' directory ranks (one MPI_Alltoallv), each directory rank checks them
/// (directory_of_requests: sorted into pieces by index and rank now when they are few, else on the
/// first pair that asks the directory). An index of [0, n) that no rank holds, or that one rank
/// lists twice, is a redist::error on every rank naming the first one. Collective; O(local) work and O(the pieces
/// + n / P) memory per rank at most.
template <class M>
std::shared_ptr<const IndirectDirectory> make_indirect_directory(const boost::mpi::communicator& comm, const M& m) {
  const auto c = static_cast<MPI_Comm>(comm);
  REDIST_EXPECTS(m.nprocs() == comm.size(),
                 "redist::Indirect requires its layout to span the communicator (P = " + std::to_string(m.nprocs()) +
                     ", communicator of " + std::to_string(comm.size()) + ")");
  // The list's runs first (one pass; none kept when there would be more than one per 8 indices):
  // the requests are then cut from them, else read from the list (two passes more).
  std::vector<IndirectDirectory::Piece> runs = list_runs(m.indices(), comm.rank(), m.indices().size() / 8);
  const Outbox<DirectoryEntry> requests = runs.empty() ? directory_requests(m.indices(), m.size(), comm.size())
                                                       : directory_requests(std::span<const IndirectDirectory::Piece>(runs),
                                                                            m.size(), comm.size());
  std::vector<index_t> counts;
  records<DirectoryEntry> in = exchange_records(c, requests, counts, "an Indirect layout");
  DirectoryChecks checks;
  auto dir = std::make_shared<IndirectDirectory>(
      directory_of_requests(comm.rank(), m.size(), comm.size(), std::move(in), std::move(counts), checks));
  dir->list_runs = std::move(runs);
  // The first unheld index, and (negated, so one MIN finds both) whether any part holds copies.
  long long mine[2] = {checks.unheld, checks.copies ? -1 : 0}, least_unheld[2] = {0, 0};
  if (mine[0] < 0) mine[0] = LLONG_MAX;
  runtime::detail::check(MPI_Allreduce(mine, least_unheld, 2, MPI_LONG_LONG, MPI_MIN, c), "MPI_Allreduce");
  dir->copies = least_unheld[1] < 0;
  if (const long long first = least_unheld[0]; first != LLONG_MAX)
    report_error("redist::Indirect(indices) requires every index of [0, n) to be held by some rank (n = " +
                 std::to_string(m.size()) + "; no rank holds " + std::to_string(first) + ")");
  // An index one rank lists twice: the first such index, and the first rank that does.
  const auto [twice, who] = checks.repeated;
  long long pair[2] = {twice < 0 ? LLONG_MAX : twice, twice < 0 ? LLONG_MAX : who}, least[2] = {0, 0};
  runtime::detail::check(MPI_Allreduce(pair, least, 1, MPI_LONG_LONG, MPI_MIN, c), "MPI_Allreduce");
  if (least[0] != LLONG_MAX) {
    long long rank = pair[0] == least[0] ? pair[1] : LLONG_MAX;
    runtime::detail::check(MPI_Allreduce(&rank, &least[1], 1, MPI_LONG_LONG, MPI_MIN, c), "MPI_Allreduce");
    report_error("redist::Indirect(indices) requires each index to be listed once per rank (rank " + std::to_string(least[1]) +
                 " lists " + std::to_string(least[0]) + " twice)");
  }
  return dir;
}

/// Whether a 1-D mapping holds partial values to fold as a source (Indirect<Op>, Partial<Op>).
template <class M>
constexpr bool folds_as_source(const M& m) noexcept {
  if constexpr (indirect_mapping<M>) return !std::is_void_v<typename M::op_type>;
  else return partial_mapping_of(m);
}

/// This rank's moves of from -> to (1-D layouts, one of them Indirect). Where each holder of the
/// Indirect side can tell its moves alone (formula_pair: copies received, partial values sent, or
/// no index held twice, against a regular side), each Indirect rank makes them by the regular
/// side's formula and sends them to their other ends (one MPI_Alltoallv). Otherwise they are asked
/// of the directory: on each directory rank, the pieces of both sides on its block (an Indirect
/// side's from its directory part, a regular side's by formula) make the moves (directory_moves),
/// which go to the ranks that send or receive them (one MPI_Alltoallv). Collective; O(the pieces
/// + the moves).
struct PairMoves {
  records<IndirectMove> made;      ///< by formula, on this rank
  records<IndirectMove> received;  ///< from the formula's side, or from the directory
  /// By formula, for a list of short runs: this rank's blocks, then those the other ranks sent.
  mutable FormulaLists lists;
  std::vector<ListedBlock> blocks;  ///< in lists (formula_blocks)
  IndirectMoves view() const noexcept { return {made, received, blocks, blocks.empty() ? nullptr : &lists.data}; }
};
template <class From, class To>
PairMoves indirect_pair_moves(const boost::mpi::communicator& comm, const From& from, const To& to) {
  // The directory reads a regular side's 1-D mapping by formula, its processes being the ranks:
  // a rank-1 layout on some of the ranks, or with an offset, a rank map or padding, is not that.
  auto linear = [](const auto& l) {
    if constexpr (requires { l.is_linear(); }) return l.is_linear();
    else return true;
  };
  if (!linear(from) || !linear(to))
    report_error("redist: b = a with an Indirect layout requires the other layout to be a 1-D array on every rank of the "
                 "communicator, in order (no grid subset, offset, rank map or padding)");
  const auto& fm = one_dimensional_mapping(from);
  const auto& tm = one_dimensional_mapping(to);
  using FM = std::remove_cvref_t<decltype(fm)>;
  using TM = std::remove_cvref_t<decltype(tm)>;
  auto directory_of = [](const auto& m) -> const IndirectDirectory* {
    if constexpr (indirect_mapping<std::remove_cvref_t<decltype(m)>>) {
      if (m.directory() == nullptr)
        report_error("redist: an Indirect layout is planned through its directory, which its array makes (a DistArray or "
                     "DistView of it; a bare mapping has none)");
      return m.directory();
    } else {
      return nullptr;
    }
  };
  // One Indirect side and a regular one whose moves each holder can tell alone (formula_pair):
  // each Indirect rank makes its moves by the regular side's formula and sends them to the owners.
  if constexpr (indirect_mapping<FM> != indirect_mapping<TM>) {
    constexpr bool source = indirect_mapping<FM>;
    const auto& im = [&]() -> const auto& {
      if constexpr (source) return fm;
      else return tm;
    }();
    const auto& rm = [&]() -> const auto& {
      if constexpr (source) return tm;
      else return fm;
    }();
    using IM = std::remove_cvref_t<decltype(im)>;
    const IndirectDirectory* dir = directory_of(im);
    if (formula_pair(source, !std::is_void_v<typename IM::op_type>, dir->copies,
                     replicated_mapping_of(rm) || partial_mapping_of(rm))) {
      // A list of short runs (a permutation) goes as element lists, 16 bytes an element; other
      // lists as moves, their runs joined. Each rank chooses for its own list; both rounds are
      // made on every rank (empty where no rank has that kind).
      const auto c = static_cast<MPI_Comm>(comm);
      PairMoves moves;
      const bool listed = dir->list_runs.empty() && lists_by_formula(im.indices());
      if (listed) moves.lists = formula_list_counts(im.indices(), rm, comm.rank(), comm.size());
      else moves.made = formula_moves(im.indices(), dir->list_runs, rm, comm.rank(), source);
      if (moves.lists.words.empty()) moves.lists.words.assign(static_cast<std::size_t>(comm.size()), 0);
      // The counts each rank receives: moves (in_moves) and element-list words (in_words). When
      // the regular side is the directory's own Block, what each Indirect rank makes for an owner
      // is what it sent the owner's directory part when the array was made: only the counts go
      // round (one MPI_Alltoall of both), and each rank makes the records it would receive from
      // its part (directory_formula_records). Otherwise the moves and the element lists go round.
      const bool at_owner = directory_is_owner(rm, im.size(), comm.size());
      const auto np = static_cast<std::size_t>(comm.size());
      std::vector<index_t> in_moves(np), in_words(np);
      RecordCounts lc;
      if (at_owner) {
        const std::vector<index_t> out_moves = peer_counts(moves.made, comm.rank(), comm.size());
        std::vector<index_t> mine(2 * np), theirs(2 * np);
        for (std::size_t q = 0; q < np; ++q) {
          mine[2 * q] = out_moves[q];
          mine[2 * q + 1] = moves.lists.words[q];
        }
        static_assert(sizeof(long long) == sizeof(index_t));
        runtime::detail::check(MPI_Alltoall(mine.data(), 2, MPI_LONG_LONG, theirs.data(), 2, MPI_LONG_LONG, c), "MPI_Alltoall");
        for (std::size_t q = 0; q < np; ++q) {
          in_moves[q] = theirs[2 * q];
          in_words[q] = theirs[2 * q + 1];
          lc.received += static_cast<std::size_t>(in_words[q]);
        }
      } else {
        const std::vector<index_t> out = order_by_peer(moves.made, comm.rank(), comm.size());
        exchange_records_into(c, std::span<const index_t>(out), std::span<const IndirectMove>(moves.made), in_moves,
                              "b = a with an Indirect layout", moves.received);
        lc = agree_record_counts(c, moves.lists.words, in_words, "b = a with an Indirect layout");
      }
      // The element lists: this rank's blocks written at the head of one buffer, the other ranks'
      // after them; the plan takes the buffer as its lists.
      const std::size_t own = moves.lists.own_words();
      moves.lists.data.resize(own + lc.received);
      if (listed) formula_list_fill(im.indices(), rm, comm.rank(), source, moves.lists);
      if (at_owner)
        directory_formula_records(*dir, comm.rank(), source, in_moves, in_words, moves.received, moves.lists.data.data() + own);
      else
        alltoallv_records(c, lc, moves.lists.data.data(), moves.lists.data.data() + own);
      moves.blocks = formula_blocks(moves.lists, in_words, std::span<const index_t>(moves.lists.data).subspan(own), comm.rank(),
                                    source);
      return moves;
    }
  }
  DirectorySide<FM> src(fm, directory_of(fm));
  DirectorySide<TM> dst(tm, directory_of(tm));
  const auto [lo, hi] = directory_range(comm.rank(), fm.size(), comm.size());
  bool every = true;
  if constexpr (indirect_mapping<TM>) every = std::is_void_v<typename TM::op_type>;
  else every = !partial_mapping_of(tm);
  std::vector<std::vector<IndirectMove>> per;
  directory_moves(lo, hi, src, dst, folds_as_source(fm), every, comm.size(), per);
  const Outbox<IndirectMove> out = outbox_of(per);
  std::vector<index_t> counts;
  PairMoves moves;
  moves.received = exchange_records(static_cast<MPI_Comm>(comm), out, counts, "b = a with an Indirect layout");
  return moves;
}

/// f() with the moves of from -> to in scope (indirect_moves_scope) when one of them is an
/// Indirect layout (collective: the directory is asked), else f() alone: what the plan cache and
/// make_plan build a new plan in.
template <class From, class To, class F>
decltype(auto) with_directory_moves(const From& from, const To& to, const boost::mpi::communicator& comm, F&& f) {
  if constexpr (indirect_layout<From> || indirect_layout<To>) {
    const PairMoves moves = indirect_pair_moves(comm, from, to);
    const IndirectMoves view = moves.view();
    const indirect_moves_scope scope(view);
    return f();
  } else {
    return f();
  }
}

/// After b = a into an Indirect<Op> destination: the places no element was written to (an index's
/// holders but its first) get Op's identity. O(local) per call.
template <class Plan, class B>
void hold_identity_where_unreceived(const Plan& plan, B& dst) {
  using M = std::remove_cvref_t<decltype(one_dimensional_mapping(dst.mapping()))>;
  if constexpr (indirect_mapping<M> && !std::is_void_v<typename M::op_type>) {
    using T = typename B::value_type;
    const auto local = dst.local();
    const std::vector<unsigned char> mask = written_places(plan, static_cast<index_t>(local.size()));
    const T id = fold_identity<typename M::op_type, T>::value();
    for (std::size_t i = 0; i < local.size(); ++i)
      if (mask[i] == 0) local[i] = id;
  }
}

/// Indirect<Op>::from_owners (dist/indirect.hpp): rank r's block of the owner map goes to the
/// owners (one MPI_Alltoallv), each owner sorts the indices it receives. An owners list of the
/// wrong length or an owner outside [0, P) is a redist::error on every rank naming the first.
template <class Op>
struct indirect_from_owners {
  template <class R>
  static Indirect<Op> make(Communicator comm_arg, index_t n, const R& owners) {
    const boost::mpi::communicator& comm = comm_arg.get();
    const auto c = static_cast<MPI_Comm>(comm);
    const int p = comm.size();
    if (n < 0) report_error("redist::Indirect::from_owners(comm, n, owners) requires n to be >= 0 (got " + std::to_string(n) + ")");
    const auto [lo, hi] = directory_range(comm.rank(), n, p);
    std::vector<long long> map;
    for (const auto& o : owners) map.push_back(static_cast<long long>(o));
    // The first bad entry over all ranks, as a global index (or n + 1 + rank for a wrong length).
    long long bad = LLONG_MAX;
    std::string why;
    if (static_cast<index_t>(map.size()) != hi - lo) {
      bad = n + 1 + comm.rank();
      why = "requires owners to hold one owner per index of this rank's block (rank " + std::to_string(comm.rank()) +
            ": block [" + std::to_string(lo) + ", " + std::to_string(hi) + "), got " + std::to_string(map.size()) + " owners)";
    } else {
      for (std::size_t i = 0; i < map.size(); ++i)
        if (map[i] < 0 || map[i] >= p) {
          bad = lo + static_cast<index_t>(i);
          why = "requires every owner to be a rank in [0, " + std::to_string(p) + ") (the owner of " + std::to_string(bad) +
                " is " + std::to_string(map[i]) + ")";
          break;
        }
    }
    long long first = LLONG_MAX;
    runtime::detail::check(MPI_Allreduce(&bad, &first, 1, MPI_LONG_LONG, MPI_MIN, c), "MPI_Allreduce");
    if (first != LLONG_MAX) {
      // The rank that found the first bad entry tells the others.
      int mine = bad == first ? comm.rank() : p, who = p;
      runtime::detail::check(MPI_Allreduce(&mine, &who, 1, MPI_INT, MPI_MIN, c), "MPI_Allreduce");
      boost::mpi::broadcast(comm, why, who);
      report_error("redist::Indirect::from_owners(comm, n, owners) " + why);
    }
    std::vector<std::vector<index_t>> per(static_cast<std::size_t>(p));
    for (std::size_t i = 0; i < map.size(); ++i) per[static_cast<std::size_t>(map[i])].push_back(lo + static_cast<index_t>(i));
    // (every owner is in [0, P) here)
    std::vector<index_t> counts;
    records<index_t> mine_indices = exchange_records(c, outbox_of(per), counts, "redist::Indirect::from_owners");
    std::sort(mine_indices.begin(), mine_indices.end());
    return Indirect<Op>(mine_indices);
  }
};

}  // namespace redist::detail
