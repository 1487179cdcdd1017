// libFuzzer harness: bytes -> two random N-D layouts (rank 2 to 5, subsets of the ranks, grid offsets, orders, leading dimensions, replicated or partial dimensions); all P plans built and the exchange simulated against the N-D oracle (out of partial values: every holder's value added, simulate_fold).
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <tuple>
#include <utility>
#include <vector>

#include <redist/dist/cyclic.hpp>
#include <redist/dist/dist.hpp>
#include <redist/dist/gen_block.hpp>
#include <redist/dist/partial.hpp>
#include <redist/dist/replicated.hpp>
#include <redist/plan/plan.hpp>

#include "../support/oracle_nd.hpp"
#include "../support/simulator.hpp"
#include "bytes.hpp"

namespace {
using redist::index_t;

using redist::test::Bytes;

/// A 1-D distribution of one dimension on p grid processes. Cyclic<> covers BLOCK (k = ⌈n/p⌉),
/// CYCLIC (k = 1), CYCLIC(k) and, on one process, Collapsed; GenBlock the irregular parts.
redist::Cyclic<> cyclic(Bytes& in, index_t n, int p) {
  switch (in.next(1) % 3) {
    case 0: return redist::Cyclic<>(std::max<index_t>(1, (n + p - 1) / p));
    case 1: return redist::Cyclic<>(1);
    default: return redist::Cyclic<>(1 + static_cast<index_t>(in.below(static_cast<std::uint64_t>(n + 2))));
  }
}
redist::GenBlock gen_block(Bytes& in, index_t n, int p) {
  std::vector<index_t> sizes(static_cast<std::size_t>(p), 0);
  index_t left = n;
  for (int q = 0; q + 1 < p; ++q) {
    const auto take = static_cast<index_t>(in.below(static_cast<std::uint64_t>(left + 1)));
    sizes[static_cast<std::size_t>(q)] = in.next(1) % 4 == 0 ? 0 : take;  // empty parts, often
    left -= sizes[static_cast<std::size_t>(q)];
  }
  sizes.back() = left;
  return redist::GenBlock(sizes);
}
template <class D>
D make(Bytes& in, index_t n, int p) {
  if constexpr (std::is_same_v<D, redist::GenBlock>) return gen_block(in, n, p);
  else if constexpr (std::is_same_v<D, redist::Replicated> || std::is_same_v<D, redist::Partial<>>) return D{};
  else return cyclic(in, n, p);
}

/// The oracle of one dimension: a source's Partial dimension is held whole by every process of
/// it (Replicated's oracle: every holder sends), a destination's only by its process 0.
template <bool Source, class D>
redist::test::Layout oracle_of(const D& d, index_t n, int p) {
  if constexpr (Source && std::is_same_v<D, redist::Partial<>>) return redist::test::oracle(redist::Replicated{}, n, p);
  else return redist::test::oracle(d, n, p);
}

template <std::size_t N>
struct Case {
  redist::test::GridSpec<N> spec;
  redist::test::Layout layout;
};

/// A layout of Dist<D...> on a random grid of at most nprocs ranks, bound, with its oracle (as a
/// source or a destination).
template <bool Source, class... D, std::size_t... I>
auto make_case(Bytes& in, const std::array<index_t, sizeof...(D)>& ext, int nprocs, std::index_sequence<I...>) {
  constexpr std::size_t N = sizeof...(D);
  redist::test::GridSpec<N> s;
  s.extents = ext;
  s.nprocs = nprocs;
  int budget = nprocs;
  for (std::size_t d = 0; d < N; ++d) {
    s.grid[d] = 1 + static_cast<int>(in.next(1) % static_cast<unsigned>(std::min(budget, 6)));
    budget = std::max(1, budget / s.grid[d]);
  }
  int size = 1;
  for (int e : s.grid) size *= e;
  if (size > nprocs) s.grid.fill(1), size = 1;
  s.first = static_cast<int>(in.next(1) % static_cast<unsigned>(nprocs - size + 1));
  s.grid_order = in.next(1) % 2 ? redist::Order::row_major : redist::Order::column_major;
  s.storage = in.next(1) % 3 == 0 ? redist::Order::row_major : redist::Order::column_major;
  for (std::size_t d = 0; d < N; ++d) s.offsets[d] = static_cast<int>(in.next(1) % static_cast<unsigned>(s.grid[d]));
  const redist::Dist<D...> dist{make<D>(in, ext[I], s.grid[I])...};
  if (in.next(1) % 2) s.ld = ext[s.storage == redist::Order::column_major ? 0 : N - 1] + static_cast<index_t>(in.next(1) % 3);
  redist::DynamicGrid<N> g = std::apply([](auto... e) { return redist::DynamicGrid<N>(e...); }, s.grid);
  g = g.with_order(s.grid_order).with_first(s.first);
  // One case in four places the grid by a rank map: a shuffle of the communicator's ranks.
  if (nprocs > 1 && in.next(1) % 4 == 0) {
    std::vector<int> all(static_cast<std::size_t>(nprocs));
    std::iota(all.begin(), all.end(), 0);
    for (std::size_t k = all.size(); k-- > 1;) std::swap(all[k], all[in.next(1) % (k + 1)]);
    s.ranks.assign(all.begin(), all.begin() + size);
    g = g.with_ranks(s.ranks);
  }
  typename redist::Dist<D...>::mapping m(dist, ext, g, s.offsets, redist::Storage{s.storage, s.ld}, nprocs);
  const std::array<redist::test::Layout, N> dims{oracle_of<Source>(dist.template get<I>(), ext[I], s.grid[I])...};
  return std::pair{m, Case<N>{s, redist::test::oracle_nd(s, dims)}};
}

/// Dist of N dimensions: all Cyclic<> (pattern 0), GenBlock and Cyclic<> alternating (pattern 1),
/// Cyclic<> and Replicated alternating (pattern 2: copies along every other grid dimension), or
/// Cyclic<> and Partial<> alternating (pattern 3: partial values along every other one).
template <int Pattern, std::size_t I>
using dim_type = std::conditional_t<
    Pattern == 1 && I % 2 == 0, redist::GenBlock,
    std::conditional_t<Pattern == 2 && I % 2 == 1, redist::Replicated,
                       std::conditional_t<Pattern == 3 && I % 2 == 1, redist::Partial<>, redist::Cyclic<>>>>;
template <std::size_t N, int Pattern, std::size_t... I>
auto dist_type(std::index_sequence<I...>) -> redist::Dist<dim_type<Pattern, I>...>;

template <std::size_t N, int Pattern>
struct pattern {
  using type = decltype(dist_type<N, Pattern>(std::make_index_sequence<N>{}));
};

template <class DistT>
struct bind_dist;
template <class... D>
struct bind_dist<redist::Dist<D...>> {
  template <bool Source>
  static auto run(Bytes& in, const std::array<index_t, sizeof...(D)>& ext, int nprocs) {
    return make_case<Source, D...>(in, ext, nprocs, std::index_sequence_for<D...>{});
  }
};

template <std::size_t N>
void fuzz_rank(Bytes& in, int nprocs, int pattern_from, int pattern_to) {
  std::array<index_t, N> ext{};
  for (auto& e : ext) e = static_cast<index_t>(in.next(1) % (N <= 3 ? 24 : 6));
  auto run = [&]<int A, int B>() {
    auto [mf, cf] = bind_dist<typename pattern<N, A>::type>::template run<true>(in, ext, nprocs);
    auto [mt, ct] = bind_dist<typename pattern<N, B>::type>::template run<false>(in, ext, nprocs);
    const auto res =
        A == 3 ? redist::test::simulate_fold(redist::test::all_rank_plans(mf, mt, redist::test::BuildGridPlan{}), cf.layout, ct.layout)
               : redist::test::simulate(mf, mt, cf.layout, ct.layout, {}, redist::test::BuildGridPlan{});
    if (!res.ok) {
      std::fprintf(stderr, "redist fuzz nd: rank %zu, P = %d: %s\n", N, nprocs, res.failure.c_str());
      std::abort();
    }
  };
  auto to = [&]<int A>() {
    if (pattern_to == 0) run.template operator()<A, 0>();
    else if (pattern_to == 1) run.template operator()<A, 1>();
    else if (pattern_to == 2) run.template operator()<A, 2>();
    else run.template operator()<A, 3>();
  };
  if (pattern_from == 0) to.template operator()<0>();
  else if (pattern_from == 1) to.template operator()<1>();
  else if (pattern_from == 2) to.template operator()<2>();
  else to.template operator()<3>();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Bytes in(data, size);
  const int rank = 2 + static_cast<int>(in.next(1) % 4);
  const int nprocs = 1 + static_cast<int>(in.next(1) % 24);
  // Pattern 2 or 3 (copies or partial values) by the same byte's next bit: the inputs of the corpus
  // made before partial values keep their other choices.
  auto pattern_of = [](std::uint64_t b) { return b % 3 == 2 ? 2 + static_cast<int>((b / 3) % 2) : static_cast<int>(b % 3); };
  const int pf = pattern_of(in.next(1)), pt = pattern_of(in.next(1));
  try {
    switch (rank) {
      case 2: fuzz_rank<2>(in, nprocs, pf, pt); break;
      case 3: fuzz_rank<3>(in, nprocs, pf, pt); break;
      case 4: fuzz_rank<4>(in, nprocs, pf, pt); break;
      default: fuzz_rank<5>(in, nprocs, pf, pt); break;
    }
  } catch (const redist::error& e) {
    // Only layouts the library must refuse may throw (none are generated): report the rest.
    std::fprintf(stderr, "redist fuzz nd: unexpected redist::error: %s\n", e.what());
    std::abort();
  }
  return 0;
}
