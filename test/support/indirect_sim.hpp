/// @file Defines the virtual-rank simulation of Indirect layouts: every rank's part of the directory's two all-to-all rounds run in one process (the pure functions of plan/indirect.hpp), the plans run in memory with folds, checked against the brute-force oracle on every holder. Used by test/unit/test_indirect.cpp and the fuzzer test/fuzz/fuzz_indirect.cpp.
#pragma once

#include <algorithm>
#include <utility>
#include <string>
#include <type_traits>
#include <vector>

#include <redist/dist/indirect.hpp>
#include <redist/dist/partial.hpp>
#include <redist/plan/indirect.hpp>
#include <redist/plan/layout.hpp>
#include <redist/plan/plan.hpp>

namespace redist::test {

/// The first round's requests of the ranks whose rank r lists lists[r], as each directory rank
/// receives them: per directory rank d, the records (one sender's after the other's) and their
/// counts per sender (the array layer's MPI_Alltoallv).
struct ReceivedRequests {
  std::vector<detail::records<detail::DirectoryEntry>> data;
  std::vector<std::vector<index_t>> counts;
};
inline ReceivedRequests received_requests(const std::vector<std::vector<index_t>>& lists, index_t n) {
  const int p = static_cast<int>(lists.size());
  std::vector<detail::Outbox<detail::DirectoryEntry>> out;
  for (const auto& l : lists) out.push_back(detail::directory_requests(l, n, p));
  std::vector<index_t> at(static_cast<std::size_t>(p), 0);  // per sender: where its records for d start
  ReceivedRequests in;
  in.data.resize(static_cast<std::size_t>(p));
  in.counts.resize(static_cast<std::size_t>(p));
  for (int d = 0; d < p; ++d)
    for (int r = 0; r < p; ++r) {
      in.counts[d].push_back(out[r].counts[d]);
      in.data[d].insert(in.data[d].end(), out[r].data.begin() + at[r], out[r].data.begin() + at[r] + out[r].counts[d]);
      at[r] += out[r].counts[d];
    }
  return in;
}

/// Every rank's directory part of the layout whose rank r lists lists[r] (the first round).
inline std::vector<IndirectDirectory> directories(const std::vector<std::vector<index_t>>& lists, index_t n) {
  const int p = static_cast<int>(lists.size());
  ReceivedRequests in = received_requests(lists, n);
  std::vector<IndirectDirectory> dirs;
  bool copies = false;
  for (int d = 0; d < p; ++d) {
    auto& data = in.data[static_cast<std::size_t>(d)];
    auto& counts = in.counts[static_cast<std::size_t>(d)];
    detail::DirectoryChecks checks;
    dirs.push_back(detail::directory_of_requests(d, n, p, std::move(data), std::move(counts), checks));
    copies = copies || checks.copies;
  }
  for (auto& d : dirs) d.copies = copies;  // the array layer's all-reduce
  return dirs;
}

/// One side of a virtual pair: an Indirect layout (lists per rank, Op void or std::plus) or a
/// regular 1-D mapping M.
template <class M>
struct Side {
  M m;
  std::vector<std::vector<index_t>> lists;  // per rank: its global indices in local order
  std::vector<IndirectDirectory> dirs;
  bool indirect = false;
  bool partial = false;  // holds partial values (Indirect<plus>, Partial<>)
};

template <class Op>
Side<typename Indirect<Op>::mapping> indirect_side(const std::vector<std::vector<index_t>>& lists, index_t n) {
  const int p = static_cast<int>(lists.size());
  Side<typename Indirect<Op>::mapping> s{typename Indirect<Op>::mapping(Indirect<Op>{lists[0]}, n, p), lists, directories(lists, n),
                                         true, !std::is_void_v<Op>};
  return s;
}
template <class M>
Side<M> regular_side(const M& m) {
  Side<M> s{m, {}, {}, false, detail::partial_mapping_of(m)};
  for (int r = 0; r < m.nprocs(); ++r) {
    s.lists.emplace_back();
    for (index_t l = 0; l < m.local_size(r); ++l) s.lists.back().push_back(m.global_index(r, l));
  }
  return s;
}

/// Whether the array layer plans src -> dst by formula (detail::formula_pair), not by the directory.
template <class A, class B>
bool by_formula(const Side<A>& src, const Side<B>& dst) {
  if (src.indirect == dst.indirect) return false;
  const bool source = src.indirect;
  const bool copies = source ? src.dirs.front().copies : dst.dirs.front().copies;
  const bool everyone = source ? detail::replicated_mapping_of(dst.m) || detail::partial_mapping_of(dst.m)
                               : detail::replicated_mapping_of(src.m) || detail::partial_mapping_of(src.m);
  return detail::formula_pair(source, source ? src.partial : dst.partial, copies, everyone);
}

/// Every rank's moves for src -> dst, and every rank's plan of them: by formula where the array
/// layer takes that way and `formula` allows it (each Indirect rank's moves, sent to their other
/// ends), else by the directory (the second round: each directory rank's moves, handed to the
/// ranks that take part).
template <class A, class B>
std::vector<Plan> plans_of(const Side<A>& src, const Side<B>& dst, index_t n, std::vector<std::vector<IndirectMove>>* kept = nullptr,
                           bool formula = true) {
  const int p = src.m.nprocs();
  const auto np = static_cast<std::size_t>(p);
  std::vector<std::vector<IndirectMove>> got(np);
  // Element lists made whole (a list of short runs, as the array layer sends them): each rank's
  // own, what each receives, and the blocks of both.
  std::vector<detail::FormulaLists> lists(np);
  std::vector<std::vector<index_t>> lists_in(np), in_words(np, std::vector<index_t>(np, 0));
  std::vector<std::size_t> own(np, 0);  // per rank: its own blocks' words, at the head of its buffer
  std::vector<std::vector<detail::ListedBlock>> blocks(np);
  if (formula && by_formula(src, dst)) {
    // The regular side is the directory's own Block (directory_is_owner): each rank's moves kept
    // in their order, and what each rank receives made from its directory part (the array layer
    // sends only the counts).
    auto run = [&](const auto& side, const auto& regular, bool source) {
      const bool at_owner = detail::directory_is_owner(regular.m, n, p);
      std::vector<std::vector<index_t>> move_counts(np);  // per rank: its moves per peer (at_owner)
      for (int r = 0; r < p; ++r) {
        // The list's runs where the array layer keeps them (a list of few runs), else the list.
        const auto& list = side.lists[static_cast<std::size_t>(r)];
        const auto runs = detail::list_runs(list, r, list.size() / 8);
        if (runs.empty() && detail::lists_by_formula(list)) {
          lists[static_cast<std::size_t>(r)] = detail::formula_lists(list, regular.m, r, p, source);
          continue;
        }
        auto mine = detail::formula_moves(list, runs, regular.m, r, source);
        if (at_owner) {
          move_counts[static_cast<std::size_t>(r)] = detail::peer_counts(mine, r, p);
          got[static_cast<std::size_t>(r)].insert(got[static_cast<std::size_t>(r)].end(), mine.begin(), mine.end());
          continue;
        }
        // Ordered by peer in place (the array layer sends them from there and keeps them so).
        const auto counts = detail::order_by_peer(mine, r, p);
        got[static_cast<std::size_t>(r)].insert(got[static_cast<std::size_t>(r)].end(), mine.begin(), mine.end());
        std::size_t k = 0;
        for (int q = 0; q < p; ++q)
          for (index_t i = 0; i < counts[static_cast<std::size_t>(q)]; ++i, ++k) got[static_cast<std::size_t>(q)].push_back(mine[k]);
      }
      if (!at_owner) return false;
      for (std::size_t r = 0; r < np; ++r) {
        std::vector<index_t> in_moves(np, 0);
        std::size_t total = 0;
        for (std::size_t q = 0; q < np; ++q) {
          if (!move_counts[q].empty()) in_moves[q] = move_counts[q][r];
          if (!lists[q].words.empty()) in_words[r][q] = lists[q].words[r];
          total += static_cast<std::size_t>(in_words[r][q]);
        }
        if (lists[r].words.empty()) lists[r].words.assign(np, 0);
        own[r] = lists[r].data.size();
        lists[r].data.resize(own[r] + total);
        detail::records<IndirectMove> in;
        detail::directory_formula_records(side.dirs[r], static_cast<int>(r), source, in_moves, in_words[r], in,
                                          lists[r].data.data() + own[r]);
        got[r].insert(got[r].end(), in.begin(), in.end());
        blocks[r] = detail::formula_blocks(lists[r], in_words[r], std::span<const index_t>(lists[r].data).subspan(own[r]),
                                           static_cast<int>(r), source);
      }
      return true;
    };
    bool made = false;
    if constexpr (detail::indirect_mapping<A> && !detail::indirect_mapping<B>) made = run(src, dst, true);
    else if constexpr (detail::indirect_mapping<B> && !detail::indirect_mapping<A>) made = run(dst, src, false);
    // The second round: each rank's blocks to their ranks (the array layer's MPI_Alltoallv).
    for (std::size_t q = 0; q < np && !made; ++q) {
      if (lists[q].words.empty()) continue;
      std::size_t w = 0;
      for (std::size_t r = 0; r < np; ++r) {
        const auto len = static_cast<std::size_t>(lists[q].words[r]);
        in_words[r][q] = static_cast<index_t>(len);
        lists_in[r].insert(lists_in[r].end(), lists[q].data.begin() + static_cast<std::ptrdiff_t>(w),
                           lists[q].data.begin() + static_cast<std::ptrdiff_t>(w + len));
        w += len;
      }
    }
    // Each rank's buffer: its own blocks, then those it received (as the array layer has it).
    for (std::size_t r = 0; r < np && !made; ++r) {
      if (lists[r].words.empty()) lists[r].words.assign(np, 0);
      own[r] = lists[r].data.size();
      lists[r].data.insert(lists[r].data.end(), lists_in[r].begin(), lists_in[r].end());
      blocks[r] = detail::formula_blocks(lists[r], in_words[r], std::span<const index_t>(lists[r].data).subspan(own[r]),
                                         static_cast<int>(r), src.indirect);
    }
  } else {
    for (int d = 0; d < p; ++d) {
      detail::DirectorySide<A> s(src.m, src.indirect ? &src.dirs[d] : nullptr);
      detail::DirectorySide<B> t(dst.m, dst.indirect ? &dst.dirs[d] : nullptr);
      const auto [lo, hi] = detail::directory_range(d, n, p);
      bool every = !dst.partial;
      std::vector<std::vector<IndirectMove>> per;
      detail::directory_moves(lo, hi, s, t, src.partial, every, p, per);
      for (int r = 0; r < p; ++r) got[r].insert(got[r].end(), per[r].begin(), per[r].end());
    }
  }
  std::vector<Plan> plans;
  for (int r = 0; r < p; ++r)
    plans.push_back(detail::plan_of_moves(detail::IndirectMoves{got[r], {}, blocks[static_cast<std::size_t>(r)],
                                                                blocks[static_cast<std::size_t>(r)].empty()
                                                                    ? nullptr
                                                                    : &lists[static_cast<std::size_t>(r)].data},
                                          r, p));
  if (kept != nullptr) *kept = std::move(got);
  return plans;
}

/// The value rank r holds for global index g as a source: the element g + 1, or (partial values)
/// a part of it that depends on the rank.
inline double part(index_t g, int r, bool partial) { return partial ? static_cast<double>((g * 7 + r * 13) % 17 + 1) : static_cast<double>(g + 1); }

/// Runs every rank's plan in memory; checks each message against its receiver's (same peer
/// pairing, same runs), folds by + where the source holds partial values, and returns the
/// destinations; writes[r][l] counts the stores into rank r's place l. Places a plan does not
/// write hold 0 (what the array layer writes there: detail::written_places).
template <class A, class B>
std::vector<std::vector<double>> run_plans(const std::vector<Plan>& plans, const Side<A>& src, const Side<B>& dst,
                                           std::vector<std::vector<int>>& writes, std::string& failure) {
  auto fail = [&](const std::string& why) {
    if (failure.empty()) failure = why;
  };
  const std::size_t p = plans.size();
  std::vector<std::vector<double>> in(p), out(p);
  writes.assign(p, {});
  for (std::size_t r = 0; r < p; ++r) {
    for (index_t g : src.lists[r]) in[r].push_back(part(g, static_cast<int>(r), src.partial));
    out[r].assign(dst.lists[r].size(), src.partial ? 0.0 : -1.0);
    writes[r].assign(dst.lists[r].size(), 0);
  }
  bool inside = true;  // every run's places within both local arrays
  // A message's (source place, destination place) pairs in packed order: its runs', or its
  // element lists' (Message::list_at).
  auto pairs_of = [](const Stage<Run>& st, const Message& m) {
    std::vector<std::pair<index_t, index_t>> v;
    if (m.listed()) {
      const auto s = st.src_list(m), d = st.dst_list(m);
      for (std::size_t k = 0; k < s.size(); ++k) v.emplace_back(s[k], d[k]);
    }
    for (const Run& x : st.runs_of(m))
      for (index_t j = 0; j < x.count; ++j)
        for (index_t e = 0; e < x.len; ++e)
          v.emplace_back(x.src + j * x.src_stride + e * x.src_step, x.dst + j * x.dst_stride + e * x.dst_step);
    return v;
  };
  auto apply = [&](const Stage<Run>& st, const Message& m, std::size_t from, std::size_t to) {
    for (const auto& [sp, dp] : pairs_of(st, m)) {
      const auto s = static_cast<std::size_t>(sp);
      const auto d = static_cast<std::size_t>(dp);
      if (s >= in[from].size() || d >= out[to].size()) {
        inside = false;
        continue;
      }
      out[to][d] = src.partial ? out[to][d] + in[from][s] : in[from][s];
      ++writes[to][d];
    }
  };
  std::size_t matched = 0, receives = 0;
  for (std::size_t r = 0; r < p; ++r) {
    const Stage<Run>& st = plans[r].only();
    if (st.schedule.size() > 1) fail("a plan of more than one step");
    receives += st.recvs.size();
    apply(st, st.local, r, r);
    for (const Message& m : st.sends) {
      if (m.peer == static_cast<int>(r)) fail("a message to self");
      const Stage<Run>& other = plans[static_cast<std::size_t>(m.peer)].only();
      const auto it = std::find_if(other.recvs.begin(), other.recvs.end(), [&](const Message& x) { return x.peer == static_cast<int>(r); });
      if (it == other.recvs.end()) {
        fail("rank " + std::to_string(r) + " sends to " + std::to_string(m.peer) + ", which receives nothing from it");
        continue;
      }
      if (it->size != m.size || pairs_of(st, m) != pairs_of(other, *it) || m.listed() != it->listed() ||
          !std::ranges::equal(st.runs_of(m), other.runs_of(*it)))
        fail("rank " + std::to_string(r) + "'s message to " + std::to_string(m.peer) + " has other runs than its receive");
      apply(st, m, r, static_cast<std::size_t>(m.peer));
      ++matched;
    }
  }
  if (!inside) fail("a run outside a local array");
  if (matched != receives) fail("a receive that nobody sends");
  std::size_t mask_wrong = 0;
  for (std::size_t r = 0; r < p; ++r) {
    const auto mask = detail::written_places(plans[r], static_cast<index_t>(out[r].size()));
    for (std::size_t l = 0; l < out[r].size(); ++l) {
      mask_wrong += (mask[l] != 0) != (writes[r][l] > 0);
      if (mask[l] == 0) out[r][l] = 0.0;
    }
  }
  if (mask_wrong != 0) fail("written_places differs from the places written");
  return out;
}

/// The plans of src -> dst run in memory against the oracle (what every place of dst holds after
/// b = a, and how many stores it takes): empty, or the first problem.
/// `formula`: as plans_of's (false: the directory's way for every pair).
template <class A, class B>
std::string simulate_indirect(const Side<A>& src, const Side<B>& dst, index_t n, bool formula = true) {
  const int p = src.m.nprocs();
  std::vector<std::vector<int>> holders(static_cast<std::size_t>(n));  // source holders per index
  for (int r = 0; r < p; ++r)
    for (index_t g : src.lists[r]) holders[static_cast<std::size_t>(g)].push_back(r);
  std::vector<int> first_dst(static_cast<std::size_t>(n), p);
  for (int r = 0; r < p; ++r)
    for (index_t g : dst.lists[r]) first_dst[static_cast<std::size_t>(g)] = std::min(first_dst[static_cast<std::size_t>(g)], r);
  std::vector<std::vector<int>> writes;
  const auto plans = plans_of(src, dst, n, nullptr, formula);
  std::string failure;
  const auto out = run_plans(plans, src, dst, writes, failure);
  if (!failure.empty()) return failure;
  std::size_t wrong = 0;
  std::string first;
  for (int r = 0; r < p; ++r)
    for (std::size_t l = 0; l < dst.lists[r].size(); ++l) {
      const index_t g = dst.lists[r][l];
      const auto& h = holders[static_cast<std::size_t>(g)];
      if (h.empty()) return "index " + std::to_string(g) + " has no source holder";
      double element = 0;
      for (int s : h) element += part(g, s, src.partial);
      if (!src.partial) element = part(g, h.front(), false);
      const bool receives = !dst.partial || first_dst[static_cast<std::size_t>(g)] == r;
      const double want = receives ? element : 0.0;
      const int stores = receives ? (src.partial ? static_cast<int>(h.size()) : 1) : 0;
      if (out[r][l] != want || writes[r][l] != stores) {
        if (wrong++ == 0)
          first = "rank " + std::to_string(r) + " place " + std::to_string(l) + " (index " + std::to_string(g) + "): " +
                  std::to_string(out[r][l]) + " in " + std::to_string(writes[r][l]) + " stores, expected " +
                  std::to_string(want) + " in " + std::to_string(stores);
      }
    }
  if (wrong != 0) return std::to_string(wrong) + " places wrong; the first: " + first;
  return {};
}

}  // namespace redist::test
