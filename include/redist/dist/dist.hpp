/// @file Defines Dist<D...>, an N-D distribution (one 1-D distribution per dimension) and its mapping onto a Grid.
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>

#include <redist/detail/hash.hpp>
#include <redist/detail/math.hpp>
#include <redist/dist/fingerprint.hpp>
#include <redist/dist/distribution.hpp>
#include <redist/dist/grid.hpp>
#include <redist/dist/ldd.hpp>

namespace redist {

namespace detail {
/// True for a 1-D distribution whose mapping lists indices (Indirect).
template <class D>
inline constexpr bool indirect_dimension = requires { requires D::mapping::indirect; };
}  // namespace detail

/// An N-D distribution: dimension d is distributed by D_d over dimension d of a process grid
/// (HPF's `DISTRIBUTE A(CYCLIC(64), BLOCK) ONTO G`). Collapsed (HPF `*`) leaves a dimension
/// undistributed. `Dist<Cyclic<64>, Cyclic<64>>{}` when every D is static,
/// `Dist{Cyclic<>{k}, Block{}}` otherwise.
template <class... D>
class Dist {
  static_assert(sizeof...(D) >= 1, "redist::Dist<D...> requires at least one dimension");
  static_assert((enable_distribution<D> && ...),
                "redist::Dist<D...> requires every D to be a 1-D redist distribution (Block, Cyclic<X>, GenBlock, "
                "Collapsed, or a type declaring `using distribution_concept = redist::distribution_tag;`)");
  static_assert(sizeof...(D) == 1 || !(detail::indirect_dimension<D> || ...),
                "redist::Indirect is a 1-D layout: declare DistArray<T, Indirect<...>>, not a dimension of Dist<D...>");

 public:
  static constexpr std::size_t rank() noexcept { return sizeof...(D); }

  constexpr Dist() requires(std::default_initializable<D> && ...) = default;
  constexpr explicit Dist(const D&... d) : dims_{d...} {}

  /// The distribution of dimension I.
  template <std::size_t I>
  constexpr const auto& get() const noexcept {
    return std::get<I>(dims_);
  }

  friend constexpr bool operator==(const Dist&, const Dist&) = default;

  /// Dist bound to extents and a grid (see below). G is the grid type it keeps, X the array's
  /// extents as a type (Extents<E...>, or void: all dynamic): what is static in them stays static
  /// in the layout's type, down to the plan.
  template <class G = DynamicGrid<sizeof...(D)>, class X = void>
  class basic_mapping;
  /// The layout with a dynamic grid and dynamic extents.
  using mapping = basic_mapping<>;

 private:
  std::tuple<D...> dims_;
};

template <class... D>
Dist(D...) -> Dist<D...>;

namespace detail {
/// True for Dist<D...>.
template <class D>
inline constexpr bool is_dist = false;
template <class... D>
inline constexpr bool is_dist<Dist<D...>> = true;
}  // namespace detail

/// Dist<D...> bound to global extents, a grid (with per-dimension source offsets: the grid
/// coordinate that holds the first block, ScaLAPACK's RSRC/CSRC) and a local storage, on a
/// communicator of nprocs ranks. Answers owner, local offset and global index per element and,
/// per dimension and grid coordinate, the LDDs (the 1-D distribution's, with the offset applied).
/// The grid is kept as a G (static extents stay static: grid_type::static_extent(d)), and the
/// extents static in X are checked against the extents given (static_extent(d)).
template <class... D>
template <class G, class X>
class Dist<D...>::basic_mapping {
 public:
  static constexpr std::size_t N = sizeof...(D);
  using extents_type = std::array<index_t, N>;
  using coords_type = std::array<int, N>;
  using grid_type = G;
  using distribution_type = Dist;
  static_assert(G::rank() == N, "redist::Dist<D...>::basic_mapping<G, X> requires a grid type of the same rank as the distribution");
  static_assert([] {
    if constexpr (std::is_void_v<X>) return true;
    else return X::rank() == N;
  }(), "redist::Dist<D...>::basic_mapping<G, X> requires X to be redist::Extents<E...> of the same rank as the distribution");

