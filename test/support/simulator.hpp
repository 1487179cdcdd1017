/// @file Defines the virtual-rank simulator: all P plans built in one process, messages delivered in memory.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <redist/plan/plan.hpp>
#include <redist/runtime/pack.hpp>

#include "oracle.hpp"

namespace redist::test {

struct SimResult {
  bool ok = true;
  std::string failure;    ///< first problem found
  index_t messages = 0;   ///< remote messages of all ranks
  index_t moved = 0;      ///< elements sent remotely
  std::size_t max_steps = 0;
};

/// Builds the plans of all ranks for from -> to, fills every source element with its global
/// index (from the oracle of the source), delivers every message in memory, and checks against
/// the oracle of the target that every destination element holds its own global index and was
/// written exactly once, that every message is received by the peer it was sent to with the same
/// size, and that nobody sends to itself.
template <class From, class To>
SimResult simulate(const From& from, const To& to, const Layout& src, const Layout& dst) {
  SimResult res;
  auto fail = [&](std::string why) {
    if (res.ok) res.failure = std::move(why);
    res.ok = false;
  };
  const int nprocs = from.nprocs();
  std::vector<Plan> plans;
  for (int r = 0; r < nprocs; ++r) plans.push_back(build_plan(from, to, r));

  std::vector<std::vector<index_t>> in(nprocs), out(nprocs);
  std::vector<index_t> writes(nprocs, 0);
  for (int p = 0; p < nprocs; ++p) {
    in[p] = src.globals[p];
    out[p].assign(dst.globals[p].size(), -1);
  }
  // Pack: every send message into its own buffer.
  std::map<std::pair<int, int>, std::vector<index_t>> wire;
  for (int r = 0; r < nprocs; ++r) {
    const Plan& pl = plans[r];
    res.max_steps = std::max(res.max_steps, pl.schedule.size());
    for (const Message& m : pl.sends) {
      if (m.peer == r) fail("rank " + std::to_string(r) + " sends to itself");
      std::vector<index_t> buf(static_cast<std::size_t>(m.size));
      runtime::pack(pl.runs_of(m), in[r].data(), buf.data());
      if (!wire.emplace(std::pair{r, m.peer}, std::move(buf)).second) fail("two messages on one pair");
      ++res.messages;
      res.moved += m.size;
    }
    runtime::copy(pl.runs_of(pl.local), in[r].data(), out[r].data());
    writes[r] += pl.local.size;
  }
  // Exchange and unpack.
  for (int q = 0; q < nprocs; ++q) {
    for (const Message& m : plans[q].recvs) {
      auto it = wire.find({m.peer, q});
      if (it == wire.end()) {
        fail("rank " + std::to_string(q) + " waits for a message from " + std::to_string(m.peer) + " never sent");
        continue;
      }
      if (static_cast<index_t>(it->second.size()) != m.size) fail("message size mismatch");
      else runtime::unpack(plans[q].runs_of(m), it->second.data(), out[q].data());
      writes[q] += m.size;
      wire.erase(it);
    }
  }
  if (!wire.empty()) fail(std::to_string(wire.size()) + " messages sent but never received");
  for (int p = 0; p < nprocs; ++p) {
    if (writes[p] != static_cast<index_t>(out[p].size()))
      fail("rank " + std::to_string(p) + " receives " + std::to_string(writes[p]) + " elements for " +
           std::to_string(out[p].size()) + " places");
    for (std::size_t l = 0; l < out[p].size(); ++l)
      if (out[p][l] != dst.globals[p][l]) {
        fail("rank " + std::to_string(p) + " local " + std::to_string(l) + " holds " + std::to_string(out[p][l]) +
             ", expected " + std::to_string(dst.globals[p][l]));
        break;
      }
  }
  return res;
}

}  // namespace redist::test
