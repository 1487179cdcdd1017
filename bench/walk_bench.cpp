// walk-bench: packing every message along its walk (runtime::pack_message / unpack_message: the
// sender's storage order, the packed order of plans built from layouts) against packing it in the
// order of its runs (runtime::pack / unpack over the message's sections: the order of plans without
// walks, and of these plans before), in one process on rank 0's plan of 2-D CYCLIC(b) x CYCLIC(b)
// on 2x2 -> CYCLIC(3b) x CYCLIC(3b) on 2x2 and 1 x n CYCLIC(b) -> CYCLIC(3b - 1) on 1x4, b = 2 ...
// 32, and the bench cases mat_b32_b128, mat_b64_b100, row_c8_c5 and cube_3d. Best of --reps times, every
// message, and one message alone (a step of a contention-free schedule). It checks that every
// message comes out in storage order (the source holds its local offsets) and exits non-zero if not.
// Beside them, the same copies the way bench/onepass.hpp's hand-written baseline does them: flat
// runs {from, len, to} in storage order, one memcpy each (the pack's over the source, the unpack's
// over the destination, and the local copy's, against the plan's local sections), and a memcpy of
// as many elements as the messages hold. Those runs are listed from where the plan put each element
// (a component comparison on one process; redist-bench's baselines share nothing with redist).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <redist/dist/block.hpp>
#include <redist/dist/collapsed.hpp>
#include <redist/dist/cyclic.hpp>
#include <redist/dist/dist.hpp>
#include <redist/plan/plan.hpp>
#include <redist/runtime/pack.hpp>

#include "best_time.hpp"
#include "cli.hpp"

using namespace redist;

