/// @file Defines the soak's N-D cases of rank R: random Dist<AnyDist x R> layouts on random grids (subsets, rank maps, offsets, orders, padded storage), as arrays, views over a std::vector or a SharedBuffer, and sections, under every general schedule, with updates, transposes and fused lists; and the pool of persistent destinations.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>
#include <numeric>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <redist/redist.hpp>

#include "../support/array_values_nd.hpp"
#include "../support/random_dists.hpp"
#include "soak.hpp"

namespace soak {

using redist::AnyDist;
using redist::Storage;

template <std::size_t R, class Seq = std::make_index_sequence<R>>
struct nd_dist;
template <std::size_t R, std::size_t... I>
struct nd_dist<R, std::index_sequence<I...>> {
  template <std::size_t>
  using any = AnyDist;
  using type = redist::Dist<any<I>...>;
};
/// Dist<AnyDist, ..., AnyDist> of rank R: any layout per dimension, chosen at run time.
template <std::size_t R>
using NdDist = typename nd_dist<R>::type;
template <std::size_t R>
using Ext = std::array<index_t, R>;

/// The general schedules an N-D pair of AnyDist layouts (or sections of them) can take.
enum class Policy { automatic, all_at_once, caterpillar, relative_group, count };
inline const char* name(Policy p) {
  switch (p) {
    case Policy::automatic: return "automatic";
    case Policy::all_at_once: return "all_at_once";
    case Policy::caterpillar: return "caterpillar";
    case Policy::relative_group: return "relative_group";
    default: return "?";
  }
}
template <class F>
void with_policy(Policy p, F&& f) {
  switch (p) {
    case Policy::automatic: f(redist::schedule::automatic); break;
    case Policy::all_at_once: f(redist::schedule::all_at_once); break;
    case Policy::caterpillar: f(redist::schedule::caterpillar); break;
    default: f(redist::schedule::relative_group); break;
  }
}

template <class T, std::size_t N>
std::string list(const std::array<T, N>& a) {
  std::ostringstream s;
  s << '[';
  for (std::size_t d = 0; d < N; ++d) s << (d ? "," : "") << a[d];
  return s.str() + ']';
}
inline std::string list(const std::vector<index_t>& v) {
  std::ostringstream s;
  s << '{';
  for (std::size_t d = 0; d < v.size(); ++d) s << (d ? "," : "") << v[d];
  return s.str() + '}';
}

/// A random layout of rank R: distribution per dimension, grid and its placement, storage.
template <std::size_t R>
struct LayoutSpec {
  Ext<R> ext{};
  std::array<AnyDist, R> dims{};
  std::array<std::string, R> names{};
  std::array<int, R> grid{};
  redist::Order order = redist::row_major;
  int first = 0;
  std::vector<int> ranks;  ///< a rank map (with_ranks), or empty for with_first(first)
  std::array<int, R> offsets{};
  Storage storage{};

