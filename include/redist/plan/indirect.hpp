/// @file Defines the distributed directory of Indirect layouts (the rendezvous method) as pure functions, which the array layer's all-to-all rounds connect: the requests a rank sends to the directory, the directory part a rank makes of those it receives, and the moves a directory rank gives the ranks for a pair of layouts. No communication: the virtual-rank tests run every rank's part in one process.
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include <redist/config.hpp>
#include <redist/dist/indirect.hpp>
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
  std::vector<T> data;
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

/// A request to the directory: the sender's local element `local` is global element `index`.
struct DirectoryEntry {
  index_t index = 0;
  index_t local = 0;
};

/// The requests of a rank that holds `indices` (in local order): each (index, local) for the
/// directory rank of its index, in local order per rank. O(local).
inline Outbox<DirectoryEntry> directory_requests(std::span<const index_t> indices, index_t n, int nprocs) {
  const index_t b = directory_block(n, nprocs);
  Outbox<DirectoryEntry> out;
  out.counts.assign(static_cast<std::size_t>(nprocs), 0);
  for (index_t g : indices) ++out.counts[static_cast<std::size_t>(g / b)];
  std::vector<index_t> at(static_cast<std::size_t>(nprocs), 0);
  for (std::size_t q = 1; q < at.size(); ++q) at[q] = at[q - 1] + out.counts[q - 1];
  out.data.resize(indices.size());
  for (std::size_t l = 0; l < indices.size(); ++l)
    out.data[static_cast<std::size_t>(at[static_cast<std::size_t>(indices[l] / b)]++)] =
        DirectoryEntry{indices[l], static_cast<index_t>(l)};
  return out;
}

/// Rank d's part of the directory, made of the requests it received: counts[q] entries from rank
/// q, one rank's after the other's in `data` (rank order, so that each index's holders come by
/// rank). O(n / P + entries).
inline IndirectDirectory make_directory(int d, index_t n, int nprocs, std::span<const DirectoryEntry> data,
                                        std::span<const index_t> counts) {
  IndirectDirectory dir;
  std::tie(dir.lo, dir.hi) = directory_range(d, n, nprocs);
  dir.start.assign(static_cast<std::size_t>(dir.hi - dir.lo + 1), 0);
  for (const DirectoryEntry& e : data) ++dir.start[static_cast<std::size_t>(e.index - dir.lo + 1)];
  for (std::size_t i = 1; i < dir.start.size(); ++i) dir.start[i] += dir.start[i - 1];
  dir.holders.resize(data.size());
  std::vector<index_t> at(dir.start.begin(), dir.start.end() - 1);
  std::size_t k = 0;
  for (std::size_t q = 0; q < counts.size(); ++q)
    for (index_t i = 0; i < counts[q]; ++i, ++k) {
      const DirectoryEntry& e = data[k];
      dir.holders[static_cast<std::size_t>(at[static_cast<std::size_t>(e.index - dir.lo)]++)] =
          IndirectDirectory::Holder{static_cast<int>(q), e.local};
    }
  return dir;
}

/// The first index of a directory part that no rank holds, or -1.
inline index_t first_unheld(const IndirectDirectory& dir) noexcept {
  for (index_t g = dir.lo; g < dir.hi; ++g)
    if (dir.start[static_cast<std::size_t>(g - dir.lo + 1)] == dir.start[static_cast<std::size_t>(g - dir.lo)]) return g;
  return -1;
}

/// The holders of one global index on one side of a pair: a list (by rank), or every rank at local
/// index `local` (a dimension every process holds whole: Replicated, Partial).
struct HolderSet {
  bool everyone = false;
  index_t local = 0;
  std::span<const IndirectDirectory::Holder> list;
};

/// One side of a pair as the directory sees it: the 1-D mapping M, with its directory part when
/// M is an Indirect layout's (g must be in that part), by formula otherwise.
template <class M>
class DirectorySide {
 public:
  DirectorySide(const M& m, const IndirectDirectory* dir) : m_{m}, dir_{dir} {}
  /// The holders of g (buf holds a formula's one holder).
  HolderSet holders(index_t g) {
    if constexpr (indirect_mapping<M>) {
      return {false, 0, dir_->of(g)};
    } else {
      if (replicated_mapping_of(m_) || partial_mapping_of(m_)) return {true, g, {}};
      one_ = IndirectDirectory::Holder{m_.owner(g), m_.local_index(g)};
      return {false, 0, std::span<const IndirectDirectory::Holder>(&one_, 1)};
    }
  }

 private:
  const M& m_;
  const IndirectDirectory* dir_;
  IndirectDirectory::Holder one_;
};

/// The moves of the indices [lo, hi) (a directory part) from the side `src` to the side `dst` on
/// P ranks, appended to moves[q] for each rank q that sends or receives them:
///  - every holder of the destination receives (`every_receiver`: copies), or its first holder
///    only (a destination of partial values: Indirect<Op>, Partial; the others hold Op's identity,
///    which the array layer writes);
///  - a receiver reads every holder of the source (`folds`: partial values, folded on arrival), or
///    one: itself when it holds one, else the holder it read the previous index from when that
///    one holds this index too (messages of long runs), else the first.
/// O(the moves) with a list on each side.
template <class Src, class Dst>
void directory_moves(index_t lo, index_t hi, Src& src, Dst& dst, bool folds, bool every_receiver, int nprocs,
                     std::vector<std::vector<IndirectMove>>& moves) {
  moves.resize(static_cast<std::size_t>(nprocs));
  std::unordered_map<int, int> last;  // receiver -> the rank it read its previous index from
  auto emit = [&](int s, index_t ls, int r, index_t lr) {
    const IndirectMove m{s, r, ls, lr};
    moves[static_cast<std::size_t>(s)].push_back(m);
    if (r != s) moves[static_cast<std::size_t>(r)].push_back(m);
  };
  auto receive = [&](const HolderSet& from, int r, index_t lr) {
    if (from.everyone) {
      if (folds)
        for (int s = 0; s < nprocs; ++s) emit(s, from.local, r, lr);
      else
        emit(r, from.local, r, lr);
      return;
    }
    if (folds) {
      for (const auto& h : from.list) emit(h.rank, h.local, r, lr);
      return;
    }
    const IndirectDirectory::Holder* chosen = nullptr;
    int previous = -1;
    if (auto it = last.find(r); it != last.end()) previous = it->second;
    for (const auto& h : from.list) {
      if (h.rank == r) {
        chosen = &h;
        break;
      }
      if (h.rank == previous && chosen == nullptr) chosen = &h;
    }
    if (chosen == nullptr) chosen = &from.list.front();
    last[r] = chosen->rank;
    emit(chosen->rank, chosen->local, r, lr);
  };
  for (index_t g = lo; g < hi; ++g) {
    const HolderSet from = src.holders(g);
    if (!from.everyone && from.list.empty()) continue;  // unheld: refused when its array was made
    const HolderSet to = dst.holders(g);
    if (to.everyone) {
      for (int r = 0; r < (every_receiver ? nprocs : 1); ++r) receive(from, r, to.local);
    } else {
      for (const auto& h : to.list) {
        receive(from, h.rank, h.local);
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
