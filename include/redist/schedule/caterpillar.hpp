/// @file Defines the caterpillar schedule of seed 004 (ScaLAPACK's redistribution), its extension to different sender and receiver sets, and its policy.
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <utility>
#include <vector>

#include <redist/config.hpp>
#include <redist/schedule/schedule.hpp>
#include <redist/schedule/transfer.hpp>

namespace redist::schedule {

/// The caterpillar of seed 004 (Prylli, Tourancheau, Sec. 4): at step d each process i
/// exchanges with process (P − i − d) mod P.
struct caterpillar_t {
  friend constexpr bool operator==(caterpillar_t, caterpillar_t) noexcept { return true; }
};
inline constexpr caterpillar_t caterpillar{};
template <>
inline constexpr bool is_policy<caterpillar_t> = true;

namespace detail {

/// Membership flags of the ranks [0, nprocs) -> each member's position in the set, in increasing
/// rank order (-1: not a member).
constexpr std::vector<int> caterpillar_positions(const std::vector<char>& member) {
  std::vector<int> pos(member.size(), -1);
  int next = 0;
  for (std::size_t r = 0; r < member.size(); ++r)
    if (member[r]) pos[r] = next++;
  return pos;
}

}  // namespace detail

/// The caterpillar schedule of a list of transfers between ranks of one communicator of nprocs
/// ranks. Let S be the ranks that appear as a sender and R the ranks that appear as a receiver
/// (local transfers included), s(r) the position of rank r in S and t(r) its position in R
/// (both sets in increasing rank order), and m = max(|S|, |R|). Then
///   transfer (sender a, receiver b), a ≠ b  |->  step d = (m − (s(a) + t(b)) mod m) mod m,
/// and the steps in which no transfer falls are dropped.
///  - S = R = {0, ..., P−1} (one process set, every rank taking part): s and t are the identity
///    and step d holds exactly the pairs (i, (P − i − d) mod P) of seed 004 — a pairwise exchange.
///  - S ≠ R (a source grid on ranks 0–3, a destination grid on ranks 0–1 or 2–5 of 6, ...): the
///    same rolling pattern on the positions; in step d sender position i sends to receiver
///    position (m − i − d) mod m, which is unique, and receiver position j receives from sender
///    position (m − j − d) mod m, also unique: each step is a partial permutation (a rank in
///    both sets sends at most one and receives at most one message).
/// Bound: at most m = max(|S|, |R|) <= nprocs steps. Local transfers are in no step.
/// Requires each (sender, receiver) pair at most once (two messages of one pair would meet in
/// one step). O(nprocs + |transfers| log |transfers|).
constexpr GlobalSchedule caterpillar_schedule(std::span<const Transfer> transfers, int nprocs) {
  detail::check_transfers(transfers, nprocs, "caterpillar_schedule");
  const auto np = static_cast<std::size_t>(nprocs);
  std::vector<char> in_s(np, 0), in_r(np, 0);
  for (const Transfer& t : transfers) {
    in_s[static_cast<std::size_t>(t.sender)] = 1;
    in_r[static_cast<std::size_t>(t.receiver)] = 1;
  }
  const std::vector<int> s = detail::caterpillar_positions(in_s), r = detail::caterpillar_positions(in_r);
  const int m = std::max(static_cast<int>(std::count(in_s.begin(), in_s.end(), 1)),
                         static_cast<int>(std::count(in_r.begin(), in_r.end(), 1)));
  // A pair listed twice would put two messages of one sender into one step.
  std::vector<std::pair<int, int>> pairs;
  for (const Transfer& t : transfers)
    if (!t.local()) pairs.emplace_back(t.sender, t.receiver);
  std::sort(pairs.begin(), pairs.end());
  if (std::adjacent_find(pairs.begin(), pairs.end()) != pairs.end())
    redist::detail::report_error(
        "redist::schedule::caterpillar_schedule(transfers, nprocs) requires transfers to list each (sender, "
        "receiver) pair at most once");
  std::vector<int> step_of(transfers.size(), -1);
  for (std::size_t i = 0; i < transfers.size(); ++i) {
    const Transfer& t = transfers[i];
    if (t.local()) continue;
    const int a = s[static_cast<std::size_t>(t.sender)], b = r[static_cast<std::size_t>(t.receiver)];
    step_of[i] = (m - (a + b) % m) % m;
  }
  return detail::steps_from_colours(step_of, m);
}

}  // namespace redist::schedule
