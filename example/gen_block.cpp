// Load balancing with GEN_BLOCK: move an array from the parts of the last balance to parts
// proportional to each process's measured speed, under each GEN_BLOCK schedule (TPDR, E-TPDR,
// list scheduling, with LMR at the machine's measured local/remote ratio, all at once, automatic),
// and check every element after each move.
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <boost/mpi/collectives.hpp>
#include <redist/redist.hpp>

namespace mpi = boost::mpi;
using redist::index_t;

namespace {
/// Parts of n proportional to weights (the remainder to the first parts).
std::vector<index_t> proportional(index_t n, const std::vector<double>& w) {
  double total = 0;
  for (double x : w) total += x;
  std::vector<index_t> parts;
  index_t given = 0;
  for (double x : w) given += parts.emplace_back(static_cast<index_t>(static_cast<double>(n) * x / total));
  for (std::size_t i = 0; given < n; i = (i + 1) % parts.size(), ++given) ++parts[i];
  return parts;
}

double value_of(index_t g) { return 1.0 + 0.5 * static_cast<double>(g); }
}  // namespace

int main(int argc, char* argv[]) {
  mpi::environment env(argc, argv);
  mpi::communicator world;
  const int nprocs = world.size();
  const index_t n = argc > 1 ? std::stoll(argv[1]) : 200003;

  // The last balance: process p was thought to run at speed 1 + (p mod 3); the new one measured
  // 1 + ((p + 1) mod 4), and process 1 (if any) has left the computation: an empty part.
  std::vector<double> before, after;
  for (int p = 0; p < nprocs; ++p) {
    before.push_back(1.0 + p % 3);
    after.push_back(p == 1 ? 0.0 : 1.0 + (p + 1) % 4);
  }
  const redist::GenBlock old_parts(proportional(n, before)), new_parts(proportional(n, after));
  redist::DistArray<double, redist::GenBlock> a_old(world, n, old_parts);
  redist::DistArray<double, redist::GenBlock> b_new(world, n, new_parts);
  auto loc = a_old.local();
  for (index_t l = 0; l < a_old.local_size(); ++l) loc[l] = value_of(a_old.global_index(l));

  // The global schedule is the same on every rank and needs no communication: show it.
  const auto msgs = redist::index::gen_block_messages(a_old.mapping().linear(), b_new.mapping().linear());
  const double ratio = redist::runtime::local_remote_ratio(world);  // collective, measured once per communicator
  // Seed 002's bound: a local message occupies its part during its step, so it counts.
  const int degree = redist::schedule::max_degree(msgs, nprocs, redist::schedule::LocalMessages::counted);
  if (world.rank() == 0)
    std::printf("n = %lld on %d processes: %zu messages, maximum degree %d, lower bound %g elements, "
                "local/remote ratio %.2f\n",
                static_cast<long long>(n), nprocs, msgs.size(), degree,
                redist::schedule::lower_bound(msgs, nprocs), ratio);

  bool all_ok = true;
  // Each schedule's global table, and its cost (Σ over steps of the largest message).
  // (The all-at-once exchange is one step with node contention: its "cost" would not compare.)
  auto show = [&](const char* name, const redist::schedule::GlobalSchedule& s, auto policy) {
    redist::redistribute(a_old, b_new, policy);  // plans (once) and warms up
    for (auto& x : b_new.local()) x = -1;
    world.barrier();
    const auto t0 = std::chrono::steady_clock::now();
    redist::redistribute(a_old, b_new, policy);
    world.barrier();
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    bool ok = true;
    const auto out = b_new.local();
    for (index_t l = 0; l < b_new.local_size(); ++l) ok = ok && out[l] == value_of(b_new.global_index(l));
    ok = mpi::all_reduce(world, ok, std::logical_and<bool>());
    all_ok = all_ok && ok;
    const bool contention_free = s.size() == static_cast<std::size_t>(degree);
    if (world.rank() == 0 && contention_free)
      std::printf("%-18s %2zu steps  cost %9.0f  LMR cost %11.1f  %8.3f ms  %s\n", name, s.size(),
                  redist::schedule::schedule_cost(msgs, s), redist::schedule::schedule_cost(msgs, s, {ratio}), ms,
                  ok ? "ok" : "WRONG");
    else if (world.rank() == 0)
      std::printf("%-18s %2zu steps  %35s  %8.3f ms  %s\n", name, s.size(), "(not contention-free)", ms,
                  ok ? "ok" : "WRONG");
  };
  namespace sch = redist::schedule;
  show("TPDR", sch::tpdr_schedule(msgs, nprocs), sch::tpdr);
  show("E-TPDR", sch::etpdr_schedule(msgs, nprocs), sch::etpdr);
  show("list", sch::list_schedule(msgs, nprocs), sch::list);
  show("TPDR + LMR", sch::tpdr_schedule(msgs, nprocs, {ratio}), sch::tpdr_t{.lmr_ratio = ratio});
  show("E-TPDR + LMR", sch::etpdr_schedule(msgs, nprocs, {ratio}), sch::etpdr_t{.lmr_ratio = ratio});
  show("list + LMR", sch::list_schedule(msgs, nprocs, {ratio}), sch::list_t{.lmr_ratio = ratio});
  show("all at once", sch::all_at_once_schedule(msgs), sch::all_at_once);
  // automatic: E-TPDR with LMR at the default ratio, unless the cost model prefers all at once.
  const auto auto_etpdr = sch::etpdr_schedule(msgs, nprocs, {sch::default_lmr_ratio});
  const bool aao = sch::choose_automatic(msgs, nprocs, auto_etpdr) == sch::automatic_choice::one_exchange;
  show(aao ? "automatic (all)" : "automatic (E-TPDR)", aao ? sch::all_at_once_schedule(msgs) : auto_etpdr,
       sch::automatic);
  b_new = a_old;  // the same as redistribute(a_old, b_new, automatic)

  if (world.rank() == 0 && nprocs <= 8) {
    const auto s = sch::etpdr_schedule(msgs, nprocs, {ratio});
    for (std::size_t k = 0; k < s.size(); ++k) {
      std::printf("E-TPDR + LMR step %zu:", k + 1);
      for (std::size_t i : s.steps[k])
        std::printf("  SP%d->DP%d (%lld)", msgs[i].sender, msgs[i].receiver, static_cast<long long>(msgs[i].size));
      std::printf("\n");
    }
  }
  return all_ok ? 0 : 1;
}
