// plan-scaling: the planning time of redist's automatic plan (what the first b = a builds) for the
// redist-bench cases at a small and a large array, in one process (plans need no communication):
// issue 7's target is that the large plan take at most twice the small one for periodic layouts.
// `plan-scaling [--reps R] [--small N] [--large N] [--csv FILE]`; prints one CSV row per case.
// `plan-scaling --procs [--max-procs P] [--csv FILE]`: one rank's plan of each case at the
// redist-bench sizes on P = 64, 1024, 16384, 65536 virtual ranks (the issue "Speed at the memory
// system's limit": the time should grow with that rank's messages, not with P), for the general
// builder (all_at_once) and the automatic plan at every P; then per case and
// policy the exponents of time and messages in P from P = 64 and from P = 1024 to the largest P.
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <redist/dist/block.hpp>
#include <redist/dist/collapsed.hpp>
#include <redist/dist/cyclic.hpp>
#include <redist/dist/dist.hpp>
#include <redist/dist/gen_block.hpp>
#include <redist/plan/automatic.hpp>
#include <redist/plan/basic_cycle.hpp>
#include <redist/plan/gen_block.hpp>
#include <redist/plan/plan.hpp>

#include "cli.hpp"

using redist::index_t;
using namespace redist;

namespace {

/// Median over reps of the time to build the plans of all P ranks (ms per rank).
double plan_ms(const std::function<void(int)>& build, int nprocs, int reps) {
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int rank = 0; rank < nprocs; ++rank) build(rank);
    const auto t1 = std::chrono::steady_clock::now();
    t.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count() / nprocs);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

volatile std::size_t sink = 0;

/// Runs of a plan, over its stages (automatic's plan of a Cyclic pair: those of the model's plan).
template <class P>
std::size_t runs_in(const P& p) {
  std::size_t n = 0;
  for (const auto& st : p.stages) n += st.runs.size();
  return n;
}

template <class DS, class DD>
std::function<void(int)> plans_1d(index_t n, int p, DS ds, DD dd) {
  return [m1 = typename DS::mapping(ds, n, p), m2 = typename DD::mapping(dd, n, p)](int rank) {
    sink = sink + runs_in(plan_with(m1, m2, rank, schedule::automatic));
  };
}

template <class DS, class DD, std::size_t N, class GS, class GD>
std::function<void(int)> plans_nd(const std::array<index_t, N>& ext, int p, GS gs, GD gd) {
  return [m1 = typename DS::mapping(DS{}, ext, gs, {}, Storage{}, p),
          m2 = typename DD::mapping(DD{}, ext, gd, {}, Storage{}, p)](int rank) {
    sink = sink + runs_in(plan_with(m1, m2, rank, schedule::automatic));
  };
}

/// nprocs parts that sum to n, alternately 0.4 and 1.6 times n/P (the last takes the rest).
GenBlock uneven(index_t n, int p, bool flip) {
  std::vector<index_t> s(static_cast<std::size_t>(p));
  index_t given = 0;
  for (int i = 0; i + 1 < p; ++i) given += s[i] = n / p * ((i % 2 == 0) != flip ? 4 : 16) / 10;
  s.back() = n - given;
  return GenBlock(s);
}

struct Case {
  std::string name;
  std::function<std::function<void(int)>(index_t n)> make;  ///< n: elements (1-D) or extent (N-D)
  bool nd = false;
};

/// A grid of P ranks as near square as it gets: {a, P / a} with a the largest divisor <= sqrt(P).
std::array<int, 2> near_square(int p) {
  int a = 1;
  for (int d = 1; d * d <= p; ++d)
    if (p % d == 0) a = d;
  return {a, p / a};
}

/// One rank's plan under Policy: what it costs (median ms) and how many messages it has.
struct OnePlan {
  double ms = 0;
  std::size_t messages = 0;
};
template <class From, class To, class Policy>
OnePlan one_plan(const From& from, const To& to, int rank, Policy policy) {
  std::vector<double> t;
  std::size_t messages = 0;
  double total = 0;
  while (t.size() < 3 || (total < 200 && t.size() < 101)) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto plan = plan_with(from, to, rank, policy);
    const auto t1 = std::chrono::steady_clock::now();
    messages = 0;
    for (const auto& st : plan.stages) messages += st.sends.size() + st.recvs.size();
    t.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    total += t.back();
    if (t.back() > 2000) break;  // one slow plan is measured once
  }
  std::sort(t.begin(), t.end());
  return {t[t.size() / 2], messages};
}

