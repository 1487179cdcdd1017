// seed003-bench: seed 003's experiments (Guo, Nakata, Sec. 6) re-run here.
//  - Sec. 6.1 (Table 1, Figs. 11-12): a redistribution whose communication sets are computed by
//    LDD intersection (redist's general plan, built on every call: make_plan + execute, no
//    schedule, as the paper's G_algo) against the paper's "naive approach" (Sec. 3), written by
//    hand: each process scans its local array, computes every element's global index and
//    destination process, packs one buffer per destination, MPI_Alltoallv, and the receiver scans
//    its local array the same way to unpack. Also redist with its plan cached (b = a repeated).
//  - Sec. 6.2 (Fig. 13): relative-group scheduling against none (all messages posted at once),
//    1-D, n = 120,000, each process talking to 3 others (K = 3), for P = 2 ... ranks.
//
//   mpirun -n 20 --oversubscribe seed003-bench [--csv F] [--reps 15] [--smoke]
//
// Cases whose grids need more ranks than there are are skipped. Shared memory is off for redist,
// so that both sides send messages, and so is the transport timing of a plan's first run. A call's time is the slowest rank's; the median over --reps
// interleaved rounds is reported in milliseconds. Every method's result is checked element by
// element; the program exits with 1 when a check fails.
#include <mpi.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <boost/mpi/collectives.hpp>
#include <redist/redist.hpp>

#include "cli.hpp"

namespace mpi = boost::mpi;
using redist::index_t;
using Clock = std::chrono::steady_clock;

namespace {

double value_of(index_t id) { return 0.5 + static_cast<double>(id); }

// ---- The naive approach, by hand: its own ownership formulas, no redist code. ---------------

/// One dimension of a layout: BLOCK (blocks of ceil(n/P)), CYCLIC(k), or collapsed ('*', P = 1).
struct Dim {
  char kind;  // 'b', 'c' or '*'
  index_t k;  // CYCLIC's block
  index_t n;
  int p;      // processes along this dimension
  index_t block() const { return (n + p - 1) / p; }
  int owner(index_t g) const {
    if (kind == 'b') return static_cast<int>(g / block());
    if (kind == 'c') return static_cast<int>((g / k) % p);
    return 0;
  }
  index_t global(int q, index_t l) const {
    if (kind == 'b') return q * block() + l;
    if (kind == 'c') return (l / k) * k * p + q * k + l % k;
    return l;
  }
  index_t local_size(int q) const {
    if (kind == 'b') return std::clamp<index_t>(n - q * block(), 0, block());
    if (kind == 'c') {
      const index_t full = n / (k * p), rest = n % (k * p);
      return full * k + std::clamp<index_t>(rest - q * k, 0, k);
    }
    return n;
  }
};

/// A 2-D layout on a pr x pc grid of ranks [0, pr * pc), rank = row * pc + col; local storage
/// column-major (the first dimension fastest).
struct Layout2 {
  Dim d0, d1;
  int rank_of(int r, int c) const { return r * d1.p + c; }
  int procs() const { return d0.p * d1.p; }
  std::array<index_t, 2> local_extents(int rank) const {
    if (rank >= procs()) return {0, 0};
    return {d0.local_size(rank / d1.p), d1.local_size(rank % d1.p)};
  }
  int owner(index_t g0, index_t g1) const { return rank_of(d0.owner(g0), d1.owner(g1)); }
};

/// The naive redistribution of one rank, its buffers kept between calls.
class Naive {
 public:
  Naive(const mpi::communicator& comm, const Layout2& from, const Layout2& to)
      : comm_{comm}, from_{from}, to_{to}, P_{comm.size()}, me_{comm.rank()} {
    const auto s = from_.local_extents(me_), t = to_.local_extents(me_);
    src.assign(static_cast<std::size_t>(s[0] * s[1]), 0.0);
    dst.assign(static_cast<std::size_t>(t[0] * t[1]), 0.0);
    for (index_t j = 0; j < s[1]; ++j)
      for (index_t i = 0; i < s[0]; ++i)
        src[static_cast<std::size_t>(i + j * s[0])] = value_of(id(from_.d0.global(me_ / from_.d1.p, i), from_.d1.global(me_ % from_.d1.p, j)));
  }
  void run() {
    // Send phase: every local element's global index and destination; pack in that order.
    scan(from_, to_, dest, scount, sdispl);
    sbuf.resize(src.size());
    pos = sdispl;
    for (std::size_t e = 0; e < src.size(); ++e) sbuf[static_cast<std::size_t>(pos[static_cast<std::size_t>(dest[e])]++)] = src[e];
    // Receive phase, symmetric: every local element's global index and source.
    scan(to_, from_, from, rcount, rdispl);
    rbuf.resize(dst.size());
    MPI_Alltoallv(sbuf.data(), scount.data(), sdispl.data(), MPI_DOUBLE, rbuf.data(), rcount.data(), rdispl.data(),
                  MPI_DOUBLE, static_cast<MPI_Comm>(comm_));
    pos = rdispl;
    for (std::size_t e = 0; e < dst.size(); ++e) dst[e] = rbuf[static_cast<std::size_t>(pos[static_cast<std::size_t>(from[e])]++)];
  }
  bool holds() const {
    const auto t = to_.local_extents(me_);
    for (index_t j = 0; j < t[1]; ++j)
      for (index_t i = 0; i < t[0]; ++i)
        if (dst[static_cast<std::size_t>(i + j * t[0])] !=
            value_of(id(to_.d0.global(me_ / to_.d1.p, i), to_.d1.global(me_ % to_.d1.p, j))))
          return false;
    return true;
  }

