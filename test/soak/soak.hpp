/// @file Defines the soak program's shared pieces: its context (one random stream that every rank draws alike), the element formula, random options, the agreed check and the persistent pool's interface.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <boost/mpi/collectives/all_reduce.hpp>
#include <boost/mpi/collectives/gather.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/serialization/string.hpp>

#include <redist/array/options.hpp>
#include <redist/config.hpp>

namespace soak {

using redist::index_t;

/// What an element holds: its linear global index (< 2^20) and a salt (< 2^20) per fill, so that
/// a stale value, a value of another array and a misplaced one all differ; 2 * a + b of two such
/// values stays an exact integer in a double.
inline double value(index_t lin, std::uint32_t salt) {
  return static_cast<double>(lin) + static_cast<double>(salt) * 1048576.0;
}

/// The linear index of g in extents e (first index fastest).
template <std::size_t N>
index_t linear(const std::array<index_t, N>& g, const std::array<index_t, N>& e) {
  index_t l = 0;
  for (std::size_t d = N; d-- > 0;) l = l * e[d] + g[d];
  return l;
}

/// A check failed on some rank (all ranks throw it together, after the agreement).
struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The description of the running case, kept in a fixed buffer the watchdog's signal handler can
/// write out.
void set_watchdog_text(const std::string& s);

/// Everything an iteration needs: the communicator, the one random stream (same seed, same draws
/// on every rank), the description of the case, counters.
struct Ctx {
  boost::mpi::communicator world;
  std::mt19937_64 rng;
  std::uint64_t seed = 0;
  long iteration = 0;
  long redistributions = 0;
  std::string desc;      ///< the case so far (layouts, sizes, grids, policy, options)
  std::string mismatch;  ///< this rank's first wrong element in the current check
  bool env_shared_off = false;  ///< REDIST_SHARED_MEMORY=0: never turn shared memory on
  bool env_node_size = false;   ///< REDIST_NODE_SIZE set: keep its node size
  redist::options env_defaults;
  std::uint32_t salt_counter = 0;
  long fail_at = -1;  ///< --fail-at N: the first check of iteration N fails (a test of the soak itself)
  std::array<long, 8> kinds{};  ///< iterations per case kind

  Ctx(boost::mpi::communicator w, std::uint64_t s) : world{std::move(w)}, rng{s}, seed{s} {}

  std::uint64_t rnd(std::uint64_t n) { return n == 0 ? 0 : rng() % n; }
  bool coin(std::uint64_t one_in) { return rnd(one_in) == 0; }
  int nprocs() const { return world.size(); }
  std::uint32_t salt() { return 1 + (++salt_counter % 1000000); }

  void describe(const std::string& s) {
    desc += s;
    desc += '\n';
    set_watchdog_text(desc);
  }
  /// Records this rank's first wrong element (index text, got, want).
  void wrong(const std::string& where, double got, double want) {
    if (!mismatch.empty()) return;
    std::ostringstream o;
    o.precision(17);
    o << "rank " << world.rank() << ": " << where << " holds " << got << ", want " << want;
    mismatch = o.str();
  }

  /// Agrees ok over all ranks; on a failure rank 0 prints the case and every rank's first wrong
  /// element, and every rank throws Failure.
  void check(bool ok, const std::string& what) {
    if (iteration == fail_at) {  // --fail-at: a wrong element on the last rank, to test this path
      fail_at = -1;
      if (world.rank() == world.size() - 1) {
        ok = false;
        wrong("(injected by --fail-at)", 0.0, 1.0);
      }
    }
    const bool all = boost::mpi::all_reduce(world, ok, std::logical_and<bool>());
    if (all) {
      mismatch.clear();
      return;
    }
    std::vector<std::string> all_mismatches;
    boost::mpi::gather(world, mismatch, all_mismatches, 0);
    if (world.rank() == 0) {
      std::fprintf(stderr, "soak: FAILED: %s\n  iteration %ld, seed %llu, %d ranks\n  case:\n%s", what.c_str(), iteration,
                   static_cast<unsigned long long>(seed), world.size(), desc.c_str());
      for (const auto& m : all_mismatches)
        if (!m.empty()) std::fprintf(stderr, "  %s\n", m.c_str());
      std::fflush(stderr);
    }
    throw Failure(what);
  }

  /// Random options, the same on every rank: shared memory on or off (never on when the
  /// environment turned it off), node size 0, 1 or 2 (the environment's, when it set one), a
  /// small scratch budget (pieces in rounds) or the default, short MPI messages now and then,
  /// tune_reps 0 to 2, the consistency check mostly on.
  redist::options random_options() {
    redist::options o = env_defaults;
    o.shared_memory = env_shared_off ? false : coin(2);
    if (!env_node_size) o.node_size = static_cast<int>(rnd(3));
    // At least one element per packed message of a step (2 (P - 1) messages at most) fits.
    if (coin(3)) o.max_scratch_bytes = sizeof(double) * (2 * static_cast<std::size_t>(nprocs()) + rnd(64));
    if (coin(6)) o.max_message_bytes = sizeof(double) * (1 + rnd(16));
    o.tune_reps = static_cast<int>(rnd(3));
    o.check_consistency = !coin(4);
    return o;
  }
  static std::string describe(const redist::options& o) {
    std::ostringstream s;
    s << "options{shared_memory=" << o.shared_memory << " node_size=" << o.node_size
      << " max_scratch_bytes=" << o.max_scratch_bytes << " max_message_bytes=" << o.max_message_bytes
      << " tune_reps=" << o.tune_reps << " check_consistency=" << o.check_consistency << "}";
    return s.str();
  }
};

/// Sets default_options() (every rank alike) for the life of the object: the options of array
/// construction, of expressions and of fused lists, which take no options argument.
class ScopedDefaults {
 public:
  explicit ScopedDefaults(const redist::options& o) : saved_{redist::default_options()} { redist::default_options() = o; }
  ~ScopedDefaults() { redist::default_options() = saved_; }
  ScopedDefaults(const ScopedDefaults&) = delete;
  ScopedDefaults& operator=(const ScopedDefaults&) = delete;

 private:
  redist::options saved_;
};

/// A persistent destination array of the pool (with the source it was last assigned from), of
/// some rank; reused so that its plan cache is hit, re-planned when its source or policy changes,
/// and freed when the slot is replaced.
struct PoolEntry {
  virtual ~PoolEntry() = default;
  virtual std::size_t rank() const = 0;
};

/// One random N-D case of rank R (soak_nd<R>.cpp).
template <std::size_t R>
void nd_case(Ctx& ctx);
/// One step on pool slot `slot` of rank R: make it (when empty or of another rank), reuse it, or
/// give it a new source.
template <std::size_t R>
void pool_case(Ctx& ctx, std::unique_ptr<PoolEntry>& slot);
/// Two pool entries of rank R (both made) assigned as one fused list.
template <std::size_t R>
void pool_fused(Ctx& ctx, PoolEntry& x, PoolEntry& y);
/// One random 1-D case between typed distributions (Cyclic<3> -> Cyclic<5>, GenBlock, ...), which
/// reach the static schedules.
void typed_case(Ctx& ctx);

}  // namespace soak