namespace {
int reps = 7;
bool failed = false;

template <class F>
double best_ms(F&& f) {
  return bench::best_ms(reps, f);
}

/// Each packed (not direct) message's place in a buffer, one after the other; the last entry is the total.
inline std::vector<index_t> places_of(const std::vector<Message>& ms) {
  std::vector<index_t> at(ms.size() + 1, 0);
  for (std::size_t i = 0; i < ms.size(); ++i) at[i + 1] = at[i] + (ms[i].direct ? 0 : ms[i].size);
  return at;
}

template <class Plan>
void run(const std::string& name, const Plan& plan, index_t src_size, index_t dst_size) {
  const auto& p = plan.only();
  const std::vector<index_t> send_at = places_of(p.sends), recv_at = places_of(p.recvs);
  std::vector<double> src(static_cast<std::size_t>(src_size)), dst(static_cast<std::size_t>(dst_size));
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<double>(i);
  std::vector<double> walked(static_cast<std::size_t>(send_at.back())), runs(walked.size());
  std::vector<std::size_t> packed;
  for (std::size_t i = 0; i < p.sends.size(); ++i)
    if (!p.sends[i].direct) packed.push_back(i);
  if (packed.empty() || !p.send_walk || !p.recv_walk) {
    std::printf("%s,no packed message or no walk\n", name.c_str());
    return;
  }
  const std::size_t first = packed.front();
  const double pack_walk = best_ms([&] {
    for (std::size_t i : packed) runtime::pack_message(p, i, src.data(), walked.data() + send_at[i]);
  });
  const double pack_runs = best_ms([&] {
    for (std::size_t i : packed) runtime::pack(p.runs_of(p.sends[i]), src.data(), runs.data() + send_at[i]);
  });
  // src holds its local offsets: along a walk (the source's storage order) each message ascends.
  for (std::size_t i : packed) {
    const auto at = walked.begin() + send_at[i];
    if (!std::is_sorted(at, at + p.sends[i].size)) failed = true;
  }
  // The hand-written baseline's pack (bench/onepass.hpp): runs {from, len, to} in the source's
  // storage order, each copied by memcpy (short ones element by element); here derived from the
  // walk's output (src holds its local offsets), so the same elements in the same places.
  struct Flat {
    index_t from, len, to;
  };
  std::vector<Flat> flat;
  {
    std::vector<std::pair<index_t, index_t>> order;  // (source offset, buffer position)
    for (std::size_t i : packed)
      for (index_t k = 0; k < p.sends[i].size; ++k)
        order.emplace_back(static_cast<index_t>(walked[static_cast<std::size_t>(send_at[i] + k)]), send_at[i] + k);
    std::sort(order.begin(), order.end());
    for (const auto& [f, t] : order) {
      if (!flat.empty() && flat.back().from + flat.back().len == f && flat.back().to + flat.back().len == t) ++flat.back().len;
      else flat.push_back({f, 1, t});
    }
  }
  auto flat_copy = [](const double* from, double* to, index_t len) {
    if (len <= 2) for (index_t k = 0; k < len; ++k) to[k] = from[k];
    else std::memcpy(to, from, static_cast<std::size_t>(len) * sizeof(double));
  };
  const double pack_flat = best_ms([&] {
    for (const Flat& r : flat) flat_copy(src.data() + r.from, runs.data() + r.to, r.len);
  });
  // memcpy of as many elements (the memory system's speed for this volume).
  const double copy_all = best_ms([&] { std::memcpy(runs.data(), src.data(), runs.size() * sizeof(double)); });
  const double one_walk = best_ms([&] { runtime::pack_message(p, first, src.data(), walked.data()); });
  const double one_runs = best_ms([&] { runtime::pack(p.runs_of(p.sends[first]), src.data(), runs.data()); });
  std::vector<double> in(static_cast<std::size_t>(recv_at.back()));
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<double>(i + 1);
  const double unpack_walk = best_ms([&] {
    for (std::size_t i = 0; i < p.recvs.size(); ++i)
      if (!p.recvs[i].direct) runtime::unpack_message(p, i, in.data() + recv_at[i], dst.data());
  });
  // Each message's values ascend along dst's storage order (the walk's order here: no transpose).
  for (std::size_t i = 0; i < p.recvs.size(); ++i) {
    if (p.recvs[i].direct) continue;
    std::fill(dst.begin(), dst.end(), 0.0);
    runtime::unpack_message(p, i, in.data() + recv_at[i], dst.data());
    double last = 0;
    index_t seen = 0;
    for (double v : dst)
      if (v != 0) {
        if (v <= last) failed = true;
        last = v;
        ++seen;
      }
    if (seen != p.recvs[i].size) failed = true;
  }
  // The baseline's unpack: runs {buffer position, len, dst offset} in the destination's storage order.
  std::vector<Flat> flat_in;
  {
    std::vector<double> where(dst.size(), -1.0);
    std::vector<double> pos_of(in.size());
    for (std::size_t k = 0; k < in.size(); ++k) pos_of[k] = static_cast<double>(k);
    for (std::size_t i = 0; i < p.recvs.size(); ++i)
      if (!p.recvs[i].direct) runtime::unpack_message(p, i, pos_of.data() + recv_at[i], where.data());
    for (std::size_t d = 0; d < where.size(); ++d) {
      if (where[d] < 0) continue;
      const auto f = static_cast<index_t>(where[d]), t = static_cast<index_t>(d);
      if (!flat_in.empty() && flat_in.back().from + flat_in.back().len == f && flat_in.back().to + flat_in.back().len == t)
        ++flat_in.back().len;
      else flat_in.push_back({f, 1, t});
    }
  }
  const double unpack_flat = best_ms([&] {
    for (const Flat& r : flat_in) flat_copy(in.data() + r.from, dst.data() + r.to, r.len);
  });
  // The local copy: by the plan's local sections (runtime::copy), and as the baseline's runs in
  // the source's storage order.
  std::vector<double> dl(dst.size(), -1.0), dflat(dst.size(), -1.0);
  const auto local = p.runs_of(p.local);
  const double local_sections = best_ms([&] { runtime::copy(local, src.data(), dl.data()); });
  std::vector<Flat> flat_local;
  {
    std::vector<std::pair<index_t, index_t>> order;
    for (std::size_t d = 0; d < dl.size(); ++d)
      if (dl[d] >= 0) order.emplace_back(static_cast<index_t>(dl[d]), static_cast<index_t>(d));
    std::sort(order.begin(), order.end());
    for (const auto& [f, t] : order) {
      if (!flat_local.empty() && flat_local.back().from + flat_local.back().len == f && flat_local.back().to + flat_local.back().len == t)
        ++flat_local.back().len;
      else flat_local.push_back({f, 1, t});
    }
  }
  const double local_flat = best_ms([&] {
    for (const Flat& r : flat_local) flat_copy(src.data() + r.from, dflat.data() + r.to, r.len);
  });
  if (dflat != dl) failed = true;
  const double unpack_runs = best_ms([&] {
    for (std::size_t i = 0; i < p.recvs.size(); ++i)
      if (!p.recvs[i].direct) runtime::unpack(p.runs_of(p.recvs[i]), in.data() + recv_at[i], dst.data());
  });
  std::printf("%s,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f\n", name.c_str(), pack_walk, pack_runs, one_walk,
              one_runs, unpack_walk, unpack_runs, pack_flat, unpack_flat, local_sections, local_flat, copy_all);
}

using D2 = Dist<Cyclic<>, Cyclic<>>;

void matrix(const std::string& name, index_t m, index_t b, index_t c, int rows = 2) {
  const D2::mapping from(D2{Cyclic(b), Cyclic(b)}, {m, m}, Grid{2, 2}, {0, 0}, Storage{}, 4);
  const D2::mapping to(D2{Cyclic(c), Cyclic(c)}, {m, m}, Grid{rows, 4 / rows}, {0, 0}, Storage{}, 4);
  run(name, build_plan(from, to, 0), from.local_size(0), to.local_size(0));
}

void row(const std::string& name, index_t n, index_t b, index_t c) {
  const D2::mapping from(D2{Cyclic(1), Cyclic(b)}, {1, n}, Grid{1, 4}, {0, 0}, Storage{}, 4);
  const D2::mapping to(D2{Cyclic(1), Cyclic(c)}, {1, n}, Grid{1, 4}, {0, 0}, Storage{}, 4);
  run(name, build_plan(from, to, 0), from.local_size(0), to.local_size(0));
}
/// redist-bench's cube_3d: (CYCLIC(64), *, BLOCK) on 2x1x2 -> (BLOCK, *, CYCLIC(8)) on 4x1x1, an
/// e^3 cube; each message's line of the first dimension is one piece (a block of the BLOCK side).
void cube(const std::string& name, index_t e) {
  using S = Dist<Cyclic<64>, Collapsed, Block>;
  using T = Dist<Block, Collapsed, Cyclic<8>>;
  const S::mapping from(S{}, {e, e, e}, Grid{2, 1, 2}, {0, 0, 0}, Storage{}, 4);
  const T::mapping to(T{}, {e, e, e}, Grid{4, 1, 1}, {0, 0, 0}, Storage{}, 4);
  run(name, build_plan(from, to, 0), from.local_size(0), to.local_size(0));
}
}  // namespace

