// The soak program (issue 19, item 2): random redistributions for a given time on every rank alike
// (one random stream, the same seed everywhere), every element checked against a formula of its
// global index and agreed across ranks, and this process's resident memory watched: after the
// warm-up and at the end, failing when it grew by more than a bound.
//
//   mpiexec -n 4 soak [--seconds S] [--seed X] [--max-growth-kib K] [--verbose] [--trace-rss N] [--fail-at N]
//
// --trace-rss N prints every rank's resident set (anonymous and shared) and malloc's bytes in use
// every N iterations; --fail-at N makes the first check of iteration N fail on the last rank (a
// test of the failure path); --verbose prints every case.
//
// Exit status: 0 when every check passed and no rank's resident set grew by more than K KiB;
// 1 on a wrong element or too much growth; 2 on an unexpected exception; 3 when one iteration
// took longer than the watchdog allows (the case is printed).
#include <algorithm>
#include <array>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <malloc.h>
#include <unistd.h>

#include <boost/mpi/collectives/broadcast.hpp>
#include <boost/mpi/collectives/gather.hpp>
#include <boost/mpi/environment.hpp>

#include "soak.hpp"

namespace soak {

namespace {
std::array<char, 16384> watchdog_text{};
std::size_t watchdog_length = 0;

extern "C" void on_alarm(int) {
  static const char head[] = "soak: an iteration exceeded the watchdog (a hang?); the case:\n";
  ssize_t r = write(2, head, sizeof(head) - 1);
  r = write(2, watchdog_text.data(), watchdog_length);
  (void)r;
  _exit(3);
}

/// A field of /proc/self/status in KiB ("VmRSS", "RssAnon", "RssShmem"), 0 when unreadable.
long status_kib(const std::string& field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind(field + ":", 0) == 0) return std::atol(line.c_str() + field.size() + 1);
  return 0;
}
/// Bytes malloc has handed out and not had back (live heap, whatever the fragmentation), in KiB.
long heap_in_use_kib() {
  const struct mallinfo2 m = mallinfo2();
  return static_cast<long>((m.uordblks + m.hblkhd) / 1024);
}
/// This process's resident set in KiB (VmRSS), after giving malloc's free pages back to the
/// system, so that what is measured is memory in use rather than the allocator's cache.
long resident_kib() {
  malloc_trim(0);
  return status_kib("VmRSS");
}
}  // namespace

void set_watchdog_text(const std::string& s) {
  // Keep the end when the description is long: the running operation is last.
  const std::size_t n = std::min(s.size(), watchdog_text.size());
  std::memcpy(watchdog_text.data(), s.data() + (s.size() - n), n);
  watchdog_length = n;
}

}  // namespace soak