/// The rows of one case at P = 64 ... max_procs: policy, P, the rank, its messages and plan time;
/// make(P) gives the two layouts on P ranks.
template <class Make>
void procs_rows(std::FILE* out, const char* name, int max_procs, Make&& make) {
  for (const bool automatic : {false, true}) {
    const char* policy = automatic ? "automatic" : "all_at_once";
    std::vector<std::pair<int, OnePlan>> rows;
    for (const int p : {64, 1024, 16384, 65536}) {
      if (p > max_procs) break;
      const auto [from, to] = make(p);
      const int rank = p / 2 + 1;
      const OnePlan r = automatic ? one_plan(from, to, rank, schedule::automatic)
                                  : one_plan(from, to, rank, schedule::all_at_once);
      std::fprintf(out, "%s,%s,%d,%d,%zu,%.6f\n", name, policy, p, rank, r.messages, r.ms);
      std::fflush(out);
      rows.emplace_back(p, r);
    }
    // The exponents of the messages and of the time from P = 64 and from P = 1024 to the largest.
    for (std::size_t first : {std::size_t{0}, std::size_t{1}}) {
      if (rows.size() < first + 2) continue;
      const auto& [p0, r0] = rows[first];
      const auto& [p1, r1] = rows.back();
      const double lp = std::log(static_cast<double>(p1) / p0);
      std::fprintf(out, "%s,%s,exponent %d..%d,,%.2f,%.2f\n", name, policy, p0, p1,
                   std::log(std::max<double>(r1.messages, 1) / std::max<double>(r0.messages, 1)) / lp,
                   std::log(r1.ms / r0.ms) / lp);
    }
  }
}

/// The P-scaling table (--procs): the redist-bench cases at their default sizes.
int procs_table(std::FILE* out, int max_procs) {
  const index_t n = index_t{1} << 24, m = 8192, c = 512;
  std::fprintf(out, "case,policy,np,rank,messages,plan_ms\n");
  auto one_d = [&](const char* name, auto ds, auto dd) {
    procs_rows(out, name, max_procs, [&](int p) {
      return std::pair{typename decltype(ds)::mapping(ds, n, p), typename decltype(dd)::mapping(dd, n, p)};
    });
  };
  one_d("cyc8_cyc5", Cyclic<8>{}, Cyclic<5>{});
  one_d("cyc100_cyc3", Cyclic<100>{}, Cyclic<3>{});
  one_d("cyc4_cyc28", Cyclic<4>{}, Cyclic<28>{});
  one_d("cyc4_cyc124", Cyclic<4>{}, Cyclic<124>{});
  one_d("block_cyc1", Block{}, Cyclic<1>{});
  procs_rows(out, "genblock_uneven", max_procs, [&](int p) {
    return std::pair{GenBlock::mapping(uneven(n, p, false), n, p), GenBlock::mapping(uneven(n, p, true), n, p)};
  });
  auto two_d = [&]<class DS, class DD>(const char* name, DS, DD, auto grids) {
    procs_rows(out, name, max_procs, [&](int p) {
      const auto [gs, gd] = grids(p);
      return std::pair{typename DS::mapping(DS{}, {m, m}, gs, {}, Storage{}, p),
                       typename DD::mapping(DD{}, {m, m}, gd, {}, Storage{}, p)};
    });
  };
  two_d("mat_b64_b100", Dist<Cyclic<64>, Cyclic<64>>{}, Dist<Cyclic<100>, Cyclic<100>>{}, [](int p) {
    const auto s = near_square(p);
    return std::pair{Grid{s[0], s[1]}, Grid{p, 1}};
  });
  two_d("mat_b32_b128", Dist<Cyclic<32>, Cyclic<32>>{}, Dist<Cyclic<128>, Cyclic<128>>{}, [](int p) {
    const auto s = near_square(p);
    return std::pair{Grid{s[0], s[1]}, Grid{s[0], s[1]}};
  });
  two_d("corner_turn", Dist<Block, Collapsed>{}, Dist<Collapsed, Block>{},
        [](int p) { return std::pair{Grid{p, 1}, Grid{1, p}}; });
  using C1 = Dist<Cyclic<64>, Collapsed, Block>;
  using C2 = Dist<Block, Collapsed, Cyclic<8>>;
  procs_rows(out, "cube_3d", max_procs, [&](int p) {
    const auto s = near_square(p);
    return std::pair{C1::mapping(C1{}, {c, c, c}, Grid{s[0], 1, s[1]}, {}, Storage{}, p),
                     C2::mapping(C2{}, {c, c, c}, Grid{p, 1, 1}, {}, Storage{}, p)};
  });
  return 0;
}

}  // namespace