 private:
  /// For every element of this rank's part under `mine` (column-major), the rank that owns it
  /// under `other`; counts per rank and their prefix sums.
  void scan(const Layout2& mine, const Layout2& other, std::vector<int>& peer, std::vector<int>& count,
            std::vector<int>& displ) const {
    const std::size_t P = static_cast<std::size_t>(P_);
    count.assign(P, 0);
    const auto e = mine.local_extents(me_);
    peer.resize(static_cast<std::size_t>(e[0] * e[1]));
    const int r = me_ / mine.d1.p, c = me_ % mine.d1.p;
    for (index_t j = 0; j < e[1]; ++j) {
      const index_t g1 = mine.d1.global(c, j);
      for (index_t i = 0; i < e[0]; ++i) {
        const int q = other.owner(mine.d0.global(r, i), g1);
        peer[static_cast<std::size_t>(i + j * e[0])] = q;
        ++count[static_cast<std::size_t>(q)];
      }
    }
    displ.assign(P, 0);
    for (std::size_t q = 1; q < P; ++q) displ[q] = displ[q - 1] + count[q - 1];
  }
  index_t id(index_t g0, index_t g1) const { return g0 + g1 * from_.d0.n; }
  mpi::communicator comm_;
  Layout2 from_, to_;
  int P_, me_;
  std::vector<double> src, dst, sbuf, rbuf;
  std::vector<int> dest, from, scount, rcount, sdispl, rdispl, pos;
};

// ---- redist's side. ---------------------------------------------------------------------------

template <class A>
void fill_nd(A& a) {
  auto loc = a.local();
  const auto e = a.local_extents();
  if (e[0] == 0 || e[1] == 0) return;
  for (index_t j = 0; j < e[1]; ++j)
    for (index_t i = 0; i < e[0]; ++i) {
      const auto g = a.global_index(std::array<index_t, 2>{i, j});
      loc[a.local_offset(std::array<index_t, 2>{i, j})] = value_of(g[0] + g[1] * a.extents()[0]);
    }
}
template <class A>
bool holds_nd(const A& a) {
  auto loc = a.local();
  const auto e = a.local_extents();
  if (e[0] == 0 || e[1] == 0) return true;
  for (index_t j = 0; j < e[1]; ++j)
    for (index_t i = 0; i < e[0]; ++i) {
      const auto g = a.global_index(std::array<index_t, 2>{i, j});
      if (loc[a.local_offset(std::array<index_t, 2>{i, j})] != value_of(g[0] + g[1] * a.extents()[0])) return false;
    }
  return true;
}

/// Messages between all ranks (no shared memory), and no timing of transports on a plan's first
/// run (tune_reps = 0), so that a plan made per call costs its index computation and one exchange.
redist::options messages_only() {
  redist::options o = redist::default_options();
  o.shared_memory = false;
  o.tune_reps = 0;
  return o;
}

struct Row {
  std::string section, name;
  int ranks;
  index_t n;
  std::string method;
  double ms;
  bool ok;
};

double slowest(const mpi::communicator& comm, double s) { return mpi::all_reduce(comm, s, mpi::maximum<double>()); }

/// Times the methods interleaved, reps rounds; medians (ms) of the slowest rank.
std::vector<double> time_all(const mpi::communicator& comm, std::vector<std::function<void()>>& calls, int reps) {
  std::vector<std::vector<double>> t(calls.size());
  for (int r = 0; r < reps; ++r)
    for (std::size_t m = 0; m < calls.size(); ++m) {
      comm.barrier();
      const auto start = Clock::now();
      calls[m]();
      t[m].push_back(slowest(comm, std::chrono::duration<double>(Clock::now() - start).count()));
    }
  std::vector<double> med;
  for (auto& v : t) {
    std::sort(v.begin(), v.end());
    med.push_back(1e3 * v[v.size() / 2]);
  }
  return med;
}

/// Whether every local element of the 1-D array x holds value_of(its global index), on every rank.
template <class A>
bool holds_1d(const mpi::communicator& comm, const A& x) {
  bool ok = true;
  for (index_t l = 0; l < x.local_size(); ++l) ok = ok && x.local()[l] == value_of(x.global_index(l));
  return mpi::all_reduce(comm, ok, std::logical_and<bool>());
}

/// Times the naive method against a -> b planned per call and a -> c with the plan cached, and
/// adds their rows; `holds(x)` checks a destination on every rank.
template <class A, class B, class Holds>
void naive_against_ldd(const mpi::communicator& world, std::vector<Row>& rows, const std::string& section,
                       const std::string& name, int ranks, index_t n, Naive& naive, const A& a, B& b, B& c,
                       Holds&& holds, int reps) {
  const redist::options opts = messages_only();
  std::vector<std::function<void()>> calls{
      [&] { naive.run(); },
      [&] {
        auto plan = redist::make_plan(a, b, redist::schedule::all_at_once, opts);
        plan.execute(a, b);
      },
      [&] { redist::redistribute(a, c, redist::schedule::all_at_once, opts); }};
  for (auto& f : calls) f();  // warm-up, and the check
  const bool ok_naive = mpi::all_reduce(world, naive.holds(), std::logical_and<bool>());
  const bool ok_b = holds(b), ok_c = holds(c);
  const auto med = time_all(world, calls, reps);
  rows.push_back({section, name, ranks, n, "naive", med[0], ok_naive});
  rows.push_back({section, name, ranks, n, "ldd_planned", med[1], ok_b});
  rows.push_back({section, name, ranks, n, "ldd_cached", med[2], ok_c});
}

/// Sec. 6.1: one 2-D redistribution, naive against LDD planned per call and cached.
template <class DA, class DB>
void table1_case(const mpi::communicator& world, std::vector<Row>& rows, const std::string& name, index_t n,
                 const Layout2& from, const Layout2& to, const DA& da, const DB& db, int reps) {
  const int need = std::max(from.procs(), to.procs());
  if (need > world.size()) return;
  const std::array<index_t, 2> ext{n, n};
  redist::DistArray<double, DA> a(world, ext, da, redist::Grid{from.d0.p, from.d1.p});
  redist::DistArray<double, DB> b(world, ext, db, redist::Grid{to.d0.p, to.d1.p});
  redist::DistArray<double, DB> c(world, ext, db, redist::Grid{to.d0.p, to.d1.p});
  fill_nd(a);
  Naive naive(world, from, to);
  naive_against_ldd(world, rows, "table1", name, need, n, naive, a, b, c,
                    [&](const auto& x) { return mpi::all_reduce(world, holds_nd(x), std::logical_and<bool>()); }, reps);
}

/// Sec. 6.1, Fig. 11: 1-D CYCLIC(12) -> CYCLIC(5), n = 120,000, as a 2-D n x 1 array on P x 1.
void fig11(const mpi::communicator& world, std::vector<Row>& rows, index_t n, int reps) {
  const int P = world.size();
  const Layout2 from{{'c', 12, n, P}, {'*', 1, 1, 1}}, to{{'c', 5, n, P}, {'*', 1, 1, 1}};
  redist::DistArray<double, redist::Cyclic<12>> a(world, n);
  redist::DistArray<double, redist::Cyclic<5>> b(world, n), c(world, n);
  for (index_t l = 0; l < a.local_size(); ++l) a.local()[l] = value_of(a.global_index(l));
  Naive naive(world, from, to);
  naive_against_ldd(world, rows, "fig11", "cyclic12_cyclic5", P, n, naive, a, b, c,
                    [&](const auto& x) { return holds_1d(world, x); }, reps);
}

/// Sec. 6.2, Fig. 13: CYCLIC(15) -> CYCLIC(5) (each process sends to 3), relative-group
/// scheduling against all messages at once, plans cached (communication only), P = 2 ... ranks.
void fig13(const mpi::communicator& world, std::vector<Row>& rows, index_t n, int reps) {
  for (int P = 2; P <= world.size(); ++P) {
    mpi::communicator sub = world.split(world.rank() < P ? 0 : 1);
    if (world.rank() < P) {
      redist::DistArray<double, redist::Cyclic<15>> a(sub, n);
      redist::DistArray<double, redist::Cyclic<5>> b(sub, n), c(sub, n);
      for (index_t l = 0; l < a.local_size(); ++l) a.local()[l] = value_of(a.global_index(l));
      const redist::options opts = messages_only();
      std::vector<std::function<void()>> calls{
          [&] { redist::redistribute(a, b, redist::schedule::all_at_once, opts); },
          [&] { redist::redistribute(a, c, redist::schedule::relative_group, opts); }};
      for (auto& f : calls) f();
      const bool ok_b = holds_1d(sub, b), ok_c = holds_1d(sub, c);
      const auto med = time_all(sub, calls, reps);
      if (world.rank() == 0) {
        rows.push_back({"fig13", "cyclic15_cyclic5", P, n, "no_scheduling", med[0], ok_b});
        rows.push_back({"fig13", "cyclic15_cyclic5", P, n, "relative_group", med[1], ok_c});
      }
    }
    world.barrier();
  }
}

}  // namespace

