// Simulation study of the GEN_BLOCK schedules (seed 002, Sec. 5): TPDR, E-TPDR, list scheduling and the divide-and-conquer baseline on random even and uneven cases.
//
//   gen_block_study [--cases 10000] [--n 1048576] [--lmr 8] [--seed 2005] [--csv FILE]
//
// For P = 4, 8, ..., 24 and each kind of case — even (every part within ±30 % of n/P) and
// uneven (within ±100 %: 1 ... 2n/P elements) for source and destination alike — it draws
// `cases` random GEN_BLOCK pairs and schedules each with TPDR, E-TPDR, list scheduling and the
// divide-and-conquer (DC) algorithm the paper compares against (bench/gen_block_dc.hpp, a
// reconstruction from the paper's description), then counts, for each pair of schedulers, how
// often the first is cheaper, equal or dearer (cost = Σ over steps of the largest message), the
// ratio of each schedule's cost to the lower bound max over parts of (elements sent, elements
// received), and how often a schedule has more steps than the maximum degree d (the minimum). The same is done under LMR
// (local messages cost size / lmr) for E-TPDR scheduled without and with LMR. Pure schedule
// computation: no MPI, one process. Prints a Markdown summary and writes one CSV row per (kind, P).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <redist/index/gen_block.hpp>
#include <redist/schedule/gen_block.hpp>

#include "cli.hpp"
#include "gen_block_dc.hpp"

using namespace redist;