  NdDist<R> dist() const {
    return std::apply([](const auto&... d) { return NdDist<R>(d...); }, dims);
  }
  redist::DynamicGrid<R> grid_object() const {
    auto g = std::apply([](auto... e) { return redist::DynamicGrid<R>(e...); }, grid);
    g = g.with_order(order);
    return ranks.empty() ? g.with_first(first) : g.with_ranks(ranks);
  }
  std::string text() const {
    std::ostringstream s;
    s << "extents " << list(ext) << " dist (";
    for (std::size_t d = 0; d < R; ++d) s << (d ? ", " : "") << names[d];
    s << ") grid " << list(grid) << (order == redist::row_major ? " row-major" : " column-major");
    if (ranks.empty()) s << " with_first(" << first << ")";
    else s << " with_ranks(" << list(std::vector<index_t>(ranks.begin(), ranks.end())) << ")";
    s << " offsets " << list(offsets) << " storage " << (storage.order == redist::row_major ? "row" : "col")
      << "-major ld " << storage.ld;
    return s.str();
  }
};

/// Random extents of rank R, including 0 and 1, of at most about 4000 elements.
template <std::size_t R>
Ext<R> random_extents(Ctx& ctx) {
  static constexpr index_t top[] = {0, 4000, 63, 16, 8, 5};
  Ext<R> e{};
  for (auto& x : e) {
    const auto k = ctx.rnd(16);
    x = k == 0 ? 0 : k == 1 ? 1 : 1 + static_cast<index_t>(ctx.rnd(static_cast<std::uint64_t>(top[R])));
  }
  return e;
}

/// A random layout of extents e on the communicator's P ranks.
template <std::size_t R>
LayoutSpec<R> random_layout(Ctx& ctx, const Ext<R>& e) {
  const int p = ctx.nprocs();
  LayoutSpec<R> s;
  s.ext = e;
  // Grid extents whose product is at most P: dimensions visited in random order, some kept at 1.
  std::array<std::size_t, R> visit{};
  std::iota(visit.begin(), visit.end(), std::size_t{0});
  std::shuffle(visit.begin(), visit.end(), ctx.rng);
  int budget = ctx.coin(4) ? 1 : 1 + static_cast<int>(ctx.rnd(static_cast<std::uint64_t>(p)));
  for (std::size_t d : visit) {
    s.grid[d] = ctx.coin(3) ? 1 : 1 + static_cast<int>(ctx.rnd(static_cast<std::uint64_t>(std::min(budget, 4))));
    budget = std::max(1, budget / s.grid[d]);
  }
  int size = 1;
  for (int g : s.grid) size *= g;
  s.order = ctx.coin(2) ? redist::row_major : redist::column_major;
  if (p > 1 && ctx.coin(3)) {
    std::vector<int> all(static_cast<std::size_t>(p));
    std::iota(all.begin(), all.end(), 0);
    std::shuffle(all.begin(), all.end(), ctx.rng);
    s.ranks.assign(all.begin(), all.begin() + size);
  } else {
    s.first = static_cast<int>(ctx.rnd(static_cast<std::uint64_t>(p - size + 1)));
  }
  for (std::size_t d = 0; d < R; ++d) {
    s.offsets[d] = static_cast<int>(ctx.rnd(static_cast<std::uint64_t>(s.grid[d])));
    const auto kind = ctx.rnd(s.grid[d] == 1 ? 4 : 3);
    if (kind == 0) {
      s.dims[d] = redist::Block{};
      s.names[d] = "Block";
    } else if (kind == 1) {
      const index_t k = redist::test::random_block(e[d], ctx.rng);
      s.dims[d] = redist::Cyclic<>{static_cast<std::size_t>(k)};
      s.names[d] = "Cyclic(" + std::to_string(k) + ")";
    } else if (kind == 2) {
      auto parts = redist::test::random_parts(e[d], s.grid[d], ctx.rng);
      if (s.grid[d] > 1 && ctx.coin(2)) {  // one more empty part
        const std::size_t z = ctx.rnd(parts.size()), to = (z + 1) % parts.size();
        parts[to] += parts[z];
        parts[z] = 0;
      }
      s.names[d] = "GenBlock" + list(parts);
      s.dims[d] = redist::GenBlock(std::move(parts));
    } else {
      s.dims[d] = redist::Collapsed{};
      s.names[d] = "*";
    }
  }
  s.storage.order = ctx.coin(3) ? redist::row_major : redist::column_major;
  if (ctx.coin(2)) {
    const std::size_t fast = s.storage.order == redist::column_major ? 0 : R - 1;
    s.storage.ld = e[fast] + static_cast<index_t>(ctx.rnd(3));
  }
  return s;
}

/// Where a distributed array of rank R lives: a DistArray, or a DistView over a std::vector or
/// over a SharedBuffer.
enum class Home { array, vector_view, shared_view };
inline const char* name(Home h) {
  return h == Home::array ? "DistArray" : h == Home::vector_view ? "DistView(std::vector)" : "DistView(SharedBuffer)";
}

template <std::size_t R>
struct Holder {
  using Array = redist::DistArray<double, NdDist<R>>;
  using View = redist::DistView<double, NdDist<R>>;
  LayoutSpec<R> spec;
  Home home = Home::array;
  std::unique_ptr<Array> array;
  std::vector<double> memory;
  std::unique_ptr<redist::SharedBuffer<double>> shared;
  std::unique_ptr<View> view;

