/// @file Defines the layout concepts the plan builder takes (LinearLayout, GridLayout, GridSource), Transposed, and the rank-1 grid view of a 1-D layout.
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <optional>
#include <span>
#include <utility>
#include <type_traits>

#include <redist/detail/math.hpp>
#include <redist/dist/grid.hpp>
#include <redist/dist/ldd.hpp>
#include <redist/dist/partial.hpp>
#include <redist/dist/replicated.hpp>

namespace redist {

/// A bound 1-D layout (the mapping of Block, Cyclic<X>, GenBlock, or a user distribution).
template <class M>
concept LinearLayout = requires(const M& m, int p) {
  { m.ldds(p) } -> LddRange;
  { m.nprocs() } -> std::same_as<int>;
};

/// True for a bound N-D layout (Dist<D...>::mapping, or a view of one such as Transposed).
template <class M>
concept GridLayout = requires(const M& m, int r, std::size_t d) {
  { M::rank() } -> std::convertible_to<std::size_t>;
  { m.coords_of(r) };
  { m.ldds(d, r) } -> LddRange;
  { m.strides(r) };
  { m.fastest() } -> std::convertible_to<std::size_t>;
  { m.nprocs() } -> std::same_as<int>;
};

/// The layout M seen with its dimensions permuted: dimension k of the view is dimension perm[k]
/// of M. For a 2-D M, Transposed<M>{m} (perm = {1, 0}) is the layout of transpose(a): its element
/// (i, j) is a's element (j, i), stored where a stores it.
template <class M>
struct Transposed {
  using base_type = M;
  M base;
  static constexpr std::size_t rank() noexcept { return M::rank(); }
  friend bool operator==(const Transposed&, const Transposed&) = default;
  index_t size() const noexcept { return base.size(); }
  int nprocs() const noexcept { return base.nprocs(); }
  std::uint64_t fingerprint() const { return ~base.fingerprint(); }
};

namespace detail {
template <class M>
struct grid_view {
  static constexpr std::size_t N = M::rank();
  const M& m;
  std::array<std::size_t, N> perm;  // view dimension k is m's dimension perm[k]
};
template <class M>
constexpr grid_view<M> view_of(const M& m) {
  grid_view<M> v{m, {}};
  std::iota(v.perm.begin(), v.perm.end(), std::size_t{0});
  return v;
}
template <class M>
constexpr grid_view<M> view_of(const Transposed<M>& t) {
  grid_view<M> v{t.base, {}};
  for (std::size_t k = 0; k < M::rank(); ++k) v.perm[k] = M::rank() - 1 - k;
  return v;
}
template <class M>
constexpr const M& base_of(const M& m) { return m; }
template <class M>
constexpr const M& base_of(const Transposed<M>& t) { return t.base; }
}  // namespace detail

namespace detail {
template <class M>
inline constexpr bool is_transposed = false;
template <class M>
inline constexpr bool is_transposed<Transposed<M>> = true;
}  // namespace detail

/// A source layout of an N-D redistribution: a grid layout or a transposed one.
template <class M>
concept GridSource = GridLayout<M> || (detail::is_transposed<M> && GridLayout<typename M::base_type>);

namespace detail {
/// True for a layout whose elements on a rank start at a local offset of their own, m.origin(r)
/// (a section that drops dimensions: SectionLayout, plan/sectioned.hpp).
template <class M>
concept HasOrigin = requires(const M& m, int r) {
  { m.origin(r) } -> std::convertible_to<index_t>;
};
/// The local offset of rank r's elements of m: m.origin(r), or 0 for a layout without one.
template <class M>
constexpr index_t origin_of(const M& m, int r) {
  if constexpr (HasOrigin<M>) return m.origin(r);
  else return (void)m, (void)r, 0;
}
}  // namespace detail


namespace detail {
/// The 1-D distribution of the one dimension of a rank-1 grid layout without origin (the layout
/// of a 1-D array: Dist<D>::basic_mapping gives D), or void for any other layout. The planners
/// look through it to the 1-D schedules of D (as_cyclic, as_gen_block).
template <class M>
struct rank_one_distribution {
  using type = void;
};
template <class M>
  requires GridLayout<M> && (M::rank() == 1) && (!HasOrigin<M>) && requires(const M& m) {
    typename M::distribution_type;
    m.is_linear();
    m.linear();
  }
struct rank_one_distribution<M> {
  using type = std::remove_cvref_t<decltype(std::declval<const typename M::distribution_type&>().template get<0>())>;
};
template <class M>
using rank_one_distribution_t = typename rank_one_distribution<M>::type;
}  // namespace detail

namespace detail {
/// A 1-D layout seen as what it is, the rank-1 grid layout of its processes: grid coordinate c
/// is rank c, local storage is tight. The plan builder and the transfer list take 1-D layouts
/// through it, so that a 1-D run is the rank-1 case of a section.
template <LinearLayout M>
struct rank_one {
  struct line {
    int nprocs;
    constexpr int extent(std::size_t) const noexcept { return nprocs; }
  };
  const M& m;
  static constexpr std::size_t rank() noexcept { return 1; }
  constexpr int nprocs() const noexcept { return m.nprocs(); }
  constexpr index_t extent(std::size_t) const noexcept { return m.size(); }
  constexpr line grid() const noexcept { return {m.nprocs()}; }
  constexpr Storage storage() const noexcept { return {}; }
  constexpr std::optional<std::array<int, 1>> coords_of(int r) const noexcept { return std::array<int, 1>{r}; }
  constexpr decltype(auto) ldds(std::size_t, int c) const { return m.ldds(c); }
  constexpr std::array<index_t, 1> strides(int) const noexcept { return {1}; }
  constexpr std::size_t fastest() const noexcept { return 0; }
};

/// Whether the 1-D mapping m is Replicated's (copies) or Partial's: from its type, or at run time
/// for one that holds a mapping chosen then (AnyDist's get_if; its partial values are sums).
template <class M>
constexpr bool replicated_mapping_of(const M& m) noexcept {
  if constexpr (replicated_mapping<M>) return true;
  else if constexpr (requires { m.template get_if<Replicated::mapping>(); }) return m.template get_if<Replicated::mapping>() != nullptr;
  else return false;
}
template <class M>
constexpr bool partial_mapping_of(const M& m) noexcept {
  if constexpr (partial_mapping<M>) return true;
  else if constexpr (requires { m.template get_if<Partial<>::mapping>(); }) return m.template get_if<Partial<>::mapping>() != nullptr;
  else return false;
}

/// test(m) of the 1-D mapping m of dimension d of layout l; false for a layout that does not show
/// its mappings.
template <class M, class Test>
constexpr bool dimension_is(const rank_one<M>& l, std::size_t, Test&& test) {
  return test(l.m);
}
template <class L, class Test>
constexpr bool dimension_is(const L& l, std::size_t d, Test&& test) {
  bool is = false;
  if constexpr (requires { l.visit_dimension(d, [](const auto&, auto) {}); })
    l.visit_dimension(d, [&](const auto& m, auto) { is = test(m); });
  return is;
}
/// Whether dimension d of layout l is held in copies along its grid dimension (Replicated).
template <class L>
constexpr bool held_in_copies(const L& l, std::size_t d) {
  return dimension_is(l, d, [](const auto& m) { return replicated_mapping_of(m); });
}
/// Whether dimension d of layout l holds partial values (Partial).
template <class L>
constexpr bool held_partially(const L& l, std::size_t d) {
  return dimension_is(l, d, [](const auto& m) { return partial_mapping_of(m); });
}

/// Whether some dimension of l is held in copies (a section: of its base, kept or dropped; a
/// transposed layout: of the layout it permutes).
template <class L>
constexpr bool any_copies(const L& l) {
  if constexpr (requires { l.any_copies(); }) {
    return l.any_copies();
  } else if constexpr (is_transposed<L>) {
    return any_copies(l.base);
  } else {
    for (std::size_t d = 0; d < L::rank(); ++d)
      if (held_in_copies(l, d)) return true;
    return false;
  }
}
/// Whether a plan's source layout holds some dimension in copies among which its readers choose
/// (an N-D layout, a section or a transposed one: any_copies; a bare 1-D mapping's copies are
/// every rank's own).
template <class L>
constexpr bool reads_copies(const L& l) {
  if constexpr (GridSource<L>) return any_copies(l);
  else return (void)l, false;
}
/// Whether some dimension of l holds partial values (a 1-D mapping: whether it does; a section:
/// its base, kept or dropped; a transposed layout: the layout it permutes).
template <class L>
constexpr bool any_partial(const L& l) {
  if constexpr (requires { l.any_partial(); }) {
    return l.any_partial();
  } else if constexpr (is_transposed<L>) {
    return any_partial(l.base);
  } else if constexpr (!requires { L::rank(); }) {
    return partial_mapping_of(l);
  } else {
    for (std::size_t d = 0; d < L::rank(); ++d)
      if (held_partially(l, d)) return true;
    return false;
  }
}
/// Whether rank r receives the elements of destination layout l: it is in l's grid and, along
/// every dimension of partial values, it is the dimension's process 0 (the others hold Op's
/// identity, which the array layer writes). A section asks its base.
template <class L>
constexpr bool receives(const L& l, int r) {
  if constexpr (requires { l.receives(r); }) {
    return l.receives(r);
  } else {
    const auto c = l.coords_of(r);
    if (!c) return false;
    for (std::size_t d = 0; d < L::rank(); ++d) {
      if (!held_partially(l, d)) continue;
      int offset = 0;
      if constexpr (requires { l.offsets(); }) offset = l.offsets()[d];
      if (floor_mod((*c)[d] - offset, l.grid().extent(d)) != 0) return false;
    }
    return true;
  }
}

/// The nodes by which the plans built on this thread read a source held in copies: per rank of
/// the communicator, the number of its node (the same on every rank), or empty when not known.
/// Set for the plans of one communicator by a replica_nodes_scope (the array layer's, which knows
/// the communicator's nodes); detail::serves reads it. A plan stays a function of its layouts,
/// its rank and these numbers, so that sender and receiver still decide alike.
inline std::span<const int>& replica_nodes() noexcept {
  thread_local std::span<const int> nodes;
  return nodes;
}
/// While it lives, the plans built on this thread read copies by `nodes` (replica_nodes; the
/// previous numbers come back when it ends).
class replica_nodes_scope {
 public:
  explicit replica_nodes_scope(std::span<const int> nodes) noexcept : saved_{replica_nodes()} { replica_nodes() = nodes; }
  replica_nodes_scope(const replica_nodes_scope&) = delete;
  replica_nodes_scope& operator=(const replica_nodes_scope&) = delete;
  ~replica_nodes_scope() { replica_nodes() = saved_; }

