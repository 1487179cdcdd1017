// Compile-time tests of the basic-cycle calculation (seed 000): the paper's legible figures as
// static_asserts against the constexpr tables, each also checked against a brute force that
// deals the elements one by one. Compiling is passing. Where the paper's text is garbled
// (ERRATA 000: Fig. 4 row P3, Fig. 5 rows P2-P3, Fig. 1(a) SLA0 and Fig. 1(b) DDPA) the test
// trusts the corrected formula and the brute force, and says so.
#include <algorithm>
#include <array>
#include <cstddef>
#include <numeric>
#include <type_traits>
#include <vector>

#include <redist/redist.hpp>

using namespace redist;
using index::BasicCycle;

namespace {

// Brute force, sharing nothing with index/basic_cycle.hpp: deal the global elements of the
// first `len` periods to source blocks of s and destination blocks of t by counting, and return,
// for rank's first `count` local elements (source side if `send`, destination side otherwise),
// the process on the other side.
template <std::size_t N>
constexpr std::array<int, N> brute(index_t s, index_t t, int m, int rank, bool send) {
  std::array<int, N> out{};
  std::size_t filled = 0;
  int src = 0, dst = 0;
  index_t in_src = 0, in_dst = 0;
  for (index_t gi = 0; filled < N; ++gi) {
    if (in_src == s) { in_src = 0; src = (src + 1) % m; }
    if (in_dst == t) { in_dst = 0; dst = (dst + 1) % m; }
    ++in_src;
    ++in_dst;
    if (send && src == rank) out[filled++] = dst;
    if (!send && dst == rank) out[filled++] = src;
  }
  return out;
}

// The template of every rank, meta-element k = the brute force's element k·g (and every element
// of a meta-element goes to the same process: the meta-array works).
template <std::size_t S, std::size_t T, std::size_t P>
constexpr bool templates_match_brute_force() {
  using B = BasicCyclePlan<S, T, P>;
  constexpr auto g = static_cast<std::size_t>(B::gcd), bc = static_cast<std::size_t>(B::bc);
  for (int r = 0; r < static_cast<int>(P); ++r) {
    // Two basic cycles: the second repeats the first (Figure 5).
    const auto sb = brute<2 * bc * g>(B::s, B::t, static_cast<int>(P), r, true);
    const auto rb = brute<2 * bc * g>(B::s, B::t, static_cast<int>(P), r, false);
    for (std::size_t e = 0; e < 2 * bc * g; ++e) {
      if (sb[e] != B::send_templates[r][(e / g) % bc]) return false;
      if (rb[e] != B::receive_templates[r][(e / g) % bc]) return false;
    }
  }
  return true;
}

template <class A>
constexpr int distinct(const A& row, bool count_self, int self) {
  std::array<bool, 64> seen{};
  int n = 0;
  for (int p : row)
    if (!seen[static_cast<std::size_t>(p)] && (count_self || p != self)) {
      seen[static_cast<std::size_t>(p)] = true;
      ++n;
    }
  return n;
}

}  // namespace

// ---- BC, the case and δ are constants of the plan type ----------------------------------------
static_assert(BasicCyclePlan<3, 2, 4>::bc == 6 && BasicCyclePlan<3, 2, 4>::kind == index::bcc_case::coprime);
static_assert(BasicCyclePlan<4, 3, 2>::bc == 12);                        // Figure 1: "the basic cycle ... is 12"
static_assert(BasicCyclePlan<6, 4, 4>::bc == 6 && BasicCyclePlan<6, 4, 4>::gcd == 2 &&
              BasicCyclePlan<6, 4, 4>::kind == index::bcc_case::common_factor);  // Figure 3: "equal to 6 as well"
static_assert(BasicCyclePlan<60, 3>::kind == index::bcc_case::divisible && BasicCyclePlan<7, 7>::kind == index::bcc_case::divisible);
// Eq. (5) as the paper's Sec. 4.3 uses it on 20 processes: 10 Ts for (8)->(5), 20 Ts for (100)->(3) and (60)->(3).
static_assert(BasicCyclePlan<8, 5>::delta(20) == 10 && BasicCyclePlan<100, 3>::delta(20) == 20 &&
              BasicCyclePlan<60, 3>::delta(20) == 20);