  Holder(Ctx& ctx, LayoutSpec<R> s, Home h) : spec{std::move(s)}, home{h} {
    const auto dist = spec.dist();
    const auto grid = spec.grid_object();
    if (home == Home::array) {
      array = std::make_unique<Array>(ctx.world, spec.ext, dist, grid, spec.offsets, spec.storage);
      return;
    }
    const auto need = static_cast<std::size_t>(View::required_span_size(ctx.world, spec.ext, dist, grid, spec.offsets, spec.storage));
    std::span<double> mem;
    if (home == Home::vector_view) {
      memory.assign(need + ctx.rnd(3), -1.0);  // slack after the elements, which the view must not write
      mem = memory;
    } else {
      shared = std::make_unique<redist::SharedBuffer<double>>(ctx.world, need);
      mem = shared->span();
    }
    view = std::make_unique<View>(mem, ctx.world, spec.ext, dist, grid, spec.offsets, spec.storage);
  }
  template <class F>
  decltype(auto) visit(F&& f) {
    if (array) return f(*array);
    return f(*view);
  }
  /// Every element := value(linear global index, salt).
  void fill(std::uint32_t salt) {
    visit([&](auto& a) { redist::test::fill_nd(a, [&](const Ext<R>& g) { return value(linear(g, spec.ext), salt); }); });
  }
  /// Whether every local element equals want(global index); records the first that does not.
  template <class W>
  bool holds(Ctx& ctx, const char* what, W&& want) {
    bool ok = true;
    visit([&](auto& a) {
      auto loc = a.local();
      redist::test::for_each_local_index(a, [&](const auto& l) {
        if (!ok) return;
        const Ext<R> g = a.global_index(l);
        const double w = want(g);
        const double got = loc[static_cast<std::size_t>(a.local_offset(l))];
        if (got != w) {
          ok = false;
          ctx.wrong(std::string(what) + " element " + list(g), got, w);
        }
      });
    });
    // The slack of a view over a std::vector is not written.
    if (ok && home == Home::vector_view) {
      const std::size_t need = static_cast<std::size_t>(view->local().size());
      for (std::size_t i = need; i < memory.size(); ++i)
        if (memory[i] != -1.0) {
          ok = false;
          ctx.wrong(std::string(what) + " slack after the view's elements, offset " + std::to_string(i), memory[i], -1.0);
          break;
        }
    }
    return ok;
  }
  std::string text() const { return std::string(name(home)) + " " + spec.text(); }
};

/// A strided section of each dimension: offset, count and stride, over a base of extents `base`.
template <std::size_t R>
struct Sect {
  Ext<R> offset{}, count{}, stride{};
  template <class A>
  auto of(A& a) const {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return redist::section(a, redist::strided_slice{offset[I], count[I] == 0 ? index_t{0} : (count[I] - 1) * stride[I] + 1,
                                                      stride[I]}...);
    }(std::make_index_sequence<R>{});
  }
  /// The base index of section index i.
  Ext<R> base(const Ext<R>& i) const {
    Ext<R> g{};
    for (std::size_t d = 0; d < R; ++d) g[d] = offset[d] + i[d] * stride[d];
    return g;
  }
  /// The section index of base index g, when g is in the section.
  std::optional<Ext<R>> inside(const Ext<R>& g) const {
    Ext<R> i{};
    for (std::size_t d = 0; d < R; ++d) {
      const index_t x = g[d] - offset[d];
      if (x < 0 || x % stride[d] != 0 || x / stride[d] >= count[d]) return std::nullopt;
      i[d] = x / stride[d];
    }
    return i;
  }
  std::string text() const {
    std::ostringstream s;
    s << "section(";
    for (std::size_t d = 0; d < R; ++d)
      s << (d ? ", " : "") << "strided_slice{" << offset[d] << ", " << (count[d] == 0 ? 0 : (count[d] - 1) * stride[d] + 1)
        << ", " << stride[d] << "}";
    return s.str() + ")";
  }
};