int main(int argc, char** argv) {
  index_t m = 8192, n = index_t{1} << 24, e = 256;
  bench::cli::Parser("walk-bench")
      .integer("--matrix M", "extent of the 2-D cases, M x M", m, index_t{1})
      .integer("--n N", "elements of the 1 x n row cases", n, index_t{1})
      .integer("--cube E", "extent of the 3-D case, E x E x E", e, index_t{1})
      .integer("--reps R", "runs, the best of which is kept", reps, 1)
      .parse_or_exit(argc, argv);
  std::printf(
      "case,pack_walk_ms,pack_runs_ms,one_walk_ms,one_runs_ms,unpack_walk_ms,unpack_runs_ms,pack_baseline_ms,unpack_baseline_ms,"
      "local_sections_ms,local_baseline_ms,memcpy_ms\n");
  matrix("mat_b32_b128", m, 32, 128);
  matrix("mat_b64_b100", m, 64, 100, 4);
  row("row_c8_c5", n, 8, 5);
  cube("cube_3d", e);
  for (index_t b : {2, 4, 8, 16, 32}) {
    matrix("mat_b" + std::to_string(b) + "_b" + std::to_string(3 * b), m, b, 3 * b);
    row("row_b" + std::to_string(b) + "_b" + std::to_string(3 * b - 1), n, b, 3 * b - 1);
  }
  if (failed) std::fprintf(stderr, "walk-bench: a message packed or unpacked along its walk is out of storage order\n");
  return failed ? 1 : 0;
}
