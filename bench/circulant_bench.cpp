// circulant-bench: seed 001's direct, indirect and hybrid schedules for Cyclic(x) -> Cyclic(Kx)
// against the basic-cycle calculation, schedule::automatic (the GDM model with this machine's
// calibrated Ts and Td, and with the built-in defaults) and a plain MPI_Alltoallv, as in the
// paper's Figures 14-19: time against K at a small and a large array on all ranks, and time
// against P with K = P at a fixed array size.
//
//   mpirun -n 4 circulant-bench [--csv bench/circulant_results.csv] [--reps 15] [--small 16384]
//                               [--large 2097152] [--pn 65536] [--x 4] [--smoke]
//
// n is in elements (doubles). Every method's result is checked element by element once per
// case; the program exits with 1 when any check fails. A call's time is the slowest rank's;
// the table shows the median over --reps calls, in milliseconds.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <boost/mpi/collectives.hpp>
#include <redist/redist.hpp>

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
  double ms, predicted_ms;
  long steps;
  bool ok;
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

/// The median over reps of the slowest rank's time of call(), after one checked, untimed call.
template <class Call>
std::pair<double, bool> time_calls(const mpi::communicator& comm, Arr& b, int reps, Call&& call) {
  std::fill(b.local().begin(), b.local().end(), -1.0);
  call();
  const bool ok = mpi::all_reduce(comm, holds(b), std::logical_and<bool>());
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    comm.barrier();
    const auto t0 = Clock::now();
    call();
    const double mine = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    t.push_back(mpi::all_reduce(comm, mine, mpi::maximum<double>()));
  }
  return {median(t), ok};
}

/// Plain MPI_Alltoallv on the general plan's runs: pack every send by peer, one collective, unpack.
struct Alltoallv {
  redist::Plan plan;
  std::vector<int> scount, sdispl, rcount, rdispl;
  std::vector<double> sbuf, rbuf;
  explicit Alltoallv(const Arr& a, const Arr& b)
      : plan{redist::build_plan(a.mapping(), b.mapping(), a.comm().rank())} {
    const auto p = static_cast<std::size_t>(a.comm().size());
    scount.assign(p, 0), sdispl.assign(p, 0), rcount.assign(p, 0), rdispl.assign(p, 0);
    for (const auto& m : plan.sends) scount[static_cast<std::size_t>(m.peer)] = static_cast<int>(m.size);
    for (const auto& m : plan.recvs) rcount[static_cast<std::size_t>(m.peer)] = static_cast<int>(m.size);
    for (std::size_t q = 1; q < p; ++q) sdispl[q] = sdispl[q - 1] + scount[q - 1], rdispl[q] = rdispl[q - 1] + rcount[q - 1];
    sbuf.resize(static_cast<std::size_t>(sdispl[p - 1] + scount[p - 1]) + 1);
    rbuf.resize(static_cast<std::size_t>(rdispl[p - 1] + rcount[p - 1]) + 1);
  }
  void run(const Arr& a, Arr& b) {
    for (const auto& m : plan.sends)
      redist::runtime::pack(plan.runs_of(m), a.local().data(), sbuf.data() + sdispl[static_cast<std::size_t>(m.peer)]);
    redist::runtime::copy(plan.runs_of(plan.local), a.local().data(), b.local().data());
    MPI_Alltoallv(sbuf.data(), scount.data(), sdispl.data(), MPI_DOUBLE, rbuf.data(), rcount.data(), rdispl.data(),
                  MPI_DOUBLE, static_cast<MPI_Comm>(a.comm()));
    for (const auto& m : plan.recvs)
      redist::runtime::unpack(plan.runs_of(m), rbuf.data() + rdispl[static_cast<std::size_t>(m.peer)], b.local().data());
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
  std::vector<Row> rows;
  auto predicted = [&](int d) {
    return 1e3 * redist::schedule::predict(redist::schedule::circulant_schedule(shape, d), n, bytes, machine);
  };
  // The scratch budget of bcc and automatic: room for the circulant workspace and for BCC's
  // whole messages, so that neither runs in rounds (direct, indirect and hybrid ignore the
  // budget). The default budget, the local array, cuts BCC's messages into rounds and keeps
  // automatic on BCC whenever a circulant schedule needs more: automatic_default shows that.
  redist::options roomy;
  roomy.max_scratch_bytes = mpi::all_reduce(
      comm, static_cast<std::size_t>(8 * std::max(a.local_size(), b.local_size()) + 4096) * sizeof(double),
      mpi::maximum<std::size_t>());
  auto add = [&](const std::string& method, int d, auto policy, double pred,
                 const redist::options& opts = redist::default_options()) {
    auto plan = redist::make_plan(a, b, policy, opts);
    auto [ms, ok] = time_calls(comm, b, reps, [&] { plan.execute(a, b); });
    long steps = static_cast<long>(plan.plan().schedule.size());
    if constexpr (std::is_same_v<std::decay_t<decltype(plan.plan())>, redist::CirculantPlan>) {
      if (plan.plan().runs_circulant()) steps = static_cast<long>(plan.plan().steps());
      if (method.rfind("automatic", 0) == 0) {
        // d: the hybrid degree that ran, -1 for BCC (chosen, or fallen back to for the budget).
        d = plan.plan().runs_circulant() ? plan.plan().choice.d : -1;
        pred = 1e3 * plan.plan().choice.predicted;
      }
    }
    rows.push_back(Row{section, method, d, k, P, n, ms, pred, steps, ok});
  };
  add("direct", 0, redist::schedule::direct, predicted(0));
  add("indirect", depth, redist::schedule::indirect, predicted(depth));
  for (int d = 1; d < depth; ++d) add("hybrid", d, redist::schedule::hybrid(d), predicted(d));
  add("bcc", -1, redist::schedule::bcc, 0.0, roomy);
  add("automatic", 0, redist::schedule::modeled(machine), 0.0, roomy);
  add("automatic_default", 0, redist::schedule::automatic, 0.0);
  {
    Alltoallv x2(a, b);
    auto [ms, ok] = time_calls(comm, b, reps, [&] { x2.run(a, b); });
    rows.push_back(Row{section, "alltoallv", -1, k, P, n, ms, 0.0, 1, ok});
  }
  // The BCC row's prediction: its messages per rank (rank 0's) · Ts + the share · Td.
  for (Row& r : rows)
    if (r.method == "bcc") {
      const redist::CyclePlan cp = redist::plan_with(a.mapping(), b.mapping(), 0, redist::schedule::bcc);
      const auto msgs = static_cast<index_t>(cp.sends.size());
      r.predicted_ms = 1e3 * redist::schedule::predict_bcc(msgs, static_cast<index_t>(cp.schedule.size()), n, P, bytes, machine);
    }
  return rows;
}

}  // namespace

