/// @file Defines the distributed directory of Indirect layouts (the rendezvous method) as pure functions, which the array layer's all-to-all rounds connect: the requests a rank sends to the directory, the directory part a rank makes of those it receives, and the moves a directory rank gives the ranks for a pair of layouts. No communication: the virtual-rank tests run every rank's part in one process.
#pragma once

#include <algorithm>
#include <cstddef>
#include <limits>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <redist/config.hpp>
#include <redist/detail/records.hpp>
#include <redist/dist/indirect.hpp>
#include <redist/dist/ldd.hpp>
#include <redist/plan/layout.hpp>
#include <redist/plan/moves.hpp>
#include <redist/plan/plan.hpp>

namespace redist::detail {

/// The directory's block: the entry of global index g lives on rank g / directory_block(n, P), its
/// BLOCK owner.
inline index_t directory_block(index_t n, int nprocs) noexcept {
  return std::max<index_t>(1, (n + nprocs - 1) / nprocs);
}
/// The indices whose entries rank d keeps: [lo, hi).
inline std::pair<index_t, index_t> directory_range(int d, index_t n, int nprocs) noexcept {
  const index_t b = directory_block(n, nprocs);
  const index_t lo = std::min(n, b * d);
  return {lo, std::min(n, lo + b)};
}

/// Records for every rank of a communicator, as one MPI_Alltoallv sends them: counts[q] records
/// for rank q, one rank's after the other's in data.
template <class T>
struct Outbox {
  std::vector<index_t> counts;
  records<T> data;
};

/// The records of per[q] for each rank q, as one Outbox (per is emptied).
template <class T>
Outbox<T> outbox_of(std::vector<std::vector<T>>& per) {
  Outbox<T> out;
  out.counts.resize(per.size());
  std::size_t total = 0;
  for (const auto& v : per) total += v.size();
  out.data.reserve(total);
  for (std::size_t q = 0; q < per.size(); ++q) {
    out.counts[q] = static_cast<index_t>(per[q].size());
    out.data.insert(out.data.end(), per[q].begin(), per[q].end());
    std::vector<T>().swap(per[q]);
  }
  return out;
}

/// The records `each` gives, as one Outbox by rank: each(f) calls f(rank, record) for every record,
/// the same ones in the same order at each call; they are counted by rank, then written in place
/// (no vector per rank, no copy of them into the outbox).
template <class T, class Each>
Outbox<T> outbox_by_rank(int nprocs, Each&& each) {
  Outbox<T> out;
  out.counts.assign(static_cast<std::size_t>(nprocs), 0);
  each([&](std::size_t d, const T&) { ++out.counts[d]; });
  std::vector<std::size_t> at(static_cast<std::size_t>(nprocs) + 1, 0);
  for (std::size_t d = 0; d < out.counts.size(); ++d) at[d + 1] = at[d] + static_cast<std::size_t>(out.counts[d]);
  out.data.resize(at.back());
  each([&](std::size_t d, const T& e) { out.data[at[d]++] = e; });
  return out;
}

/// The requests of a rank that holds `indices` (in local order): its list cut into runs of
/// consecutive indices, each run cut at the directory's block boundaries and sent to the
/// directory rank of its indices. O(local); O(runs) records (one per rank for a list that is a block).
inline Outbox<DirectoryEntry> directory_requests(std::span<const index_t> indices, index_t n, int nprocs) {
  const index_t b = directory_block(n, nprocs);
  // Two passes over the list (outbox_by_rank: count the runs per directory rank, then write them).
  auto runs = [&](auto&& f) {
    std::size_t l = 0;
    while (l < indices.size()) {
      const index_t g = indices[l];
      const index_t block_end = (g / b + 1) * b;
      std::size_t e = l + 1;
      while (e < indices.size() && indices[e] == indices[e - 1] + 1 && indices[e] < block_end) ++e;
      f(static_cast<std::size_t>(g / b), DirectoryEntry{g, static_cast<index_t>(l), static_cast<index_t>(e - l)});
      l = e;
    }
  };
  return outbox_by_rank<DirectoryEntry>(nprocs, runs);
}

/// directory_requests of a list given by its runs (list_runs': consecutive indices at consecutive
/// places, in local order), each cut at the directory's block boundaries: the same requests, in
/// O(runs) instead of two passes over the list (a list that is a block and its ghosts: a few
/// runs where the list is millions of indices).
inline Outbox<DirectoryEntry> directory_requests(std::span<const IndirectDirectory::Piece> runs, index_t n, int nprocs) {
  const index_t b = directory_block(n, nprocs);
  auto pieces = [&](auto&& f) {
    for (const IndirectDirectory::Piece& r : runs)
      for (index_t g = r.index, l = r.local, end = r.index + r.len; g < end;) {
        const index_t k = std::min(end, (g / b + 1) * b) - g;
        f(static_cast<std::size_t>(g / b), DirectoryEntry{g, l, k});
        g += k;
        l += k;
      }
  };
  return outbox_by_rank<DirectoryEntry>(nprocs, pieces);
}

/// Sorts the requests the directory part of [lo, hi) received (counts[q] entries from rank q, one
/// rank's after the other's in `data`) into its pieces, by index then rank. O(pieces log pieces),
/// or O(n / P + pieces) by a counting sort when they are many.
inline void sort_into_pieces(index_t lo, index_t hi, std::span<const DirectoryEntry> data, std::span<const index_t> counts,
                             std::vector<IndirectDirectory::Piece>& pieces) {
  const auto span = static_cast<std::size_t>(hi - lo);
  auto piece = [&](std::size_t q, std::size_t k) {
    return IndirectDirectory::Piece{data[k].index, data[k].len, static_cast<int>(q), data[k].local};
  };
  pieces.clear();
  if (data.size() >= span / 8 && span > 0) {
    // Many pieces (lists of short runs): a counting sort by index, stable in rank order (the
    // requests come by rank). O(n / P + pieces).
    std::vector<index_t> at(span + 1, 0);
    for (const DirectoryEntry& e : data) ++at[static_cast<std::size_t>(e.index - lo) + 1];
    for (std::size_t i = 1; i <= span; ++i) at[i] += at[i - 1];
    pieces.resize(data.size());
    std::size_t k = 0;
    for (std::size_t q = 0; q < counts.size(); ++q)
      for (index_t i = 0; i < counts[q]; ++i, ++k)
        pieces[static_cast<std::size_t>(at[static_cast<std::size_t>(data[k].index - lo)]++)] = piece(q, k);
    return;
  }
  pieces.reserve(data.size());
  std::size_t k = 0;
  for (std::size_t q = 0; q < counts.size(); ++q)
    for (index_t i = 0; i < counts[q]; ++i, ++k) pieces.push_back(piece(q, k));
  std::sort(pieces.begin(), pieces.end(), [](const auto& a, const auto& b) {
    return a.index != b.index ? a.index < b.index : a.rank < b.rank;
  });
}

/// Rank d's part of the directory, made of the requests it received: counts[q] entries from rank
/// q, one rank's after the other's in `data`; its pieces sorted by index, then rank (sort_into_pieces).
inline IndirectDirectory make_directory(int d, index_t n, int nprocs, std::span<const DirectoryEntry> data,
                                        std::span<const index_t> counts) {
  IndirectDirectory dir;
  std::tie(dir.lo, dir.hi) = directory_range(d, n, nprocs);
  sort_into_pieces(dir.lo, dir.hi, data, counts, dir.pieces);
  return dir;
}

/// The pieces of a directory part, by index then rank: made of its deferred requests on the first
/// call (directory_of_requests), then kept. Not to be called by two threads at once on one part
/// (plans that read it are made collectively on the array's communicator, one at a time).
inline const std::vector<IndirectDirectory::Piece>& directory_pieces(const IndirectDirectory& dir) {
  if (!dir.deferred_counts.empty()) {
    sort_into_pieces(dir.lo, dir.hi, dir.deferred, dir.deferred_counts, dir.pieces);
    records<DirectoryEntry>().swap(dir.deferred);
    std::vector<index_t>().swap(dir.deferred_counts);
  }
  return dir.pieces;
}

/// The first index of a directory part that no rank holds, or -1. O(pieces).
inline index_t first_unheld(const IndirectDirectory& dir) {
  index_t covered = dir.lo;  // every index below is held
  for (const auto& p : directory_pieces(dir)) {
    if (p.index > covered) return covered;
    covered = std::max(covered, p.end());
  }
  return covered < dir.hi ? covered : -1;
}

/// The first index of a directory part that some rank holds twice, as {index, rank}, or {-1, -1}:
/// a piece that starts before the end of an earlier piece of its rank. O(pieces + P).
inline std::pair<index_t, int> first_repeated(const IndirectDirectory& dir) {
  std::vector<std::pair<int, index_t>> ends;  // per rank seen: the furthest end of its pieces so far
  std::pair<index_t, int> first{-1, -1};
  auto end_of = [&](int r) -> index_t& {
    const auto it = std::lower_bound(ends.begin(), ends.end(), std::pair<int, index_t>{r, std::numeric_limits<index_t>::min()});
    if (it != ends.end() && it->first == r) return it->second;
    return ends.insert(it, {r, std::numeric_limits<index_t>::min()})->second;
  };
  for (const auto& p : directory_pieces(dir)) {
    index_t& e = end_of(p.rank);
    if (p.index < e && (first.first < 0 || p.index < first.first)) first = {p.index, p.rank};
    e = std::max(e, p.end());
  }
  return first;
}

/// The end of the block of rank o's LDDs in the 1-D mapping m that holds global index g (o holds
/// g): the indices [g, end) are o's at consecutive local indices.
template <class M>
index_t ldd_block_end(const M& m, int o, index_t g) {
  index_t e = g + 1;
  for (const Ldd& d : m.ldds(o))
    if (!d.empty() && g >= d.o && g < d.end() && (g - d.o) % d.s < d.b) e = g + d.b - (g - d.o) % d.s;
  return e;
}

/// Whether some index of a directory part is held by more than one rank (copies or partial
/// values). O(pieces).
inline bool holds_copies(const IndirectDirectory& dir) {
  index_t covered = dir.lo;  // the furthest end of the pieces so far
  for (const auto& p : directory_pieces(dir)) {
    if (p.index < covered) return true;
    covered = std::max(covered, p.end());
  }
  return false;
}

/// What a directory part finds wrong or notable in the lists on its indices: the first index no
/// rank holds (-1: none), the first index a rank lists twice with that rank ({-1, -1}: none), and
/// whether some index is held more than once (by more than one rank, or twice by one: holds_copies).
struct DirectoryChecks {
  index_t unheld = -1;
  std::pair<index_t, int> repeated{-1, -1};
  bool copies = false;
};

/// A directory part of [lo, hi) made of the requests it received (counts[q] entries from rank q,
/// one rank's after the other's in `data`), and its checks. With many requests (lists of short
/// runs: at least (hi - lo) / 8) the checks come from a mark per index (the last rank that listed
/// it; O(n / P + the indices listed)) and the requests are kept unsorted (`deferred`), sorted into
/// pieces only when a pair asks the directory (directory_pieces): a pair planned by formula reads
/// the checks alone. With few, the pieces are sorted now and checked (first_unheld, first_repeated,
/// holds_copies). Both give the same checks.
inline IndirectDirectory directory_of_requests(int d, index_t n, int nprocs, records<DirectoryEntry>&& data,
                                               std::vector<index_t>&& counts, DirectoryChecks& checks) {
  IndirectDirectory dir;
  std::tie(dir.lo, dir.hi) = directory_range(d, n, nprocs);
  const auto span = static_cast<std::size_t>(dir.hi - dir.lo);
  checks = {};
  if (data.size() < span / 8 || span == 0) {
    sort_into_pieces(dir.lo, dir.hi, data, counts, dir.pieces);
    checks = {first_unheld(dir), first_repeated(dir), holds_copies(dir)};
    return dir;
  }
  // mark[i]: 1 + the last rank that listed lo + i (0: none yet). The requests come rank by rank,
  // so a rank that finds its own mark lists the index twice; the first such (index, rank) is the
  // least index, then the least rank.
  records<int> mark(span, 0);  // (a large one on huge pages: acquire_buffer)
  // The requests' indices are anywhere in the part (a permutation's): the mark of the request
  // mark_prefetch ahead is fetched while this one is marked.
  constexpr std::size_t mark_prefetch = 32;
  std::size_t k = 0;
  for (std::size_t q = 0; q < counts.size(); ++q) {
    const int me = static_cast<int>(q) + 1;
    for (index_t c = 0; c < counts[q]; ++c, ++k) {
      if (k + mark_prefetch < data.size())
        __builtin_prefetch(mark.data() + (data[k + mark_prefetch].index - dir.lo), 1, 0);
      const auto at = static_cast<std::size_t>(data[k].index - dir.lo);
      for (std::size_t i = at; i < at + static_cast<std::size_t>(data[k].len); ++i) {
        const int was = mark[i];
        checks.copies = checks.copies || was != 0;
        if (was == me) {
          const auto g = dir.lo + static_cast<index_t>(i);
          if (checks.repeated.first < 0 || g < checks.repeated.first) checks.repeated = {g, static_cast<int>(q)};
        }
        mark[i] = me;
      }
    }
  }
  const auto hole = std::find(mark.begin(), mark.end(), 0);
  if (hole != mark.end()) checks.unheld = dir.lo + static_cast<index_t>(hole - mark.begin());
  dir.deferred = std::move(data);
  dir.deferred_counts = std::move(counts);
  return dir;
}

/// Whether a pair of an Indirect layout and a regular 1-D one is planned by formula, without the
/// directory's second round: when each holder of the Indirect side can tell its moves from its own
/// list and the regular side's owner(g) and local_index(g) alone. That is, when every holder of an
/// index takes part in its moves - as a destination of copies (every holder receives), as a source
/// of partial values (every holder sends) - or the layout holds no index twice (`copies` false: one
/// holder), and the regular side holds each element once (not Replicated or Partial: `everyone`).
/// Tpetra's Import asks a regular source map by formula the same way.
inline bool formula_pair(bool indirect_is_source, bool indirect_partial, bool copies, bool everyone) noexcept {
  if (everyone) return false;
  if (!copies) return true;
  return indirect_is_source == indirect_partial;
}

/// The runs of a list: consecutive indices at consecutive places, as pieces of `rank` (index, len,
/// local), in local order; none when there would be more than `most` (the list is then read
/// itself). O(local).
inline std::vector<IndirectDirectory::Piece> list_runs(std::span<const index_t> indices, int rank, std::size_t most) {
  std::vector<IndirectDirectory::Piece> runs;
  std::size_t l = 0;
  while (l < indices.size()) {
    if (runs.size() == most) return {};
    std::size_t e = l + 1;
    while (e < indices.size() && indices[e] == indices[e - 1] + 1) ++e;
    runs.push_back({indices[l], static_cast<index_t>(e - l), rank, static_cast<index_t>(l)});
    l = e;
  }
  return runs;
}

/// Appends the moves of the run [g, g + len) at this rank's places [l, l + len) with a regular 1-D
/// mapping m (formula_pair): the run cut where an owner's block of LDDs ends, each piece a move
/// between this rank (`me`) and its owner, from this rank when `indirect_is_source`, else to it.
template <class M, class V>
void append_formula_moves(index_t g, index_t l, index_t len, const M& m, int me, bool indirect_is_source, V& moves) {
  while (len > 0) {
    const int o = m.owner(g);
    const index_t k = len == 1 ? 1 : std::min(len, ldd_block_end(m, o, g) - g);
    const index_t there = m.local_index(g);
    moves.push_back(indirect_is_source ? IndirectMove{me, o, l, there, k} : IndirectMove{o, me, there, l, k});
    g += k;
    l += k;
    len -= k;
  }
}

/// This rank's moves between its Indirect list and a regular 1-D mapping m (formula_pair), by
/// formula: the list's runs (`runs`, list_runs', when the directory kept them; else read from
/// `indices`) cut where an owner's block of LDDs ends (append_formula_moves). O(the runs) with
/// runs kept, else O(the list); one formula call per piece.
template <class M>
records<IndirectMove> formula_moves(std::span<const index_t> indices, std::span<const IndirectDirectory::Piece> runs,
                                    const M& m, int me, bool indirect_is_source) {
  records<IndirectMove> moves;
  if (!runs.empty() || indices.empty()) {
    for (const auto& r : runs) append_formula_moves(r.index, r.local, r.len, m, me, indirect_is_source, moves);
    return moves;
  }
  const std::size_t n = indices.size();
  moves.reserve(n);  // at most a move per index (untouched capacity is not memory yet)
  std::size_t l = 0;
  while (l < n) {
    std::size_t e = l + 1;
    while (e < n && indices[e] == indices[e - 1] + 1) ++e;
    append_formula_moves(indices[l], static_cast<index_t>(l), static_cast<index_t>(e - l), m, me, indirect_is_source, moves);
    l = e;
  }
  return moves;
}

/// Whether an Indirect rank of a formula pair sends element lists (formula_lists) instead of
/// moves: its list averages fewer than 4 indices per run of consecutive indices, as a message of
/// such runs is an element list (plan_of_moves). O(local).
inline bool lists_by_formula(std::span<const index_t> indices) noexcept {
  std::size_t runs = indices.empty() ? 0 : 1;
  for (std::size_t l = 1; l < indices.size(); ++l) runs += indices[l] != indices[l - 1] + 1 ? 1 : 0;
  return runs > 1 && indices.size() < 4 * runs;
}

/// An Indirect rank's element lists of a formula pair, whole (formula_lists): per peer q, a block
/// of its elements with q, their places on the sending rank, then on the receiving one, in this
/// rank's list order; the blocks of the other ranks one after the other in rank order (as one
/// MPI_Alltoallv sends them: `words[q]`, 2 per element), this rank's own block (its local copy,
/// `local` elements; words[me] is 0) last. The array layer receives the other ranks' blocks into
/// the same buffer, after these (own_words()), and the plan takes it whole.
struct FormulaLists {
  records<index_t> data;
  std::vector<index_t> words;
  index_t local = 0;
  std::size_t own_words() const noexcept {
    std::size_t w = 2 * static_cast<std::size_t>(local);
    for (const index_t x : words) w += static_cast<std::size_t>(x);
    return w;
  }
};

/// The first pass of formula_lists: how many of this rank's (`me`) elements each owner of the
/// regular 1-D mapping m holds (words, local). O(local + P).
template <class M>
FormulaLists formula_list_counts(std::span<const index_t> indices, const M& m, int me, int nprocs) {
  FormulaLists out;
  out.words.assign(static_cast<std::size_t>(nprocs), 0);
  for (const index_t g : indices) out.words[static_cast<std::size_t>(m.owner(g))] += 2;
  out.local = out.words[static_cast<std::size_t>(me)] / 2;
  out.words[static_cast<std::size_t>(me)] = 0;
  return out;
}

/// The second pass of formula_lists: each element's places written into its owner's block, at the
/// head of out.data (which holds at least own_words()). O(local + P).
template <class M>
void formula_list_fill(std::span<const index_t> indices, const M& m, int me, bool indirect_is_source, FormulaLists& out) {
  const std::size_t np = out.words.size();
  std::vector<std::size_t> at(np, 0), count(np, 0);  // per owner: where its block's sources go next; its elements
  std::size_t w = 0;
  for (std::size_t q = 0; q < np; ++q) {
    if (static_cast<int>(q) == me) continue;
    at[q] = w;
    count[q] = static_cast<std::size_t>(out.words[q]) / 2;
    w += static_cast<std::size_t>(out.words[q]);
  }
  const auto self = static_cast<std::size_t>(me);
  at[self] = w;
  count[self] = static_cast<std::size_t>(out.local);
  for (std::size_t l = 0; l < indices.size(); ++l) {
    const index_t g = indices[l];
    const auto o = static_cast<std::size_t>(m.owner(g));
    const index_t there = m.local_index(g);
    index_t* s = out.data.data() + at[o]++;
    s[count[o]] = indirect_is_source ? there : static_cast<index_t>(l);  // the destination's place
    *s = indirect_is_source ? static_cast<index_t>(l) : there;
  }
}

/// This rank's (`me`) element lists between its Indirect list `indices` and a regular 1-D mapping
/// m (formula_pair), by formula: each element a single move, from this rank when
/// `indirect_is_source`, else to it. 16 bytes an element (a move record is 32): what a
/// permutation's plan is made of. Two passes over the list (count per owner, then write each
/// element's places in its block): O(local + P).
template <class M>
FormulaLists formula_lists(std::span<const index_t> indices, const M& m, int me, int nprocs, bool indirect_is_source) {
  FormulaLists out = formula_list_counts(indices, m, me, nprocs);
  out.data.resize(out.own_words());
  formula_list_fill(indices, m, me, indirect_is_source, out);
  return out;
}

/// The element-list blocks of a formula pair on this rank (`me`): its own (`own`, formula_lists;
/// none when it sends moves) and those the other Indirect ranks sent it (`in_words[q]` words from
/// rank q, one rank's after the other's in `in`), each as the message it is: from the Indirect
/// rank to the owner when the Indirect side is the source, else the other way. Spans into `own`
/// and `in`.
inline std::vector<ListedBlock> formula_blocks(const FormulaLists& own, std::span<const index_t> in_words,
                                               std::span<const index_t> in, int me, bool indirect_is_source) {
  std::vector<ListedBlock> blocks;
  auto add = [&](int indirect_rank, int owner, std::span<const index_t> places) {
    if (places.empty()) return;
    blocks.push_back(indirect_is_source ? ListedBlock{indirect_rank, owner, places} : ListedBlock{owner, indirect_rank, places});
  };
  std::size_t w = 0;
  for (std::size_t q = 0; q < own.words.size(); ++q) {
    const auto len = static_cast<std::size_t>(own.words[q]);
    add(me, static_cast<int>(q), std::span<const index_t>(own.data).subspan(w, len));
    w += len;
  }
  if (own.local > 0) add(me, me, std::span<const index_t>(own.data).subspan(w, 2 * static_cast<std::size_t>(own.local)));
  w = 0;
  for (std::size_t q = 0; q < in_words.size(); ++q) {
    const auto len = static_cast<std::size_t>(in_words[q]);
    add(static_cast<int>(q), me, in.subspan(w, len));
    w += len;
  }
  return blocks;
}

/// Whether a regular 1-D mapping m of n elements on `nprocs` ranks holds each rank d's directory
/// part [lo, hi) on d itself, at local indices 0, 1, ... (a Block of ceil(n / P): the directory's
/// own distribution). Then the moves and element lists of a formula pair with m that an Indirect
/// rank q makes for d are, one for one and in the same order, the requests q sent d's directory
/// part when the array was made: d makes them from its part (directory_formula_records) and no
/// round sends them. The same on every rank; O(P).
template <class M>
bool directory_is_owner(const M& m, index_t n, int nprocs) {
  if (m.size() != n || m.nprocs() != nprocs) return false;
  for (int d = 0; d < nprocs; ++d) {
    const auto [lo, hi] = directory_range(d, n, nprocs);
    if (lo < hi && (m.owner(lo) != d || m.local_index(lo) != 0 || ldd_block_end(m, d, lo) < hi)) return false;
  }
  return true;
}

/// The requests a directory part was made of (directory_requests: each sender's runs on the part,
/// cut at its ends, in the sender's list order), by sender: counts[q] from rank q, one rank's after
/// the other's in `data`. The deferred requests themselves while the part keeps them; else
/// rebuilt from its pieces (one per request), each sender's put back in its list order.
/// O(requests), or O(requests log requests) rebuilt.
struct RequestsBySender {
  records<DirectoryEntry> rebuilt;
  std::span<const DirectoryEntry> data;
  std::vector<index_t> counts;
};
inline RequestsBySender requests_by_sender(const IndirectDirectory& dir, int nprocs) {
  RequestsBySender r;
  if (!dir.deferred_counts.empty()) {
    r.data = dir.deferred;
    r.counts = dir.deferred_counts;
    return r;
  }
  const auto np = static_cast<std::size_t>(nprocs);
  const std::vector<IndirectDirectory::Piece>& pieces = directory_pieces(dir);
  r.counts.assign(np, 0);
  for (const auto& p : pieces) ++r.counts[static_cast<std::size_t>(p.rank)];
  std::vector<std::size_t> at(np + 1, 0);
  for (std::size_t q = 0; q < np; ++q) at[q + 1] = at[q] + static_cast<std::size_t>(r.counts[q]);
  r.rebuilt.resize(pieces.size());
  std::vector<std::size_t> next(at.begin(), at.end() - 1);
  for (const auto& p : pieces) r.rebuilt[next[static_cast<std::size_t>(p.rank)]++] = DirectoryEntry{p.index, p.local, p.len};
  for (std::size_t q = 0; q < np; ++q)
    std::sort(r.rebuilt.begin() + static_cast<std::ptrdiff_t>(at[q]), r.rebuilt.begin() + static_cast<std::ptrdiff_t>(at[q + 1]),
              [](const DirectoryEntry& a, const DirectoryEntry& b) { return a.local < b.local; });
  r.data = r.rebuilt;
  return r;
}

/// The records the other Indirect ranks of a formula pair send this rank (`me`), when the regular
/// side is the directory's owner (directory_is_owner), made from this rank's directory part
/// instead of received: rank q's moves (`in_moves[q]` of them, appended to `moves`) or its
/// element-list block (`in_words[q]` words, written at `words`, one rank's block after the
/// other's, as an MPI_Alltoallv would put them). Each request of q, [index, index + len) at q's
/// places [local, local + len), is one move between q and this rank's places [index - lo, ...),
/// and in a block its elements one by one: what q's formula_moves and formula_list_fill make, in
/// their order. Counts that do not match the requests are an internal error. O(the records).
inline void directory_formula_records(const IndirectDirectory& dir, int me, bool indirect_is_source,
                                      std::span<const index_t> in_moves, std::span<const index_t> in_words,
                                      records<IndirectMove>& moves, index_t* words) {
  const RequestsBySender req = requests_by_sender(dir, static_cast<int>(in_moves.size()));
  std::size_t k = 0;
  for (std::size_t q = 0; q < in_moves.size(); ++q) {
    const std::span<const DirectoryEntry> mine = req.data.subspan(k, static_cast<std::size_t>(req.counts[q]));
    k += mine.size();
    if (static_cast<int>(q) == me) continue;  // this rank's own: in its own moves or block
    const int peer = static_cast<int>(q);
    if (in_moves[q] > 0) {
      REDIST_EXPECTS(in_moves[q] == static_cast<index_t>(mine.size()),
                     "redist: a formula pair's moves from rank " + std::to_string(q) + " do not match its directory requests");
      for (const DirectoryEntry& e : mine)
        moves.push_back(indirect_is_source ? IndirectMove{peer, me, e.local, e.index - dir.lo, e.len}
                                           : IndirectMove{me, peer, e.index - dir.lo, e.local, e.len});
      continue;
    }
    const auto count = static_cast<std::size_t>(in_words[q]) / 2;
    std::size_t elements = 0;
    for (const DirectoryEntry& e : mine) elements += static_cast<std::size_t>(e.len);
    REDIST_EXPECTS(elements == count,
                   "redist: a formula pair's element list from rank " + std::to_string(q) + " does not match its directory requests");
    // The block: the sending rank's places, then the receiving rank's, element by element.
    index_t* src = words;
    index_t* dst = words + count;
    for (const DirectoryEntry& e : mine)
      for (index_t i = 0; i < e.len; ++i) {
        const index_t here = e.index - dir.lo + i, there = e.local + i;
        *src++ = indirect_is_source ? there : here;
        *dst++ = indirect_is_source ? here : there;
      }
    words += 2 * count;
  }
}

/// How many of this rank's (`me`) moves each peer is the other end of (the moves within this rank
/// counted nowhere), their order kept. O(moves + P).
inline std::vector<index_t> peer_counts(std::span<const IndirectMove> moves, int me, int nprocs) {
  std::vector<index_t> counts(static_cast<std::size_t>(nprocs), 0);
  for (const IndirectMove& m : moves)
    if (m.from != m.to) ++counts[static_cast<std::size_t>(m.from == me ? m.to : m.from)];
  return counts;
}

/// Orders the moves of this rank (`me`) in place by their peer, the other end of each (the moves
/// within this rank last), and returns how many each rank gets: one MPI_Alltoallv sends them from
/// `moves` itself. One counting sort by cycles (each swap puts a move in its peer's place):
/// O(moves + P), no copy. A peer's moves change order, alike for those sent and those kept
/// (both ends of a message read its moves in this one order).
inline std::vector<index_t> order_by_peer(std::span<IndirectMove> moves, int me, int nprocs) {
  const auto np = static_cast<std::size_t>(nprocs);
  auto key = [me, np](const IndirectMove& m) {
    return m.from == m.to ? np : static_cast<std::size_t>(m.from == me ? m.to : m.from);
  };
  std::vector<std::size_t> start(np + 2, 0);
  for (const IndirectMove& m : moves) ++start[key(m) + 1];
  for (std::size_t k = 1; k < start.size(); ++k) start[k] += start[k - 1];
  std::vector<std::size_t> at(start.begin(), start.end() - 1);
  for (std::size_t k = 0; k < at.size(); ++k)
    while (at[k] < start[k + 1]) {
      const std::size_t s = key(moves[at[k]]);
      if (s == k) ++at[k];
      else std::swap(moves[at[k]], moves[at[s]++]);
    }
  std::vector<index_t> counts(np);
  for (std::size_t q = 0; q < np; ++q) counts[q] = static_cast<index_t>(start[q + 1] - start[q]);
  return counts;
}

/// One side of a pair as the directory sees it, on the indices [lo, hi): its pieces, by index then
/// rank. An Indirect layout's are its directory part's; a regular 1-D mapping M's come by formula
/// (owner and local index, consecutive ones joined), or are one piece held by every rank at local
/// index = global index (`everyone`: Replicated, Partial).
template <class M>
class DirectorySide {
 public:
  using Piece = IndirectDirectory::Piece;
  static constexpr int everyone = -1;  ///< Piece::rank of a piece every rank holds