// ERRATA 000: eq. (5) is not the real count. The templates of (8)->(5) on 20 processes send to 15
// processes at most (the brute force agrees, below), eq. (5) says 10.
constexpr int max_destinations_8_5() {
  int most = 0;
  for (int r = 0; r < 20; ++r) {
    const int d = distinct(BasicCyclePlan<8, 5, 20>::send_templates[static_cast<std::size_t>(r)], true, r);
    most = d > most ? d : most;
  }
  return most;
}
static_assert(max_destinations_8_5() == 15);
static_assert(templates_match_brute_force<8, 5, 20>());

// ---- Lemma 3 over a sweep: in case 3 (s = k·t or t = r·s) eq. (5) is min(M, max(s,t)/min(s,t)),
// the one-stage multi-phase method's startup count, and it is also the real count: the most
// processes one source process sends to (itself included), dealt element by element over a whole
// period lcm(s·M, t·M). s, t <= 32, M <= 16; every (s, t) pair of case 3 in that range.
constexpr int real_destinations(index_t s, index_t t, int m) {
  const index_t period = std::lcm(s * m, t * m);
  int most = 0;
  for (int r = 0; r < m; ++r) {
    std::array<bool, 64> to{};
    int n = 0;
    for (index_t g = r * s; g < period; g += (g % s == s - 1) ? s * (m - 1) + 1 : 1) {
      const auto q = static_cast<std::size_t>((g / t) % m);
      if (!to[q]) {
        to[q] = true;
        ++n;
      }
    }
    most = n > most ? n : most;
  }
  return most;
}
constexpr bool lemma3_sweep(index_t first_s, index_t last_s) {
  for (index_t s = first_s; s <= last_s; ++s)
    for (index_t t = 1; t <= 32; ++t) {
      if (s % t != 0 && t % s != 0) continue;
      for (int m = 1; m <= 16; ++m) {
        const index_t one_stage = std::min<index_t>(m, std::max(s, t) / std::min(s, t));
        if (index::delta(s, t, m) != one_stage || real_destinations(s, t, m) != one_stage) return false;
      }
    }
  return true;
}
// Three assertions, not one: each constant evaluation stays under GCC's -fconstexpr-ops-limit.
static_assert(lemma3_sweep(1, 16));
static_assert(lemma3_sweep(17, 26));
static_assert(lemma3_sweep(27, 32));

/// The 1-based global indices of p's first N local elements (a row of the papers' local-array tables).
template <std::size_t N = 24, class M>
constexpr std::array<index_t, N> row(const M& m, int p) {
  std::array<index_t, N> r{};
  for (index_t l = 0; l < static_cast<index_t>(N); ++l) r[static_cast<std::size_t>(l)] = m.global_index(p, l) + 1;
  return r;
}

// ---- Figure 2: BLOCK-CYCLIC(3) -> BLOCK-CYCLIC(2), N = 48, M = 4: the two 4 x 12 tables ---------
constexpr Cyclic<3>::mapping fig2_src(Cyclic<3>{}, 48, 4);
constexpr Cyclic<2>::mapping fig2_dst(Cyclic<2>{}, 48, 4);
using Row12 = std::array<index_t, 12>;
static_assert(row<12>(fig2_src, 0) == Row12{1, 2, 3, 13, 14, 15, 25, 26, 27, 37, 38, 39});
static_assert(row<12>(fig2_src, 1) == Row12{4, 5, 6, 16, 17, 18, 28, 29, 30, 40, 41, 42});
static_assert(row<12>(fig2_src, 2) == Row12{7, 8, 9, 19, 20, 21, 31, 32, 33, 43, 44, 45});
static_assert(row<12>(fig2_src, 3) == Row12{10, 11, 12, 22, 23, 24, 34, 35, 36, 46, 47, 48});
static_assert(row<12>(fig2_dst, 0) == Row12{1, 2, 9, 10, 17, 18, 25, 26, 33, 34, 41, 42});
static_assert(row<12>(fig2_dst, 1) == Row12{3, 4, 11, 12, 19, 20, 27, 28, 35, 36, 43, 44});
static_assert(row<12>(fig2_dst, 2) == Row12{5, 6, 13, 14, 21, 22, 29, 30, 37, 38, 45, 46});
static_assert(row<12>(fig2_dst, 3) == Row12{7, 8, 15, 16, 23, 24, 31, 32, 39, 40, 47, 48});
static_assert(fig2_src.local_size(0) == 12 && fig2_dst.local_size(3) == 12);
// "the k-th array elements of the first and the second basic cycles have the same destination
// (source) processor": element k and k + 6 of every local array, on both sides.
constexpr bool fig2_cycles_repeat() {
  for (int p = 0; p < 4; ++p)
    for (index_t k = 0; k < 6; ++k) {
      if (fig2_dst.owner(fig2_src.global_index(p, k)) != fig2_dst.owner(fig2_src.global_index(p, k + 6))) return false;
      if (fig2_src.owner(fig2_dst.global_index(p, k)) != fig2_src.owner(fig2_dst.global_index(p, k + 6))) return false;
    }
  return true;
}
static_assert(fig2_cycles_repeat());

