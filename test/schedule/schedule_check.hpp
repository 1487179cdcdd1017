/// @file Defines the brute-force checks of the schedule tests: completeness, contention freedom, degrees and transfer lists built from plans.
#pragma once

#include <algorithm>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <redist/plan/plan.hpp>
#include <redist/schedule/schedule.hpp>
#include <redist/schedule/transfer.hpp>

namespace redist::test {

/// Every non-local transfer in exactly one step, local ones in none, no empty step, and each
/// step a partial permutation (a rank sends at most one and receives at most one message).
/// Empty string: all good; otherwise what is wrong. Nothing shared with the library.
inline std::string check_schedule(const std::vector<schedule::Transfer>& t, int nprocs, const schedule::GlobalSchedule& g) {
  std::vector<int> seen(t.size(), 0);
  for (std::size_t k = 0; k < g.size(); ++k) {
    if (g.steps[k].empty()) return "step " + std::to_string(k) + " is empty";
    std::vector<int> sends(static_cast<std::size_t>(nprocs), 0), recvs(sends);
    for (std::size_t i : g.steps[k]) {
      if (i >= t.size()) return "step " + std::to_string(k) + " names transfer " + std::to_string(i);
      if (t[i].sender == t[i].receiver) return "local transfer " + std::to_string(i) + " is in step " + std::to_string(k);
      ++seen[i];
      if (++sends[t[i].sender] > 1 || ++recvs[t[i].receiver] > 1)
        return "step " + std::to_string(k) + " has node contention at transfer " + std::to_string(i);
    }
  }
  for (std::size_t i = 0; i < t.size(); ++i)
    if (t[i].sender != t[i].receiver && seen[i] != 1)
      return "transfer " + std::to_string(i) + " is scheduled " + std::to_string(seen[i]) + " times";
  return {};
}

/// Max over ranks of non-local messages sent, and received, counted here.
inline int brute_degree(const std::vector<schedule::Transfer>& t, int nprocs) {
  std::vector<int> out(static_cast<std::size_t>(nprocs), 0), in(out);
  int d = 0;
  for (const auto& m : t)
    if (m.sender != m.receiver) d = std::max({d, ++out[m.sender], ++in[m.receiver]});
  return d;
}

/// |ranks that send| and |ranks that receive| (local transfers included).
inline std::pair<int, int> set_sizes(const std::vector<schedule::Transfer>& t, int nprocs) {
  std::vector<char> s(static_cast<std::size_t>(nprocs), 0), r(s);
  for (const auto& m : t) s[m.sender] = r[m.receiver] = 1;
  return {static_cast<int>(std::count(s.begin(), s.end(), 1)), static_cast<int>(std::count(r.begin(), r.end(), 1))};
}

/// The transfers of a redistribution from the plans of all its ranks: each rank's sends and its
/// local copy (when it has one).
inline std::vector<schedule::Transfer> transfers_of(const std::vector<Plan>& plans) {
  std::vector<schedule::Transfer> t;
  for (const Plan& whole : plans) {
    const Stage<Run>& p = whole.only();
    if (p.local.size > 0) t.push_back({whole.rank, whole.rank, p.local.size});
    for (const Message& m : p.sends) t.push_back({whole.rank, m.peer, m.size});
  }
  return t;
}

/// The plans' rows run together: all ranks have the same number of steps, each step contention-
/// free, and every send of step k is met by the matching receive (same size) in step k.
inline std::string check_rows(const std::vector<Plan>& plans) {
  const std::size_t nsteps = plans.empty() ? 0 : plans.front().only().schedule.size();
  for (const Plan& p : plans)
    if (p.only().schedule.size() != nsteps) return "rank " + std::to_string(p.rank) + " has another step count";
  for (std::size_t k = 0; k < nsteps; ++k) {
    std::vector<std::tuple<int, int, index_t>> sent, received;
    for (const Plan& whole : plans) {
      const Stage<Run>& p = whole.only();
      const int rank = whole.rank;
      const schedule::Step& s = p.schedule.steps[k];
      if (s.sends.size() > 1 || s.recvs.size() > 1) return "rank " + std::to_string(rank) + " has contention";
      for (std::size_t i : s.sends) sent.emplace_back(rank, p.sends[i].peer, p.sends[i].size);
      for (std::size_t i : s.recvs) received.emplace_back(p.recvs[i].peer, rank, p.recvs[i].size);
    }
    std::sort(sent.begin(), sent.end());
    std::sort(received.begin(), received.end());
    if (sent != received) return "step " + std::to_string(k) + ": sends and receives do not match";
  }
  return {};
}

/// A random subset of [0, nprocs) with about `fraction` of the ranks, never empty.
inline std::vector<int> random_ranks(int nprocs, double fraction, std::mt19937_64& rng) {
  std::vector<int> out;
  std::bernoulli_distribution keep(fraction);
  for (int r = 0; r < nprocs; ++r)
    if (keep(rng)) out.push_back(r);
  if (out.empty()) out.push_back(static_cast<int>(rng() % static_cast<unsigned>(nprocs)));
  return out;
}

}  // namespace redist::test