namespace {

enum class kind { even, uneven };

/// P sizes summing to n, each in [lo, hi]: uniform draws, then the difference to n spread over
/// the parts in random order, each taking what its bounds allow.
std::vector<index_t> random_sizes(index_t n, int nprocs, kind k, std::mt19937_64& rng) {
  const double mean = static_cast<double>(n) / nprocs;
  const index_t lo = k == kind::even ? static_cast<index_t>(std::ceil(0.7 * mean)) : 1;
  const index_t hi = k == kind::even ? static_cast<index_t>(std::floor(1.3 * mean)) : static_cast<index_t>(2 * mean);
  std::uniform_int_distribution<index_t> pick(lo, hi);
  std::vector<index_t> s(static_cast<std::size_t>(nprocs));
  index_t sum = 0;
  for (auto& x : s) sum += (x = pick(rng));
  std::vector<std::size_t> order(s.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  while (sum != n) {
    std::shuffle(order.begin(), order.end(), rng);
    for (std::size_t i : order) {
      if (sum == n) break;
      const index_t room = sum < n ? std::min(hi - s[i], n - sum) : std::min(s[i] - lo, sum - n);
      const index_t step = room == 0 ? 0 : 1 + static_cast<index_t>(rng() % static_cast<std::uint64_t>(room));
      s[i] += sum < n ? step : -step;
      sum += sum < n ? step : -step;
    }
  }
  return s;
}

struct Tally {
  long better = 0, equal = 0, worse = 0;
  void add(double a, double b) {
    // Costs are sums of element counts (or of counts / lmr): equal within rounding is equal.
    const double eps = 1e-9 * std::max(1.0, std::max(a, b));
    if (a < b - eps) ++better;
    else if (a > b + eps) ++worse;
    else ++equal;
  }
};

struct Ratio {
  double sum = 0, worst = 0;
  long count = 0;
  void add(double r) {
    sum += r;
    worst = std::max(worst, r);
    ++count;
  }
  double mean() const { return count ? sum / count : 0; }
};

struct Row {
  std::string kind;
  int nprocs = 0;
  long cases = 0;
  double mean_degree = 0;
  long degree3plus = 0;
  Tally etpdr_tpdr, etpdr_list, tpdr_list, lmr_etpdr, lmr_list;
  Ratio r_tpdr, r_etpdr, r_list, rl_etpdr, rl_etpdr_lmr, rl_list_lmr;
  long automatic_all_at_once = 0;
  Tally tpdr_dc, etpdr_dc, list_dc;
  Ratio r_dc;
  long dc_above_degree = 0;     // cases where DC has more than d steps
  long seed_above_degree = 0;   // cases where TPDR or E-TPDR has more than d steps
};

}  // namespace

int main(int argc, char** argv) {
  long cases = 10000;
  index_t n = index_t{1} << 20;
  double lmr = schedule::default_lmr_ratio;
  unsigned long seed = 2005;
  std::string csv_path;
  bench::cli::Parser("gen_block_study")
      .integer("--cases N", "random GEN_BLOCK pairs per kind and P", cases, 1L)
      .integer("--n N", "elements of each pair (at least one a part at P = 24)", n, index_t{24})
      .real("--lmr R", "local messages cost size / R under LMR", lmr)
      .integer("--seed S", "seed of the random cases", seed)
      .text("--csv FILE", "also write one row per (kind, P) to FILE", csv_path)
      .parse_or_exit(argc, argv);
  const auto t0 = std::chrono::steady_clock::now();
  std::mt19937_64 rng(seed);
  const schedule::MessageCost plain{}, local_cheap{lmr};
  const schedule::CostModel model{};  // automatic's model: default Ts, Td, 8-byte elements, default LMR
  std::vector<Row> rows;
  for (kind k : {kind::even, kind::uneven}) {
    for (int nprocs = 4; nprocs <= 24; nprocs += 4) {
      Row row;
      row.kind = k == kind::even ? "even" : "uneven";
      row.nprocs = nprocs;
      long degree_sum = 0;
      for (long c = 0; c < cases; ++c) {
        const auto a = random_sizes(n, nprocs, k, rng), b = random_sizes(n, nprocs, k, rng);
        const auto msgs = index::gen_block_messages(std::span<const index_t>(a), std::span<const index_t>(b));
        const int d = schedule::max_degree(msgs, nprocs, schedule::LocalMessages::counted);
        degree_sum += d;
        row.degree3plus += d >= 3;
        // Plain costs.
        const auto tp = schedule::tpdr_schedule(msgs, nprocs, plain);
        const auto et = schedule::etpdr_schedule(msgs, nprocs, plain);
        const auto li = schedule::list_schedule(msgs, nprocs, plain);
        const double c_tp = schedule::schedule_cost(msgs, tp, plain), c_et = schedule::schedule_cost(msgs, et, plain),
                     c_li = schedule::schedule_cost(msgs, li, plain);
        const double lb = schedule::lower_bound(msgs, nprocs, plain);
        row.etpdr_tpdr.add(c_et, c_tp);
        row.etpdr_list.add(c_et, c_li);
        row.tpdr_list.add(c_tp, c_li);
        row.r_tpdr.add(c_tp / lb);
        row.r_etpdr.add(c_et / lb);
        row.r_list.add(c_li / lb);
        // The divide-and-conquer baseline, by size.
        const auto dc = bench::dc_schedule(msgs, nprocs);
        const double c_dc = schedule::schedule_cost(msgs, dc, plain);
        row.tpdr_dc.add(c_tp, c_dc);
        row.etpdr_dc.add(c_et, c_dc);
        row.list_dc.add(c_li, c_dc);
        row.r_dc.add(c_dc / lb);
        row.dc_above_degree += static_cast<int>(dc.size()) > d;
        row.seed_above_degree += static_cast<int>(tp.size()) > d || static_cast<int>(et.size()) > d;
        // LMR costs: E-TPDR scheduled by size against E-TPDR and list scheduled by LMR cost.
        const auto et_l = schedule::etpdr_schedule(msgs, nprocs, local_cheap);
        const auto li_l = schedule::list_schedule(msgs, nprocs, local_cheap);
        const double l_et = schedule::schedule_cost(msgs, et, local_cheap),
                     l_et_l = schedule::schedule_cost(msgs, et_l, local_cheap),
                     l_li_l = schedule::schedule_cost(msgs, li_l, local_cheap);
        const double lb_l = schedule::lower_bound(msgs, nprocs, local_cheap);
        row.lmr_etpdr.add(l_et_l, l_et);
        row.lmr_list.add(l_et_l, l_li_l);
        row.rl_etpdr.add(l_et / lb_l);
        row.rl_etpdr_lmr.add(l_et_l / lb_l);
        row.rl_list_lmr.add(l_li_l / lb_l);
        // What automatic would do with these layouts (n doubles).
        const auto et_auto = schedule::etpdr_schedule(msgs, nprocs, {model.lmr_ratio});
        row.automatic_all_at_once +=
            schedule::choose_automatic(msgs, nprocs, et_auto, model) == schedule::automatic_choice::one_exchange;
      }
      row.cases = cases;
      row.mean_degree = static_cast<double>(degree_sum) / static_cast<double>(cases);
      rows.push_back(row);
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // CSV: one row per (kind, P).
  std::FILE* csv = csv_path.empty() ? stdout : std::fopen(csv_path.c_str(), "w");
  if (!csv) {
    std::perror(csv_path.c_str());
    return 1;
  }
  std::fprintf(csv,
               "kind,P,cases,n,lmr,mean_degree,degree3plus,"
               "etpdr_vs_tpdr_better,etpdr_vs_tpdr_equal,etpdr_vs_tpdr_worse,"
               "etpdr_vs_list_better,etpdr_vs_list_equal,etpdr_vs_list_worse,"
               "tpdr_vs_list_better,tpdr_vs_list_equal,tpdr_vs_list_worse,"
               "lmr_etpdr_vs_etpdr_better,lmr_etpdr_vs_etpdr_equal,lmr_etpdr_vs_etpdr_worse,"
               "lmr_etpdr_vs_lmr_list_better,lmr_etpdr_vs_lmr_list_equal,lmr_etpdr_vs_lmr_list_worse,"
               "ratio_tpdr_mean,ratio_tpdr_max,ratio_etpdr_mean,ratio_etpdr_max,ratio_list_mean,ratio_list_max,"
               "lmr_ratio_etpdr_mean,lmr_ratio_etpdr_max,lmr_ratio_lmr_etpdr_mean,lmr_ratio_lmr_etpdr_max,"
               "lmr_ratio_lmr_list_mean,lmr_ratio_lmr_list_max,automatic_all_at_once,"
               "tpdr_vs_dc_better,tpdr_vs_dc_equal,tpdr_vs_dc_worse,etpdr_vs_dc_better,etpdr_vs_dc_equal,"
               "etpdr_vs_dc_worse,list_vs_dc_better,list_vs_dc_equal,list_vs_dc_worse,ratio_dc_mean,ratio_dc_max,"
               "dc_steps_above_degree,tpdr_etpdr_steps_above_degree\n");
  for (const Row& r : rows) {
    std::fprintf(csv, "%s,%d,%ld,%lld,%g,%.4f,%ld", r.kind.c_str(), r.nprocs, r.cases, static_cast<long long>(n), lmr,
                 r.mean_degree, r.degree3plus);
    for (const Tally* t : {&r.etpdr_tpdr, &r.etpdr_list, &r.tpdr_list, &r.lmr_etpdr, &r.lmr_list})
      std::fprintf(csv, ",%ld,%ld,%ld", t->better, t->equal, t->worse);
    for (const Ratio* x : {&r.r_tpdr, &r.r_etpdr, &r.r_list, &r.rl_etpdr, &r.rl_etpdr_lmr, &r.rl_list_lmr})
      std::fprintf(csv, ",%.5f,%.5f", x->mean(), x->worst);
    std::fprintf(csv, ",%ld", r.automatic_all_at_once);
    for (const Tally* t : {&r.tpdr_dc, &r.etpdr_dc, &r.list_dc}) std::fprintf(csv, ",%ld,%ld,%ld", t->better, t->equal, t->worse);
    std::fprintf(csv, ",%.5f,%.5f,%ld,%ld\n", r.r_dc.mean(), r.r_dc.worst, r.dc_above_degree, r.seed_above_degree);
  }
  if (csv != stdout) std::fclose(csv);

  // Summary (Markdown), on stderr when the CSV goes to stdout.
  std::FILE* out = csv_path.empty() ? stderr : stdout;
  auto pct = [](long x, long total) { return 100.0 * static_cast<double>(x) / static_cast<double>(total); };
  std::fprintf(out, "%ld cases per row, n = %lld, LMR ratio %g, %.1f s\n\n", cases, static_cast<long long>(n), lmr,
               seconds);
  std::fprintf(out,
               "| kind | P | mean d | E-TPDR vs list: < / = / > (%%) | E-TPDR vs TPDR: < / = / > (%%) | "
               "cost / bound, mean (max): TPDR | E-TPDR | list | LMR: E-TPDR(LMR) vs E-TPDR < / = / > (%%) |\n");
  std::fprintf(out, "|---|---|---|---|---|---|---|---|---|\n");
  for (const Row& r : rows) {
    std::fprintf(out,
                 "| %s | %d | %.2f | %.1f / %.1f / %.1f | %.1f / %.1f / %.1f | %.3f (%.3f) | %.3f (%.3f) | %.3f (%.3f) "
                 "| %.1f / %.1f / %.1f |\n",
                 r.kind.c_str(), r.nprocs, r.mean_degree, pct(r.etpdr_list.better, r.cases),
                 pct(r.etpdr_list.equal, r.cases), pct(r.etpdr_list.worse, r.cases), pct(r.etpdr_tpdr.better, r.cases),
                 pct(r.etpdr_tpdr.equal, r.cases), pct(r.etpdr_tpdr.worse, r.cases), r.r_tpdr.mean(), r.r_tpdr.worst,
                 r.r_etpdr.mean(), r.r_etpdr.worst, r.r_list.mean(), r.r_list.worst, pct(r.lmr_etpdr.better, r.cases),
                 pct(r.lmr_etpdr.equal, r.cases), pct(r.lmr_etpdr.worse, r.cases));
  }
  std::fprintf(out, "\nAgainst divide-and-conquer (DC, reconstructed: bench/gen_block_dc.hpp); < means the first is cheaper.\n\n");
  std::fprintf(out,
               "| kind | P | mean d | TPDR vs DC: < / = / > (%%) | E-TPDR vs DC: < / = / > (%%) | list vs DC: < / = / > (%%) | "
               "cost / bound, mean (max): DC | TPDR | E-TPDR | cases with steps > d: DC | TPDR or E-TPDR |\n");
  std::fprintf(out, "|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const Row& r : rows) {
    std::fprintf(out,
                 "| %s | %d | %.2f | %.1f / %.1f / %.1f | %.1f / %.1f / %.1f | %.1f / %.1f / %.1f | %.3f (%.3f) | %.3f | %.3f "
                 "| %ld | %ld |\n",
                 r.kind.c_str(), r.nprocs, r.mean_degree, pct(r.tpdr_dc.better, r.cases), pct(r.tpdr_dc.equal, r.cases),
                 pct(r.tpdr_dc.worse, r.cases), pct(r.etpdr_dc.better, r.cases), pct(r.etpdr_dc.equal, r.cases),
                 pct(r.etpdr_dc.worse, r.cases), pct(r.list_dc.better, r.cases), pct(r.list_dc.equal, r.cases),
                 pct(r.list_dc.worse, r.cases), r.r_dc.mean(), r.r_dc.worst, r.r_tpdr.mean(), r.r_etpdr.mean(),
                 r.dc_above_degree, r.seed_above_degree);
  }
  return 0;
}