// ---- Figure 4: the send templates of BLOCK-CYCLIC(3) -> BLOCK-CYCLIC(2) on 4 processes ---------
using Fig2 = BasicCyclePlan<3, 2, 4>;
static_assert(Fig2::tabulated);
static_assert(Fig2::send_templates[0] == std::array{0, 0, 1, 2, 2, 3});
static_assert(Fig2::send_templates[1] == std::array{1, 2, 2, 3, 0, 0});
static_assert(Fig2::send_templates[2] == std::array{3, 3, 0, 1, 1, 2});
// Row P3 is garbled in the paper (5 entries: P0 P1 P2 P3 P3); the formula and the brute force
// give P0 P1 P1 P2 P3 P3 (ERRATA 000).
static_assert(Fig2::send_templates[3] == std::array{0, 1, 1, 2, 3, 3});
// ---- Figure 6: the receive templates of the same redistribution ------------------------------
static_assert(Fig2::receive_templates[0] == std::array{0, 0, 2, 3, 1, 1});
static_assert(Fig2::receive_templates[1] == std::array{0, 1, 3, 3, 2, 2});
static_assert(Fig2::receive_templates[2] == std::array{1, 1, 0, 0, 2, 3});
static_assert(Fig2::receive_templates[3] == std::array{2, 2, 0, 1, 3, 3});
static_assert(templates_match_brute_force<3, 2, 4>());
// ---- Figure 5: the complete send sets are the template repeated (rows P0, P1; P2, P3 garbled) ---
static_assert(brute<12>(3, 2, 4, 0, true) == std::array{0, 0, 1, 2, 2, 3, 0, 0, 1, 2, 2, 3});
static_assert(brute<12>(3, 2, 4, 1, true) == std::array{1, 2, 2, 3, 0, 0, 1, 2, 2, 3, 0, 0});

// ---- Sec. 3A's worked example and eq. (1) -----------------------------------------------------
constexpr BasicCycle fig2_shape(3, 2, 4);
// "The DDPP of SLA2(1) = A(7) is 7; of SLA2(2) = A(8) and SLA2(3) = A(9), 8 and 1; their
// destinations are DDPA(7) = P3, DDPA(8) = P3 and DDPA(9) [the position 1] = P0."
static_assert(index::section_ddpp(fig2_shape, 2, 1) == 7);
static_assert(index::ddpp(fig2_shape, 8) == 8 && index::ddpp(fig2_shape, 9) == 1);
static_assert(index::ddpa(fig2_shape, 7) == 3 && index::ddpa(fig2_shape, 8) == 3 && index::ddpa(fig2_shape, 1) == 0);
// Eq. (1) as printed, (k·M + i·s) mod (M·t), gives 2 there (ERRATA 000); the corrected form gives 7.
constexpr index_t printed_eq1(index_t k, int m, int i, index_t s, index_t t) { return (k * m + i * s) % (m * t); }
static_assert(printed_eq1(1, 4, 2, 3, 2) == 2);
// Eq. (2): the SDPP of the first element of destination section 1 of P1 (A(3)) is 3.
static_assert(index::section_sdpp(fig2_shape, 1, 1) == 3 && index::sdpa(fig2_shape, 3) == 0);