/// A random section selecting extents e, and the extents of its base (kept near 16000 elements).
template <std::size_t R>
std::pair<Sect<R>, Ext<R>> random_section(Ctx& ctx, const Ext<R>& e) {
  Sect<R> s;
  Ext<R> base{};
  const bool unit = [&] {
    index_t n = 1;
    for (index_t x : e) n *= 3 * x + 6;
    return n > 16000;
  }();
  for (std::size_t d = 0; d < R; ++d) {
    s.count[d] = e[d];
    s.stride[d] = unit ? 1 : 1 + static_cast<index_t>(ctx.rnd(3));
    s.offset[d] = static_cast<index_t>(ctx.rnd(3));
    base[d] = s.offset[d] + (e[d] == 0 ? 0 : (e[d] - 1) * s.stride[d] + 1) + static_cast<index_t>(ctx.rnd(3));
  }
  return {s, base};
}

/// The source of a case: a whole array (any home), a strided section of one, or (rank R < 5) a
/// rank-reducing section of an array of rank R + 1 (an index in its first dimension).
template <std::size_t R>
struct Source {
  enum class Kind { whole, section, reduced } kind = Kind::whole;
  std::unique_ptr<Holder<R>> holder;  // whole, section
  Sect<R> sect;
  static constexpr std::size_t RB = R < 5 ? R + 1 : R;
  std::unique_ptr<Holder<RB>> big;  // reduced
  index_t fixed = 0;
  Sect<RB> big_sect;  // dimension 0 unused (the index)
  std::uint32_t salt = 0;
  Ext<R> ext{};

  Source(Ctx& ctx, const Ext<R>& e) : ext{e} {
    salt = ctx.salt();
    const auto k = ctx.rnd(R < 5 ? 6 : 5);
    const Home home = static_cast<Home>(ctx.rnd(3));
    if (k < 3) {
      holder = std::make_unique<Holder<R>>(ctx, random_layout<R>(ctx, e), home);
      holder->fill(salt);
      ctx.describe("  source: " + holder->text());
    } else if (k < 5) {
      kind = Kind::section;
      auto [s, base] = random_section<R>(ctx, e);
      sect = s;
      holder = std::make_unique<Holder<R>>(ctx, random_layout<R>(ctx, base), home);
      holder->fill(salt);
      ctx.describe("  source: " + sect.text() + " of " + holder->text());
    } else if constexpr (R < 5) {
      kind = Kind::reduced;
      auto [s, base] = random_section<R>(ctx, e);
      Ext<RB> bext{};
      bext[0] = 1 + static_cast<index_t>(ctx.rnd(3));
      fixed = static_cast<index_t>(ctx.rnd(static_cast<std::uint64_t>(bext[0])));
      for (std::size_t d = 0; d < R; ++d) {
        bext[d + 1] = base[d];
        big_sect.offset[d + 1] = s.offset[d];
        big_sect.count[d + 1] = s.count[d];
        big_sect.stride[d + 1] = s.stride[d];
      }
      big = std::make_unique<Holder<RB>>(ctx, random_layout<RB>(ctx, bext), home);
      big->fill(salt);
      ctx.describe("  source: section(index " + std::to_string(fixed) + " in dimension 0, " + big_sect.text() + ") of " +
                   big->text());
    }
  }
  /// The value the source holds at index i (of its own index space).
  double at(const Ext<R>& i) const {
    if (kind == Kind::whole) return value(linear(i, holder->spec.ext), salt);
    if (kind == Kind::section) return value(linear(sect.base(i), holder->spec.ext), salt);
    if constexpr (R < 5) {
      Ext<RB> g{};
      g[0] = fixed;
      for (std::size_t d = 0; d < R; ++d) g[d + 1] = big_sect.offset[d + 1] + i[d] * big_sect.stride[d + 1];
      return value(linear(g, big->spec.ext), salt);
    }
    return 0.0;
  }
  /// Calls f with the source as a distributed array (the array, the view, or a section of either).
  template <class F>
  void with(F&& f) {
    if (kind == Kind::whole) {
      holder->visit([&](auto& a) { f(a); });
    } else if (kind == Kind::section) {
      holder->visit([&](auto& a) {
        auto s = sect.of(a);
        f(s);
      });
    } else if constexpr (R < 5) {
      big->visit([&](auto& a) {
        auto s = [&]<std::size_t... I>(std::index_sequence<I...>) {
          return redist::section(
              a, fixed,
              redist::strided_slice{big_sect.offset[I + 1],
                                    big_sect.count[I + 1] == 0 ? index_t{0} : (big_sect.count[I + 1] - 1) * big_sect.stride[I + 1] + 1,
                                    big_sect.stride[I + 1]}...);
        }(std::make_index_sequence<R>{});
        f(s);
      });
    }
  }
  /// Whether the source still holds its values (a redistribution does not write its source).
  bool intact(Ctx& ctx) {
    if (kind == Kind::reduced) {
      if constexpr (R < 5) return big->holds(ctx, "source", [&](const Ext<RB>& g) { return value(linear(g, big->spec.ext), salt); });
      return true;
    }
    return holder->holds(ctx, "source", [&](const Ext<R>& g) { return value(linear(g, holder->spec.ext), salt); });
  }
};

