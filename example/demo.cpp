// The README's demo: 2^24 doubles on the processes of MPI_COMM_WORLD go
// Block -> Cyclic<8> -> Cyclic<5> -> GenBlock (uneven) -> Block, each step verified and timed
// against the naive element-by-element method.
#include <cstdio>
#include <cstdlib>
#include <string>

#include <boost/mpi/collectives.hpp>
#include <redist/redist.hpp>

#include "baselines.hpp"

namespace mpi = boost::mpi;
using redist::index_t;

namespace {
double value_of(index_t g) { return 1.0 + 0.25 * static_cast<double>(g); }

template <class A>
bool verify(const A& a) {
  bool ok = true;
  auto loc = a.local();
  for (index_t l = 0; l < a.local_size(); ++l) ok = ok && loc[l] == value_of(a.global_index(l));
  return mpi::all_reduce(a.comm(), ok, std::logical_and<bool>());
}

/// Seconds of the slowest rank for f().
template <class F>
double timed(const mpi::communicator& world, F&& f) {
  world.barrier();
  const double t0 = MPI_Wtime();
  f();
  return mpi::all_reduce(world, MPI_Wtime() - t0, mpi::maximum<double>());
}

/// b = a, then prints the step: plan time, the time of a repeated b = a (plan cached), GB/s,
/// messages of all ranks, and the naive method's time for the same step.
template <class A, class B>
bool step(const std::string& name, const A& a, B& b) {
  const auto& world = a.comm();
  const double plan_s = timed(world, [&] { (void)redist::make_plan(a, b); });
  b = a;  // first assignment: plans and caches
  const double t = timed(world, [&] { b = a; });
  const bool ok = verify(b);
  // What b = a did (redist::explain): its messages between ranks (copies from a node peer's
  // shared memory are not messages).
  const redist::Explanation e = redist::explain(a, b);
  const long messages = mpi::all_reduce(world, static_cast<long>(e.messages), std::plus<long>());
  auto naive_b = b;
  const double naive = timed(world, [&] { redist::bench::naive_redistribute(a, naive_b); });
  const bool naive_ok = verify(naive_b);
  const double gbytes = 2.0 * static_cast<double>(a.size()) * sizeof(double) / 1e9;  // read once, write once
  if (world.rank() == 0)
    std::printf("%-22s %8.3f ms %7.2f GB/s %5ld msgs  plan %7.3f ms  naive %8.3f ms (x%.1f)  %s  [%s, %s]\n",
                name.c_str(), 1e3 * t, gbytes / t, messages, 1e3 * plan_s, 1e3 * naive, naive / t,
                ok && naive_ok ? "verified" : "WRONG", e.schedule.c_str(), e.transport.c_str());
  return ok && naive_ok;
}
}  // namespace

int main(int argc, char* argv[]) {
  mpi::environment env(argc, argv);
  mpi::communicator world;
  const index_t n = argc > 1 ? std::atoll(argv[1]) : index_t{1} << 24;
  const int nprocs = world.size();

  // An uneven GEN_BLOCK: process p gets a share proportional to p + 1.
  std::vector<index_t> sizes(static_cast<std::size_t>(nprocs));
  index_t given = 0;
  for (int p = 0; p < nprocs; ++p) {
    sizes[p] = p + 1 < nprocs ? n * 2 * (p + 1) / (static_cast<index_t>(nprocs) * (nprocs + 1)) : n - given;
    given += sizes[p];
  }

  redist::DistArray<double, redist::Block> a_block(world, n);
  redist::DistArray<double, redist::Cyclic<8>> a_cyc8(world, n);
  redist::DistArray<double, redist::Cyclic<5>> a_cyc5(world, n);
  redist::DistArray<double, redist::GenBlock> a_gen(world, n, redist::GenBlock(sizes));
  redist::DistArray<double, redist::Block> a_back(world, n);
  for (index_t l = 0; l < a_block.local_size(); ++l) a_block.local()[l] = value_of(a_block.global_index(l));

  if (world.rank() == 0)
    std::printf("redist demo: n = %lld doubles (%.0f MiB) on %d processes\n", static_cast<long long>(n),
                static_cast<double>(n) * 8 / (1 << 20), nprocs);
  bool ok = step("Block -> Cyclic<8>", a_block, a_cyc8);
  ok = step("Cyclic<8> -> Cyclic<5>", a_cyc8, a_cyc5) && ok;
  ok = step("Cyclic<5> -> GenBlock", a_cyc5, a_gen) && ok;
  ok = step("GenBlock -> Block", a_gen, a_back) && ok;
  if (world.rank() == 0) std::printf("%s\n", ok ? "all steps verified" : "VERIFICATION FAILED");
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