 private:
  std::span<const int> saved_;
};

/// Whether rank s holds the copy of layout l's elements that rank r reads, when l holds some
/// dimensions in copies (any_copies). Along those dimensions the copies of s's elements are the
/// grid coordinates that differ from s's only there; r reads one of them:
///  - the default: the one at r's own coordinates when r is in l's grid (what r holds already
///    stays where it is), else at r modulo the copies' extents (readers outside the grid spread
///    over the copies);
///  - with the nodes known (replica_nodes), the default when it is on r's node, else the first
///    copy on r's node counted from the default on (cyclically in each copy dimension: readers of
///    one node spread over its copies), else the default: a copy on the reader's node is read
///    through that node's memory, never across the network.
/// A pure function of the layout, the two ranks and the nodes: the sender and the receiver of a
/// plan decide it alike. A section asks its base, a transposed layout the layout it permutes (the
/// same ranks hold the same copies).
template <class L>
bool serves(const L& l, int s, int r) {
  if constexpr (requires { l.serves(s, r); }) {
    return l.serves(s, r);
  } else if constexpr (is_transposed<L>) {
    return serves(l.base, s, r);
  } else {
    const auto cs = l.coords_of(s);
    if (!cs) return false;
    const auto cr = l.coords_of(r);
    auto chosen = *cs;
    bool copies = false;
    for (std::size_t d = 0; d < L::rank(); ++d)
      if (held_in_copies(l, d)) {
        chosen[d] = cr ? (*cr)[d] : r % l.grid().extent(d);
        copies = true;
      }
    if (!copies) return true;
    if constexpr (requires { l.grid().rank_of(chosen); }) {
      const std::span<const int> nodes = replica_nodes();
      const auto node = [&](int q) { return nodes[static_cast<std::size_t>(q)]; };
      if (std::cmp_equal(nodes.size(), l.nprocs()) && node(l.grid().rank_of(chosen)) != node(r)) {
        // The other copies, an odometer over the copy dimensions counted from the default on.
        auto c = chosen;
        std::array<int, L::rank()> step{};
        for (;;) {
          std::size_t d = 0;
          for (; d < L::rank(); ++d) {
            if (!held_in_copies(l, d)) continue;
            const int e = l.grid().extent(d);
            if (++step[d] < e) break;
            step[d] = 0;
          }
          if (d == L::rank()) break;  // every copy tried: none on r's node
          for (std::size_t k = 0; k < L::rank(); ++k)
            if (held_in_copies(l, k)) c[k] = (chosen[k] + step[k]) % l.grid().extent(k);
          if (node(l.grid().rank_of(c)) == node(r)) {
            chosen = c;
            break;
          }
        }
      }
    }
    return chosen == *cs;
  }
}
}  // namespace detail

}  // namespace redist
