/// @file Defines simulate_circulant: the plans of all ranks of a CirculantPlan run in memory, step by step, relays included, checked against the oracle.
#pragma once

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include <redist/plan/circulant.hpp>
#include <redist/runtime/pack.hpp>

#include "../support/oracle.hpp"

namespace redist::test {

struct CirculantSim {
  bool ok = true;
  std::string failure;
  std::size_t steps = 0;      ///< communication steps of the schedule (all phases)
  index_t max_moved = 0;      ///< most elements one rank sent
};

namespace detail {
/// One phase of every rank: in[r] -> out[r], checking that in every step each rank sends at
/// most one and receives at most one message, and that rank r's send to q is q's receive from r
/// with the same size.
inline void sim_phase(const std::vector<const CirculantPhase*>& ph, const std::vector<std::vector<index_t>>& in,
                      std::vector<std::vector<index_t>>& out, CirculantSim& res) {
  auto fail = [&](std::string why) {
    if (res.ok) res.failure = std::move(why);
    res.ok = false;
  };
  const std::size_t P = ph.size();
  std::vector<std::vector<index_t>> held(P), sendbuf(P);
  std::vector<index_t> moved(P, 0);
  for (std::size_t r = 0; r < P; ++r) held[r].assign(static_cast<std::size_t>(ph[r]->held_size), -7);
  const std::size_t nsteps = ph[0]->steps.size();
  for (std::size_t r = 0; r < P; ++r)
    if (ph[r]->steps.size() != nsteps) fail("ranks disagree on the number of steps");
  if (!res.ok) return;
  for (std::size_t t = 0; t < nsteps; ++t) {
    std::vector<std::vector<index_t>> wire(P);
    std::vector<int> to(P, -1);
    // Pack.
    for (std::size_t r = 0; r < P; ++r) {
      const CirculantMessage& m = ph[r]->steps[t].send;
      if (m.peer < 0 || m.size == 0) continue;
      if (m.peer == static_cast<int>(r)) fail("rank " + std::to_string(r) + " sends to itself");
      std::vector<index_t>& w = wire[r];
      w.resize(static_cast<std::size_t>(m.size));
      index_t at = 0;
      for (std::size_t k = m.first; k < m.first + m.count; ++k) {
        const CirculantItem& it = ph[r]->items[ph[r]->parts[k]];
        if (it.held < 0) runtime::pack(ph[r]->runs_of(it), in[r].data(), w.data() + at);
        else std::copy_n(held[r].data() + it.held, it.size, w.data() + at);
        at += it.size;
      }
      if (at != m.size) fail("message size is not the sum of its items");
      if (m.source_at >= 0 && !std::equal(w.begin(), w.end(), in[r].begin() + m.source_at)) fail("direct send differs");
      if (m.held_at >= 0 && !std::equal(w.begin(), w.end(), held[r].begin() + m.held_at)) fail("held send differs");
      to[r] = m.peer;
      moved[r] += m.size;
    }
    // Contention: at most one sender per receiver.
    std::vector<int> senders(P, 0);
    for (std::size_t r = 0; r < P; ++r)
      if (to[r] >= 0 && ++senders[static_cast<std::size_t>(to[r])] > 1)
        fail("step " + std::to_string(t) + ": two messages to rank " + std::to_string(to[r]));
    // Exchange.
    for (std::size_t q = 0; q < P; ++q) {
      const CirculantMessage& m = ph[q]->steps[t].recv;
      const bool expects = m.peer >= 0 && m.size > 0;
      if (!expects) continue;
      const auto from = static_cast<std::size_t>(m.peer);
      if (to[from] != static_cast<int>(q)) {
        fail("step " + std::to_string(t) + ": rank " + std::to_string(q) + " waits for " + std::to_string(m.peer));
        continue;
      }
      if (static_cast<index_t>(wire[from].size()) != m.size) {
        fail("message size mismatch");
      } else if (m.dst_at >= 0) {
        std::copy(wire[from].begin(), wire[from].end(), out[q].begin() + m.dst_at);
      } else if (ph[q]->steps[t].unpack_now) {
        // Final blocks in the round area (m.at there): unpacked at once.
        if (m.at + m.size > ph[q]->send_size) fail("a final receive overflows the round area");
        for (std::size_t k = m.first; k < m.first + m.count; ++k) {
          const CirculantItem& it = ph[q]->items[ph[q]->parts[k]];
          runtime::unpack(ph[q]->runs_of(it), wire[from].data() + (it.held - m.at), out[q].data());
        }
      } else {
        if (m.at + m.size > ph[q]->held_size) fail("a receive overflows the relay area");
        else std::copy(wire[from].begin(), wire[from].end(), held[q].begin() + m.at);
      }
      to[from] = -2;
    }
    for (std::size_t r = 0; r < P; ++r)
      if (to[r] >= 0) fail("step " + std::to_string(t) + ": rank " + std::to_string(r) + "'s message is never received");
  }
  // Deliver.
  for (std::size_t r = 0; r < P; ++r) {
    for (std::size_t k : ph[r]->deliveries) {
      const CirculantItem& it = ph[r]->items[k];
      if (it.held < 0) runtime::copy(ph[r]->runs_of(it), in[r].data(), out[r].data());
      else runtime::unpack(ph[r]->runs_of(it), held[r].data() + it.held, out[r].data());
    }
    res.max_moved = std::max(res.max_moved, moved[r]);
  }
}
}  // namespace detail

/// Builds the plans of all ranks with make(rank), runs them in memory and checks every
/// destination element against the oracle layout dst (source filled from src).
template <class Make>
CirculantSim simulate_circulant(int nprocs, const Layout& src, const Layout& dst, index_t n, Make&& make) {
  CirculantSim res;
  std::vector<CirculantPlan> plans;
  for (int r = 0; r < nprocs; ++r) plans.push_back(make(r));
  res.steps = plans[0].steps();
  std::vector<std::vector<index_t>> cur(static_cast<std::size_t>(nprocs));
  for (int r = 0; r < nprocs; ++r) cur[r] = src.globals[r];
  const std::size_t nphases = plans[0].phases.size();
  for (std::size_t f = 0; f < nphases; ++f) {
    std::vector<const CirculantPhase*> ph;
    std::vector<std::vector<index_t>> out(static_cast<std::size_t>(nprocs));
    for (int r = 0; r < nprocs; ++r) {
      if (plans[r].phases.size() != nphases) {
        res.ok = false;
        res.failure = "ranks disagree on the phases";
        return res;
      }
      ph.push_back(&plans[r].phases[f]);
      const index_t size = f + 1 == nphases ? static_cast<index_t>(dst.globals[r].size()) : plans[r].intermediate;
      out[r].assign(static_cast<std::size_t>(size), -1);
    }
    detail::sim_phase(ph, cur, out, res);
    cur = std::move(out);
  }
  for (int p = 0; p < nprocs && res.ok; ++p)
    for (std::size_t l = 0; l < cur[p].size(); ++l)
      if (cur[p][l] != dst.globals[p][l]) {
        res.ok = false;
        res.failure = "rank " + std::to_string(p) + " local " + std::to_string(l) + " holds " +
                      std::to_string(cur[p][l]) + ", expected " + std::to_string(dst.globals[p][l]);
        break;
      }
  (void)n;
  return res;
}

}  // namespace redist::test
