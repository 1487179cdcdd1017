/// @file Defines the basic-cycle calculation of seed 000 (Chung, Sheu, Bai): BC, the meta-array, the send and receive templates (corrected eq. 1 and 2) and their sections.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <limits>
#include <numeric>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include <redist/detail/math.hpp>
#include <redist/fwd.hpp>
#include <redist/index/run.hpp>

namespace redist::index {

/// The three cases of seed 000, Sec. 4.2, for BLOCK-CYCLIC(s) -> BLOCK-CYCLIC(t):
/// 1: neither divides the other and gcd(s, t) = 1; 2: neither divides the other and
/// gcd(s, t) != 1; 3: s divides t or t divides s (s == t included).
enum class bcc_case : int { coprime = 1, common_factor = 2, divisible = 3 };

/// The case of (s, t).
constexpr bcc_case classify(index_t s, index_t t) noexcept {
  if (s % t == 0 || t % s == 0) return bcc_case::divisible;
  return std::gcd(s, t) == 1 ? bcc_case::coprime : bcc_case::common_factor;
}

/// Definition 5: BC = lcm(s, t) / gcd(s, t) = (s/g)·(t/g), g = gcd(s, t): the meta-elements of
/// one basic cycle of every local array (the meta-array groups g consecutive elements).
constexpr index_t basic_cycle(index_t s, index_t t) {
  if (s <= 0 || t <= 0) redist::detail::report_error("redist::index::basic_cycle(s, t) requires s and t to be > 0");
  const index_t g = std::gcd(s, t);
  return redist::detail::checked_mul(s / g, t / g, "the basic cycle lcm(s, t) / gcd(s, t)");
}

/// Eq. (5): δ = min(M, ⌈max(s,t)/min(s,t)⌉ · BC·gcd(s,t)/max(s,t)), the paper's cost-model value of
/// "the maximum number of processes a source process sends to". It is not the real count
/// (ERRATA 000: for (8, 5) on 20 processes the templates give 15, eq. 5 gives 10); the real
/// counts come from the templates (see plan/basic_cycle.hpp).
constexpr index_t delta(index_t s, index_t t, int nprocs) {
  const index_t hi = std::max(s, t), lo = std::min(s, t);
  const index_t lcm = redist::detail::checked_lcm(s, t, "lcm(s, t)");
  return std::min<index_t>(nprocs, redist::detail::checked_mul(redist::detail::ceil_div(hi, lo), lcm / hi, "eq. (5)"));
}

/// BLOCK-CYCLIC(s) -> BLOCK-CYCLIC(t) on M processes, seen on the meta-array: g = gcd(s, t)
/// consecutive elements form one meta-element, so that the factors sm = s/g and tm = t/g are
/// coprime (seed 000, Sec. 3, Figure 3). Every rank's local array, source and destination alike,
/// is a sequence of basic cycles of BC = sm·tm meta-elements (lcm(s, t) elements), and the k-th
/// element of every basic cycle goes to (comes from) the same process.
struct BasicCycle {
  index_t s = 1;       ///< source distribution factor
  index_t t = 1;       ///< destination distribution factor
  int nprocs = 1;      ///< M
  index_t g = 1;       ///< gcd(s, t): elements per meta-element
  index_t sm = 1;      ///< s / g
  index_t tm = 1;      ///< t / g
  index_t bc = 1;      ///< BC = sm · tm

  constexpr BasicCycle() = default;
  constexpr BasicCycle(index_t s_, index_t t_, int nprocs_) : s{s_}, t{t_}, nprocs{nprocs_} {
    if (s <= 0 || t <= 0 || nprocs <= 0)
      redist::detail::report_error("redist::index::BasicCycle(s, t, M) requires s, t and M to be > 0");
    g = std::gcd(s, t);
    sm = s / g;
    tm = t / g;
    bc = basic_cycle(s, t);
    // The largest products the calculation forms: M·BC (meta-elements of a period) and M·lcm(s, t).
    redist::detail::checked_mul(redist::detail::checked_mul(bc, g, "lcm(s, t)"), nprocs,
                                "the period M·lcm(s, t) of a basic-cycle calculation");
  }