/// The destination of a case: a whole array (any home) or a strided section of one.
template <std::size_t R>
struct Destination {
  std::unique_ptr<Holder<R>> holder;
  std::optional<Sect<R>> sect;
  std::uint32_t old_salt = 0;

  Destination(Ctx& ctx, const Ext<R>& e) {
    old_salt = ctx.salt();
    const Home home = static_cast<Home>(ctx.rnd(3));
    if (ctx.coin(4)) {
      auto [s, base] = random_section<R>(ctx, e);
      sect = s;
      holder = std::make_unique<Holder<R>>(ctx, random_layout<R>(ctx, base), home);
      ctx.describe("  destination: " + s.text() + " of " + holder->text());
    } else {
      holder = std::make_unique<Holder<R>>(ctx, random_layout<R>(ctx, e), home);
      ctx.describe("  destination: " + holder->text());
    }
  }
  void reset() { holder->fill(old_salt); }
  double old(const Ext<R>& g) const { return value(linear(g, holder->spec.ext), old_salt); }
  template <class F>
  void with(F&& f) {
    holder->visit([&](auto& a) {
      if (sect) {
        auto s = sect->of(a);
        f(s);
      } else {
        f(a);
      }
    });
  }
  /// Whether every element in the destination (section) equals want(its index there) and every
  /// element outside the section still holds its old value.
  template <class W>
  bool holds(Ctx& ctx, W&& want) {
    return holder->holds(ctx, "destination", [&](const Ext<R>& g) {
      if (!sect) return want(g);
      if (auto i = sect->inside(g)) return want(*i);
      return old(g);
    });
  }
};

enum class Op { policy, assign, update, transpose, transpose_update, count };