// ---- Figure 1: BLOCK-CYCLIC(4) -> BLOCK-CYCLIC(3), N = 48, M = 2 ------------------------------
constexpr BasicCycle fig1(4, 3, 2);
static_assert(fig1.bc == 12 && fig1.source_sections() == 3 && fig1.destination_sections() == 4);
constexpr Cyclic<4>::mapping fig1_src(Cyclic<4>{}, 48, 2);
constexpr Cyclic<3>::mapping fig1_dst(Cyclic<3>{}, 48, 2);

static_assert(row(fig1_src, 1) == std::array<index_t, 24>{5, 6, 7, 8, 13, 14, 15, 16, 21, 22, 23, 24,
                                                          29, 30, 31, 32, 37, 38, 39, 40, 45, 46, 47, 48});
// Row SLA0 of Fig. 1(a) is an OCR copy of the local indices; BLOCK-CYCLIC(4) on 2 gives 1-4, 9-12, ...
static_assert(row(fig1_src, 0)[4] == 9 && row(fig1_src, 0)[23] == 44);
static_assert(row(fig1_dst, 0) == std::array<index_t, 24>{1, 2, 3, 7, 8, 9, 13, 14, 15, 19, 20, 21,
                                                          25, 26, 27, 31, 32, 33, 37, 38, 39, 43, 44, 45});
static_assert(row(fig1_dst, 1) == std::array<index_t, 24>{4, 5, 6, 10, 11, 12, 16, 17, 18, 22, 23, 24,
                                                          28, 29, 30, 34, 35, 36, 40, 41, 42, 46, 47, 48});
// "The SDPP of SLA1(12) is 8. The DDPP of DLA0(12) is 3."
static_assert(index::sdpp(fig1, row(fig1_src, 1)[11]) == 8);
static_assert(index::ddpp(fig1, row(fig1_dst, 0)[11]) == 3);
// The SDPP rows of SLA1 (5 6 7 8 repeated) and the DDPP rows of DLA0, DLA1 (1 2 3 ..., 4 5 6 ...).
constexpr bool fig1_pattern_rows() {
  for (std::size_t l = 0; l < 24; ++l) {
    if (index::sdpp(fig1, row(fig1_src, 1)[l]) != 5 + static_cast<index_t>(l % 4)) return false;
    if (index::ddpp(fig1, row(fig1_dst, 0)[l]) != 1 + static_cast<index_t>(l % 3)) return false;
    if (index::ddpp(fig1, row(fig1_dst, 1)[l]) != 4 + static_cast<index_t>(l % 3)) return false;
  }
  return true;
}
static_assert(fig1_pattern_rows());
// Fig. 1(b): SDPA = 0 0 0 0 1 1 1 1; DDPA is an OCR copy of SDPA in the paper, it is 0 0 0 1 1 1.
constexpr bool fig1_pattern_arrays() {
  constexpr int sdpa[] = {0, 0, 0, 0, 1, 1, 1, 1}, ddpa[] = {0, 0, 0, 1, 1, 1};
  for (index_t pos = 1; pos <= 8; ++pos) if (index::sdpa(fig1, pos) != sdpa[pos - 1]) return false;
  for (index_t pos = 1; pos <= 6; ++pos) if (index::ddpa(fig1, pos) != ddpa[pos - 1]) return false;
  return true;
}
static_assert(fig1_pattern_arrays());
static_assert(templates_match_brute_force<4, 3, 2>());