int main(int argc, char* argv[]) {
  int reps = 201;
  index_t small = index_t{1} << 16, large = index_t{1} << 26;
  std::string csv;
  bool procs = false;
  int max_procs = 65536;
  bench::cli::Parser("plan-scaling", "[--reps R] [--small N] [--large N] [--csv FILE] | --procs [--max-procs P] [--csv FILE]")
      .integer("--reps R", "timed plans of each case and size", reps, 1)
      .integer("--small N", "elements of the small size", small, index_t{1})
      .integer("--large N", "elements of the large size", large, index_t{1})
      .flag("--procs", "time one rank's plan against P instead, P = 64, 1024, 16384, 65536 up to --max-procs", procs)
      .integer("--max-procs P", "the largest P of --procs", max_procs, 1)
      .text("--csv FILE", "write the rows to FILE (default: standard output)", csv)
      .parse_or_exit(argc, argv);
  const int p = 4;
  auto side = [](index_t n) {  // the extent of a 2-D case with about n elements
    index_t e = 1;
    while ((e + 1) * (e + 1) <= n) ++e;
    return e;
  };
  auto cube = [](index_t n) {
    index_t e = 1;
    while ((e + 1) * (e + 1) * (e + 1) <= n) ++e;
    return e;
  };
  const std::vector<Case> cases{
      {"cyc8_cyc5", [&](index_t n) { return plans_1d(n, p, Cyclic<8>{}, Cyclic<5>{}); }},
      {"cyc100_cyc3", [&](index_t n) { return plans_1d(n, p, Cyclic<100>{}, Cyclic<3>{}); }},
      {"cyc4_cyc28", [&](index_t n) { return plans_1d(n, p, Cyclic<4>{}, Cyclic<28>{}); }},
      {"cyc4_cyc124", [&](index_t n) { return plans_1d(n, p, Cyclic<4>{}, Cyclic<124>{}); }},
      {"block_cyc1", [&](index_t n) { return plans_1d(n, p, Block{}, Cyclic<1>{}); }},
      {"genblock_uneven", [&](index_t n) { return plans_1d(n, p, uneven(n, p, false), uneven(n, p, true)); }},
      {"mat_b64_b100",
       [&](index_t n) {
         return plans_nd<Dist<Cyclic<64>, Cyclic<64>>, Dist<Cyclic<100>, Cyclic<100>>>(
             std::array<index_t, 2>{side(n), side(n)}, p, Grid{2, 2}, Grid{4, 1});
       },
       true},
      {"mat_b32_b128",
       [&](index_t n) {
         return plans_nd<Dist<Cyclic<32>, Cyclic<32>>, Dist<Cyclic<128>, Cyclic<128>>>(
             std::array<index_t, 2>{side(n), side(n)}, p, Grid{2, 2}, Grid{2, 2});
       },
       true},
      {"corner_turn",
       [&](index_t n) {
         return plans_nd<Dist<Block, Collapsed>, Dist<Collapsed, Block>>(std::array<index_t, 2>{side(n), side(n)}, p,
                                                                         Grid{4, 1}, Grid{1, 4});
       },
       true},
      {"cube_3d",
       [&](index_t n) {
         return plans_nd<Dist<Cyclic<64>, Collapsed, Block>, Dist<Block, Collapsed, Cyclic<8>>>(
             std::array<index_t, 3>{cube(n), cube(n), cube(n)}, p, Grid{2, 1, 2}, Grid{4, 1, 1});
       },
       true},
  };
  std::FILE* out = csv.empty() ? stdout : std::fopen(csv.c_str(), "w");
  if (out == nullptr) return 2;
  if (procs) {
    const int rc = procs_table(out, max_procs);
    if (out != stdout) std::fclose(out);
    return rc;
  }
  std::fprintf(out, "case,np,small_elements,large_elements,small_plan_ms,large_plan_ms,ratio\n");
  for (const Case& c : cases) {
    const auto a = c.make(small), b = c.make(large);
    plan_ms(a, p, 3);  // warm-up
    plan_ms(b, p, 3);
    const double ts = plan_ms(a, p, reps), tl = plan_ms(b, p, reps);
    std::fprintf(out, "%s,%d,%lld,%lld,%.6f,%.6f,%.3f\n", c.name.c_str(), p, static_cast<long long>(small),
                 static_cast<long long>(large), ts, tl, tl / ts);
    std::fflush(out);
  }
  if (out != stdout) std::fclose(out);
  return 0;
}
