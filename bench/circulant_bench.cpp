// circulant-bench: seed 001's direct, indirect and hybrid schedules for Cyclic(x) -> Cyclic(Kx)
// against the basic-cycle calculation (in BCC's order and its contention-free order),
// schedule::automatic (which times its candidates on its second call), schedule::modeled (the GDM
// model alone, with this machine's calibrated Ts, Td and Tstep) and a plain MPI_Alltoallv, as in
// the paper's Figures 14-19: time against K at a small and a large array on all ranks, and time
// against P with K = P at a fixed array size.
//
//   mpirun -n 4 circulant-bench [--csv bench/circulant_results.csv] [--reps 31] [--small 16384]
//                               [--large 2097152] [--pn 65536] [--x 4] [--smoke]
//                               [--only p_sweep] [--ps 16,32,64]
//
// --only p_sweep runs the sweep against P alone; --ps lists the process counts it takes (default
// 2 ... ranks): the paper's regime of many processes and small messages, on as many
// (oversubscribed) ranks as the machine holds (doc/papers.md, seed 001).
//
// n is in elements (doubles). Every method's result is checked element by element once per
// case; the program exits with 1 when any check fails. A call's time is the slowest rank's;
// the table shows the median over --reps interleaved rounds (10 times as many for the small
// arrays of k_small and p_sweep, whose calls of tens of microseconds vary most), in
// milliseconds, and the time of the first two calls.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <boost/mpi/collectives.hpp>
#include <redist/redist.hpp>

#include "cli.hpp"

namespace mpi = boost::mpi;
using redist::index_t;
using Clock = std::chrono::steady_clock;
using Arr = redist::DistArray<double, redist::Cyclic<redist::dynamic>>;