// ---- Figure 3: BLOCK-CYCLIC(6) -> BLOCK-CYCLIC(4), N = 96, M = 4, and its meta-array ------------
// Without grouping, "the destinations of the second elements of the first and the second basic
// cycles of P0 are P0 and P2": a basic cycle of 6 elements does not repeat.
constexpr Cyclic<6>::mapping fig3_src(Cyclic<6>{}, 96, 4);
constexpr Cyclic<4>::mapping fig3_dst(Cyclic<4>{}, 96, 4);
static_assert(fig3_dst.owner(fig3_src.global_index(0, 1)) == 0 && fig3_dst.owner(fig3_src.global_index(0, 7)) == 2);
// Fig. 3(a): meta-element k of a process holds the globals (pairs, 1-based) of the figure.
template <class M>
constexpr bool meta_row(const M& m, int p, const std::array<index_t, 12>& first_of_pair) {
  for (index_t k = 0; k < 12; ++k)
    if (m.global_index(p, 2 * k) + 1 != first_of_pair[static_cast<std::size_t>(k)] ||
        m.global_index(p, 2 * k + 1) + 1 != first_of_pair[static_cast<std::size_t>(k)] + 1)
      return false;
  return true;
}
static_assert(meta_row(fig3_src, 0, {1, 3, 5, 25, 27, 29, 49, 51, 53, 73, 75, 77}));
static_assert(meta_row(fig3_src, 1, {7, 9, 11, 31, 33, 35, 55, 57, 59, 79, 81, 83}));
static_assert(meta_row(fig3_src, 2, {13, 15, 17, 37, 39, 41, 61, 63, 65, 85, 87, 89}));
static_assert(meta_row(fig3_src, 3, {19, 21, 23, 43, 45, 47, 67, 69, 71, 91, 93, 95}));
static_assert(meta_row(fig3_dst, 0, {1, 3, 17, 19, 33, 35, 49, 51, 65, 67, 81, 83}));
static_assert(meta_row(fig3_dst, 1, {5, 7, 21, 23, 37, 39, 53, 55, 69, 71, 85, 87}));
static_assert(meta_row(fig3_dst, 2, {9, 11, 25, 27, 41, 43, 57, 59, 73, 75, 89, 91}));
// Fig. 3(b): on the meta-array the redistribution "is the same as that shown in Figure 2".
static_assert(BasicCyclePlan<6, 4, 4>::send_templates == Fig2::send_templates);
static_assert(BasicCyclePlan<6, 4, 4>::receive_templates == Fig2::receive_templates);
static_assert(templates_match_brute_force<6, 4, 4>());  // every element of a meta-element agrees
static_assert(templates_match_brute_force<25, 20, 4>() && templates_match_brute_force<60, 3, 4>());

// ---- Schedules on Figure 2 ----------------------------------------------------------------------
constexpr std::vector<std::vector<int>> fig2_appearance() {
  std::vector<std::vector<int>> d(4);
  for (std::size_t r = 0; r < 4; ++r)
    for (int p : Fig2::send_templates[r]) {
      bool seen = false;
      for (int x : d[r]) seen = seen || x == p;
      if (!seen) d[r].push_back(p);
    }
  return d;
}
// ERRATA 000: BCC's order "avoids contention mostly": in step 1 P3 sends to P0 (and P0 keeps its
// own), in step 2 P0 and P3 both send to P1.
static_assert(schedule::appearance_order(fig2_appearance()).send_to[0] == std::vector{0, 1, 3, 0});
static_assert(schedule::appearance_order(fig2_appearance()).receivers_load(1, 1) == 2);
constexpr bool contention_free_on_fig2() {
  const auto t = schedule::contention_free_order(fig2_appearance());
  if (t.size() != 3) return false;  // every process sends to 3 others: 3 steps at least
  for (std::size_t k = 0; k < t.size(); ++k)
    for (int r = 0; r < 4; ++r) if (t.receivers_load(k, r) > 1) return false;
  return true;
}
static_assert(contention_free_on_fig2());

// ---- The multi-phase baseline, as seed 000's Sec. 4.3 sets it up on 20 processes ---------------
static_assert(schedule::multiphase_phases(8, 5, 20, schedule::stages::by_case) == schedule::Phases{{8, 40, 5}, 2});
static_assert(schedule::multiphase_phases(100, 3, 20, schedule::stages::two) == schedule::Phases{{100, 300, 3}, 2});
static_assert(schedule::multiphase_phases(25, 20, 20, schedule::stages::two) == schedule::Phases{{25, 100, 20}, 2});
static_assert(schedule::multiphase_phases(300, 200, 20, schedule::stages::two) == schedule::Phases{{300, 600, 200}, 2});
static_assert(schedule::multiphase_phases(60, 3, 20, schedule::stages::two) == schedule::Phases{{60, 15, 3}, 2});
static_assert(schedule::multiphase_phases(60, 3, 20, schedule::stages::by_case) == schedule::Phases{{60, 3, 0}, 1});
// Startups: 13 Ts and 23 Ts (Table 1's 2P), 9 Ts (Table 3's 2P), 20 Ts (Table 3's 1P).
static_assert(schedule::startups(schedule::multiphase_phases(8, 5, 20, schedule::stages::two), 20) == 13);
static_assert(schedule::startups(schedule::multiphase_phases(100, 3, 20, schedule::stages::two), 20) == 23);
static_assert(schedule::startups(schedule::multiphase_phases(60, 3, 20, schedule::stages::two), 20) == 9);
static_assert(schedule::startups(schedule::multiphase_phases(60, 3, 20, schedule::stages::one), 20) == 20);