  static constexpr std::size_t rank() noexcept { return N; }
  /// Extent d as the type states it (X's), or `dynamic`.
  static constexpr std::size_t static_extent(std::size_t d) noexcept {
    if constexpr (std::is_void_v<X>) return (void)d, dynamic;
    else return X::static_extent(d);
  }

  template <std::size_t... E>
  constexpr basic_mapping(const Dist& dist, const extents_type& extents, const Grid<E...>& grid,
                          const coords_type& offsets, Storage storage, int nprocs)
      : extents_{extents}, grid_{as_grid(grid)}, offsets_{offsets}, storage_{storage}, nprocs_{nprocs},
        maps_{bind(dist, extents, grid, std::index_sequence_for<D...>{})} {
    static_assert(sizeof...(E) == N, "redist::Dist<D...>::mapping requires a grid of the same rank as the distribution");
    REDIST_EXPECTS(nprocs > 0, "redist::Dist::mapping requires the communicator size to be > 0");
    for (std::size_t d = 0; d < N; ++d)
      REDIST_EXPECTS(static_extent(d) == dynamic || static_cast<index_t>(static_extent(d)) == extents[d],
                     "redist::Dist::mapping requires extent " + std::to_string(d) + " to be its static extent " +
                         std::to_string(static_extent(d)) + " (got " + std::to_string(extents[d]) + ")");
    REDIST_EXPECTS(grid_.end_rank() <= nprocs,
                   "redist::DistArray(comm, extents, grid) requires the grid to fit the communicator (grid of " +
                       std::to_string(grid_.size()) + " processes " +
                       (grid_.rank_map().empty() ? "from rank " + std::to_string(grid_.first())
                                                 : "up to rank " + std::to_string(grid_.end_rank() - 1)) +
                       ", communicator of " + std::to_string(nprocs) + ")");
    for (std::size_t d = 0; d < N; ++d) {
      REDIST_EXPECTS(extents[d] >= 0, "redist::DistArray(comm, extents, grid) requires every extent to be >= 0");
      REDIST_EXPECTS(offsets[d] >= 0 && offsets[d] < grid_.extent(d),
                     "redist::DistArray(comm, extents, grid, offsets) requires offsets[" + std::to_string(d) +
                         "] to be in [0, grid extent " + std::to_string(grid_.extent(d)) + ")");
    }
    REDIST_EXPECTS(storage.ld >= 0, "redist::Storage requires ld to be >= 0");
    size_ = 1;
    for (index_t e : extents) size_ = detail::checked_mul(size_, e, "the global size of an N-D array");
  }

  constexpr index_t size() const noexcept { return size_; }
  constexpr const extents_type& extents() const noexcept { return extents_; }
  constexpr index_t extent(std::size_t d) const noexcept { return extents_[d]; }
  /// Ranks of the communicator (the grid may use fewer).
  constexpr int nprocs() const noexcept { return nprocs_; }
  constexpr const grid_type& grid() const noexcept { return grid_; }
  constexpr const coords_type& offsets() const noexcept { return offsets_; }
  constexpr const Storage& storage() const noexcept { return storage_; }
  /// The dimension that varies fastest in local storage.
  constexpr std::size_t fastest() const noexcept { return storage_.order == Order::column_major ? 0 : N - 1; }

  constexpr std::optional<coords_type> coords_of(int r) const noexcept { return grid_.coords_of(r); }

