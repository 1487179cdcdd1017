// Unit tests of the reliability machinery without MPI: pieces of messages, the scratch budget, plans at n = 2^40.
#include <algorithm>
#include <array>
#include <cstddef>
#include <numeric>
#include <random>
#include <span>
#include <vector>

#include <catch2/catch.hpp>

#include <redist/plan/plan.hpp>
#include <redist/runtime/pack.hpp>

#include "../support/random_dists.hpp"

// This file's names, apart from the other files of its program: meson compiles them together
// (unity build).
namespace unit_test_reliability {

using namespace redist;

TEST_CASE("Packing a message piece by piece equals packing it whole", "[pack][pieces]") {
  std::mt19937_64 rng(11);
  for (int t = 0; t < 200; ++t) {
    const int nprocs = 1 + static_cast<int>(rng() % 6);
    const index_t n = static_cast<index_t>(rng() % 3000);
    const Cyclic<>::mapping from(Cyclic<>(redist::test::random_block(n, rng)), n, nprocs);
    const GenBlock::mapping to(GenBlock(redist::test::random_parts(n, nprocs, rng)), n, nprocs);
    const Plan built = build_plan(from, to, static_cast<int>(rng() % nprocs));
    const Stage<Run>& plan = built.only();
    std::vector<index_t> src(static_cast<std::size_t>(from.local_size(built.rank)));
    std::iota(src.begin(), src.end(), 0);
    for (std::size_t i = 0; i < plan.sends.size(); ++i) {
      const Message& m = plan.sends[i];
      std::vector<index_t> whole(static_cast<std::size_t>(m.size)), pieces(whole.size()), runs(whole.size());
      runtime::pack_message(plan, i, src.data(), whole.data());
      const index_t piece = 1 + static_cast<index_t>(rng() % 40);
      for (index_t lo = 0; lo < m.size; lo += piece)
        runtime::pack_message(plan, i, src.data(), pieces.data() + lo, lo, std::min(m.size, lo + piece));
      REQUIRE(pieces == whole);
      // The runs' own order, and its pieces (plans without walks).
      std::fill(pieces.begin(), pieces.end(), 0);
      runtime::pack(plan.runs_of(m), src.data(), runs.data());
      for (index_t lo = 0; lo < m.size; lo += piece)
        runtime::pack_range(plan.runs_of(m), src.data(), pieces.data() + lo, lo, std::min(m.size, lo + piece));
      REQUIRE(pieces == runs);
      // The walk's order is the source's storage order: the packed offsets increase.
      std::vector<index_t> sorted = runs;
      std::sort(sorted.begin(), sorted.end());
      REQUIRE(whole == sorted);
    }
    for (std::size_t i = 0; i < plan.recvs.size(); ++i) {
      const Message& m = plan.recvs[i];
      std::vector<index_t> in(static_cast<std::size_t>(m.size));
      std::iota(in.begin(), in.end(), 1);
      std::vector<index_t> whole(static_cast<std::size_t>(to.local_size(built.rank)), 0), pieces = whole;
      runtime::unpack_message(plan, i, in.data(), whole.data());
      const index_t piece = 1 + static_cast<index_t>(rng() % 40);
      for (index_t lo = 0; lo < m.size; lo += piece)
        runtime::unpack_message(plan, i, in.data() + lo, pieces.data(), lo, std::min(m.size, lo + piece));
      REQUIRE(pieces == whole);
      std::fill(pieces.begin(), pieces.end(), 0);
      std::fill(whole.begin(), whole.end(), 0);
      runtime::unpack(plan.runs_of(m), in.data(), whole.data());
      for (index_t lo = 0; lo < m.size; lo += piece)
        runtime::unpack_range(plan.runs_of(m), in.data() + lo, pieces.data(), lo, std::min(m.size, lo + piece));
      REQUIRE(pieces == whole);
    }
  }
}

TEST_CASE("runtime::overlap: whether two spans share a byte, and where the source starts in the destination",
          "[pack][overlap]") {
  std::vector<double> buf(16);
  const std::span<const double> all(buf);
  // Disjoint, adjacent, empty: nothing shared.
  CHECK_FALSE(runtime::overlap(all.subspan(0, 8), all.subspan(8, 8)).shares);
  CHECK_FALSE(runtime::overlap(all.subspan(8, 8), all.subspan(0, 8)).shares);
  CHECK_FALSE(runtime::overlap(all.subspan(4, 0), all).shares);
  CHECK_FALSE(runtime::overlap(all.subspan(8, 8), all.subspan(0, 8)).src_at.has_value());
  // One element in common, either side, and the source's start in destination elements.
  const runtime::Overlap after = runtime::overlap(all.subspan(7, 4), all.subspan(0, 8));
  CHECK(after.shares);
  CHECK(after.src_at == index_t{7});
  const runtime::Overlap before = runtime::overlap(all.subspan(0, 4), all.subspan(3, 8));
  CHECK(before.shares);
  CHECK(before.src_at == index_t{-3});
  CHECK(runtime::overlap(all, all).src_at == index_t{0});
  // Bytes shared, starts not a whole number of source elements apart: no place.
  const auto* bytes = reinterpret_cast<const std::byte*>(buf.data());
  using Triple = std::array<std::byte, 3>;
  const std::span<const Triple> triples(reinterpret_cast<const Triple*>(bytes + 4), 4);
  const runtime::Overlap odd = runtime::overlap(triples, all);
  CHECK(odd.shares);
  CHECK_FALSE(odd.src_at.has_value());
  // Elements of another size: the place counts the source's elements.
  const std::span<const std::byte> raw(bytes, buf.size() * sizeof(double));
  CHECK(runtime::overlap(raw.subspan(24, 8), all).src_at == index_t{24});
  CHECK(runtime::overlap(all.subspan(3, 1), raw).src_at == index_t{3});
}

TEST_CASE("piece_limit water-fills the scratch budget", "[plan][budget]") {
  Plan plan;
  Stage<Run>& st = plan.stages.emplace_back();
  for (index_t size : {10, 30, 20}) st.recvs.push_back(Message{1, 0, 0, size, false});
  st.sends.push_back(Message{1, 0, 0, 1000, true});  // direct: needs no scratch
  st.schedule = schedule::make_all_at_once(1, 3);
  CHECK(piece_limit(plan, 60) == 0);    // 10 + 30 + 20 fit whole
  CHECK(piece_limit(plan, 45) == 17);   // 10 + 17 + 17 = 44 <= 45
  CHECK(piece_limit(plan, 3) == 1);
  CHECK_THROWS_WITH(piece_limit(plan, 2), Catch::Contains("at least one element per message"));
}

namespace {
/// Where global g lands, following the plans only: the packed position of g's source element in
/// the message (or local copy) of its owner, and the destination offset that position maps to.
template <class From, class To>
void check_sampled(const From& from, const To& to, std::mt19937_64& rng) {
  const int nprocs = from.nprocs();
  std::vector<Stage<Run>> plans;
  for (int r = 0; r < nprocs; ++r) plans.push_back(build_plan(from, to, r).only());
  // Sizes: everything a rank holds is sent or kept, everything it will hold arrives once.
  for (int r = 0; r < nprocs; ++r) {
    REQUIRE(plans[r].elements_sent() + plans[r].local.size == from.local_size(r));
    REQUIRE(plans[r].elements_received() + plans[r].local.size == to.local_size(r));
    for (const Message& s : plans[r].sends) {
      index_t matched = -1;
      for (const Message& m : plans[s.peer].recvs)
        if (m.peer == r) matched = m.size;
      REQUIRE(matched == s.size);
    }
  }
  auto locate = [](std::span<const Run> runs, index_t l, bool src_side) {  // packed position of local l
    index_t pos = 0;
    for (const Run& r : runs) {
      const index_t base = src_side ? r.src : r.dst, stride = src_side ? r.src_stride : r.dst_stride;
      const index_t d = l - base;
      if (d >= 0 && d / stride < r.count && d % stride < r.len) return pos + (d / stride) * r.len + d % stride;
      pos += r.size();
    }
    return index_t{-1};
  };
  auto at = [](std::span<const Run> runs, index_t k) {  // destination offset of packed position k
    for (const Run& r : runs) {
      if (k < r.size()) return r.dst + (k / r.len) * r.dst_stride + k % r.len;
      k -= r.size();
    }
    return index_t{-1};
  };
  std::uniform_int_distribution<index_t> pick(0, from.size() - 1);
  for (int t = 0; t < 300; ++t) {
    const index_t g = pick(rng);
    const int p = from.owner(g), q = to.owner(g);
    const Stage<Run>& sp = plans[p];
    const Message* out = &sp.local;
    for (const Message& m : sp.sends)
      if (m.peer == q) out = &m;
    REQUIRE((p == q) == (out == &sp.local));
    const index_t k = locate(sp.runs_of(*out), from.local_index(g), true);
    REQUIRE(k >= 0);
    const Stage<Run>& rp = plans[q];
    const Message* in = &rp.local;
    for (const Message& m : rp.recvs)
      if (m.peer == p) in = &m;
    REQUIRE(at(rp.runs_of(*in), k) == to.local_index(g));
  }
}
}  // namespace

TEST_CASE("Plans at n = 2^40 agree with the distributions' formulas, without data", "[plan][64bit]") {
  std::mt19937_64 rng(40);
  const index_t n = (index_t{1} << 40) + 12345;
  for (int nprocs : {1, 3, 7, 64}) {
    INFO("P = " << nprocs);
    check_sampled(Block::mapping(Block{}, n, nprocs), Cyclic<3>::mapping(Cyclic<3>{}, n, nprocs), rng);
    check_sampled(Cyclic<5>::mapping(Cyclic<5>{}, n, nprocs), Cyclic<7>::mapping(Cyclic<7>{}, n, nprocs), rng);
    check_sampled(Cyclic<>::mapping(Cyclic<>(index_t{1} << 33), n, nprocs), Block::mapping(Block{}, n, nprocs), rng);
    check_sampled(GenBlock::mapping(GenBlock(redist::test::random_parts(n, nprocs, rng)), n, nprocs),
                  Cyclic<>::mapping(Cyclic<>((index_t{1} << 31) + 11), n, nprocs), rng);
    // Coprime block sizes near 2^30: the period lcm(k1·P, k2·P) overflows 64 bits; still exact.
    check_sampled(Cyclic<>::mapping(Cyclic<>((index_t{1} << 30) + 1), n, nprocs),
                  Cyclic<>::mapping(Cyclic<>((index_t{1} << 30) - 1), n, nprocs), rng);
  }
}

}  // namespace unit_test_reliability
