/// @file Defines the expression cases of redist-bench (issue 16): fused8 (8 arrays in one exchange against 8 separate b = a), overlap (start, compute, wait against compute then b = a) and tran (b = alpha * transpose(a) + beta * b against ScaLAPACK's pdtran).
#pragma once

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <boost/mpi/collectives/all_reduce.hpp>

#include <redist/redist.hpp>

#include "harness.hpp"
#include "methods_nd.hpp"

extern "C" {
void pdtran_(const int* m, const int* n, const double* alpha, const double* a, const int* ia, const int* ja,
             const int* desca, const double* beta, double* c, const int* ic, const int* jc, const int* descc);
}

namespace redist::bench {

/// A method made of functions (run, clear, verify, cost), for the cases whose methods are not
/// one b = a.
class FnMethod final : public Method {
 public:
  std::function<void()> run_fn, clear_fn, setup_fn;
  std::function<bool()> verify_fn;
  std::function<Cost()> cost_fn;
  void setup() override {
    if (setup_fn) setup_fn();
  }
  bool has_setup() const override { return static_cast<bool>(setup_fn); }
  void run() override { run_fn(); }
  void clear() override { clear_fn(); }
  bool verify() const override { return verify_fn(); }
  Cost cost() override { return cost_fn(); }
};

/// fused8: k = 8 arrays of 2^14 doubles, Block -> Cyclic<3>. `redist` is one
/// redist::assign(b1 <<= a1, ..., b8 <<= a8); `redist:separate` the 8 b = a one after the other.
inline std::vector<Row> run_fused8(Harness& h) {
  constexpr int K = 8;
  const index_t n = index_t{1} << 14;
  std::vector<DistArray<double, Block>> a;
  std::vector<DistArray<double, Cyclic<3>>> b;
  for (int k = 0; k < K; ++k) {
    a.emplace_back(h.comm(), n);
    b.emplace_back(h.comm(), n);
    for (index_t l = 0; l < a[k].local_size(); ++l) a[k].local()[l] = value_of(a[k].global_index(l) + k * n);
  }
  const auto one = make_plan(a[0], b[0]);
  const auto& p = one.plan();
  std::size_t fused_messages = 0;
  // The messages of one array by the same transport (none with node peers in shared memory).
  std::size_t single = 0;
  {
    auto h1 = start(b[0] <<= a[0]);
    single = h1.messages_sent();
  }
  auto clear = [&] {
    for (auto& x : b) std::fill(x.local().begin(), x.local().end(), cleared_value);
  };
  auto verify = [&] {
    bool ok = true;
    for (int k = 0; k < K; ++k)
      for (index_t l = 0; l < b[k].local_size(); ++l) ok = ok && b[k].local()[l] == value_of(b[k].global_index(l) + k * n);
    return ok;
  };
  auto method = [&](std::function<void()> run, std::function<std::int64_t()> messages) {
    auto m = std::make_unique<FnMethod>();
    m->run_fn = std::move(run);
    m->clear_fn = clear;
    m->verify_fn = verify;
    m->cost_fn = [&p, messages] {
      return Cost{K * static_cast<std::int64_t>(p.elements_sent()) * 8, messages(), 1, 0};
    };
    return m;
  };
  std::vector<MethodEntry> entries;
  entries.push_back({"redist", [&] {
                       return method(
                           [&] {
                             auto hd = start(b[0] <<= a[0], b[1] <<= a[1], b[2] <<= a[2], b[3] <<= a[3], b[4] <<= a[4],
                                             b[5] <<= a[5], b[6] <<= a[6], b[7] <<= a[7]);
                             fused_messages = hd.messages_sent();
                             hd.wait();
                           },
                           [&] { return static_cast<std::int64_t>(fused_messages); });
                     }});
  entries.push_back({"redist:separate", [&] {
                       return method(
                           [&] {
                             for (int k = 0; k < K; ++k) b[k] = a[k];
                           },
                           [&] { return static_cast<std::int64_t>(K * single); });
                     }});
  return h.measure("fused8", K * n, entries);
}

/// About `seconds` of arithmetic on this rank's private work vector, in `chunks` pieces; between
/// two pieces, between(). Returns a checksum (so that the work is not optimized away).
class Compute {
 public:
  Compute() : x_(std::size_t{1} << 16, 1.0) {}
  /// Calibrates the number of passes for `seconds` on this rank.
  void calibrate(double seconds) {
    const double t0 = MPI_Wtime();
    int passes = 0;
    while (MPI_Wtime() - t0 < 0.05) {
      pass();
      ++passes;
    }
    passes_ = std::max(1, static_cast<int>(passes * seconds / (MPI_Wtime() - t0)));
  }
  template <class F>
  double run(int chunks, F&& between) {
    for (int c = 0; c < chunks; ++c) {
      for (int k = c * passes_ / chunks; k < (c + 1) * passes_ / chunks; ++k) pass();
      between();
    }
    return x_[0];
  }

