// libFuzzer harness: bytes -> two random 1-D layouts, n and P; all P plans built and the exchange simulated against the oracle.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <redist/plan/plan.hpp>

#include "../support/oracle.hpp"
#include "bytes.hpp"
#include "../support/simulator.hpp"

namespace {
using redist::test::Bytes;

redist::GenBlock gen_block(Bytes& in, redist::index_t n, int nprocs) {
  std::vector<redist::index_t> sizes(static_cast<std::size_t>(nprocs), 0);
  redist::index_t left = n;
  for (int p = 0; p + 1 < nprocs; ++p) {
    const auto take = static_cast<redist::index_t>(in.next(2) % static_cast<std::uint64_t>(left + 1));
    sizes[p] = in.next(1) % 4 == 0 ? 0 : take;  // empty parts, often
    left -= sizes[p];
  }
  sizes.back() = left;
  return redist::GenBlock(sizes);
}

/// Calls f with a layout of the kind the next byte names: Block, Cyclic<1>, Cyclic<3>, Cyclic<k>, GenBlock.
template <class F>
void with_layout(Bytes& in, redist::index_t n, int nprocs, F&& f) {
  using namespace redist;
  switch (in.next(1) % 5) {
    case 0: return f(Block{});
    case 1: return f(Cyclic<1>{});
    case 2: return f(Cyclic<3>{});
    case 3: return f(Cyclic<>(1 + static_cast<index_t>(in.next(2) % static_cast<std::uint64_t>(2 * n + 3))));
    default: return f(gen_block(in, n, nprocs));
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Bytes in(data, size);
  const int nprocs = 1 + static_cast<int>(in.next(1) % 48);
  const auto n = static_cast<redist::index_t>(in.next(2) % 3000);
  with_layout(in, n, nprocs, [&](const auto& from) {
    with_layout(in, n, nprocs, [&](const auto& to) {
      using From = std::decay_t<decltype(from)>;
      using To = std::decay_t<decltype(to)>;
      const typename From::mapping mf(from, n, nprocs);
      const typename To::mapping mt(to, n, nprocs);
      const auto res = redist::test::simulate(mf, mt, redist::test::oracle(from, n, nprocs),
                                              redist::test::oracle(to, n, nprocs));
      if (!res.ok) {
        std::fprintf(stderr, "redist fuzz: n = %lld, P = %d: %s\n", static_cast<long long>(n), nprocs,
                     res.failure.c_str());
        std::abort();
      }
    });
  });
  return 0;
}