int main(int argc, char** argv) {
  mpi::environment env(argc, argv);
  mpi::communicator world;
  std::string csv;
  int reps = 15;
  bool smoke = false;
  const std::optional<int> status = redist::bench::cli::Parser("seed003-bench")
                                        .text("--csv FILE", "write the rows to FILE", csv)
                                        .integer("--reps R", "interleaved rounds (10 R for Fig. 13)", reps, 1)
                                        .flag("--smoke", "small sizes and one round", smoke)
                                        .parse(argc, argv, world.rank() == 0);
  if (status) return *status;
  if (smoke) reps = 1;
  using redist::Block;
  using redist::Collapsed;
  using redist::Cyclic;
  using redist::Dist;
  std::vector<Row> rows;
  const std::vector<index_t> sizes = smoke ? std::vector<index_t>{61} : std::vector<index_t>{300, 600};
  for (index_t n : sizes) {
    // Table 1's cases whose grids fit here (3 x 3 -> 5 x 2 needs 10 ranks; the others 20), and
    // the same redistributions on smaller grids (not the paper's) for fewer ranks.
    auto cb_bc = [&](int r, int c, int r2, int c2) {
      table1_case(world, rows, "(CYCLIC,BLOCK)->(BLOCK,CYCLIC) " + std::to_string(r) + "x" + std::to_string(c) + "->" +
                                   std::to_string(r2) + "x" + std::to_string(c2),
                  n, Layout2{{'c', 1, n, r}, {'b', 1, n, c}}, Layout2{{'b', 1, n, r2}, {'c', 1, n, c2}},
                  Dist<Cyclic<1>, Block>{}, Dist<Block, Cyclic<1>>{}, reps);
    };
    auto bc_bs = [&](int r, int c, int r2) {
      table1_case(world, rows, "(BLOCK,CYCLIC)->(BLOCK,*) " + std::to_string(r) + "x" + std::to_string(c) + "->" +
                                   std::to_string(r2) + "x1",
                  n, Layout2{{'b', 1, n, r}, {'c', 1, n, c}}, Layout2{{'b', 1, n, r2}, {'*', 1, n, 1}},
                  Dist<Block, Cyclic<1>>{}, Dist<Block, Collapsed>{}, reps);
    };
    auto bs_sb = [&](int r, int c2) {
      table1_case(world, rows, "(BLOCK,*)->(*,BLOCK) " + std::to_string(r) + "x1->1x" + std::to_string(c2), n,
                  Layout2{{'b', 1, n, r}, {'*', 1, n, 1}}, Layout2{{'*', 1, n, 1}, {'b', 1, n, c2}},
                  Dist<Block, Collapsed>{}, Dist<Collapsed, Block>{}, reps);
    };
    cb_bc(3, 3, 5, 2);
    bc_bs(4, 5, 10);
    bs_sb(20, 20);
    if (world.size() < 20) {
      bc_bs(2, 5, 10);
      bs_sb(10, 10);
    }
    if (world.size() < 10) {
      cb_bc(2, 2, 4, 1);
      bc_bs(2, 2, 4);
      bs_sb(4, 4);
    }
  }
  fig11(world, rows, smoke ? 1201 : 120000, reps);
  fig13(world, rows, smoke ? 1201 : 120000, smoke ? 1 : 10 * reps);
  bool ok = true;
  if (world.rank() == 0) {
    std::printf("%-8s %-46s %5s %6s %-15s %10s %s\n", "section", "case", "ranks", "n", "method", "ms", "ok");
    for (const Row& r : rows) {
      std::printf("%-8s %-46s %5d %6lld %-15s %10.4f %s\n", r.section.c_str(), r.name.c_str(), r.ranks,
                  static_cast<long long>(r.n), r.method.c_str(), r.ms, r.ok ? "yes" : "NO");
      ok = ok && r.ok;
    }
    if (!csv.empty()) {
      std::ofstream f(csv);
      f << "section,case,ranks,n,method,ms,ok\n";
      for (const Row& r : rows)
        f << r.section << ",\"" << r.name << "\"," << r.ranks << ',' << r.n << ',' << r.method << ',' << r.ms << ','
          << (r.ok ? 1 : 0) << '\n';
    }
  }
  ok = mpi::all_reduce(world, ok, std::logical_and<bool>());
  return ok ? 0 : 1;
}