  DirectorySide(const M& m, const IndirectDirectory* dir) : m_{m}, dir_{dir} {}
  /// The pieces on [lo, hi): the directory part's own (not copied), or made here and kept until
  /// the next call.
  std::span<const Piece> pieces(index_t lo, index_t hi) {
    if constexpr (indirect_mapping<M>) {
      return directory_pieces(*dir_);
    } else {
      own_.clear();
      if (lo >= hi) return own_;
      if (replicated_mapping_of(m_) || partial_mapping_of(m_)) {
        own_.push_back(Piece{lo, hi - lo, everyone, lo});
        return own_;
      }
      // A piece runs to the end of the block of its owner's LDD that holds g (local indices are
      // consecutive within a block): O(pieces), not O(indices).
      index_t g = lo;
      while (g < hi) {
        const int o = m_.owner(g);
        const index_t e = std::min(ldd_block_end(m_, o, g), hi);
        own_.push_back(Piece{g, e - g, o, m_.local_index(g)});
        g = e;
      }
      return own_;
    }
  }

 private:
  const M& m_;
  const IndirectDirectory* dir_;
  std::vector<Piece> own_;
};

/// The moves of the indices [lo, hi) (a directory part) from the side `src` to the side `dst` on
/// P ranks, appended to moves[q] for each rank q that sends or receives them, as runs (a move of
/// `len` consecutive elements). The part is cut into segments on which no piece of either side
/// starts or ends; on each:
///  - every holder of the destination receives (`every_receiver`: copies), or its first holder
///    only (a destination of partial values: Indirect<Op>, Partial; the others hold Op's identity,
///    which the array layer writes);
///  - a receiver reads every holder of the source (`folds`: partial values, folded on arrival), or
///    one: itself when it holds one, else the holder it read its previous segment from when that
///    one holds this segment too (messages of long runs), else the first.
/// O(segments · holders per segment): a list that is a block costs what a block costs.
template <class Src, class Dst>
void directory_moves(index_t lo, index_t hi, Src& src, Dst& dst, bool folds, bool every_receiver, int nprocs,
                     std::vector<std::vector<IndirectMove>>& moves) {
  using Piece = IndirectDirectory::Piece;
  constexpr int everyone = -1;
  moves.resize(static_cast<std::size_t>(nprocs));
  if (lo >= hi) return;
  const std::span<const Piece> sp = src.pieces(lo, hi), dp = dst.pieces(lo, hi);
  // Where a piece of either side starts or ends, in order: each side's starts are sorted (its
  // pieces are), its ends nearly always (pieces that overlap are ghosts): merged, not sorted.
  auto side_cuts = [&](std::span<const Piece> v) {
    std::vector<index_t> c;
    c.reserve(2 * v.size() + 2);
    c.push_back(lo);
    for (const Piece& p : v) c.push_back(std::clamp(p.index, lo, hi));
    const auto mid = static_cast<std::ptrdiff_t>(c.size());
    for (const Piece& p : v) c.push_back(std::clamp(p.end(), lo, hi));
    c.push_back(hi);
    if (!std::is_sorted(c.begin() + mid, c.end())) std::sort(c.begin() + mid, c.end());
    std::inplace_merge(c.begin(), c.begin() + mid, c.end());
    return c;
  };
  std::vector<index_t> cuts;
  {
    const std::vector<index_t> a = side_cuts(sp), b = side_cuts(dp);
    cuts.resize(a.size() + b.size());
    std::merge(a.begin(), a.end(), b.begin(), b.end(), cuts.begin());
  }
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  std::vector<int> last(static_cast<std::size_t>(nprocs), -1);  // receiver -> the rank it read its previous segment from
  auto emit = [&](int s, index_t ls, int r, index_t lr, index_t len) {
    auto add = [&](std::vector<IndirectMove>& v) {
      if (!v.empty()) {
        IndirectMove& b = v.back();
        if (b.from == s && b.to == r && b.src + b.len == ls && b.dst + b.len == lr) {
          b.len += len;
          return;
        }
      }
      v.push_back(IndirectMove{s, r, ls, lr, len});
    };
    add(moves[static_cast<std::size_t>(s)]);
    if (r != s) add(moves[static_cast<std::size_t>(r)]);
  };
  // The pieces covering the segment [a, b), by rank (a sweep: pieces sorted by index).
  struct Active {
    std::span<const Piece> pieces;
    std::size_t next = 0;
    std::vector<const Piece*> now;
    void at(index_t a) {
      std::erase_if(now, [a](const Piece* p) { return p->end() <= a; });
      while (next < pieces.size() && pieces[next].index <= a) {
        if (pieces[next].end() > a) now.push_back(&pieces[next]);
        ++next;
      }
      std::sort(now.begin(), now.end(), [](const Piece* x, const Piece* y) { return x->rank < y->rank; });
    }
  };
  Active s{sp, 0, {}}, t{dp, 0, {}};
  for (std::size_t c = 0; c + 1 < cuts.size(); ++c) {
    const index_t a = cuts[c], len = cuts[c + 1] - a;
    s.at(a);
    t.at(a);
    if (s.now.empty() || t.now.empty()) continue;  // unheld: refused when its array was made
    auto receive = [&](int r, index_t lr) {
      if (s.now.front()->rank == everyone) {
        const index_t ls = s.now.front()->local + (a - s.now.front()->index);
        if (folds)
          for (int q = 0; q < nprocs; ++q) emit(q, ls, r, lr, len);
        else
          emit(r, ls, r, lr, len);
        return;
      }
      if (folds) {
        for (const Piece* p : s.now) emit(p->rank, p->local + (a - p->index), r, lr, len);
        return;
      }
      const Piece* chosen = nullptr;
      for (const Piece* p : s.now) {
        if (p->rank == r) {
          chosen = p;
          break;
        }
        if (p->rank == last[static_cast<std::size_t>(r)] && chosen == nullptr) chosen = p;
      }
      if (chosen == nullptr) chosen = s.now.front();
      last[static_cast<std::size_t>(r)] = chosen->rank;
      emit(chosen->rank, chosen->local + (a - chosen->index), r, lr, len);
    };
    const Piece* first = t.now.front();
    if (first->rank == everyone) {
      const index_t lr = first->local + (a - first->index);
      for (int r = 0; r < (every_receiver ? nprocs : 1); ++r) receive(r, lr);
    } else {
      for (const Piece* p : t.now) {
        receive(p->rank, p->local + (a - p->index));
        if (!every_receiver) break;
      }
    }
  }
}

/// The places of this rank's destination that a one-stage plan writes (its local copy and its
/// receives), as a mask over `size` elements.
template <class R>
std::vector<unsigned char> written_places(const BasicPlan<R>& plan, index_t size) {
  std::vector<unsigned char> mask(static_cast<std::size_t>(size), 0);
  auto mark = [&](const Stage<R>& st, const Message& m) {
    if (m.listed())
      for (index_t place : st.dst_list(m)) mask[static_cast<std::size_t>(place)] = 1;
    for (const R& r : st.runs_of(m))
      for (index_t j = 0; j < r.count; ++j)
        for (index_t e = 0; e < r.len; ++e) mask[static_cast<std::size_t>(r.dst + j * r.dst_stride + e * r.dst_step)] = 1;
  };
  for (const Stage<R>& st : plan.stages) {
    if (st.to != Buffer::destination) continue;
    mark(st, st.local);
    for (const Message& m : st.recvs) mark(st, m);
  }
  return mask;
}

}  // namespace redist::detail