  /// A rank-1 layout whose grid is the whole communicator from rank 0, with no source offset and
  /// tight storage: it places every element where its 1-D distribution on nprocs() processes
  /// does (linear()), so the 1-D plans of that distribution apply to it.
  constexpr bool is_linear() const noexcept
    requires(N == 1)
  {
    return grid_.first() == 0 && grid_.rank_map().empty() && grid_.size() == nprocs_ && offsets_[0] == 0 &&
           storage_.ld == 0;
  }
  /// The 1-D mapping of a rank-1 layout (D::mapping on grid extent 0 processes).
  constexpr const auto& linear() const noexcept
    requires(N == 1)
  {
    return std::get<0>(maps_);
  }
  /// The same, to set what its array makes of it (an Indirect layout's directory).
  constexpr auto& linear() noexcept
    requires(N == 1)
  {
    return std::get<0>(maps_);
  }

  /// The 1-D mapping of dimension d applied at grid coordinate c: f(mapping, virtual process).
  template <class F>
  constexpr decltype(auto) visit(std::size_t d, int c, F&& f) const {
    const int v = static_cast<int>(detail::floor_mod(c - offsets_[d], grid_.extent(d)));
    return visit_impl(d, v, f, std::index_sequence_for<D...>{});
  }
  /// f(mapping, extent) with dimension d's 1-D mapping as its type states it (D_d::mapping, bound to
  /// the grid's extent along d) and that extent as std::integral_constant<std::size_t,
  /// grid_type::static_extent(d)> (`dynamic` when the grid's type does not hold it): the typed visit
  /// with which the planners specialize a dimension (basic-cycle tables for Cyclic<S> -> Cyclic<T>).
  template <class F>
  constexpr void visit_dimension(std::size_t d, F&& f) const {
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      ((I == d ? (f(std::get<I>(maps_), std::integral_constant<std::size_t, G::static_extent(I)>{}), 0) : 0), ...);
    }(std::index_sequence_for<D...>{});
  }
  /// The LDDs of a dimension: an LddSet when every D's mapping gives one (the built-in
  /// distributions), an LddList otherwise.
  using ldds_type = std::conditional_t<(std::same_as<decltype(std::declval<const typename D::mapping&>().ldds(0)), LddSet> && ...),
                                       LddSet, LddList>;
  /// LDDs of dimension d at grid coordinate c, in 1-D local indices of that dimension.
  constexpr ldds_type ldds(std::size_t d, int c) const {
    return visit(d, c, [](const auto& m, int v) {
      if constexpr (std::is_same_v<ldds_type, LddSet>) {
        return m.ldds(v);
      } else {
        LddList list;
        for (const Ldd& l : m.ldds(v)) list.push_back(l);
        return list;
      }
    });
  }
  constexpr index_t local_extent(std::size_t d, int c) const {
    return visit(d, c, [](const auto& m, int v) { return m.local_size(v); });
  }
  /// Local extents of rank r (all zero outside the grid).
  constexpr extents_type local_extents(int r) const {
    extents_type e{};
    if (auto c = coords_of(r))
      for (std::size_t d = 0; d < N; ++d) e[d] = local_extent(d, (*c)[d]);
    return e;
  }
  /// The stride of the second-fastest dimension on rank r: max(storage().ld, local extent of the fastest).
  constexpr index_t leading_dimension(int r) const {
    return std::max(storage_.ld, local_extents(r)[fastest()]);
  }
  /// Element strides of rank r's local storage, per dimension.
  constexpr extents_type strides(int r) const {
    const extents_type e = local_extents(r);
    extents_type s{};
    index_t step = 1;
    for (std::size_t k = 0; k < N; ++k) {
      const std::size_t d = storage_.order == Order::column_major ? k : N - 1 - k;
      s[d] = step;
      step *= k == 0 ? leading_dimension(r) : e[d];
    }
    return s;
  }
  /// Elements of rank r's local storage (with the padding of a leading dimension), 0 when it holds nothing.
  constexpr index_t local_size(int r) const {
    const extents_type e = local_extents(r);
    index_t n = 1;
    for (std::size_t d = 0; d < N; ++d) {
      if (e[d] == 0) return 0;
      n *= d == fastest() ? leading_dimension(r) : e[d];
    }
    return n;
  }

