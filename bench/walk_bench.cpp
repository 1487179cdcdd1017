// walk-bench: packing in one walk over the local array (runtime::pack_walk / unpack_walk), message
// by message along each message's own pieces (pack_message / unpack_message: the same packed
// order), and message by message in the order of the runs (runtime::pack / unpack over each
// message's sections: the order of plans without walks), in one process on rank 0's plan of
// 2-D CYCLIC(b) x CYCLIC(b) on 2x2 -> CYCLIC(3b) x CYCLIC(3b) on 2x2 and 1 x n CYCLIC(b) ->
// CYCLIC(3b - 1) on 1x4, b = 2 ... 32, and the two bench cases mat_b32_b128 and row_c8_c5. Best of
// --reps times, every message, and one message alone (a step of a contention-free schedule). The
// walk's buffers are compared with pack_message's; a difference exits non-zero.
//   walk-bench [--matrix M] [--n N] [--reps R]     (defaults 8192, 2^24, 7)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <redist/dist/cyclic.hpp>
#include <redist/dist/dist.hpp>
#include <redist/plan/plan.hpp>
#include <redist/runtime/pack.hpp>

using namespace redist;

namespace {
int reps = 7;
bool failed = false;

template <class F>
double best_ms(F&& f) {
  double best = 1e300;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

template <class P>
void run(const std::string& name, const P& p, index_t src_size, index_t dst_size) {
  std::vector<double> src(static_cast<std::size_t>(src_size)), dst(static_cast<std::size_t>(dst_size));
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<double>(i);
  std::vector<double> walked(static_cast<std::size_t>(p.send_scratch)), each(walked.size());
  std::vector<index_t> base(p.sends.size(), -1), one(p.sends.size(), -1), cursors;
  for (std::size_t i = 0; i < p.sends.size(); ++i)
    if (!p.sends[i].direct) base[i] = p.sends[i].offset;
  const std::size_t first = static_cast<std::size_t>(std::find_if(base.begin(), base.end(), [](index_t b) { return b >= 0; }) - base.begin());
  if (first == base.size() || !p.send_walk || !p.recv_walk) {
    std::printf("%s,no packed message or no walk\n", name.c_str());
    return;
  }
  one[first] = base[first];
  const double pack_walk = best_ms([&] { runtime::pack_walk(p.send_walk, src.data(), walked.data(), base, cursors); });
  const double pack_each = best_ms([&] {
    for (std::size_t i = 0; i < p.sends.size(); ++i)
      if (base[i] >= 0) runtime::pack_message(p, i, src.data(), each.data() + base[i]);
  });
  if (walked != each) failed = true;
  const double pack_runs = best_ms([&] {
    for (std::size_t i = 0; i < p.sends.size(); ++i)
      if (base[i] >= 0) runtime::pack(p.runs_of(p.sends[i]), src.data(), each.data() + base[i]);
  });
  const double one_walk = best_ms([&] { runtime::pack_walk(p.send_walk, src.data(), walked.data(), one, cursors); });
  const double one_each = best_ms([&] { runtime::pack_message(p, first, src.data(), each.data() + base[first]); });
  const double one_runs = best_ms([&] { runtime::pack(p.runs_of(p.sends[first]), src.data(), each.data() + base[first]); });
  std::vector<index_t> rbase(p.recvs.size(), -1);
  for (std::size_t i = 0; i < p.recvs.size(); ++i)
    if (!p.recvs[i].direct) rbase[i] = p.recvs[i].offset;
  std::vector<double> in(static_cast<std::size_t>(p.recv_scratch));
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<double>(i);
  std::vector<double> dst_each(dst.size());
  const double unpack_walk = best_ms([&] { runtime::unpack_walk(p.recv_walk, in.data(), dst.data(), rbase, cursors); });
  const double unpack_each = best_ms([&] {
    for (std::size_t i = 0; i < p.recvs.size(); ++i)
      if (rbase[i] >= 0) runtime::unpack_message(p, i, in.data() + rbase[i], dst_each.data());
  });
  if (dst != dst_each) failed = true;
  const double unpack_runs = best_ms([&] {
    for (std::size_t i = 0; i < p.recvs.size(); ++i)
      if (rbase[i] >= 0) runtime::unpack(p.runs_of(p.recvs[i]), in.data() + rbase[i], dst_each.data());
  });
  std::printf("%s,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f\n", name.c_str(), pack_walk, pack_each, pack_runs, one_walk,
              one_each, one_runs, unpack_walk, unpack_each, unpack_runs);
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
}  // namespace

int main(int argc, char** argv) {
  index_t m = 8192, n = index_t{1} << 24;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--matrix") m = std::atoll(argv[i + 1]);
    else if (a == "--n") n = std::atoll(argv[i + 1]);
    else if (a == "--reps") reps = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "usage: walk-bench [--matrix M] [--n N] [--reps R]\n");
      return 2;
    }
  }
  std::printf("case,pack_walk_ms,pack_each_ms,pack_runs_ms,one_walk_ms,one_each_ms,one_runs_ms,unpack_walk_ms,unpack_each_ms,unpack_runs_ms\n");
  matrix("mat_b32_b128", m, 32, 128);
  matrix("mat_b64_b100", m, 64, 100, 4);
  row("row_c8_c5", n, 8, 5);
  for (index_t b : {2, 4, 8, 16, 32}) {
    matrix("mat_b" + std::to_string(b) + "_b" + std::to_string(3 * b), m, b, 3 * b);
    row("row_b" + std::to_string(b) + "_b" + std::to_string(3 * b - 1), n, b, 3 * b - 1);
  }
  if (failed) std::fprintf(stderr, "walk-bench: the walk's bytes differ from packing message by message\n");
  return failed ? 1 : 0;
}