/// One random N-D case of rank R: a source and a destination of the same extents (for a
/// transpose, swapped), one to three operations on them, each checked on every element.
template <std::size_t R>
void nd_case(Ctx& ctx) {
  const Ext<R> e = random_extents<R>(ctx);
  const redist::options build = ctx.random_options();
  ctx.describe("nd rank " + std::to_string(R) + ", arrays built with " + Ctx::describe(build));
  ScopedDefaults scoped(build);
  Source<R> src(ctx, e);
  const bool transposed = R == 2 && ctx.coin(5);
  Ext<R> de = e;
  if (transposed) std::reverse(de.begin(), de.end());
  Destination<R> dst(ctx, de);
  const int ops = 1 + static_cast<int>(ctx.rnd(3));
  for (int k = 0; k < ops; ++k) {
    Op op = static_cast<Op>(ctx.rnd(3));
    if (transposed) op = ctx.coin(3) ? Op::transpose_update : Op::transpose;
    else if (ctx.coin(6)) op = Op::update;
    const Policy policy = static_cast<Policy>(ctx.rnd(static_cast<std::uint64_t>(Policy::count)));
    const redist::options opts = ctx.random_options();
    dst.reset();
    std::ostringstream s;
    s << "  op " << k << ": ";
    switch (op) {
      case Op::policy: s << "redistribute(src, dst, " << name(policy) << ", " << Ctx::describe(opts) << ")"; break;
      case Op::assign: s << "dst = src, default " << Ctx::describe(opts); break;
      case Op::update: s << "dst = 2.0 * src + 1.0 * dst, default " << Ctx::describe(opts); break;
      case Op::transpose: s << "redistribute(transpose(src), dst, " << name(policy) << ", " << Ctx::describe(opts) << ")"; break;
      default: s << "dst = 2.0 * transpose(src) + 1.0 * dst, default " << Ctx::describe(opts); break;
    }
    ctx.describe(s.str());
    src.with([&](auto& a) {
      dst.with([&](auto& b) {
        switch (op) {
          case Op::policy:
            with_policy(policy, [&](auto p) { redist::redistribute(a, b, p, opts); });
            break;
          case Op::assign: {
            ScopedDefaults call(opts);
            b = a;
            break;
          }
          case Op::update: {
            ScopedDefaults call(opts);
            b = 2.0 * a + 1.0 * b;
            break;
          }
          default:
            if constexpr (R == 2) {
              if (op == Op::transpose) {
                with_policy(policy, [&](auto p) { redist::redistribute(redist::transpose(a), b, p, opts); });
              } else {
                ScopedDefaults call(opts);
                b = 2.0 * redist::transpose(a) + 1.0 * b;
              }
            }
            break;
        }
      });
    });
    ++ctx.redistributions;
    const bool scaled = op == Op::update || op == Op::transpose_update;
    bool ok = dst.holds(ctx, [&](const Ext<R>& i) {
      Ext<R> j = i;
      if (transposed) std::reverse(j.begin(), j.end());
      const double v = src.at(j);
      if (!scaled) return v;
      Ext<R> g = dst.sect ? dst.sect->base(i) : i;
      return 2.0 * v + dst.old(g);
    });
    ok = ok && src.intact(ctx);
    ctx.check(ok, "nd rank " + std::to_string(R) + " op " + std::to_string(k));
  }
  // Now and then a fused list: two more pairs of the same extents, one with an update, as one
  // exchange (assign, or start and wait).
  if (!transposed && ctx.coin(4)) {
    const bool started = ctx.coin(2);
    const redist::options opts = ctx.random_options();
    ctx.describe(std::string("  fused: ") + (started ? "start(...).wait()" : "assign(...)") +
                 " of (dst <<= src, dst2 <<= 2.0 * src2 + 1.0 * dst2), default " + Ctx::describe(opts));
    using Array = typename Holder<R>::Array;
    Holder<R> src2(ctx, random_layout<R>(ctx, e), Home::array);
    Holder<R> dst2(ctx, random_layout<R>(ctx, e), static_cast<Home>(ctx.rnd(3)));
    ctx.describe("  src2: " + src2.text() + "\n  dst2: " + dst2.text());
    const std::uint32_t s2 = ctx.salt(), d2 = ctx.salt();
    src2.fill(s2);
    dst2.fill(d2);
    dst.reset();
    ScopedDefaults call(opts);
    src.with([&](auto& a) {
      dst.with([&](auto& b) {
        dst2.visit([&](auto& b2) {
          Array& a2 = *src2.array;
          if (started) {
            redist::Pending h = redist::start(b <<= a, b2 <<= 2.0 * a2 + 1.0 * b2);
            h.wait();
          } else {
            redist::assign(b <<= a, b2 <<= 2.0 * a2 + 1.0 * b2);
          }
        });
      });
    });
    ctx.redistributions += 2;
    bool ok = dst.holds(ctx, [&](const Ext<R>& i) { return src.at(i); });
    ok = ok && dst2.holds(ctx, "dst2", [&](const Ext<R>& g) {
      return 2.0 * value(linear(g, e), s2) + value(linear(g, e), d2);
    });
    ctx.check(ok, "nd rank " + std::to_string(R) + " fused");
  }
}

/// A persistent pair of the pool: a destination array and the source last assigned into it,
/// with the policy and options of that assignment.
template <std::size_t R>
struct PoolPair : PoolEntry {
  std::unique_ptr<Holder<R>> dst, src;
  Policy policy = Policy::automatic;
  redist::options opts;
  std::size_t rank() const override { return R; }
};

template <std::size_t R>
void pool_new_source(Ctx& ctx, PoolPair<R>& p) {
  p.src = std::make_unique<Holder<R>>(ctx, random_layout<R>(ctx, p.dst->spec.ext), Home::array);
  p.policy = static_cast<Policy>(ctx.rnd(static_cast<std::uint64_t>(Policy::count)));
  p.opts = ctx.random_options();
}