// ---- Selection: Cyclic<s> -> Cyclic<t> takes the basic-cycle calculation, from the types -------
using C3 = Cyclic<3>::mapping;
using C2 = Cyclic<2>::mapping;
using Cd = Cyclic<dynamic>::mapping;
static_assert(bcc_selected<C3, C2> && bcc_selected<Cd, C2> && bcc_selected<Cd, Cd>);
static_assert(!bcc_selected<Block::mapping, C2> && !bcc_selected<C3, GenBlock::mapping>);
// automatic is an ordered list of candidates; the first that serves the pair, by the types, plans it.
using Automatic = planner<schedule::automatic_t>;
static_assert(std::is_same_v<Automatic::choice_t<C3, C2>, schedule::detail::cyclic_rule_t>);
static_assert(std::is_same_v<Automatic::choice_t<Cd, Cd>, schedule::detail::cyclic_rule_t>);
static_assert(std::is_same_v<Automatic::choice_t<Block::mapping, C2>, schedule::all_at_once_t>);
static_assert(std::is_same_v<Automatic::choice_t<GenBlock::mapping, GenBlock::mapping>, schedule::detail::gen_block_rule_t>);
static_assert(std::is_same_v<Automatic::choice_t<Dist<Block, Block>::mapping, Dist<Cyclic<2>, Block>::mapping>,
                             schedule::detail::grid_rule_t>);
static_assert(!Automatic::supports<Dist<Block, Block>::mapping, C2>);
// Every policy builds the one plan type: stages of messages (StagedPlan), the same for 1-D pairs
// whatever the schedule; the runs of N-D plans are sections.
static_assert(std::is_same_v<decltype(plan_with(std::declval<C3>(), std::declval<C2>(), 0, schedule::automatic)), Plan>);
static_assert(std::is_same_v<decltype(plan_with(std::declval<Cd>(), std::declval<Cd>(), 0, schedule::modeled(schedule::default_machine))), Plan>);
static_assert(std::is_same_v<decltype(plan_with(std::declval<Block::mapping>(), std::declval<C2>(), 0, schedule::automatic)), Plan>);
static_assert(std::is_same_v<decltype(plan_with(std::declval<C3>(), std::declval<C2>(), 0, schedule::direct)), Plan>);
static_assert(std::is_same_v<decltype(plan_with(std::declval<C3>(), std::declval<C2>(), 0, schedule::bcc)), Plan>);
static_assert(std::is_same_v<Redistribution<C3, C2>::plan_type, Plan>);
static_assert(std::is_same_v<Redistribution<C3, C2, schedule::all_at_once_t>::plan_type, Plan>);
static_assert(std::is_same_v<Redistribution<C3, C2, schedule::multiphase_t>::plan_type, Plan>);
static_assert(StagedPlan<Plan> && StagedPlan<GridPlan> && !StagedPlan<Stage<Run>>);
// The decision adapts (node path, budget, timing) automatic and modeled on Cyclic pairs only, and
// times automatic's candidates only.
static_assert(Decider<C3, C2, schedule::automatic_t>::adaptive && Decider<C3, C2, schedule::automatic_t>::timed);
static_assert(Decider<C3, C2, schedule::modeled_t>::adaptive && !Decider<C3, C2, schedule::modeled_t>::timed);
static_assert(!Decider<C3, C2, schedule::bcc_t>::adaptive && !Decider<Block::mapping, C2, schedule::automatic_t>::adaptive);
// Each policy says which pairs it serves.
static_assert(Serves<schedule::bcc_t, C3, C2> && !Serves<schedule::bcc_t, Block::mapping, C2>);
static_assert(Serves<schedule::tpdr_t, GenBlock::mapping, GenBlock::mapping> && !Serves<schedule::tpdr_t, C3, C2>);
static_assert(Serves<schedule::relative_group_t, Block::mapping, C2> && Serves<schedule::hybrid_t, C2, C3>);
static_assert(schedule::is_policy<schedule::bcc_t> && schedule::is_policy<schedule::bcc_contention_free_t> &&
              schedule::is_policy<schedule::multiphase_t>);

