// The soak's 1-D cases between typed distributions, which reach the static schedules: Cyclic<3> ->
// Cyclic<5> and Cyclic(k) -> Cyclic(k') under BCC, multi-phase and the circulant schedules,
// GenBlock -> GenBlock under TPDR, E-TPDR and list scheduling, Block -> Cyclic<1>, AnyDist ->
// Cyclic<3>, static grids of 4, views as destinations, sections, updates and fused lists.
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <redist/redist.hpp>

#include "../support/random_dists.hpp"
#include "soak.hpp"

namespace soak {
namespace {

using redist::Cyclic;
using redist::DistArray;
using redist::DistView;
namespace sch = redist::schedule;

std::string list(const std::vector<index_t>& v) {
  std::ostringstream s;
  s << '{';
  for (std::size_t d = 0; d < v.size(); ++d) s << (d ? "," : "") << v[d];
  return s.str() + '}';
}

index_t random_n(Ctx& ctx) {
  const auto k = ctx.rnd(10);
  return k == 0 ? 0 : k == 1 ? 1 : static_cast<index_t>(ctx.rnd(5000));
}

template <class A>
void fill1(A& a, std::uint32_t salt) {
  auto loc = a.local();
  for (index_t l = 0; l < static_cast<index_t>(loc.size()); ++l) loc[static_cast<std::size_t>(l)] = value(a.global_index(l), salt);
}
/// Every element of b equals want(global index); records the first that does not.
template <class B, class W>
bool holds1(Ctx& ctx, const B& b, W&& want) {
  auto loc = b.local();
  for (index_t l = 0; l < static_cast<index_t>(loc.size()); ++l) {
    const index_t g = b.global_index(l);
    if (loc[static_cast<std::size_t>(l)] != want(g)) {
      ctx.wrong("element " + std::to_string(g), loc[static_cast<std::size_t>(l)], want(g));
      return false;
    }
  }
  return true;
}

/// a -> b under the given policy (a callable running it) and options; every element checked.
template <class A, class B, class Run>
void run_pair(Ctx& ctx, A& a, B& b, const std::string& what, Run&& run) {
  const std::uint32_t s = ctx.salt(), old = ctx.salt();
  fill1(a, s);
  fill1(b, old);
  ctx.describe("  " + what);
  run(a, b);
  ++ctx.redistributions;
  bool ok = holds1(ctx, b, [&](index_t g) { return value(g, s); });
  ok = ok && holds1(ctx, a, [&](index_t g) { return value(g, s); });
  ctx.check(ok, "typed: " + what);
}

/// Destination b of type B (Cyclic<5> or Cyclic(k)), as a DistArray or a DistView over a
/// std::vector or a SharedBuffer, and f(b).
template <class D, class F>
void with_destination(Ctx& ctx, index_t n, const D& d, F&& f) {
  const auto k = ctx.rnd(3);
  if (k == 0) {
    ctx.describe("  destination DistArray");
    DistArray<double, D> b(ctx.world, n, d);
    f(b);
  } else if (k == 1) {
    ctx.describe("  destination DistView(std::vector)");
    std::vector<double> mem(static_cast<std::size_t>(DistView<double, D>::required_span_size(ctx.world, n, d)));
    DistView<double, D> b(mem, ctx.world, n, d);
    f(b);
  } else {
    ctx.describe("  destination DistView(SharedBuffer)");
    redist::SharedBuffer<double> mem(ctx.world, static_cast<std::size_t>(DistView<double, D>::required_span_size(ctx.world, n, d)));
    DistView<double, D> b(mem.span(), ctx.world, n, d);
    f(b);
  }
}

/// Cyclic -> Cyclic under every schedule that takes a Cyclic pair.
template <class A, class B>
void cyclic_policies(Ctx& ctx, A& a, B& b) {
  const redist::options o = ctx.random_options();
  const std::string od = Ctx::describe(o);
  const auto run = [&](const char* name, auto policy) {
    run_pair(ctx, a, b, std::string("redistribute(a, b, ") + name + ", " + od + ")",
             [&](auto& x, auto& y) { redist::redistribute(x, y, policy, o); });
  };
  switch (ctx.rnd(9)) {
    case 0: run("automatic", sch::automatic); break;
    case 1: run("all_at_once", sch::all_at_once); break;
    case 2: run("bcc", sch::bcc); break;
    case 3: run("bcc_contention_free", sch::bcc_contention_free); break;
    case 4: run("multiphase", sch::multiphase); break;
    case 5: run("direct", sch::direct); break;
    case 6: run("indirect", sch::indirect); break;
    case 7: {
      const int d = static_cast<int>(ctx.rnd(4));
      run(("hybrid(" + std::to_string(d) + ")").c_str(), sch::hybrid(d));
      break;
    }
    default: {
      ScopedDefaults call(o);
      run_pair(ctx, a, b, "b = a, default " + od, [](auto& x, auto& y) { y = x; });
      break;
    }
  }
}

}  // namespace

void typed_case(Ctx& ctx) {
  const index_t n = random_n(ctx);
  const int p = ctx.nprocs();
  const redist::options build = ctx.random_options();
  ScopedDefaults scoped(build);
  const auto kind = ctx.rnd(9);
  std::ostringstream head;
  head << "typed 1-D, n = " << n << ", arrays built with " << Ctx::describe(build);
  switch (kind) {
    case 0: {
      ctx.describe(head.str() + ": Cyclic<3> -> Cyclic<5>");
      DistArray<double, Cyclic<3>> a(ctx.world, n);
      with_destination(ctx, n, Cyclic<5>{}, [&](auto& b) { cyclic_policies(ctx, a, b); });
      break;
    }
    case 1: {
      const index_t k1 = redist::test::random_block(n, ctx.rng), k2 = redist::test::random_block(n, ctx.rng);
      ctx.describe(head.str() + ": Cyclic(" + std::to_string(k1) + ") -> Cyclic(" + std::to_string(k2) + ")");
      DistArray<double, Cyclic<>> a(ctx.world, n, Cyclic<>{static_cast<std::size_t>(k1)});
      with_destination(ctx, n, Cyclic<>{static_cast<std::size_t>(k2)}, [&](auto& b) { cyclic_policies(ctx, a, b); });
      break;
    }
    case 2: {
      auto pa = redist::test::random_parts(n, p, ctx.rng), pb = redist::test::random_parts(n, p, ctx.rng);
      ctx.describe(head.str() + ": GenBlock" + list(pa) + " -> GenBlock" + list(pb));
      DistArray<double, redist::GenBlock> a(ctx.world, n, redist::GenBlock(pa)), b(ctx.world, n, redist::GenBlock(pb));
      const redist::options o = ctx.random_options();
      const std::string od = Ctx::describe(o);
      const double lmr = ctx.coin(2) ? 1.0 : 0.5 + static_cast<double>(ctx.rnd(4));
      const auto run = [&](const std::string& name, auto policy) {
        run_pair(ctx, a, b, "redistribute(a, b, " + name + ", " + od + ")",
                 [&](auto& x, auto& y) { redist::redistribute(x, y, policy, o); });
      };
      switch (ctx.rnd(5)) {
        case 0: run("automatic", sch::automatic); break;
        case 1: run("all_at_once", sch::all_at_once); break;
        case 2: run("tpdr{" + std::to_string(lmr) + "}", sch::tpdr_t{lmr}); break;
        case 3: run("etpdr{" + std::to_string(lmr) + "}", sch::etpdr_t{lmr}); break;
        default: run("list{" + std::to_string(lmr) + "}", sch::list_t{lmr}); break;
      }
      break;
    }
    case 3: {
      ctx.describe(head.str() + ": Block -> Cyclic<1>");
      DistArray<double, redist::Block> a(ctx.world, n);
      DistArray<double, Cyclic<1>> b(ctx.world, n);
      const redist::options o = ctx.random_options();
      const std::string od = Ctx::describe(o);
      const auto run = [&](const char* name, auto policy) {
        run_pair(ctx, a, b, std::string("redistribute(a, b, ") + name + ", " + od + ")",
                 [&](auto& x, auto& y) { redist::redistribute(x, y, policy, o); });
      };
      switch (ctx.rnd(4)) {
        case 0: run("automatic", sch::automatic); break;
        case 1: run("all_at_once", sch::all_at_once); break;
        case 2: run("caterpillar", sch::caterpillar); break;
        default: run("relative_group", sch::relative_group); break;
      }
      // And back, as b = a.
      run_pair(ctx, b, a, "a = b (back)", [](auto& x, auto& y) { y = x; });
      break;
    }
    case 4: {
      const index_t k = redist::test::random_block(n, ctx.rng);
      const redist::AnyDist d = ctx.coin(2) ? redist::AnyDist(Cyclic<>{static_cast<std::size_t>(k)}) : redist::AnyDist(redist::Block{});
      ctx.describe(head.str() + ": DistArray<double, AnyDist>(" + (d == redist::AnyDist(redist::Block{}) ? std::string("Block") : "Cyclic(" + std::to_string(k) + ")") +
                   ") -> Cyclic<3> and back");
      DistArray<double, redist::AnyDist> a(ctx.world, n, d);
      DistArray<double, Cyclic<3>> b(ctx.world, n);
      run_pair(ctx, a, b, "b = a", [](auto& x, auto& y) { y = x; });
      run_pair(ctx, b, a, "a = b", [](auto& x, auto& y) { y = x; });
      break;
    }
    case 5: {
      // Sections: b(o2 : o2 + m s2 : s2) = a(o1 : o1 + m s1 : s1) between Cyclic<3> and Cyclic<5>.
      const index_t s1 = 1 + static_cast<index_t>(ctx.rnd(3)), s2 = 1 + static_cast<index_t>(ctx.rnd(3));
      const index_t o1 = static_cast<index_t>(ctx.rnd(4)), o2 = static_cast<index_t>(ctx.rnd(4));
      const index_t m = static_cast<index_t>(ctx.rnd(1500));
      const index_t n1 = o1 + (m == 0 ? 0 : (m - 1) * s1 + 1) + static_cast<index_t>(ctx.rnd(3));
      const index_t n2 = o2 + (m == 0 ? 0 : (m - 1) * s2 + 1) + static_cast<index_t>(ctx.rnd(3));
      const index_t e1 = m == 0 ? 0 : (m - 1) * s1 + 1, e2 = m == 0 ? 0 : (m - 1) * s2 + 1;
      std::ostringstream s;
      s << head.str() << ": section(Cyclic<5>[" << n2 << "], strided_slice{" << o2 << ", " << e2 << ", " << s2
        << "}) = section(Cyclic<3>[" << n1 << "], strided_slice{" << o1 << ", " << e1 << ", " << s1 << "})";
      ctx.describe(s.str());
      DistArray<double, Cyclic<3>> a(ctx.world, n1);
      DistArray<double, Cyclic<5>> b(ctx.world, n2);
      const std::uint32_t sa = ctx.salt(), sb = ctx.salt();
      fill1(a, sa);
      fill1(b, sb);
      const bool update = ctx.coin(3);
      if (update) {
        ctx.describe("  as section(b) = 2.0 * section(a) + 1.0 * section(b)");
        redist::section(b, redist::strided_slice{o2, e2, s2}) =
            2.0 * redist::section(a, redist::strided_slice{o1, e1, s1}) + 1.0 * redist::section(b, redist::strided_slice{o2, e2, s2});
      } else {
        redist::section(b, redist::strided_slice{o2, e2, s2}) = redist::section(a, redist::strided_slice{o1, e1, s1});
      }
      ++ctx.redistributions;
      ctx.check(holds1(ctx, b,
                       [&](index_t g) {
                         const index_t x = g - o2;
                         if (x < 0 || x % s2 != 0 || x / s2 >= m) return value(g, sb);
                         const double v = value(o1 + (x / s2) * s1, sa);
                         return update ? 2.0 * v + value(g, sb) : v;
                       }),
                "typed: sections");
      break;
    }
    case 6: {
      // An update and a fused list: b5 = 2 a3 + b5; assign(b5 <<= a3, g2 <<= g1).
      ctx.describe(head.str() + ": b5 = 2.0 * a3 + 1.0 * b5, then assign(b5 <<= a3, g2 <<= g1) (GenBlock)");
      const redist::options o = ctx.random_options();
      ctx.describe("  default " + Ctx::describe(o));
      DistArray<double, Cyclic<3>> a3(ctx.world, n);
      DistArray<double, Cyclic<5>> b5(ctx.world, n);
      auto pa = redist::test::random_parts(n, p, ctx.rng), pb = redist::test::random_parts(n, p, ctx.rng);
      ctx.describe("  g1 GenBlock" + list(pa) + ", g2 GenBlock" + list(pb));
      DistArray<double, redist::GenBlock> g1(ctx.world, n, redist::GenBlock(pa)), g2(ctx.world, n, redist::GenBlock(pb));
      ScopedDefaults call(o);
      const std::uint32_t sa = ctx.salt(), sb = ctx.salt(), sg = ctx.salt(), sh = ctx.salt();
      fill1(a3, sa);
      fill1(b5, sb);
      b5 = 2.0 * a3 + 1.0 * b5;
      ++ctx.redistributions;
      ctx.check(holds1(ctx, b5, [&](index_t g) { return 2.0 * value(g, sa) + value(g, sb); }), "typed: update");
      fill1(b5, sb);
      fill1(g1, sg);
      fill1(g2, sh);
      redist::assign(b5 <<= a3, g2 <<= g1);
      ctx.redistributions += 2;
      bool ok = holds1(ctx, b5, [&](index_t g) { return value(g, sa); });
      ok = ok && holds1(ctx, g2, [&](index_t g) { return value(g, sg); });
      ctx.check(ok, "typed: fused");
      break;
    }
    case 7: {
      if (p != 4) {
        // A static process count needs P = 4; elsewhere, the dynamic pair.
        ctx.describe(head.str() + ": Cyclic<8> -> Cyclic<5> (dynamic process count)");
        DistArray<double, Cyclic<8>> a(ctx.world, n);
        DistArray<double, Cyclic<5>> b(ctx.world, n);
        cyclic_policies(ctx, a, b);
        break;
      }
      ctx.describe(head.str() + ": Cyclic<8> on Grid<4> -> Cyclic<5> on Grid<4> (static tables)");
      DistArray<double, Cyclic<8>, redist::Grid<4>> a(ctx.world, n);
      DistArray<double, Cyclic<5>, redist::Grid<4>> b(ctx.world, n);
      cyclic_policies(ctx, a, b);
      break;
    }
    default: {
      // A plan held by the caller, run twice.
      const index_t k = redist::test::random_block(n, ctx.rng);
      ctx.describe(head.str() + ": make_plan(Cyclic(" + std::to_string(k) + "), Block), executed twice");
      DistArray<double, Cyclic<>> a(ctx.world, n, Cyclic<>{static_cast<std::size_t>(k)});
      DistArray<double, redist::Block> b(ctx.world, n);
      auto plan = redist::make_plan(a, b);
      run_pair(ctx, a, b, "plan.execute(a, b)", [&](auto& x, auto& y) { plan.execute(x, y); });
      run_pair(ctx, a, b, "plan.execute(a, b) again", [&](auto& x, auto& y) { plan.execute(x, y); });
      break;
    }
  }
}

}  // namespace soak