int main(int argc, char** argv) {
  using namespace soak;
  boost::mpi::environment env(argc, argv);
  boost::mpi::communicator world;
  double seconds = 60;
  std::uint64_t seed = 0x5eed;
  // Default bound on a rank's growth of resident memory between the end of the warm-up and the
  // end of the run. What stays resident by design is bounded: one plan per destination array
  // (freed with the array), 16 fused message layouts per thread, 8 gemr2d plans, one interned
  // rank map per distinct grid map (at most sum_k P!/(P-k)!, 60 at P = 4), the node
  // communicators, the pool's 8 destinations and their sources (at most ~4000 doubles each),
  // and MPI's own free lists, which grow to the most messages ever in flight (a budget of 8-byte
  // MPI messages posts thousands). Measured here (doc/reliability.md, "Soak"): growth up to 6.6
  // MiB on a rank in 60 s at 4 ranks, in steps, flat between them for 100,000 iterations in a
  // 300 s run, and malloc's bytes in use track the resident set (live memory, not
  // fragmentation). 16 MiB leaves 2.5x that margin and still fails a leak of ~600 bytes per
  // iteration over a 60 s run (~27,000 iterations at 4 ranks).
  long max_growth_kib = 16384;
  bool verbose = false;
  long fail_at = -1;
  long trace_rss = 0;  // print every rank's RSS every this many iterations (0: never)
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) {
        if (world.rank() == 0) std::fprintf(stderr, "soak: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--seconds") seconds = std::atof(next());
    else if (a == "--seed") seed = std::strtoull(next(), nullptr, 0);
    else if (a == "--max-growth-kib") max_growth_kib = std::atol(next());
    else if (a == "--verbose") verbose = true;
    else if (a == "--trace-rss") trace_rss = std::atol(next());
    else if (a == "--fail-at") fail_at = std::atol(next());
    else {
      if (world.rank() == 0)
        std::fprintf(stderr, "usage: soak [--seconds S] [--seed X] [--max-growth-kib K] [--verbose] [--trace-rss N] [--fail-at N]\n");
      return 2;
    }
  }

  Ctx ctx(world, seed);
  ctx.fail_at = fail_at;
  ctx.env_defaults = redist::default_options();
  ctx.env_shared_off = !ctx.env_defaults.shared_memory;
  ctx.env_node_size = std::getenv("REDIST_NODE_SIZE") != nullptr && *std::getenv("REDIST_NODE_SIZE") != '\0';
  std::signal(SIGALRM, on_alarm);

  std::array<std::unique_ptr<PoolEntry>, 8> pool;
  const auto start = std::chrono::steady_clock::now();
  const long min_warmup_iterations = 50;
  bool warm = false;
  long rss_warm = 0, warm_iteration = 0, warm_redistributions = 0;
  double warm_seconds = 0;
  int status = 0;
  long iterations = 0;
  try {
    for (long it = 0;; ++it) {
      // Rank 0's clock decides, for every rank alike: 0 go on, 1 the warm-up ends here, 2 stop.
      int state = 0;
      if (world.rank() == 0) {
        const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        state = t >= seconds ? 2 : !warm && t >= 0.2 * seconds && it >= min_warmup_iterations ? 1 : 0;
      }
      boost::mpi::broadcast(world, state, 0);
      if (state == 2) {
        iterations = it;
        break;
      }
      if (state == 1) {
        warm = true;
        rss_warm = resident_kib();
        warm_iteration = it;
        warm_redistributions = ctx.redistributions;
        warm_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      }
      ctx.iteration = it;
      ctx.desc = "iteration " + std::to_string(it) + ", seed " + std::to_string(seed) + ", " +
                 std::to_string(world.size()) + " ranks\n";
      set_watchdog_text(ctx.desc);
      alarm(120);
      const auto kind = ctx.rnd(20);
      if (kind < 9) {
        ++ctx.kinds[0];
        switch (1 + ctx.rnd(5)) {
          case 1: nd_case<1>(ctx); break;
          case 2: nd_case<2>(ctx); break;
          case 3: nd_case<3>(ctx); break;
          case 4: nd_case<4>(ctx); break;
          default: nd_case<5>(ctx); break;
        }
      } else if (kind < 13) {
        ++ctx.kinds[1];
        typed_case(ctx);
      } else if (kind < 18) {
        ++ctx.kinds[2];
        auto& slot = pool[ctx.rnd(pool.size())];
        // Mostly the slot's own rank (its plan cache is hit or re-planned); else a new rank.
        const std::size_t r = slot && !ctx.coin(5) ? slot->rank() : 1 + ctx.rnd(5);
        switch (r) {
          case 1: pool_case<1>(ctx, slot); break;
          case 2: pool_case<2>(ctx, slot); break;
          case 3: pool_case<3>(ctx, slot); break;
          case 4: pool_case<4>(ctx, slot); break;
          default: pool_case<5>(ctx, slot); break;
        }
      } else {
        ++ctx.kinds[3];
        // Two made pool entries of one rank as one fused list (when there are two).
        const std::size_t i = ctx.rnd(pool.size());
        std::size_t j = i;
        if (pool[i])
          for (std::size_t k = 1; k < pool.size(); ++k) {
            const std::size_t c = (i + k) % pool.size();
            if (pool[c] && pool[c]->rank() == pool[i]->rank()) {
              j = c;
              break;
            }
          }
        if (j != i) {
          switch (pool[i]->rank()) {
            case 1: pool_fused<1>(ctx, *pool[i], *pool[j]); break;
            case 2: pool_fused<2>(ctx, *pool[i], *pool[j]); break;
            case 3: pool_fused<3>(ctx, *pool[i], *pool[j]); break;
            case 4: pool_fused<4>(ctx, *pool[i], *pool[j]); break;
            default: pool_fused<5>(ctx, *pool[i], *pool[j]); break;
          }
        } else {
          ++ctx.kinds[4];
        }
      }
      alarm(0);
      if (verbose && world.rank() == 0) std::fprintf(stderr, "%s", ctx.desc.c_str());
      if (trace_rss > 0 && (it + 1) % trace_rss == 0) {
        const long mine[4] = {resident_kib(), status_kib("RssAnon"), status_kib("RssShmem"), heap_in_use_kib()};
        std::vector<long> rss;
        boost::mpi::gather(world, mine, 4, rss, 0);
        if (world.rank() == 0) {
          std::printf("soak: iteration %ld, %ld redistributions, RSS (anonymous, shared; malloc in use) per rank:", it + 1,
                      ctx.redistributions);
          for (std::size_t k = 0; k + 3 < rss.size(); k += 4)
            std::printf(" %ld (%ld, %ld; %ld)", rss[k], rss[k + 1], rss[k + 2], rss[k + 3]);
          std::printf(" KiB\n");
          std::fflush(stdout);
        }
      }
    }
  } catch (const Failure&) {
    status = 1;  // printed by Ctx::check on rank 0; every rank is here
  } catch (const std::exception& e) {
    // A library error should be thrown on every rank alike, but a soak cannot count on it.
    std::fprintf(stderr, "soak: rank %d: unexpected exception: %s\n  case:\n%s", world.rank(), e.what(), ctx.desc.c_str());
    std::fflush(stderr);
    boost::mpi::environment::abort(2);
  }
  alarm(0);
  if (status != 0) return status;

  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const long rss_end = resident_kib();
  if (!warm) rss_warm = rss_end;  // too short a run to have a warm-up
  const long mine[3] = {rss_warm, rss_end, rss_end - rss_warm};
  std::vector<long> flat;
  boost::mpi::gather(world, mine, 3, flat, 0);
  std::vector<std::array<long, 3>> all;
  for (std::size_t k = 0; k + 2 < flat.size(); k += 3) all.push_back({flat[k], flat[k + 1], flat[k + 2]});
  int failed = 0;
  if (world.rank() == 0) {
    long max_warm = 0, max_end = 0, sum_warm = 0, sum_end = 0, max_growth = 0;
    for (std::size_t r = 0; r < all.size(); ++r) {
      max_warm = std::max(max_warm, all[r][0]);
      max_end = std::max(max_end, all[r][1]);
      sum_warm += all[r][0];
      sum_end += all[r][1];
      max_growth = std::max(max_growth, all[r][2]);
      std::printf("soak: rank %zu: RSS after warm-up %ld KiB, at end %ld KiB, growth %ld KiB\n", r, all[r][0], all[r][1],
                  all[r][2]);
    }
    std::printf("soak: cases: %ld N-D, %ld typed 1-D, %ld pool, %ld pool fused (%ld of them without two entries of one rank)\n",
                ctx.kinds[0], ctx.kinds[1], ctx.kinds[2], ctx.kinds[3], ctx.kinds[4]);
    std::printf("soak: warm-up %ld iterations, %ld redistributions, %.1f s; sum over ranks: RSS after warm-up %ld KiB, at end %ld KiB\n",
                warm_iteration, warm_redistributions, warm_seconds, sum_warm, sum_end);
    std::printf("soak: %ld iterations, %ld redistributions in %.1f s on %d ranks (seed %llu), RSS after warm-up %ld KiB, at end %ld KiB "
                "(max over ranks), growth %ld KiB (max over ranks; bound %ld KiB)\n",
                iterations, ctx.redistributions, elapsed, world.size(), static_cast<unsigned long long>(seed), max_warm,
                max_end, max_growth, max_growth_kib);
    if (max_growth > max_growth_kib) {
      std::printf("soak: FAILED: a rank's resident set grew by %ld KiB after the warm-up, more than %ld KiB\n", max_growth,
                  max_growth_kib);
      failed = 1;
    }
    std::fflush(stdout);
  }
  boost::mpi::broadcast(world, failed, 0);
  return failed;
}
