// bcc-bench: the basic-cycle calculation (seed 000) against the multi-phase method and the general
// plan on the paper's Table 1-3 pairs, with index computation and total time reported apart (the
// paper's Comp. and Total rows), and a serial micro-benchmark of the pack and unpack.
//
//   mpirun -n 4 bcc-bench [--n 65536,1048576,16777216] [--reps 5] [--csv bench/bcc_results.csv]
//                         [--pairs 8:5,100:3] [--no-pack] [--pack-procs P] [--no-exchange] [--smoke]
//
// The pack micro-benchmark runs on rank 0 alone (one rank's share of the largest n on
// --pack-procs ranks, default the world size); run it with -n 1 --pack-procs 4 for a quiet machine.
//
// Every method's result is verified element by element once per case; the program exits with 1
// when any check fails. Times are medians over --reps of the slowest rank, in milliseconds.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/mpi/collectives.hpp>
#include <redist/redist.hpp>

#include "cli.hpp"

namespace mpi = boost::mpi;
using redist::index_t;
using Clock = std::chrono::steady_clock;

namespace {

struct Pair {
  index_t s, t;
};

struct Row {
  std::string section, method;
  Pair pair;
  index_t n;
  int nprocs;
  double plan_ms, exec_ms;
  long messages, steps;
  bool ok;
};

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

int case_of(Pair p) { return static_cast<int>(redist::index::classify(p.s, p.t)); }

double value_of(index_t g) { return 0.5 + static_cast<double>(g); }

template <class A>
void fill(A& a) {
  auto loc = a.local();
  for (index_t l = 0; l < a.local_size(); ++l) loc[l] = value_of(a.global_index(l));
}

template <class A>
bool holds(const A& a) {
  auto loc = a.local();
  for (index_t l = 0; l < a.local_size(); ++l)
    if (loc[l] != value_of(a.global_index(l))) return false;
  return true;
}

using Arr = redist::DistArray<double, redist::Cyclic<redist::dynamic>>;

/// Times one method: `make` builds the plan (index computation only, no communication), `run`
/// executes it. The plan is built reps times (each timed), executed once untimed (first-run
/// agreement), then reps times timed. Both times are the slowest rank's, medians over reps.
template <class Make>
Row time_method(const mpi::communicator& world, const std::string& method, Pair pair, Arr& a, Arr& b, int reps,
                Make&& make) {
  std::vector<double> plan_t, exec_t;
  auto plan = make();
  for (int r = 0; r < reps; ++r) {
    world.barrier();
    const auto t0 = Clock::now();
    auto p = make();
    const double mine = ms_since(t0);
    plan_t.push_back(mpi::all_reduce(world, mine, mpi::maximum<double>()));
    if (r == reps - 1) plan = std::move(p);
  }
  std::fill(b.local().begin(), b.local().end(), -1.0);
  plan.execute(a, b);
  const bool ok = mpi::all_reduce(world, holds(b), std::logical_and<bool>());
  for (int r = 0; r < reps; ++r) {
    world.barrier();
    const auto t0 = Clock::now();
    plan.execute(a, b);
    const double mine = ms_since(t0);
    exec_t.push_back(mpi::all_reduce(world, mine, mpi::maximum<double>()));
  }
  long messages = static_cast<long>(plan.plan().messages_sent()), steps = static_cast<long>(plan.plan().steps());
  messages = mpi::all_reduce(world, messages, std::plus<long>());
  steps = mpi::all_reduce(world, steps, mpi::maximum<long>());
  return Row{"exchange", method, pair, a.size(), world.size(), median(plan_t), median(exec_t), messages, steps, ok};
}

/// A BCC plan without its templates (Stage::cycles cleared), run by runtime::execute message by
/// message in run order, whole messages: what the one-pass pack and unpack add.
struct BccThroughGeneralExchange {
  redist::Plan p;
  const mpi::communicator* comm;
  redist::runtime::Workspace ws;
  void execute(const Arr& a, Arr& b) {
    redist::runtime::execute(p, *comm, std::span<const double>(a.local()), b.local(), ws);
  }
  const redist::Plan& plan() const { return p; }
};
redist::Plan without_cycles(redist::Plan p) {
  p.only().cycles = {};
  return p;
}

/// The exchange benchmark of one pair at one n: BCC (BCC order, default scratch budget), BCC in
/// one pass (a scratch budget that holds every message), BCC's plan through the general exchange,
/// BCC contention-free, the two-stage and (case 3) one-stage multi-phase method, and the general
/// plan with all messages at once (default budget, and the roomy one).
std::vector<Row> exchange_case(const mpi::communicator& world, Pair pair, index_t n, int reps) {
  Arr a(world, n, redist::Cyclic<redist::dynamic>(pair.s));
  Arr b(world, n, redist::Cyclic<redist::dynamic>(pair.t));
  fill(a);
  redist::options roomy;  // scratch for every message at once: the one-pass path in one round
  roomy.max_scratch_bytes =
      mpi::all_reduce(world, static_cast<std::size_t>(a.local_size() + b.local_size()) * sizeof(double) + 4096,
                      mpi::maximum<std::size_t>());
  std::vector<Row> rows;
  rows.push_back(time_method(world, "bcc", pair, a, b, reps, [&] { return redist::make_plan(a, b, redist::schedule::bcc); }));
  rows.push_back(time_method(world, "bcc_one_pass", pair, a, b, reps,
                             [&] { return redist::make_plan(a, b, redist::schedule::bcc, roomy); }));
  rows.push_back(time_method(world, "bcc_general_exchange", pair, a, b, reps, [&] {
    return BccThroughGeneralExchange{
        without_cycles(redist::plan_with(a.mapping().linear(), b.mapping().linear(), world.rank(), redist::schedule::bcc)),
        &world, {}};
  }));
  rows.push_back(time_method(world, "bcc_contention_free", pair, a, b, reps,
                             [&] { return redist::make_plan(a, b, redist::schedule::bcc_contention_free); }));
  rows.push_back(time_method(world, "multiphase_2", pair, a, b, reps,
                             [&] { return redist::make_plan(a, b, redist::schedule::multiphase_two_stage); }));
  if (case_of(pair) == 3)
    rows.push_back(time_method(world, "multiphase_1", pair, a, b, reps,
                               [&] { return redist::make_plan(a, b, redist::schedule::multiphase_one_stage); }));
  rows.push_back(time_method(world, "general_all_at_once", pair, a, b, reps,
                             [&] { return redist::make_plan(a, b, redist::schedule::all_at_once); }));
  rows.push_back(time_method(world, "general_all_at_once_roomy", pair, a, b, reps,
                             [&] { return redist::make_plan(a, b, redist::schedule::all_at_once, roomy); }));
  return rows;
}

/// Serial micro-benchmark of one rank's data movement (rank 1 of nprocs, n elements): the general
/// plan's pack (runs, message by message) and unpack, the BCC plan's runs through the same
/// routines, and the one-pass pack_cycles / unpack_cycles. Includes the local copy in every case.
std::vector<Row> pack_case(Pair pair, index_t n, int nprocs, int reps) {
  using M = redist::Cyclic<redist::dynamic>::mapping;
  const M from(redist::Cyclic<redist::dynamic>(pair.s), n, nprocs), to(redist::Cyclic<redist::dynamic>(pair.t), n, nprocs);
  const int rank = nprocs > 1 ? 1 : 0;
  const redist::Plan general_plan = redist::build_plan(from, to, rank);
  const redist::Plan bcc_plan = redist::plan_with(from, to, rank, redist::schedule::bcc);
  const redist::Stage<redist::Run>& general = general_plan.only();
  const redist::Stage<redist::Run>& bcc_runs = bcc_plan.only();  // the BCC plan as runs (its messages, run order)
  const redist::Cycles& bcc = bcc_runs.cycles;                    // and as templates
  // Each message's place in the send or receive buffer: one after the other.
  auto places = [](const std::vector<redist::Message>& ms) {
    std::vector<index_t> at(ms.size() + 1, 0);
    for (std::size_t i = 0; i < ms.size(); ++i) at[i + 1] = at[i] + ms[i].size;
    return at;
  };
  const std::vector<index_t> g_send = places(general.sends), g_recv = places(general.recvs);
  const std::vector<index_t> b_send = places(bcc_runs.sends), b_recv = places(bcc_runs.recvs);
  std::vector<double> src(static_cast<std::size_t>(from.local_size(rank))), dst(static_cast<std::size_t>(to.local_size(rank)));
  for (std::size_t l = 0; l < src.size(); ++l) src[l] = value_of(from.global_index(rank, static_cast<index_t>(l)));
  std::vector<double> sbuf(std::max<std::size_t>(1, static_cast<std::size_t>(std::max(g_send.back(), b_send.back()))));
  std::vector<double> rbuf(std::max<std::size_t>(1, static_cast<std::size_t>(std::max(g_recv.back(), b_recv.back()))));
  // What this rank would receive is not known to it; for the unpack, fill the receive buffers
  // with anything: the unpack's memory traffic does not depend on the values.
  std::fill(rbuf.begin(), rbuf.end(), 1.0);

  auto best = [&](auto&& f) {
    std::vector<double> t;
    for (int r = 0; r < reps; ++r) {
      const auto t0 = Clock::now();
      f();
      t.push_back(ms_since(t0));
    }
    return median(t);
  };
  auto runs_pack = [&](const redist::Stage<redist::Run>& p) {
    const std::vector<index_t>& at = &p == &general ? g_send : b_send;
    for (std::size_t i = 0; i < p.sends.size(); ++i) redist::runtime::pack(p.runs_of(p.sends[i]), src.data(), sbuf.data() + at[i]);
    redist::runtime::copy(p.runs_of(p.local), src.data(), dst.data());
  };
  auto runs_unpack = [&](const redist::Stage<redist::Run>& p) {
    const std::vector<index_t>& at = &p == &general ? g_recv : b_recv;
    for (std::size_t i = 0; i < p.recvs.size(); ++i) redist::runtime::unpack(p.runs_of(p.recvs[i]), rbuf.data() + at[i], dst.data());
  };
  std::vector<double*> out(bcc_runs.sends.size());
  std::vector<const double*> in(bcc_runs.recvs.size());
  auto one_pass_pack = [&] {
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = sbuf.data() + b_send[i];
    redist::runtime::pack_cycles<double>(bcc, 0, bcc.slots, src.data(), static_cast<index_t>(src.size()), out.data(),
                                         dst.data());
  };
  auto one_pass_unpack = [&] {
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = rbuf.data() + b_recv[i];
    redist::runtime::unpack_cycles<double>(bcc, 0, bcc.slots, in.data(), dst.data(), static_cast<index_t>(dst.size()));
  };
  // Check the one-pass pack against the general pack: the same elements per message (the order
  // within a message differs: cycle by cycle versus run by run), and the same local copies.
  bool ok = true;
  {
    one_pass_pack();
    std::vector<double> dst1 = dst;
    std::vector<std::vector<double>> a(bcc_runs.sends.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      a[i].assign(sbuf.begin() + b_send[i], sbuf.begin() + b_send[i] + bcc_runs.sends[i].size);
      std::sort(a[i].begin(), a[i].end());
    }
    std::fill(dst.begin(), dst.end(), 0.0);
    runs_pack(general);
    ok = dst == dst1 && general.sends.size() == bcc_runs.sends.size();
    for (std::size_t i = 0; ok && i < a.size(); ++i) {
      const auto& m = general.sends[i];
      std::vector<double> b(sbuf.begin() + g_send[i], sbuf.begin() + g_send[i] + m.size);
      std::sort(b.begin(), b.end());
      ok = b == a[i] && m.peer == bcc_runs.sends[i].peer;
    }
  }
  std::vector<Row> rows;
  auto row = [&](const char* method, double ms) {
    rows.push_back(Row{"pack", method, pair, n, nprocs, 0.0, ms, static_cast<long>(bcc_runs.sends.size()), 0, ok});
  };
  row("pack_general_runs", best([&] { runs_pack(general); }));
  row("pack_bcc_runs", best([&] { runs_pack(bcc_runs); }));
  row("pack_bcc_one_pass", best(one_pass_pack));
  row("unpack_general_runs", best([&] { runs_unpack(general); }));
  row("unpack_bcc_runs", best([&] { runs_unpack(bcc_runs); }));
  row("unpack_bcc_one_pass", best(one_pass_unpack));
  return rows;
}

/// "S:T,S:T,...": pairs of block sizes >= 1; nothing if any is malformed or there is none.
std::optional<std::vector<Pair>> read_pairs(std::string_view text) {
  std::vector<Pair> pairs;
  for (std::string_view piece : redist::bench::cli::split(text)) {
    const std::size_t colon = piece.find(':');
    if (colon == std::string_view::npos) return std::nullopt;
    const auto read = [](std::string_view number) {
      return redist::bench::cli::to_integer(number, index_t{1}, std::numeric_limits<index_t>::max());
    };
    const std::optional<index_t> s = read(piece.substr(0, colon)), t = read(piece.substr(colon + 1));
    if (!s || !t) return std::nullopt;
    pairs.push_back({*s, *t});
  }
  if (pairs.empty()) return std::nullopt;
  return pairs;
}

/// The pairs as --pairs takes them.
std::string show_pairs(const std::vector<Pair>& pairs) {
  std::string text;
  for (const Pair& p : pairs) text += (text.empty() ? "" : ",") + std::to_string(p.s) + ":" + std::to_string(p.t);
  return text;
}

}  // namespace

