// static-length-bench: does a block size known at compile time make the pack faster? The pieces of a
// CYCLIC(k) source, k = 2 ... 9 and 16, 64, packed into one buffer (count pieces of k elements,
// stride k·P apart: one rank's message to a BLOCK, or a one-pass pack's section of a basic cycle)
// three ways: runtime::detail::copy_pieces as the executor calls it (the length known at run time,
// dispatched per run to a kernel of that length for 2 to 9, copy_short), a kernel instantiated for
// the length (copy_fixed<k>, what a length in the type would select at compile time), and a plain
// loop over the pieces with memcpy. Best of --reps runs of --n elements per run, one process.
// Prints CSV: k, dispatched_ms, fixed_ms, memcpy_ms; exits non-zero if the three disagree.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <redist/runtime/pack.hpp>

#include "best_time.hpp"
#include "cli.hpp"

using namespace redist;

namespace {
int reps = 9;

template <class F>
double best_ms(F&& f) {
  return bench::best_ms(reps, f);
}

template <index_t K>
bool measure(index_t n, index_t nprocs) {
  const index_t stride = K * nprocs, count = n / stride;
  std::vector<double> src(static_cast<std::size_t>(count * stride)), a(static_cast<std::size_t>(count * K)), b(a), c(a);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<double>(i);
  const runtime::assign_op op{};
  const double dispatched = best_ms([&] { runtime::detail::copy_pieces(src.data(), stride, a.data(), K, K, count, op); });
  const double fixed = best_ms([&] { runtime::detail::copy_fixed<K>(src.data(), stride, b.data(), K, count, op); });
  const double plain = best_ms([&] {
    for (index_t j = 0; j < count; ++j)
      std::memcpy(c.data() + j * K, src.data() + j * stride, static_cast<std::size_t>(K) * sizeof(double));
  });
  std::printf("%lld,%.3f,%.3f,%.3f\n", static_cast<long long>(K), dispatched, fixed, plain);
  return a == b && b == c;
}
}  // namespace

int main(int argc, char** argv) {
  index_t n = index_t{1} << 24, nprocs = 4;
  bench::cli::Parser("static-length-bench")
      .integer("--n N", "elements per run", n, index_t{1})
      .integer("--procs P", "ranks of the CYCLIC(k) source (pieces stride k·P apart)", nprocs, index_t{1})
      .integer("--reps R", "runs, the best of which is kept", reps, 1)
      .parse_or_exit(argc, argv);
  std::printf("k,dispatched_ms,fixed_ms,memcpy_ms\n");
  bool ok = true;
  [&]<index_t... K>(std::integer_sequence<index_t, K...>) { ((ok = measure<K>(n, nprocs) && ok), ...); }(
      std::integer_sequence<index_t, 2, 3, 4, 5, 6, 7, 8, 9, 16, 64>{});
  return ok ? 0 : 1;
}