template <std::size_t R>
void pool_run(Ctx& ctx, PoolPair<R>& p) {
  ctx.describe("  pool destination: " + p.dst->text() + "\n  pool source: " + p.src->text() + "\n  policy " +
               name(p.policy) + ", " + Ctx::describe(p.opts));
  const std::uint32_t s = ctx.salt(), old = ctx.salt();
  p.src->fill(s);
  p.dst->fill(old);
  with_policy(p.policy, [&](auto pol) { redist::redistribute(*p.src->array, *p.dst->array, pol, p.opts); });
  ++ctx.redistributions;
  const Ext<R> e = p.dst->spec.ext;
  ctx.check(p.dst->holds(ctx, "pool destination", [&](const Ext<R>& g) { return value(linear(g, e), s); }),
            "pool rank " + std::to_string(R));
}

template <std::size_t R>
void pool_case(Ctx& ctx, std::unique_ptr<PoolEntry>& slot) {
  auto* p = dynamic_cast<PoolPair<R>*>(slot.get());
  const redist::options build = ctx.random_options();
  ScopedDefaults scoped(build);
  if (p == nullptr || ctx.coin(6)) {
    ctx.describe("pool: new entry of rank " + std::to_string(R) + ", built with " + Ctx::describe(build));
    slot.reset();  // the old entry and its plan are freed
    auto fresh = std::make_unique<PoolPair<R>>();
    fresh->dst = std::make_unique<Holder<R>>(ctx, random_layout<R>(ctx, random_extents<R>(ctx)), Home::array);
    pool_new_source(ctx, *fresh);
    p = fresh.get();
    slot = std::move(fresh);
  } else if (ctx.coin(3)) {
    ctx.describe("pool: new source for an entry of rank " + std::to_string(R) + ", built with " + Ctx::describe(build));
    pool_new_source(ctx, *p);
  } else {
    ctx.describe("pool: reuse of an entry of rank " + std::to_string(R));
  }
  pool_run(ctx, *p);
}

template <std::size_t R>
void pool_fused(Ctx& ctx, PoolEntry& x, PoolEntry& y) {
  auto& p = dynamic_cast<PoolPair<R>&>(x);
  auto& q = dynamic_cast<PoolPair<R>&>(y);
  const redist::options opts = ctx.coin(2) ? p.opts : ctx.random_options();
  ctx.describe("pool fused, rank " + std::to_string(R) + ", default " + Ctx::describe(opts) + "\n  1 destination: " +
               p.dst->text() + "\n  1 source: " + p.src->text() + "\n  2 destination: " + q.dst->text() +
               "\n  2 source: " + q.src->text());
  const std::uint32_t s1 = ctx.salt(), s2 = ctx.salt(), o1 = ctx.salt(), o2 = ctx.salt();
  p.src->fill(s1);
  q.src->fill(s2);
  p.dst->fill(o1);
  q.dst->fill(o2);
  ScopedDefaults call(opts);
  redist::assign(*p.dst->array <<= *p.src->array, *q.dst->array <<= 2.0 * *q.src->array + 1.0 * *q.dst->array);
  ctx.redistributions += 2;
  const Ext<R> e1 = p.dst->spec.ext, e2 = q.dst->spec.ext;
  bool ok = p.dst->holds(ctx, "pool destination 1", [&](const Ext<R>& g) { return value(linear(g, e1), s1); });
  ok = ok && q.dst->holds(ctx, "pool destination 2",
                          [&](const Ext<R>& g) { return 2.0 * value(linear(g, e2), s2) + value(linear(g, e2), o2); });
  ctx.check(ok, "pool fused rank " + std::to_string(R));
}

#define SOAK_INSTANTIATE_ND(R)                                                      \
  template void nd_case<R>(Ctx&);                                                   \
  template void pool_case<R>(Ctx&, std::unique_ptr<PoolEntry>&);                    \
  template void pool_fused<R>(Ctx&, PoolEntry&, PoolEntry&);

}  // namespace soak