int main(int argc, char* argv[]) {
  mpi::environment env(argc, argv);
  mpi::communicator world;
  std::vector<index_t> sizes{index_t{1} << 16, index_t{1} << 18, index_t{1} << 20, index_t{1} << 22, index_t{1} << 24};
  std::vector<Pair> pairs{{8, 5}, {100, 3}, {25, 20}, {300, 200}, {60, 3}, {1000, 50}};
  int reps = 5, pack_procs = 0;
  bool do_pack = true, do_exchange = true;
  std::string csv = "bcc_results.csv";
  const auto set_pairs = [&](std::string_view text) {
    const std::optional<std::vector<Pair>> read = read_pairs(text);
    if (read) pairs = *read;
    return read.has_value();
  };
  const std::optional<int> status =
      redist::bench::cli::Parser("bcc-bench")
          .integers("--n N,N,...", "array sizes of the exchange rows; the pack rows take the last", sizes, index_t{1})
          .integer("--reps R", "timed repetitions", reps, 1)
          .text("--csv FILE", "write the rows to FILE", csv)
          .value("--pairs", "S:T,...", "block sizes of CYCLIC(S) -> CYCLIC(T)", show_pairs(pairs),
                 "a comma-separated list of S:T pairs of integers >= 1", set_pairs)
          .flag("--no-pack", "leave out the pack rows", do_pack, false)
          .integer("--pack-procs P", "ranks of the pack rows' plan (0: the world's size, at least 2)", pack_procs, 0)
          .flag("--no-exchange", "leave out the exchange rows", do_exchange, false)
          .flag("--smoke", "n = 10007 and one repetition, where given (a later --n or --reps wins)", [&] {
            sizes = {10007};
            reps = 1;
          })
          .parse(argc, argv, world.rank() == 0);
  if (status) return *status;

  std::vector<Row> rows;
  auto print = [&](const Row& r) {
    if (world.rank() != 0) return;
    std::printf("%-8s (%lld)->(%lld) case %d n=%-9lld P=%d %-26s plan %9.4f ms  exec %9.3f ms  total %9.3f ms  msgs %ld steps %ld %s\n",
                r.section.c_str(), static_cast<long long>(r.pair.s), static_cast<long long>(r.pair.t), case_of(r.pair),
                static_cast<long long>(r.n), r.nprocs, r.method.c_str(), r.plan_ms, r.exec_ms, r.plan_ms + r.exec_ms,
                r.messages, r.steps, r.ok ? "ok" : "WRONG");
    std::fflush(stdout);
  };
  if (do_pack) {
    // Serial, on rank 0 alone (the others wait): one rank's data of the largest n on world.size() ranks.
    if (world.rank() == 0)
      for (Pair p : pairs)
        for (const Row& r : pack_case(p, sizes.back(), pack_procs > 0 ? pack_procs : std::max(2, world.size()), reps)) {
          rows.push_back(r);
          print(r);
        }
    world.barrier();
  }
  if (do_exchange)
    for (Pair p : pairs)
      for (index_t n : sizes)
        for (const Row& r : exchange_case(world, p, n, reps)) {
          rows.push_back(r);
          print(r);
        }

  bool all_ok = true;
  for (const Row& r : rows) all_ok = all_ok && r.ok;
  if (world.rank() == 0) {
    std::ofstream out(csv);
    out << "section,s,t,case,n,P,method,plan_ms,exec_ms,total_ms,messages,steps,ok\n";
    for (const Row& r : rows)
      out << r.section << ',' << r.pair.s << ',' << r.pair.t << ',' << case_of(r.pair) << ',' << r.n << ',' << r.nprocs
          << ',' << r.method << ',' << r.plan_ms << ',' << r.exec_ms << ',' << r.plan_ms + r.exec_ms << ','
          << r.messages << ',' << r.steps << ',' << (r.ok ? 1 : 0) << '\n';
  }
  return mpi::all_reduce(world, all_ok, std::logical_and<bool>()) ? 0 : 1;
}
