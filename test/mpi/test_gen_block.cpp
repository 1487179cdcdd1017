// MPI tests of the GEN_BLOCK schedules: GenBlock -> GenBlock with empty parts under every policy, per-step contention, LMR calibration.
#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <vector>

#include <boost/mpi/collectives/all_reduce.hpp>
#include <boost/mpi/communicator.hpp>
#include <catch2/catch.hpp>

#include <redist/redist.hpp>

#include "../support/array_values.hpp"
#include "../support/mpi_check.hpp"
#include "../support/random_dists.hpp"

using namespace redist;
namespace mpi = boost::mpi;
using redist::test::all_ok;
using redist::test::fill;
using redist::test::holds;

namespace {
double value_of(index_t g) { return 0.25 + 7.0 * static_cast<double>(g); }

/// Sizes summing to n with some empty parts (at least one when P > 1), the same on every rank.
std::vector<index_t> parts_with_empty(index_t n, int nprocs, std::mt19937_64& rng) {
  auto sizes = redist::test::random_parts(n, nprocs, rng);
  if (nprocs > 1) {
    const std::size_t e = rng() % sizes.size(), to = (e + 1) % sizes.size();
    sizes[to] += sizes[e];
    sizes[e] = 0;
  }
  return sizes;
}

/// b = a under policy, checked; and this rank's schedule: at most one send and one receive per
/// step, and (scheduled) exactly d steps, the maximum degree, on every rank.
template <class Policy>
void check_policy(const mpi::communicator& world, Policy policy, bool contention_free, index_t n, std::mt19937_64& rng) {
  const int nprocs = world.size();
  const GenBlock src(parts_with_empty(n, nprocs, rng)), dst(parts_with_empty(n, nprocs, rng));
  DistArray<double, GenBlock> a(world, n, src), b(world, n, dst);
  fill(a, value_of);
  fill(b, [](index_t) { return -1.0; });
  redistribute(a, b, policy);
  INFO("n = " << n << ", P = " << nprocs);
  REQUIRE(all_ok(world, holds(b, value_of)));
  REQUIRE(all_ok(world, holds(a, value_of)));
  auto plan = make_plan(a, b, policy);
  bool ok = true;
  for (const auto& step : plan.plan().only().schedule.steps) ok = ok && (!contention_free || (step.sends.size() <= 1 && step.recvs.size() <= 1));
  if (contention_free) {
    const auto msgs = index::gen_block_messages(a.mapping().linear(), b.mapping().linear());
    const int d = schedule::max_degree(msgs, nprocs, schedule::LocalMessages::counted);  // local messages take a step
    ok = ok && plan.plan().only().schedule.size() == static_cast<std::size_t>(d);
  }
  REQUIRE(all_ok(world, ok));
  // Running the held plan again gives the same result.
  fill(b, [](index_t) { return -2.0; });
  plan.execute(a, b);
  REQUIRE(all_ok(world, holds(b, value_of)));
}
}  // namespace

TEST_CASE("GenBlock -> GenBlock with empty parts is exact under every GEN_BLOCK schedule", "[mpi][gen_block]") {
  mpi::communicator world;
  const double r = runtime::local_remote_ratio(world);
  for (index_t n : {0, 1, 2, 7, 100, 1001, 30011}) {
    std::mt19937_64 rng(static_cast<unsigned>(n) * 7919u + 3u);  // same seed on every rank
    check_policy(world, schedule::tpdr, true, n, rng);
    check_policy(world, schedule::etpdr, true, n, rng);
    check_policy(world, schedule::list, true, n, rng);
    check_policy(world, schedule::tpdr_t{.lmr_ratio = r}, true, n, rng);
    check_policy(world, schedule::etpdr_t{.lmr_ratio = r}, true, n, rng);
    check_policy(world, schedule::list_t{.lmr_ratio = r}, true, n, rng);
    check_policy(world, schedule::all_at_once, false, n, rng);
    check_policy(world, schedule::automatic, false, n, rng);
  }
}

TEST_CASE("b = a between GenBlocks uses automatic, and the paper's Figure 2 runs on 7 parts", "[mpi][gen_block]") {
  mpi::communicator world;
  const int nprocs = world.size();
  // Figure 2's sizes, scaled by 1000 and spread over the ranks: rank p gets parts p, p + P, ...
  const index_t src7[] = {7, 10, 4, 18, 7, 18, 36}, dst7[] = {10, 14, 18, 14, 14, 12, 18};
  std::vector<index_t> src(static_cast<std::size_t>(nprocs), 0), dst(src);
  for (int i = 0; i < 7; ++i) {
    src[static_cast<std::size_t>(i % nprocs)] += 1000 * src7[i];
    dst[static_cast<std::size_t>(i % nprocs)] += 1000 * dst7[i];
  }
  DistArray<double, GenBlock> a(world, 100000, GenBlock(src)), b(world, 100000, GenBlock(dst));
  fill(a, value_of);
  b = a;
  REQUIRE(all_ok(world, holds(b, value_of)));
  a = b;
  REQUIRE(all_ok(world, holds(a, value_of)));
}

TEST_CASE("The local/remote ratio is measured once per communicator and is the same on every rank",
          "[mpi][gen_block][lmr]") {
  mpi::communicator world;
  const runtime::Calibration c = runtime::calibrate(world);
  CHECK(c.ratio >= 1.0);
  CHECK(std::isfinite(c.ratio));
  CHECK(c.copy_bytes_per_second > 0);
  CHECK(c.remote_bytes_per_second > 0);
  const double lo = mpi::all_reduce(world, c.ratio, mpi::minimum<double>());
  const double hi = mpi::all_reduce(world, c.ratio, mpi::maximum<double>());
  CHECK(lo == hi);
  // Cached: no communication, the same numbers (a rank that measured again would disagree).
  CHECK(runtime::local_remote_ratio(world) == c.ratio);
  if (world.size() == 1) CHECK(c.ratio == 1.0);
  // A duplicate communicator is calibrated anew (collectively) and agrees across ranks too.
  mpi::communicator dup(world, mpi::comm_duplicate);
  const double d = runtime::local_remote_ratio(dup);
  CHECK(mpi::all_reduce(dup, d, mpi::minimum<double>()) == mpi::all_reduce(dup, d, mpi::maximum<double>()));
  if (world.rank() == 0)
    WARN("local/remote ratio on " << world.size() << " ranks: " << c.ratio << " (copy " << c.copy_bytes_per_second / 1e9
                                  << " GB/s, MPI " << c.remote_bytes_per_second / 1e9 << " GB/s)");
}