int main(int argc, char** argv) {
  mpi::environment env(argc, argv);
  mpi::communicator world;
  std::string csv;
  int reps = 15;
  index_t small = 16384, large = index_t{1} << 21, pn = 65536, x = 4;
  bool smoke = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (a == "--csv") csv = next();
    else if (a == "--reps") reps = std::stoi(next());
    else if (a == "--small") small = std::stoll(next());
    else if (a == "--large") large = std::stoll(next());
    else if (a == "--pn") pn = std::stoll(next());
    else if (a == "--x") x = std::stoll(next());
    else if (a == "--smoke") smoke = true;
  }
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
  for (index_t k : ks) {
    auto r = run_case(world, "k_small", x, k, small, reps, machine);
    rows.insert(rows.end(), r.begin(), r.end());
    r = run_case(world, "k_large", x, k, large, reps, machine);
    rows.insert(rows.end(), r.begin(), r.end());
  }
  // Against P with K = P, at a fixed array size: ranks [0, P) of world.
  for (int P = 2; P <= world.size(); ++P) {
    mpi::communicator sub = world.split(world.rank() < P ? 0 : 1);
    if (world.rank() < P) {
      const redist::schedule::Machine m = redist::runtime::gdm_parameters(sub);
      auto r = run_case(sub, "p_sweep", x, P, pn, reps, m);
      if (world.rank() == 0) rows.insert(rows.end(), r.begin(), r.end());
    }
    world.barrier();
  }
  bool all_ok = true;
  if (world.rank() == 0) {
    std::printf("%-8s %-18s %3s %3s %2s %9s %10s %10s %5s %s\n", "section", "method", "d", "K", "P", "n", "ms",
                "model ms", "steps", "ok");
    for (const Row& r : rows) {
      std::printf("%-8s %-18s %3d %3lld %2d %9lld %10.4f %10.4f %5ld %s\n", r.section.c_str(), r.method.c_str(), r.d,
                  static_cast<long long>(r.k), r.nprocs, static_cast<long long>(r.n), r.ms, r.predicted_ms, r.steps,
                  r.ok ? "ok" : "WRONG");
      all_ok = all_ok && r.ok;
    }
    // automatic against the best fixed schedule of each case (direct, indirect, hybrid, bcc).
    std::printf("\nautomatic (calibrated) / best fixed schedule:\n");
    std::map<std::tuple<std::string, index_t, int, index_t>, std::pair<double, double>> cmp;
    std::map<std::tuple<std::string, index_t, int, index_t>, std::string> best_name;
    for (const Row& r : rows) {
      auto key = std::tuple{r.section, r.k, r.nprocs, r.n};
      auto& [best, autom] = cmp.try_emplace(key, 1e300, 0.0).first->second;
      if (r.method == "automatic") autom = r.ms;
      else if (r.method != "alltoallv" && r.method != "automatic_default" && r.ms < best) {
        best = r.ms;
        best_name[key] = r.method + (r.method == "hybrid" ? "(" + std::to_string(r.d) + ")" : "");
      }
    }
    int slower = 0;
    for (const auto& [key, v] : cmp) {
      const double ratio = v.second / v.first;
      if (ratio > 1.10) ++slower;
      std::printf("  %-8s K=%-3lld P=%d n=%-8lld best %-12s %.4f ms, automatic %.4f ms, ratio %.2f%s\n",
                  std::get<0>(key).c_str(), static_cast<long long>(std::get<1>(key)), std::get<2>(key),
                  static_cast<long long>(std::get<3>(key)), best_name[key].c_str(), v.first, v.second, ratio,
                  ratio > 1.10 ? "  (> 10% slower)" : "");
    }
    std::printf("automatic more than 10%% slower than the best fixed schedule in %d of %zu cases\n", slower, cmp.size());
    if (!csv.empty()) {
      std::ofstream f(csv);
      f << "# circulant-bench on " << world.size() << " ranks; calibrated Ts=" << machine.ts << " s, Td=" << machine.td
        << " s/byte, Tstep=" << machine.tstep << " s; x=" << x << "; ms = median over " << reps << " calls of the slowest rank\n";
      f << "section,method,d,K,P,n,ms,model_ms,steps,ok\n";
      for (const Row& r : rows)
        f << r.section << ',' << r.method << ',' << r.d << ',' << r.k << ',' << r.nprocs << ',' << r.n << ',' << r.ms
          << ',' << r.predicted_ms << ',' << r.steps << ',' << (r.ok ? 1 : 0) << '\n';
    }
  }
  mpi::broadcast(world, all_ok, 0);
  return all_ok ? 0 : 1;
}
