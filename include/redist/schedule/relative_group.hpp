/// @file Defines Guo's relative-group scheduling (seed 003, Algorithm 3), the minimum-step bipartite edge colouring it falls back to, and the relative_group policy.
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <vector>

#include <redist/config.hpp>
#include <redist/schedule/schedule.hpp>
#include <redist/schedule/transfer.hpp>

namespace redist::schedule {

/// Guo and Nakata's scheduling (seed 003, Sec. 5): relative groups on the communication table
/// where it has Theorem 3's structure, a minimum-step edge colouring otherwise.
struct relative_group_t {
  friend constexpr bool operator==(relative_group_t, relative_group_t) noexcept { return true; }
};
inline constexpr relative_group_t relative_group{};
template <>
inline constexpr bool is_policy<relative_group_t> = true;

/// Seed 003's communication table COM (p rows = sending processors, p̃ columns = receiving
/// processors, 1 where a message goes) and what Algorithm 3 makes of it.
struct RelativeGroupTable {
  /// COM has Theorem 3's structure (every row is row 0 turned by i·shift, p <= p̃) and Algorithm
  /// 3 gave a CS whose every column is a partial permutation. When false the rest is empty.
  bool structured = false;
  int shift = 0;                       ///< b/b' mod p̃: COM[i][j] == COM[0][(j − i·shift) mod p̃]
  std::vector<int> groups;             ///< the relative group RG = (J*_0, ..., J*_{p−1})
  std::vector<int> start;              ///< the start elements SV_i^0
  std::vector<std::vector<int>> cs;    ///< the scheduling table CS[i][k], k < 𝒦 (ones per row)
  friend constexpr bool operator==(const RelativeGroupTable&, const RelativeGroupTable&) = default;
};

/// Algorithm 3 of seed 003, with ERRATA 003:
///   1. J*_0 = the first 1-entry of row 0 (or `first_one`, which must be a 1-entry of row 0);
///      RG = (J*_i = (J*_0 + i·shift) mod p̃), shift found from the table itself;
///   2. rows with equal J* form a sub-group (their rows are equal);
///   3./4. the t-th member (t = 0, 1, ...) of a sub-group, in row order, starts at the t-th
///      1-entry of its row counted cyclically from J*_i (t = 0: J*_i itself);
///   5. SV_i cycles over the 1-entries of row i in increasing order (mod p̃) from SV_i^0 (not
///      Def. 4's j_k = (j_0 + k) mod 𝒦).
/// Returns structured == false when p > p̃, the rows are not turns of row 0, a sub-group has
/// more members than a row has 1-entries, or a column of the CS repeats a receiver.
/// O(p̃²·p).
constexpr RelativeGroupTable relative_group_table(const std::vector<std::vector<int>>& com, int first_one = -1) {
  RelativeGroupTable out;
  const int p = static_cast<int>(com.size());
  if (p == 0) return out;
  const int pt = static_cast<int>(com[0].size());
  if (p > pt) return out;
  for (const auto& row : com)
    if (static_cast<int>(row.size()) != pt)
      redist::detail::report_error("redist::schedule::relative_group_table(com) requires every row of com to have the same length");
  auto one = [&](int i, int j) { return com[static_cast<std::size_t>(i)][static_cast<std::size_t>(((j % pt) + pt) % pt)] != 0; };
  std::vector<int> ones0;
  for (int j = 0; j < pt; ++j)
    if (one(0, j)) ones0.push_back(j);
  const int k_steps = static_cast<int>(ones0.size());
  if (k_steps == 0) return out;
  // Theorem 3: the smallest shift with COM[i][j] == COM[0][j − i·shift] for all i, j.
  int shift = -1;
  for (int sh = 0; sh < pt && shift < 0; ++sh) {
    bool fits = true;
    for (int i = 1; i < p && fits; ++i)
      for (int j = 0; j < pt && fits; ++j) fits = one(i, j) == one(0, j - i * sh);
    if (fits) shift = sh;
  }
  if (shift < 0) return out;
  int j0 = ones0.front();
  if (first_one >= 0) {
    if (first_one >= pt || !one(0, first_one))
      redist::detail::report_error("redist::schedule::relative_group_table(com, first_one) requires first_one to be a 1-entry of row 0");
    j0 = first_one;
  }
  // Steps 1 and 2: the relative group and its sub-groups (t = rank within the sub-group).
  std::vector<int> member(static_cast<std::size_t>(p), 0);
  std::vector<int> count(static_cast<std::size_t>(pt), 0);
  for (int i = 0; i < p; ++i) {
    const int g = (j0 + static_cast<int>((static_cast<long long>(i) * shift) % pt)) % pt;
    out.groups.push_back(g);
    member[static_cast<std::size_t>(i)] = count[static_cast<std::size_t>(g)]++;
    if (member[static_cast<std::size_t>(i)] >= k_steps) return RelativeGroupTable{};
  }
  // Steps 3 to 5: start elements and sending vectors. Row i's 1-entries are row 0's turned by
  // i·shift; J*_i is the turn of J*_0, so the cyclic order from J*_i is that of row 0 from J*_0.
  const int idx0 = static_cast<int>(std::find(ones0.begin(), ones0.end(), j0) - ones0.begin());
  for (int i = 0; i < p; ++i) {
    const int turn = static_cast<int>((static_cast<long long>(i) * shift) % pt);
    std::vector<int> sv;
    for (int k = 0; k < k_steps; ++k)
      sv.push_back((ones0[static_cast<std::size_t>((idx0 + member[static_cast<std::size_t>(i)] + k) % k_steps)] + turn) % pt);
    out.start.push_back(sv.front());
    out.cs.push_back(std::move(sv));
  }
  // Theorem 4, checked: every column of CS is a (partial) permutation.
  for (int k = 0; k < k_steps; ++k) {
    std::vector<char> used(static_cast<std::size_t>(pt), 0);
    for (int i = 0; i < p; ++i) {
      char& u = used[static_cast<std::size_t>(out.cs[static_cast<std::size_t>(i)][static_cast<std::size_t>(k)])];
      if (u) return RelativeGroupTable{};
      u = 1;
    }
  }
  out.structured = true;
  out.shift = shift;
  return out;
}

namespace detail {

/// A proper edge colouring of the bipartite multigraph (senders ∪ receivers, non-local
/// transfers) with `colours` colours, completed by the alternating-path (Kempe chain) method of
/// König's theorem: colour[i] >= 0 on entry is kept as a start (it must be proper); each
/// uncoloured edge (u, v) takes a colour a free at u; if a is busy at v, the path from v
/// alternating a and b (b free at v) is swapped, which frees a at v and never reaches u.
/// Needs colours >= max_degree. O(|E|·(colours + |V|)).
constexpr void complete_edge_colouring(std::span<const Transfer> transfers, int nprocs, int colours,
                                       std::vector<int>& colour) {
  const auto np = static_cast<std::size_t>(nprocs);
  const auto nc = static_cast<std::size_t>(colours);
  std::vector<int> at(2 * np * nc, -1);  // at[node·colours + c]: the edge of colour c at node
  auto node_s = [&](std::size_t e) { return static_cast<std::size_t>(transfers[e].sender); };
  auto node_r = [&](std::size_t e) { return np + static_cast<std::size_t>(transfers[e].receiver); };
  auto slot = [&](std::size_t node, int c) -> int& { return at[node * nc + static_cast<std::size_t>(c)]; };
  auto place = [&](std::size_t e, int c) {
    colour[e] = c;
    slot(node_s(e), c) = static_cast<int>(e);
    slot(node_r(e), c) = static_cast<int>(e);
  };
  auto free_at = [&](std::size_t node) {
    for (int c = 0; c < colours; ++c)
      if (slot(node, c) < 0) return c;
    redist::detail::report_error("redist::schedule: internal error, edge colouring ran out of colours");
  };
  for (std::size_t e = 0; e < transfers.size(); ++e)
    if (!transfers[e].local() && colour[e] >= 0) place(e, colour[e]);
  std::vector<std::size_t> path;
  for (std::size_t e = 0; e < transfers.size(); ++e) {
    if (transfers[e].local() || colour[e] >= 0) continue;
    const std::size_t u = node_s(e), v = node_r(e);
    const int a = free_at(u);
    if (slot(v, a) >= 0) {
      const int b = free_at(v);
      // The a/b path from v: v -a- x -b- y -a- ...
      path.clear();
      std::size_t x = v;
      for (int c = a; slot(x, c) >= 0; c = c == a ? b : a) {
        const auto f = static_cast<std::size_t>(slot(x, c));
        path.push_back(f);
        x = node_s(f) == x ? node_r(f) : node_s(f);
      }
      for (std::size_t f : path) {
        slot(node_s(f), colour[f]) = -1;
        slot(node_r(f), colour[f]) = -1;
      }
      for (std::size_t f : path) place(f, colour[f] == a ? b : a);
      if (slot(u, a) >= 0 || slot(v, a) >= 0)
        redist::detail::report_error("redist::schedule: internal error, an alternating path did not free its colour");
    }
    place(e, a);
  }
}

/// COM over the positions of the sender set S (rows) and the receiver set R (columns), local
/// transfers included (seed 003's table has its diagonal copies). pos_s, pos_r: rank -> position.
constexpr std::vector<std::vector<int>> communication_table(std::span<const Transfer> transfers,
                                                            const std::vector<int>& pos_s, const std::vector<int>& pos_r,
                                                            int p, int pt) {
  std::vector<std::vector<int>> com(static_cast<std::size_t>(p), std::vector<int>(static_cast<std::size_t>(pt), 0));
  for (const Transfer& t : transfers)
    com[static_cast<std::size_t>(pos_s[static_cast<std::size_t>(t.sender)])]
       [static_cast<std::size_t>(pos_r[static_cast<std::size_t>(t.receiver)])] += 1;
  return com;
}

}  // namespace detail

/// Guo's relative-group schedule (seed 003, Sec. 5) of transfers between ranks of one
/// communicator of nprocs ranks: exactly max_degree(transfers, nprocs) contention-free steps
/// (each rank sends at most one and receives at most one message per step); local transfers
/// are in no step.
///  - COM is built over the sender set S (rows, increasing rank) and the receiver set R
///    (columns), local transfers included, as in the paper. When COM (or its transpose, the
///    case b' = β·b) has Theorem 3's structure and Algorithm 3 gives a contention-free CS
///    (relative_group_table), step k is CS's column k: the 1-D block-cyclic case.
///  - Local entries take a column of CS too; when that makes 𝒦 = max_degree + 1 columns, the
///    max_degree columns with the most messages are kept and the messages of the other are
///    re-placed by alternating paths.
///  - Any other table (2-D grids, different grids, GEN_BLOCK, a pair listed twice): a bipartite
///    edge colouring with max_degree colours by the alternating-path method (König), messages
///    in list order. This replaces Algorithm 4, whose step 2.2 ERRATA 003 deems too vague.
constexpr GlobalSchedule relative_group_schedule(std::span<const Transfer> transfers, int nprocs) {
  detail::check_transfers(transfers, nprocs, "relative_group_schedule");
  const int delta = max_degree(transfers, nprocs, LocalMessages::skipped);
  std::vector<int> colour(transfers.size(), -1);
  if (delta == 0) return detail::steps_from_colours(colour, 0);
  const auto np = static_cast<std::size_t>(nprocs);
  std::vector<char> in_s(np, 0), in_r(np, 0);
  for (const Transfer& t : transfers) {
    in_s[static_cast<std::size_t>(t.sender)] = 1;
    in_r[static_cast<std::size_t>(t.receiver)] = 1;
  }
  std::vector<int> pos_s(np, -1), pos_r(np, -1);
  int p = 0, pt = 0;
  for (std::size_t r = 0; r < np; ++r) {
    if (in_s[r]) pos_s[r] = p++;
    if (in_r[r]) pos_r[r] = pt++;
  }
  const auto com = detail::communication_table(transfers, pos_s, pos_r, p, pt);
  bool simple = true;  // a 0/1 table: no pair listed twice
  for (const auto& row : com)
    for (int x : row) simple = simple && x <= 1;
  if (simple) {
    // Algorithm 3 on COM; on COM^T (receivers as rows) when COM has no structure.
    RelativeGroupTable tab = relative_group_table(com);
    bool transposed = false;
    if (!tab.structured) {
      std::vector<std::vector<int>> comt(static_cast<std::size_t>(pt), std::vector<int>(static_cast<std::size_t>(p), 0));
      for (int i = 0; i < p; ++i)
        for (int j = 0; j < pt; ++j) comt[static_cast<std::size_t>(j)][static_cast<std::size_t>(i)] = com[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)];
      tab = relative_group_table(comt);
      transposed = true;
    }
    if (tab.structured) {
      const int k_steps = static_cast<int>(tab.cs.front().size());
      // (row, column of COM) -> step, through CS.
      std::vector<int> step_at(static_cast<std::size_t>(p) * static_cast<std::size_t>(pt), -1);
      for (std::size_t row = 0; row < tab.cs.size(); ++row)
        for (int k = 0; k < k_steps; ++k) {
          const auto col = static_cast<std::size_t>(tab.cs[row][static_cast<std::size_t>(k)]);
          const std::size_t i = transposed ? col : row, j = transposed ? row : col;
          step_at[i * static_cast<std::size_t>(pt) + j] = k;
        }
      std::vector<int> load(static_cast<std::size_t>(k_steps), 0);
      for (std::size_t e = 0; e < transfers.size(); ++e) {
        if (transfers[e].local()) continue;
        colour[e] = step_at[static_cast<std::size_t>(pos_s[static_cast<std::size_t>(transfers[e].sender)]) *
                                static_cast<std::size_t>(pt) +
                            static_cast<std::size_t>(pos_r[static_cast<std::size_t>(transfers[e].receiver)])];
        if (colour[e] >= 0) ++load[static_cast<std::size_t>(colour[e])];  // CS row i holds all of COM row i
      }
      // Keep the delta busiest columns (ties: the earlier), in column order; free the rest.
      std::vector<int> order(static_cast<std::size_t>(k_steps));
      for (int k = 0; k < k_steps; ++k) order[static_cast<std::size_t>(k)] = k;
      std::sort(order.begin(), order.end(), [&](int x, int y) {
        const int lx = load[static_cast<std::size_t>(x)], ly = load[static_cast<std::size_t>(y)];
        return lx != ly ? lx > ly : x < y;
      });
      std::vector<int> renumber(static_cast<std::size_t>(k_steps), -1);
      for (int k = 0; k < std::min(k_steps, delta); ++k) renumber[static_cast<std::size_t>(order[static_cast<std::size_t>(k)])] = 0;
      for (int k = 0, next = 0; k < k_steps; ++k)
        if (renumber[static_cast<std::size_t>(k)] == 0) renumber[static_cast<std::size_t>(k)] = next++;
      for (int& c : colour)
        if (c >= 0) c = renumber[static_cast<std::size_t>(c)];
    }
  }
  detail::complete_edge_colouring(transfers, nprocs, delta, colour);
  return detail::steps_from_colours(colour, delta);
}

}  // namespace redist::schedule