 private:
  void pass() {
    for (double& v : x_) v = v * 0.999999 + 1e-6;
  }
  std::vector<double> x_;
  int passes_ = 1;
};

/// overlap: n doubles Block -> Cyclic<8>. `redist` starts the redistribution, computes for about
/// the blocking redistribution's own time (in 64 pieces, calling test() between them), then waits;
/// `redist:blocking` computes as long, then runs b = a. Their ratio, printed, is (compute + wait)
/// / (compute + blocking): below 1 shows overlap.
inline std::vector<Row> run_overlap(Harness& h, index_t n) {
  DistArray<double, Block> a(h.comm(), n);
  DistArray<double, Cyclic<8>> b(h.comm(), n);
  for (index_t l = 0; l < a.local_size(); ++l) a.local()[l] = value_of(a.global_index(l));
  b = a;  // plans, and measures the blocking time
  std::vector<double> t;
  for (int k = 0; k < 5; ++k) {
    h.comm().barrier();
    const double t0 = MPI_Wtime();
    b = a;
    t.push_back(boost::mpi::all_reduce(h.comm(), MPI_Wtime() - t0, boost::mpi::maximum<double>()));
  }
  std::sort(t.begin(), t.end());
  Compute compute;
  compute.calibrate(t[2]);
  double sink = 0;
  const auto plan = make_plan(a, b, schedule::all_at_once);
  auto method = [&](std::function<void()> run) {
    auto m = std::make_unique<FnMethod>();
    m->run_fn = std::move(run);
    m->clear_fn = [&] { std::fill(b.local().begin(), b.local().end(), cleared_value); };
    m->verify_fn = [&] { return holds_values(b); };
    m->cost_fn = [&] {
      return Cost{static_cast<std::int64_t>(plan.plan().elements_sent()) * 8,
                  static_cast<std::int64_t>(plan.plan().messages_sent()), 1, 0};
    };
    return m;
  };
  std::vector<MethodEntry> entries;
  entries.push_back({"redist", [&] {
                       return method([&] {
                         auto hd = start(b <<= a);
                         sink += compute.run(64, [&] { hd.test(); });
                         hd.wait();
                       });
                     }});
  entries.push_back({"redist:blocking", [&] {
                       return method([&] {
                         sink += compute.run(64, [] {});
                         b = a;
                       });
                     }});
  auto rows = h.measure("overlap", n, entries);
  if (h.comm().rank() == 0 && rows.size() == 2 && rows[1].median_ms > 0)
    std::fprintf(stderr, "overlap          (compute + wait) / (compute + blocking) = %.3f  (blocking b = a alone %.3f ms)%s\n",
                 rows[0].median_ms / rows[1].median_ms, 1e3 * t[2], sink == 0 ? " " : "");
  return rows;
}

/// tran: c = alpha * transpose(a) + beta * c on an m x m matrix, 64 x 64 blocks on the square grid
/// for both (PDTRAN wants one context), alpha = 0.5, beta = 2. `redist` is the expression over
/// DistArrays, `pdtran` ScaLAPACK's routine on the same local arrays. Each run accumulates into c;
/// the check is made after one run from c = value_of.
inline std::vector<Row> run_tran(Harness& h, index_t m, BlacsContexts& contexts) {
  using D = Dist<Cyclic<64>, Cyclic<64>>;
  const int p = h.comm().size();
  int rows = 1;
  for (int r = 1; r * r <= p; ++r)
    if (p % r == 0) rows = r;
  const Grid grid{rows, p / rows};
  DistArray<double, D> a(h.comm(), {m, m}, grid);
  for_each_local_nd(a, [&](const auto& l, index_t off) { a.local()[off] = value_of(global_id(a.global_index(l), a.extents())); });
  auto clear_c = [&](DistArray<double, D>& c) {
    for_each_local_nd(c, [&](const auto& l, index_t off) { c.local()[off] = value_of(global_id(c.global_index(l), c.extents())); });
  };
  auto verify_c = [&](const DistArray<double, D>& c) {
    bool ok = true;
    for_each_local_nd(c, [&](const auto& l, index_t off) {
      const auto g = c.global_index(l);
      const double want = 0.5 * value_of(global_id(std::array<index_t, 2>{g[1], g[0]}, c.extents())) +
                          2.0 * value_of(global_id(g, c.extents()));
      ok = ok && c.local()[off] == want;
    });
    return ok;
  };
  std::vector<MethodEntry> entries;
  auto method = [&](std::function<void(DistArray<double, D>&)> run) {
    auto m_ = std::make_unique<FnMethod>();
    auto c = std::make_shared<DistArray<double, D>>(h.comm(), std::array<index_t, 2>{m, m}, grid);
    m_->run_fn = [c, run] { run(*c); };
    m_->clear_fn = [c, clear_c] { clear_c(*c); };
    m_->verify_fn = [c, verify_c] { return verify_c(*c); };
    using M = typename DistArray<double, D>::mapping_type;
    const Redistribution<Transposed<M>, M, schedule::all_at_once_t> plan(Transposed<M>{a.mapping()}, c->mapping(),
                                                                         h.comm().rank());
    const Cost cost{static_cast<std::int64_t>(plan.plan().elements_sent()) * 8,
                    static_cast<std::int64_t>(plan.plan().messages_sent()), 1, 0};
    m_->cost_fn = [cost] { return cost; };
    return m_;
  };
  entries.push_back({"redist", [&] { return method([&](DistArray<double, D>& c) { c = 0.5 * transpose(a) + 2.0 * c; }); }});
  if constexpr (have_scalapack) entries.push_back({"pdtran", [&] {
                       auto desc = std::make_shared<std::array<int, 9>>();
                       int raw[9];
                       describe_nd(raw, contexts, h.comm().rank(), a.mapping());
                       std::copy(raw, raw + 9, desc->begin());
                       return method([&, desc](DistArray<double, D>& c) {
                         const int mm = static_cast<int>(m), one = 1;
                         const double alpha = 0.5, beta = 2.0;
                         double dummy = 0;
                         const double* pa = a.local().empty() ? &dummy : a.local().data();
                         double* pc = c.local().empty() ? &dummy : c.local().data();
                         pdtran_(&mm, &mm, &alpha, pa, &one, &one, desc->data(), &beta, pc, &one, &one, desc->data());
                       });
                     }});
  return h.measure("tran", m * m, entries);
}

}  // namespace redist::bench