namespace {

struct Row {
  std::string section, method;
  int d;
  index_t k;
  int nprocs;
  index_t n;
  double ms = 0, predicted_ms = 0;
  long steps = 0;
  bool ok = false;
  double first_ms = 0;
  std::string tuning;  ///< automatic: its candidates' median times (ms), timed on its second call
};

double value_of(index_t g) { return 0.25 + static_cast<double>(g); }

void fill(Arr& a) {
  auto loc = a.local();
  for (index_t l = 0; l < a.local_size(); ++l) loc[l] = value_of(a.global_index(l));
}
bool holds(const Arr& a) {
  auto loc = a.local();
  for (index_t l = 0; l < a.local_size(); ++l)
    if (loc[l] != value_of(a.global_index(l))) return false;
  return true;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

/// One method of a case: a call and what the table reports of it.
struct Method {
  Row row;
  std::function<void()> call;
  std::function<void(Row&)> describe;  ///< after timing: fill in what only the plan knows
};

/// Every method's first two calls (untimed for the median, reported together as first_ms: they
/// include the consistency check and, for automatic, the timing of its candidates, on its second
/// run), each checked element by element; then reps rounds in which every method runs once, in an order shuffled from round
/// to round (the same on every rank), each call after a barrier. A call's time is the slowest rank's; a method's
/// is the median over the rounds. Interleaving makes a change in the machine's load during the
/// case weigh on every method alike (4 ranks on 2 cores vary by 10-40 % from second to second),
/// and shuffling the order keeps one method from always running after the same other one.
void time_methods(const mpi::communicator& comm, Arr& b, int reps, std::vector<Method>& methods) {
  for (Method& m : methods) {
    m.row.first_ms = 0.0;
    m.row.ok = true;
    for (int call = 0; call < 2; ++call) {
      std::fill(b.local().begin(), b.local().end(), -1.0);
      comm.barrier();
      const auto t0 = Clock::now();
      m.call();
      const double mine = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
      m.row.first_ms += mpi::all_reduce(comm, mine, mpi::maximum<double>());
      m.row.ok = mpi::all_reduce(comm, holds(b), std::logical_and<bool>()) && m.row.ok;
    }
  }
  std::vector<std::vector<double>> t(methods.size());
  std::vector<std::size_t> order(methods.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::minstd_rand shuffle_with(4u);  // the same order on every rank
  for (int r = 0; r < reps; ++r) {
    std::shuffle(order.begin(), order.end(), shuffle_with);
    for (std::size_t i : order) {
      comm.barrier();
      const auto t0 = Clock::now();
      methods[i].call();
      const double mine = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
      t[i].push_back(mpi::all_reduce(comm, mine, mpi::maximum<double>()));
    }
  }
  for (std::size_t i = 0; i < methods.size(); ++i) {
    methods[i].row.ms = median(t[i]);
    if (methods[i].describe) methods[i].describe(methods[i].row);
  }
}

/// Plain MPI_Alltoallv, written as a user writes it for CYCLIC(s) -> CYCLIC(t): per local element
/// its owner on the other side (computed once), pack by peer in local order, one collective,
/// unpack by peer in local order (both sides visit a pair's elements in increasing global index).
struct Alltoallv {
  std::vector<int> to_peer, from_peer;  ///< per local element of a: its owner in b; of b: in a
  std::vector<int> scount, sdispl, rcount, rdispl;
  std::vector<double> sbuf, rbuf;
  std::vector<int> at;
  Alltoallv(const Arr& a, index_t s, index_t t) {
    const index_t n = a.size();
    const int P = a.comm().size(), me = a.comm().rank();
    const auto p = static_cast<std::size_t>(P);
    scount.assign(p, 0), sdispl.assign(p, 0), rcount.assign(p, 0), rdispl.assign(p, 0);
    // Global index of local element l of a CYCLIC(x) array on rank me.
    auto global = [&](index_t l, index_t x) { return ((l / x) * P + me) * x + l % x; };
    for (index_t g0 = 0, l = 0; (g0 = global(l, s)) < n; ++l) {
      to_peer.push_back(static_cast<int>((g0 / t) % P));
      ++scount[static_cast<std::size_t>(to_peer.back())];
    }
    for (index_t g0 = 0, l = 0; (g0 = global(l, t)) < n; ++l) {
      from_peer.push_back(static_cast<int>((g0 / s) % P));
      ++rcount[static_cast<std::size_t>(from_peer.back())];
    }
    for (std::size_t q = 1; q < p; ++q) sdispl[q] = sdispl[q - 1] + scount[q - 1], rdispl[q] = rdispl[q - 1] + rcount[q - 1];
    sbuf.resize(to_peer.size() + 1);
    rbuf.resize(from_peer.size() + 1);
    at.resize(p);
  }
  void run(const Arr& a, Arr& b) {
    const double* in = a.local().data();
    double* out = b.local().data();
    std::copy(sdispl.begin(), sdispl.end(), at.begin());
    for (std::size_t l = 0; l < to_peer.size(); ++l) sbuf[static_cast<std::size_t>(at[static_cast<std::size_t>(to_peer[l])]++)] = in[l];
    MPI_Alltoallv(sbuf.data(), scount.data(), sdispl.data(), MPI_DOUBLE, rbuf.data(), rcount.data(), rdispl.data(),
                  MPI_DOUBLE, static_cast<MPI_Comm>(a.comm()));
    std::copy(rdispl.begin(), rdispl.end(), at.begin());
    for (std::size_t l = 0; l < from_peer.size(); ++l) out[l] = rbuf[static_cast<std::size_t>(at[static_cast<std::size_t>(from_peer[l])]++)];
  }
};

/// One case: Cyclic(x) -> Cyclic(Kx), n elements, on comm.
std::vector<Row> run_case(const mpi::communicator& comm, const std::string& section, index_t x, index_t k, index_t n,
                          int reps, const redist::schedule::Machine& machine) {
  Arr a(comm, n, redist::Cyclic<redist::dynamic>(x));
  Arr b(comm, n, redist::Cyclic<redist::dynamic>(k * x));
  fill(a);
  const int P = comm.size();
  const redist::index::Circulant shape(k, P);
  const int depth = redist::schedule::indirect_depth(shape);
  const index_t bytes = 8;
  std::vector<Method> methods;
  auto predicted = [&](int d) {
    return 1e3 * redist::schedule::predict(redist::schedule::circulant_schedule(shape, d), n, bytes, machine);
  };
  // The scratch budget of bcc, automatic and modeled: room for the circulant workspace and for
  // BCC's whole messages, so that neither runs in rounds (direct, indirect and hybrid ignore the
  // budget). The default budget, the local array, cuts BCC's messages into rounds and keeps
  // automatic off a circulant schedule whose workspace needs more: automatic_default shows that.
  redist::options roomy = redist::default_options();  // REDIST_SHARED_MEMORY=0 applies here too
  roomy.max_scratch_bytes = mpi::all_reduce(
      comm, static_cast<std::size_t>(8 * std::max(a.local_size(), b.local_size()) + 4096) * sizeof(double),
      mpi::maximum<std::size_t>());
  auto add = [&](const std::string& method, int d, auto policy, double pred,
                 const redist::options& opts = redist::default_options()) {
    auto plan = std::make_shared<decltype(redist::make_plan(a, b, policy, opts))>(redist::make_plan(a, b, policy, opts));
    Method m;
    m.row = Row{section, method, d, k, P, n, 0.0, pred, 0, false, 0.0, {}};
    m.call = [plan, &a, &b] { plan->execute(a, b); };
    m.describe = [plan, method, depth, &a, &b, machine](Row& r) {
      const redist::Plan& p = plan->plan();
      r.steps = static_cast<long>(p.steps());
      if (!plan->timed_candidates().empty() && plan->from().nprocs() > 0) {
        std::string t = "  tuning " + r.section + " K=" + std::to_string(r.k) + " P=" + std::to_string(r.nprocs) + " " +
                        method + ":";
        for (const auto& c : plan->timed_candidates())
          t += (c.kind == redist::schedule::CyclicChoice::method::basic_cycles ? std::string(" bcc") : " d" + std::to_string(c.d)) +
               "=" + std::to_string(c.measured * 1e3);
        r.tuning = t;
      }
      if (method == "automatic" || method == "modeled" || method == "automatic_default") {
        // d: the hybrid degree that runs, -1 for BCC (chosen, or fallen back to for the budget).
        const std::string& name = p.schedule_name;
        r.d = name.rfind("bcc", 0) == 0 ? -1 : name == "direct" ? 0 : name == "indirect" ? depth
                                             : std::stoi(name.substr(name.find('(') + 1));
        // The model's prediction of what runs (the machine modeled takes; automatic's built-in one).
        const auto m = method == "modeled" ? redist::schedule::modeled(machine) : redist::schedule::modeled_t{};
        for (const auto& c : redist::automatic_candidates(a.mapping().linear(), b.mapping().linear(), m, 1e300))
          if ((c.kind == redist::schedule::CyclicChoice::method::basic_cycles) == (r.d < 0) && (r.d < 0 || std::min(c.d, depth) == r.d))
            r.predicted_ms = 1e3 * c.predicted;
      }
    };
    methods.push_back(std::move(m));
  };
  add("direct", 0, redist::schedule::direct, predicted(0));
  add("indirect", depth, redist::schedule::indirect, predicted(depth));
  for (int d = 1; d < depth; ++d) add("hybrid", d, redist::schedule::hybrid(d), predicted(d));
  add("bcc", -1, redist::schedule::bcc, 0.0, roomy);
  add("bcc_contention_free", -1, redist::schedule::bcc_contention_free, 0.0, roomy);
  add("automatic", 0, redist::schedule::automatic, 0.0, roomy);
  add("modeled", 0, redist::schedule::modeled(machine), 0.0, roomy);
  add("automatic_default", 0, redist::schedule::automatic, 0.0);
  {
    auto x2 = std::make_shared<Alltoallv>(a, x, k * x);
    Method m;
    m.row = Row{section, "alltoallv", -1, k, P, n, 0.0, 0.0, 1, false, 0.0, {}};
    m.call = [x2, &a, &b] { x2->run(a, b); };
    methods.push_back(std::move(m));
  }
  time_methods(comm, b, reps, methods);
  std::vector<Row> rows;
  for (const Method& m : methods) rows.push_back(m.row);
  // The BCC row's prediction: its messages per rank (rank 0's) · Ts + the share · Td.
  for (Row& r : rows)
    if (r.method == "bcc" || r.method == "bcc_contention_free") {
      const redist::Plan cp = redist::plan_with(a.mapping().linear(), b.mapping().linear(), 0, redist::schedule::bcc);
      const auto msgs = static_cast<index_t>(cp.messages_sent());
      r.predicted_ms = 1e3 * redist::schedule::predict_bcc(msgs, static_cast<index_t>(cp.steps()), n, P, bytes, machine);
    }
  return rows;
}

}  // namespace

int main(int argc, char** argv) {
  mpi::environment env(argc, argv);
  mpi::communicator world;
  std::string csv;
  int reps = 31;
  index_t small = 16384, large = index_t{1} << 21, pn = 65536, x = 4;
  bool smoke = false, sweep_only = false;
  std::vector<int> ps;
  const auto set_only = [&](std::string_view section) { return sweep_only = section == "p_sweep"; };
  const std::optional<int> status =
      redist::bench::cli::Parser("circulant-bench")
          .text("--csv FILE", "write the rows to FILE", csv)
          .integer("--reps R", "rounds of k_large (10 R of k_small and p_sweep)", reps, 1)
          .integer("--small N", "elements of k_small", small, index_t{1})
          .integer("--large N", "elements of k_large", large, index_t{1})
          .integer("--pn N", "elements of p_sweep", pn, index_t{1})
          .integer("--x X", "the source's block size, Cyclic(x) -> Cyclic(Kx)", x, index_t{1})
          .flag("--smoke", "small sizes, K = 2, 3, 8 and one round", smoke)
          .value("--only", "SECTION", "run this section alone", {}, "p_sweep (the only section --only takes)", set_only)
          .integers("--ps P,P,...", "p_sweep's rank counts; those above the world's size are skipped (default 2 ... ranks)",
                    ps, 2)
          .parse(argc, argv, world.rank() == 0);
  if (status) return *status;
  if (ps.empty())
    for (int P = 2; P <= world.size(); ++P) ps.push_back(P);
  std::vector<index_t> ks{2, 3, 4, 5, 7, 8, 11, 16, 23, 31, 32, 48, 64};
  if (smoke) {
    ks = {2, 3, 8};
    reps = 1;
    small = 1001;
    large = 20011;
    pn = 4099;
  }
  const redist::schedule::Machine machine = redist::runtime::gdm_parameters(world);
  if (world.rank() == 0)
    std::printf("calibrated GDM on %d ranks: Ts = %.3g us, Td = %.3g ns/byte, Tstep = %.3g us (defaults: %.3g us, "
                "%.3g ns/byte, %.3g us)\n",
                world.size(), machine.ts * 1e6, machine.td * 1e9, machine.tstep * 1e6,
                redist::schedule::default_machine.ts * 1e6, redist::schedule::default_machine.td * 1e9,
                redist::schedule::default_machine.tstep * 1e6);
  std::vector<Row> rows;
  for (index_t k : sweep_only ? std::vector<index_t>{} : ks) {
    auto r = run_case(world, "k_small", x, k, small, 10 * reps, machine);
    rows.insert(rows.end(), r.begin(), r.end());
    r = run_case(world, "k_large", x, k, large, reps, machine);
    rows.insert(rows.end(), r.begin(), r.end());
  }
  // Against P with K = P, at a fixed array size: ranks [0, P) of world.
  for (int P : ps) {
    if (P < 2 || P > world.size()) continue;
    mpi::communicator sub = world.split(world.rank() < P ? 0 : 1);
    if (world.rank() < P) {
      const redist::schedule::Machine m = redist::runtime::gdm_parameters(sub);
      auto r = run_case(sub, "p_sweep", x, P, pn, 10 * reps, m);
      if (world.rank() == 0) rows.insert(rows.end(), r.begin(), r.end());
    }
    world.barrier();
  }
  bool all_ok = true;
  if (world.rank() == 0) {
    std::printf("%-8s %-20s %3s %3s %2s %9s %10s %10s %10s %5s %s\n", "section", "method", "d", "K", "P", "n", "ms",
                "first ms", "model ms", "steps", "ok");
    for (const Row& r : rows) {
      std::printf("%-8s %-20s %3d %3lld %2d %9lld %10.4f %10.4f %10.4f %5ld %s\n", r.section.c_str(), r.method.c_str(),
                  r.d, static_cast<long long>(r.k), r.nprocs, static_cast<long long>(r.n), r.ms, r.first_ms,
                  r.predicted_ms, r.steps, r.ok ? "ok" : "WRONG");
      all_ok = all_ok && r.ok;
    }
    std::printf("\nautomatic's timing of its candidates on its second call (median ms):\n");
    for (const Row& r : rows)
      if (!r.tuning.empty()) std::printf("%s\n", r.tuning.c_str());
    // automatic (and the model alone) against the best fixed schedule of each case: direct,
    // indirect, hybrid(d), BCC in either order.
    using Key = std::tuple<std::string, index_t, int, index_t>;
    struct Cmp {
      double best = 1e300, automatic = 0, modeled = 0;
      std::string best_name;
    };
    std::map<Key, Cmp> cmp;
    for (const Row& r : rows) {
      Cmp& c = cmp[Key{r.section, r.k, r.nprocs, r.n}];
      if (r.method == "automatic") c.automatic = r.ms;
      else if (r.method == "modeled") c.modeled = r.ms;
      else if (r.method != "alltoallv" && r.method != "automatic_default" && r.ms < c.best) {
        c.best = r.ms;
        c.best_name = r.method + (r.method == "hybrid" ? "(" + std::to_string(r.d) + ")" : "");
      }
    }
    std::printf("\nautomatic (timed candidates) and modeled (calibrated GDM model alone) / best fixed schedule:\n");
    int slower = 0, model_slower = 0;
    for (const auto& [key, c] : cmp) {
      const double ratio = c.automatic / c.best, model_ratio = c.modeled / c.best;
      if (ratio > 1.10) ++slower;
      if (model_ratio > 1.10) ++model_slower;
      std::printf("  %-8s K=%-3lld P=%d n=%-8lld best %-20s %8.4f ms, automatic %8.4f ms, ratio %.2f%s, modeled %.2f\n",
                  std::get<0>(key).c_str(), static_cast<long long>(std::get<1>(key)), std::get<2>(key),
                  static_cast<long long>(std::get<3>(key)), c.best_name.c_str(), c.best, c.automatic, ratio,
                  ratio > 1.10 ? " (> 10% slower)" : "", model_ratio);
    }
    std::printf("automatic more than 10%% slower than the best fixed schedule in %d of %zu cases (modeled: %d)\n",
                slower, cmp.size(), model_slower);
    if (!csv.empty()) {
      std::ofstream f(csv);
      f << "# circulant-bench on " << world.size() << " ranks; calibrated Ts=" << machine.ts << " s, Td=" << machine.td
        << " s/byte, Tstep=" << machine.tstep << " s; x=" << x << "; ms = median over " << reps
        << " (k_large) or " << 10 * reps << " (k_small, p_sweep) interleaved rounds of the slowest rank; first_ms = the first two calls (automatic: with its timing of candidates, on the second)\n";
      f << "section,method,d,K,P,n,ms,first_ms,model_ms,steps,ok\n";
      for (const Row& r : rows)
        f << r.section << ',' << r.method << ',' << r.d << ',' << r.k << ',' << r.nprocs << ',' << r.n << ',' << r.ms
          << ',' << r.first_ms << ',' << r.predicted_ms << ',' << r.steps << ',' << (r.ok ? 1 : 0) << '\n';
    }
  }
  mpi::broadcast(world, all_ok, 0);
  return all_ok ? 0 : 1;
}