  /// Rank that owns the element at global multi-index g.
  constexpr int owner(const extents_type& g) const {
    coords_type c{};
    for (std::size_t d = 0; d < N; ++d)
      c[d] = static_cast<int>((visit(d, 0, [&](const auto& m, int) { return m.owner(g[d]); }) + offsets_[d]) %
                              grid_.extent(d));
    return grid_.rank_of(c);
  }
  /// Offset in its owner's local storage of the element at global multi-index g.
  constexpr index_t local_offset(const extents_type& g) const {
    const extents_type s = strides(owner(g));
    index_t off = 0;
    for (std::size_t d = 0; d < N; ++d) off += s[d] * visit(d, 0, [&](const auto& m, int) { return m.local_index(g[d]); });
    return off;
  }
  /// Global multi-index of rank r's local element at local multi-index l.
  constexpr extents_type global_index(int r, const extents_type& l) const {
    extents_type g{};
    const auto c = coords_of(r);
    if (!c) detail::report_error("redist::DistArray::global_index(l) requires the rank to be in the grid");
    for (std::size_t d = 0; d < N; ++d) g[d] = visit(d, (*c)[d], [&](const auto& m, int v) { return m.global_index(v, l[d]); });
    return g;
  }

  /// Hash of everything every rank must agree on (not storage().ld, which ScaLAPACK lets differ per process).
  std::uint64_t fingerprint() const {
    using detail::hash_mix;
    std::uint64_t h = detail::hash_string(detail::hash_seed, typeid(basic_mapping).name());
    h = hash_mix(h, static_cast<std::uint64_t>(nprocs_));
    h = hash_mix(h, static_cast<std::uint64_t>(grid_.first()));
    h = hash_mix(h, grid_.rank_map_hash());
    h = hash_mix(h, static_cast<std::uint64_t>(grid_.order()));
    h = hash_mix(h, static_cast<std::uint64_t>(storage_.order));
    for (std::size_t d = 0; d < N; ++d) {
      h = hash_mix(h, static_cast<std::uint64_t>(extents_[d]));
      h = hash_mix(h, static_cast<std::uint64_t>(grid_.extent(d)));
      h = hash_mix(h, static_cast<std::uint64_t>(offsets_[d]));
      for (int c = 0; c < grid_.extent(d); ++c) h = detail::hash_ldds(h, ldds(d, c));
    }
    return h;
  }

  friend constexpr bool operator==(const basic_mapping&, const basic_mapping&) = default;

 private:
  /// grid as a G: the same extents, order and first rank (a static extent of G must match).
  template <std::size_t... E>
  static constexpr G as_grid(const Grid<E...>& grid) {
    if constexpr (G::rank_dynamic() == N) {
      return grid.to_dynamic();
    } else {
      const G g = std::apply([](auto... e) { return G(e...); }, grid.extents());
      return g.placed_as(grid);
    }
  }

  template <std::size_t... E, std::size_t... I>
  static constexpr std::tuple<typename D::mapping...> bind(const Dist& dist, const extents_type& extents, const Grid<E...>& grid,
                                                 std::index_sequence<I...>) {
    return {typename D::mapping(dist.template get<I>(), extents[I], grid.extent(I))...};
  }
  template <class F, std::size_t... I>
  constexpr decltype(auto) visit_impl(std::size_t d, int v, F& f, std::index_sequence<I...>) const {
    using R = decltype(f(std::get<0>(maps_), v));
    if constexpr (std::is_void_v<R>) {
      ((I == d ? (f(std::get<I>(maps_), v), 0) : 0), ...);
    } else {
      R r{};
      ((I == d ? (r = f(std::get<I>(maps_), v), 0) : 0), ...);
      return r;
    }
  }

  extents_type extents_;
  G grid_;
  coords_type offsets_;
  Storage storage_;
  int nprocs_;
  std::tuple<typename D::mapping...> maps_;
  index_t size_ = 0;
};

}  // namespace redist