  /// Elements of one basic cycle of any local array: lcm(s, t).
  constexpr index_t cycle() const noexcept { return bc * g; }
  /// Global elements of one period (one basic cycle of every rank): M · lcm(s, t).
  constexpr index_t period() const noexcept { return cycle() * nprocs; }
  /// Source sections (blocks of sm meta-elements) in one basic cycle: BC / sm = tm.
  constexpr index_t source_sections() const noexcept { return tm; }
  /// Destination sections (blocks of tm meta-elements) in one basic cycle: BC / tm = sm.
  constexpr index_t destination_sections() const noexcept { return sm; }
  constexpr bcc_case kind() const noexcept { return classify(s, t); }
  /// Eq. (5) for this M.
  constexpr index_t delta() const { return index::delta(s, t, nprocs); }
  friend constexpr bool operator==(const BasicCycle&, const BasicCycle&) = default;
};

// The paper's pattern arrays and positions (Definitions 1, 2) and equations (1), (2), on the
// meta-array. They number positions and sections from 1, as the paper does; everything else in
// redist numbers from 0.

/// Definition 1: SDPA(pos), pos = 1 … M·sm: the source process of pattern position pos.
constexpr int sdpa(const BasicCycle& c, index_t pos) noexcept { return static_cast<int>((pos - 1) / c.sm); }
/// Definition 1: DDPA(pos), pos = 1 … M·tm: the destination process of pattern position pos.
constexpr int ddpa(const BasicCycle& c, index_t pos) noexcept { return static_cast<int>((pos - 1) / c.tm); }
/// Definition 2: SDPP of meta-element B(k), k = 1 … : ((k − 1) mod (M·sm)) + 1.
constexpr index_t sdpp(const BasicCycle& c, index_t k) noexcept { return (k - 1) % (c.nprocs * c.sm) + 1; }
/// Definition 2: DDPP of meta-element B(k): ((k − 1) mod (M·tm)) + 1.
constexpr index_t ddpp(const BasicCycle& c, index_t k) noexcept { return (k - 1) % (c.nprocs * c.tm) + 1; }

/// Eq. (1), corrected (ERRATA 000): the DDPP of the first meta-element of source section k
/// (k = 1 … BC/sm) of rank i, DDPP(k) = ((k − 1)·M·sm + i·sm) mod (M·tm) + 1. (As printed,
/// (k·M + i·s) mod (M·t), it gives 2 where the text says 7.)
constexpr index_t section_ddpp(const BasicCycle& c, int rank, index_t k) noexcept {
  return ((k - 1) * c.nprocs * c.sm + rank * c.sm) % (c.nprocs * c.tm) + 1;
}

/// Eq. (2), corrected: the SDPP of the first meta-element of destination section k
/// (k = 1 … BC/tm) of rank j, SDPP(k) = ((k − 1)·M·tm + j·tm) mod (M·sm) + 1.
constexpr index_t section_sdpp(const BasicCycle& c, int rank, index_t k) noexcept {
  return ((k - 1) * c.nprocs * c.tm + rank * c.tm) % (c.nprocs * c.sm) + 1;
}

/// A run of consecutive entries of a template that name the same peer and are consecutive on
/// the peer too: one piece of a message in every basic cycle. In meta-elements.
struct Section {
  index_t offset = 0;       ///< local meta-index of the first meta-element, in the first basic cycle
  index_t len = 0;          ///< meta-elements
  int peer = 0;             ///< destination (send template) or source (receive template)
  index_t peer_offset = 0;  ///< the peer's local meta-index of the first meta-element
  index_t global = 0;       ///< global meta-index of the first meta-element, in [0, M·BC)
  constexpr index_t end() const noexcept { return offset + len; }
  friend constexpr bool operator==(const Section&, const Section&) = default;
};

/// Meta-elements in an array of n elements (the last one may be partial): ceil(n / g).
constexpr index_t meta_size(const BasicCycle& c, index_t n) noexcept { return redist::detail::ceil_div(n, c.g); }

namespace detail {
/// The walk of algorithm basic_cycle_calculation (lines 7-11 and 25-29) for one side: `mine` is
/// this side's meta factor, `other` the other side's, position(k) the pattern position of the
/// first meta-element of this side's section k (eq. 1 or 2). Each section of `mine`
/// meta-elements is cut where the other side's pattern array changes process; consecutive pieces
/// that continue each other on both sides (and globally) are merged. Pieces at global meta-index
/// >= limit (past the end of a short array) are left out. O(number of sections).
template <class Position, class Emit>
constexpr void walk_sections(const BasicCycle& c, int rank, index_t mine, index_t other, index_t limit,
                             Position&& position, Emit&& emit) {
  const index_t m = c.nprocs;
  const index_t wrap = m * other;  // length of the other side's pattern array
  Section cur;
  for (index_t k = 1; k <= other; ++k) {   // BC / mine = other sections
    const index_t g0 = (k - 1) * m * mine + rank * mine;  // global meta-index of the section's start
    if (g0 >= limit) break;
    index_t p = position(k) - 1;  // 0-based pattern position
    index_t left = std::min(mine, limit - g0);
    index_t local = (k - 1) * mine, g = g0;
    while (left > 0) {
      const index_t len = std::min(left, other - p % other);
      const int peer = static_cast<int>(p / other);
      const index_t peer_offset = (g / wrap) * other + g % other;
      if (cur.len > 0 && cur.peer == peer && cur.end() == local && cur.peer_offset + cur.len == peer_offset &&
          cur.global + cur.len == g) {
        cur.len += len;
      } else {
        if (cur.len > 0) emit(cur);
        cur = Section{local, len, peer, peer_offset, g};
      }
      p = (p + len) % wrap;
      g += len;
      local += len;
      left -= len;
    }
  }
  if (cur.len > 0) emit(cur);
}
}  // namespace detail

/// The sections of the send template of rank i (its first basic cycle), in local order:
/// eq. (1) gives the first DDPP of each source section, DDPA the destination, and the
/// destination changes where the DDPP crosses a multiple of tm. O(sm + tm), not O(BC).
/// `limit` (meta-elements of the array, meta_size(c, n)) leaves out what a short array lacks.
template <class Emit>
constexpr void send_sections(const BasicCycle& c, int rank, Emit&& emit,
                             index_t limit = std::numeric_limits<index_t>::max()) {
  detail::walk_sections(c, rank, c.sm, c.tm, limit, [&](index_t k) { return section_ddpp(c, rank, k); }, emit);
}

/// The sections of the receive template of rank j, in local order (eq. 2, SDPA).
template <class Emit>
constexpr void receive_sections(const BasicCycle& c, int rank, Emit&& emit,
                                index_t limit = std::numeric_limits<index_t>::max()) {
  detail::walk_sections(c, rank, c.tm, c.sm, limit, [&](index_t k) { return section_sdpp(c, rank, k); }, emit);
}

/// The send template of rank i: out[k] = the destination of meta-element k (0-based) of its
/// first basic cycle (Figure 4). out.size() must be BC. The same function fills a
/// static constexpr std::array at compile time and a std::vector at run time.
constexpr void send_template(const BasicCycle& c, int rank, std::span<int> out) {
  if (static_cast<index_t>(out.size()) != c.bc)
    redist::detail::report_error("redist::index::send_template(c, rank, out) requires out to have BC entries");
  send_sections(c, rank, [&](const Section& s) {
    for (index_t l = 0; l < s.len; ++l) out[static_cast<std::size_t>(s.offset + l)] = s.peer;
  });
}

/// The receive template of rank j: out[k] = the source of meta-element k of its first basic
/// cycle (Figure 6). out.size() must be BC.
constexpr void receive_template(const BasicCycle& c, int rank, std::span<int> out) {
  if (static_cast<index_t>(out.size()) != c.bc)
    redist::detail::report_error("redist::index::receive_template(c, rank, out) requires out to have BC entries");
  receive_sections(c, rank, [&](const Section& s) {
    for (index_t l = 0; l < s.len; ++l) out[static_cast<std::size_t>(s.offset + l)] = s.peer;
  });
}

/// The destinations of rank i's first basic cycle in order of first appearance (BCC's send
/// order, seed 000 Sec. 3A), i itself included where it keeps data: out(p) for each. The walk of
/// send_sections, without building the sections, stopping once all M processes have appeared.
/// Pieces at global meta-index >= limit are left out.
template <class Out>
constexpr void send_destinations(const BasicCycle& c, int rank, Out&& out,
                                 index_t limit = std::numeric_limits<index_t>::max()) {
  const index_t m = c.nprocs, wrap = m * c.tm;
  std::vector<char> seen(static_cast<std::size_t>(m), 0);
  int found = 0;
  for (index_t k = 1; k <= c.tm; ++k) {
    const index_t g0 = (k - 1) * m * c.sm + rank * c.sm;
    if (g0 >= limit) break;
    index_t p = section_ddpp(c, rank, k) - 1;
    for (index_t left = std::min(c.sm, limit - g0); left > 0;) {
      const index_t len = std::min(left, c.tm - p % c.tm);
      const auto peer = static_cast<std::size_t>(p / c.tm);
      if (!seen[peer]) {
        seen[peer] = 1;
        out(static_cast<int>(peer));
        if (++found == c.nprocs) return;
      }
      p = (p + len) % wrap;
      left -= len;
    }
  }
}

/// Number of send (receive) sections of rank i: sizes the static tables.
constexpr std::size_t count_send_sections(const BasicCycle& c, int rank) {
  std::size_t n = 0;
  send_sections(c, rank, [&](const Section&) { ++n; });
  return n;
}
constexpr std::size_t count_receive_sections(const BasicCycle& c, int rank) {
  std::size_t n = 0;
  receive_sections(c, rank, [&](const Section&) { ++n; });
  return n;
}

}  // namespace redist::index

