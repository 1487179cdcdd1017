// libFuzzer harness: bytes -> P, n, and a pair of 1-D layouts of which one (or both) is an Indirect
// index list (random owners, ghosts, empty ranks, copies or sums); every rank's part of the
// directory's rounds and its plan made in one process, the plans run in memory against the oracle.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include <redist/dist/block.hpp>
#include <redist/dist/cyclic.hpp>
#include <redist/dist/gen_block.hpp>
#include <redist/dist/indirect.hpp>
#include <redist/dist/partial.hpp>
#include <redist/dist/replicated.hpp>

#include "bytes.hpp"
#include "../support/indirect_sim.hpp"

namespace {
using redist::index_t;
using redist::test::Bytes;

/// Index lists over [0, n) on p ranks from the bytes: each index's owner, then per rank a few
/// ghosts, each list in an order the bytes choose (rotated, reversed or as built).
std::vector<std::vector<index_t>> lists_of(Bytes& in, index_t n, int p) {
  std::vector<std::vector<index_t>> lists(static_cast<std::size_t>(p));
  const auto spread = static_cast<index_t>(1 + in.next(1) % 64);  // owners change every `spread` indices
  int owner = 0;
  for (index_t g = 0; g < n; ++g) {
    if (g % spread == 0) owner = static_cast<int>(in.next(1) % static_cast<std::uint64_t>(p));
    lists[static_cast<std::size_t>(owner)].push_back(g);
  }
  for (auto& l : lists) {
    const auto ghosts = in.next(1) % 6;
    std::vector<char> held(static_cast<std::size_t>(n), 0);
    for (index_t g : l) held[static_cast<std::size_t>(g)] = 1;
    for (std::uint64_t k = 0; k < ghosts && n > 0; ++k) {
      const auto g = static_cast<index_t>(in.below(static_cast<std::uint64_t>(n)));
      if (!held[static_cast<std::size_t>(g)]) {
        held[static_cast<std::size_t>(g)] = 1;
        l.push_back(g);
      }
    }
    switch (in.next(1) % 3) {
      case 0: std::reverse(l.begin(), l.end()); break;
      case 1: if (!l.empty()) std::rotate(l.begin(), l.begin() + static_cast<std::ptrdiff_t>(in.below(l.size())), l.end()); break;
      default: break;
    }
  }
  return lists;
}

/// Calls f with the side the next byte names (indirect: an Indirect one only).
template <class F>
void with_side(Bytes& in, index_t n, int p, bool indirect, F&& f) {
  using namespace redist;
  const auto kind = in.next(1) % (indirect ? 2 : 7);
  switch (kind) {
    case 0: return f(test::indirect_side<void>(lists_of(in, n, p), n));
    case 1: return f(test::indirect_side<std::plus<>>(lists_of(in, n, p), n));
    case 2: return f(test::regular_side(Block::mapping(Block{}, n, p)));
    case 3: return f(test::regular_side(Cyclic<>::mapping(Cyclic<>(1 + static_cast<index_t>(in.below(2 * static_cast<std::uint64_t>(n) + 3))), n, p)));
    case 4: {
      std::vector<index_t> sizes(static_cast<std::size_t>(p), 0);
      for (index_t g = 0; g < n; ++g) ++sizes[static_cast<std::size_t>(in.below(static_cast<std::uint64_t>(p)))];
      return f(test::regular_side(GenBlock::mapping(GenBlock(sizes), n, p)));
    }
    case 5: return f(test::regular_side(Replicated::mapping(Replicated{}, n, p)));
    default: return f(test::regular_side(Partial<>::mapping(Partial<>{}, n, p)));
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Bytes in(data, size);
  const int p = 1 + static_cast<int>(in.next(1) % 24);
  const auto n = static_cast<index_t>(in.next(2) % 600);
  const auto which = in.next(1) % 3;  // 0: the source is Indirect, 1: the destination, 2: both
  with_side(in, n, p, which != 1, [&](const auto& src) {
    with_side(in, n, p, which != 0, [&](const auto& dst) {
      // The way the array layer takes (by formula where it applies), then the directory's way.
      for (const bool formula : {true, false}) {
        const std::string failure = redist::test::simulate_indirect(src, dst, n, formula);
        if (!failure.empty()) {
          std::fprintf(stderr, "redist fuzz: n = %lld, P = %d, %s: %s\n", static_cast<long long>(n), p,
                       formula ? "by formula where it applies" : "by the directory", failure.c_str());
          std::abort();
        }
        if (!redist::test::by_formula(src, dst)) break;
      }
    });
  });
  return 0;
}