// ---- b = a on 1-D arrays of static process count: the layouts carry P to the plan -----------------
// DistArray<double, Cyclic<3>, Grid<4>> = DistArray<double, Cyclic<2>, Grid<4>> (Figure 2's pair on
// Figure 2's four processes) plans on the arrays' rank-1 layouts; the planners see through them
// (as_cyclic) to StaticNprocs layouts, whose bcc planner reads Fig2's tables.
using A3 = DistArray<double, Cyclic<3>, Grid<4>>;
using A2 = DistArray<double, Cyclic<2>, Grid<4>>;
using L = detail::plan_layouts<A3, A2>;
static_assert(std::is_same_v<L::from_type, A3::mapping_type> && std::is_same_v<L::to_type, A2::mapping_type>);
static_assert(L::from_type::rank() == 1 && CyclicLayout<L::from_type> && !CyclicMapping<L::from_type>);
using F3 = decltype(as_cyclic(std::declval<const L::from_type&>()))::value_type;
using F2 = decltype(as_cyclic(std::declval<const L::to_type&>()))::value_type;
static_assert(std::is_same_v<F3, StaticNprocs<Cyclic<3>::mapping, 4>> && std::is_same_v<F2, StaticNprocs<Cyclic<2>::mapping, 4>>);
static_assert(A3::static_nprocs() == 4 && DistArray<double, Cyclic<3>>::static_nprocs() == dynamic);
static_assert(detail::static_cycle_pair<F3, F2> && !detail::static_cycle_pair<C3, C2>);
static_assert(std::is_same_v<Automatic::choice_t<L::from_type, L::to_type>, schedule::detail::cyclic_rule_t>);
static_assert(std::is_same_v<Redistribution<L::from_type, L::to_type>::plan_type, Plan>);
// The table that b = a on that pair runs on, from static storage: rank 1's send template (Figure 4).
static_assert(BasicCyclePlan<3, 2, detail::pair_nprocs<F3, F2>>::send_templates[1] == std::array{1, 2, 2, 3, 0, 0});
// A grid of static type but an array type without it keeps P dynamic (DESIGN.md's spelling
// DistArray<double, Cyclic<8>>(world, n, Grid<4>{}): a constructor argument cannot change a type).
using L8 = detail::plan_layouts<DistArray<double, Cyclic<8>>, DistArray<double, Cyclic<5>>>;
static_assert(std::is_same_v<decltype(as_cyclic(std::declval<const L8::from_type&>()))::value_type, Cyclic<8>::mapping>);
// AnyDist: a Cyclic rule candidate at compile time, decided at plan time.
using AnyL = Dist<AnyDist>::mapping;
static_assert(CyclicLayout<AnyL> && GenBlockLayout<AnyL> && Decider<AnyL, AnyL, schedule::automatic_t>::adaptive);
static_assert(std::is_same_v<Automatic::choice_t<AnyL, AnyL>, schedule::detail::cyclic_rule_t>);
static_assert(std::is_same_v<Redistribution<AnyL, AnyL>::plan_type, Plan>);

// ---- The table-size bound: static tables up to BC·P = max_static_table -------------------------
static_assert(max_static_table == 16384);
static_assert(BasicCyclePlan<128, 127, 1>::tabulated);                              // BC·P = 16256
static_assert(!BasicCyclePlan<64, 63, 8>::tabulated);                               // 32256: built at plan time
static_assert(!BasicCyclePlan<3, 2>::tabulated && !BasicCyclePlan<3, 2>::static_nprocs);  // P dynamic

int main() { return 0; }