namespace redist {

namespace detail {
inline std::atomic<std::size_t>& tables_built_counter() noexcept {
  static std::atomic<std::size_t> count{0};
  return count;
}
}  // namespace detail

/// How many times this process has computed basic-cycle templates at run time: a BCC plan built
/// without static tables, or the GDM model's look at rank 0's template (schedule::automatic on a
/// Cyclic pair). A 1-D Cyclic<S> -> Cyclic<T> pair whose process count is static
/// (DistArray<T, Cyclic<S>, Grid<P>>) takes its templates from BasicCyclePlan<S, T, P>'s static
/// tables and does not move it (while BC · P <= max_static_table); nor does a dimension of an N-D
/// layout of Cyclic<S> -> Cyclic<T> whose grid extent is static (index::cycle_table).
inline std::size_t tables_built() noexcept { return detail::tables_built_counter().load(); }

/// Largest BC · P for which BasicCyclePlan<S, T, P> keeps its send and receive templates as
/// static constexpr tables (16384 entries: 64 KiB per table of int, well under a second of
/// compile time). Above it, the tables are built at plan time by the same functions.
inline constexpr index_t max_static_table = index_t{1} << 14;

namespace detail {
template <std::size_t S, std::size_t T, std::size_t P>
inline constexpr bool tabulate_basic_cycle =
    P != dynamic && index::basic_cycle(static_cast<index_t>(S), static_cast<index_t>(T)) <=
                        max_static_table / static_cast<index_t>(P);

template <std::size_t S, std::size_t T, std::size_t P>
inline constexpr index::BasicCycle static_shape{static_cast<index_t>(S), static_cast<index_t>(T), static_cast<int>(P)};

/// Which template a table holds.
enum class template_side { send, receive };

/// Every rank's send or receive template, filled by index::send_template / receive_template.
template <std::size_t S, std::size_t T, std::size_t P, template_side Side>
constexpr auto make_templates() {
  constexpr const index::BasicCycle& c = static_shape<S, T, P>;
  std::array<std::array<int, static_cast<std::size_t>(c.bc)>, P> a{};
  for (std::size_t r = 0; r < P; ++r) {
    if constexpr (Side == template_side::send) index::send_template(c, static_cast<int>(r), a[r]);
    else index::receive_template(c, static_cast<int>(r), a[r]);
  }
  return a;
}

/// Where each rank's sections start in the flat section table.
template <std::size_t S, std::size_t T, std::size_t P, template_side Side>
constexpr auto make_section_begin() {
  constexpr const index::BasicCycle& c = static_shape<S, T, P>;
  std::array<std::size_t, P + 1> b{};
  for (std::size_t r = 0; r < P; ++r)
    b[r + 1] = b[r] + (Side == template_side::send ? index::count_send_sections(c, static_cast<int>(r))
                            : index::count_receive_sections(c, static_cast<int>(r)));
  return b;
}

/// Every rank's sections, one after the other.
template <std::size_t S, std::size_t T, std::size_t P, template_side Side, std::size_t N>
constexpr auto make_section_table() {
  constexpr const index::BasicCycle& c = static_shape<S, T, P>;
  std::array<index::Section, N> a{};
  std::size_t i = 0;
  for (std::size_t r = 0; r < P; ++r) {
    auto put = [&](const index::Section& x) { a[i++] = x; };
    if constexpr (Side == template_side::send) index::send_sections(c, static_cast<int>(r), put);
    else index::receive_sections(c, static_cast<int>(r), put);
  }
  return a;
}

template <std::size_t S, std::size_t T, std::size_t P, bool Tabulated = tabulate_basic_cycle<S, T, P>>
struct basic_cycle_tables {};

template <std::size_t S, std::size_t T, std::size_t P>
struct basic_cycle_tables<S, T, P, true> {
  /// send_templates[i][k]: the destination of meta-element k of rank i's first basic cycle (Figure 4).
  static constexpr auto send_templates = make_templates<S, T, P, template_side::send>();
  /// receive_templates[j][k]: the source of meta-element k of rank j's first basic cycle (Figure 6).
  static constexpr auto receive_templates = make_templates<S, T, P, template_side::receive>();
  /// The same templates as sections: rank r's are [section_begin[r], section_begin[r + 1]).
  static constexpr auto send_section_begin = make_section_begin<S, T, P, template_side::send>();
  static constexpr auto receive_section_begin = make_section_begin<S, T, P, template_side::receive>();
  static constexpr auto send_section_table = make_section_table<S, T, P, template_side::send, send_section_begin[P]>();
  static constexpr auto receive_section_table = make_section_table<S, T, P, template_side::receive, receive_section_begin[P]>();
};
}  // namespace detail

namespace index {

/// Sections of a template clipped to an array of n elements: the meta-elements at global
/// meta-index meta_size(c, n) and beyond are left out, so static tables (made for any n) and
/// templates computed for this n give the same sections.
template <class Sections>
std::vector<Section> clip_sections(const BasicCycle& c, index_t n, const Sections& secs) {
  const index_t limit = meta_size(c, n);
  std::vector<Section> out;
  for (Section s : secs) {
    if (s.global >= limit) continue;
    s.len = std::min(s.len, limit - s.global);
    out.push_back(s);
  }
  return out;
}

/// Which side of a pair a rank's template is: the sender's (send template: runs read its source)
/// or the receiver's (receive template: runs write its destination).
enum class side { sender, receiver };

/// The runs of this rank's clipped template sections `secs` (clip_sections), appended to
/// runs[peer] per peer: every section as one run of stride lcm(s, t) over the full basic cycles of
/// an n-element array, then the clipped pieces of the ragged last period. Sender and receiver list
/// the pieces of a pair in the same (global) order. pc[peer] += the section's elements in one full
/// cycle (in all, when there is none). These are the runs of the LDD intersection of the pair's
/// CYCLIC(s) and CYCLIC(t) LDDs, from the templates (seed 000) instead of a scan (seed 003).
template <class RunsOf>
void section_runs_to(const BasicCycle& c, index_t n, std::span<const Section> secs, side who, RunsOf&& runs_of,
                     std::vector<index_t>* pc) {
  const index_t g = c.g, cyc = c.cycle(), period = c.period();
  const index_t full = n / period, tail_base = full * period;
  auto tail_len = [&](const Section& s) { return std::clamp<index_t>(n - (tail_base + s.global * g), 0, s.len * g); };
  auto run = [&](index_t mine, index_t theirs, index_t len, index_t stride, index_t count) {
    return who == side::sender ? Run{mine, theirs, len, stride, stride, count} : Run{theirs, mine, len, stride, stride, count};
  };
  for (const Section& s : secs) {
    const auto p = static_cast<std::size_t>(s.peer);
    if (full > 0) append_run(runs_of(s.peer), run(s.offset * g, s.peer_offset * g, s.len * g, cyc, full));
    if (pc != nullptr) (*pc)[p] += full > 0 ? s.len * g : tail_len(s);
  }
  for (const Section& s : secs) {
    const index_t len = tail_len(s);
    if (len > 0)
      append_run(runs_of(s.peer), run(full * cyc + s.offset * g, full * cyc + s.peer_offset * g, len, len, 1));
  }
}
inline void section_runs(const BasicCycle& c, index_t n, std::span<const Section> secs, side who,
                         std::vector<std::vector<Run>>& runs, std::vector<index_t>* pc = nullptr) {
  section_runs_to(c, n, secs, who, [&](int p) -> std::vector<Run>& { return runs[static_cast<std::size_t>(p)]; }, pc);
}

/// Rank `me`'s send (sender) or receive (receiver) template sections of CYCLIC(s) -> CYCLIC(t) on
/// the M processes of c, clipped to n elements: from the static tables of (S, T, P) when all three
/// are given and small enough (redist::detail::basic_cycle_tables), else computed now (which
/// tables_built counts).
template <std::size_t S = dynamic, std::size_t T = dynamic, std::size_t P = dynamic>
std::vector<Section> template_sections(const BasicCycle& c, index_t n, int me, side who) {
  if constexpr (S != dynamic && T != dynamic && P != dynamic) {
    if constexpr (redist::detail::tabulate_basic_cycle<S, T, P>) {
      using tables = redist::detail::basic_cycle_tables<S, T, P>;
      const auto u = static_cast<std::size_t>(me);
      if (who == side::sender)
        return clip_sections(c, n, std::span<const Section>(tables::send_section_table.data() + tables::send_section_begin[u],
                                                            tables::send_section_begin[u + 1] - tables::send_section_begin[u]));
      return clip_sections(c, n, std::span<const Section>(tables::receive_section_table.data() + tables::receive_section_begin[u],
                                                          tables::receive_section_begin[u + 1] - tables::receive_section_begin[u]));
    }
  }
  ++redist::detail::tables_built_counter();
  std::vector<Section> secs;
  auto put = [&](const Section& x) { secs.push_back(x); };
  if (who == side::sender) send_sections(c, me, put, meta_size(c, n));
  else receive_sections(c, me, put, meta_size(c, n));
  return secs;
}

/// The per-dimension run provider of a CYCLIC(s) -> CYCLIC(t) dimension on M processes (the
/// same M on both sides), n elements: runs[v] = the runs between process `me` of this side and
/// process v of the other, from the basic-cycle templates (static tables when S, T and P are
/// given). The plan builder asks it for a dimension of an N-D layout whose pair is Cyclic to Cyclic
/// (plan/plan.hpp); it gives the same runs as the LDD intersection of the dimension.
template <std::size_t S = dynamic, std::size_t T = dynamic, std::size_t P = dynamic>
void cycle_table(index_t s, index_t t, int nprocs, index_t n, int me, side who, PeerRuns& runs) {
  const BasicCycle c(s, t, nprocs);
  runs = {};
  const std::vector<Section> secs = template_sections<S, T, P>(c, n, me, who);
  // The sections' peers, each given a slot on first sight (a template names few of the P processes).
  std::unordered_map<int, std::size_t> slot;
  section_runs_to(c, n, secs, who, [&](int p) -> std::vector<Run>& {
    const auto [it, added] = slot.try_emplace(p, runs.runs.size());
    if (added) {
      runs.peers.push_back(p);
      runs.runs.emplace_back();
    }
    return runs.runs[it->second];
  }, nullptr);
  runs.sort();
}

}  // namespace index

}  // namespace redist
