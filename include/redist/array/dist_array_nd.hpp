/// @file Defines DistArray<T, Dist<D...>>: an N-D array distributed over a process grid, and transpose(a).
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include <boost/mpi/communicator.hpp>

#include <redist/array/access.hpp>
#include <redist/array/consistency.hpp>
#include <redist/array/options.hpp>
#include <redist/array/plan_cache.hpp>
#include <redist/dist/dist.hpp>
#include <redist/dist/grid.hpp>
#include <redist/plan/grid.hpp>

namespace redist {

template <class T, class D>
class DistArray;

/// What redist::transpose(a) returns: a's values seen as the 2-D array aᵀ, to be assigned
/// (`b = redist::transpose(a)`) or passed to redistribute. It refers to a, copies nothing.
template <class T, class D>
struct TransposeView {
  const DistArray<T, D>& array;
};

/// Defined in redist/array/redistribute.hpp: dst = transpose of the 2-D src.
template <class T, class D, class U, class E, class S = schedule::automatic_t>
void redistribute(const TransposeView<U, E>& src, DistArray<T, D>& dst, S policy = {},
                  const options& opts = default_options());

/// n_0 × ... × n_{N-1} elements of T distributed over a process grid by Dist<D...>: dimension d
/// by D_d over grid dimension d, starting at grid coordinate offsets[d] (ScaLAPACK RSRC/CSRC).
/// Local storage is column-major with leading dimension max(storage.ld, local rows) unless
/// storage says otherwise. Ranks of the communicator outside the grid hold nothing.
/// `b = a` redistributes between any two N-D layouts of the same rank and extents, on any
/// grids of one communicator; the plan is kept, so repeating it does no index work.
template <class T, class... D>
class DistArray<T, Dist<D...>> {
  static_assert(std::is_trivially_copyable_v<T>, "redist::DistArray<T, D> requires T to be trivially copyable");

 public:
  using value_type = T;
  using distribution_type = Dist<D...>;
  using mapping_type = typename Dist<D...>::mapping;
  using extents_type = typename mapping_type::extents_type;
  using coords_type = typename mapping_type::coords_type;
  static constexpr std::size_t rank() noexcept { return sizeof...(D); }

  /// The array of `extents` laid out by dist on grid (on ranks grid.first() ... of comm).
  /// Collective: every rank of comm constructs it with the same arguments (storage.ld may differ,
  /// as ScaLAPACK's LLD); with default_options().check_consistency, one small all-reduce
  /// verifies that, and a bad parameter throws redist::error on every rank.
  template <std::size_t... E>
  DistArray(const boost::mpi::communicator& comm, const extents_type& extents, const Dist<D...>& dist,
            const Grid<E...>& grid, const coords_type& offsets = {}, Storage storage = {})
      : comm_{comm}, mapping_{bind(comm, extents, dist, grid, offsets, storage)}, dist_{dist},
        data_(static_cast<std::size_t>(mapping_.local_size(comm.rank()))) {}

  template <std::size_t... E>
    requires std::default_initializable<Dist<D...>>
  DistArray(const boost::mpi::communicator& comm, const extents_type& extents, const Grid<E...>& grid,
            const coords_type& offsets = {}, Storage storage = {})
      : DistArray(comm, extents, Dist<D...>{}, grid, offsets, storage) {}

  DistArray(const DistArray&) = default;
  DistArray(DistArray&&) noexcept = default;
  DistArray& operator=(DistArray&&) noexcept = default;

  /// Redistributes src's values into this array's layout (which does not change).
  DistArray& operator=(const DistArray& src) {
    if (this != &src) redistribute(src, *this, schedule::automatic);
    return *this;
  }
  template <class U, class E>
  DistArray& operator=(const DistArray<U, E>& src) {
    static_assert(std::is_same_v<U, T>,
                  "redist::DistArray assignment b = a requires a and b to have the same element type");
    redistribute(src, *this, schedule::automatic);
    return *this;
  }
  /// b = transpose(a): b(i, j) = a(j, i), in one redistribution (no intermediate copy).
  template <class U, class E>
  DistArray& operator=(const TransposeView<U, E>& src) {
    static_assert(std::is_same_v<U, T>,
                  "redist::DistArray assignment b = transpose(a) requires a and b to have the same element type");
    redistribute(src, *this, schedule::automatic);
    return *this;
  }

  /// Number of elements of the global array.
  index_t size() const noexcept { return mapping_.size(); }
  const extents_type& extents() const noexcept { return mapping_.extents(); }
  index_t extent(std::size_t d) const noexcept { return mapping_.extent(d); }
  /// This rank's elements in local storage order (with the padding of the leading dimension).
  std::span<T> local() noexcept { return data_; }
  std::span<const T> local() const noexcept { return data_; }
  /// This rank's local extents (all zero outside the grid).
  extents_type local_extents() const { return mapping_.local_extents(comm_.rank()); }
  /// The stride of the second-fastest dimension of local storage (ScaLAPACK's LLD).
  index_t leading_dimension() const { return mapping_.leading_dimension(comm_.rank()); }
  /// Element strides of local storage, per dimension.
  extents_type local_strides() const { return mapping_.strides(comm_.rank()); }
  /// Offset in local() of the local element at local multi-index l.
  index_t local_offset(const extents_type& l) const {
    const extents_type s = local_strides();
    index_t off = 0;
    for (std::size_t d = 0; d < rank(); ++d) off += l[d] * s[d];
    return off;
  }
  /// This rank's grid coordinates, or nothing outside the grid.
  std::optional<coords_type> coords() const noexcept { return mapping_.coords_of(comm_.rank()); }
  /// Global multi-index of this rank's local element at local multi-index l.
  extents_type global_index(const extents_type& l) const { return mapping_.global_index(comm_.rank(), l); }
  /// Rank (in the communicator) that owns the element at global multi-index g.
  int owner(const extents_type& g) const { return mapping_.owner(g); }
  /// Offset of global element g in its owner's local(), as the owner stores it.
  index_t local_index(const extents_type& g) const { return mapping_.local_offset(g); }

  const boost::mpi::communicator& comm() const noexcept { return comm_; }
  const Dist<D...>& distribution() const noexcept { return dist_; }
  const mapping_type& mapping() const noexcept { return mapping_; }
  const typename mapping_type::grid_type& grid() const noexcept { return mapping_.grid(); }

 private:
  friend struct detail::array_access;

  template <std::size_t... E>
  static mapping_type bind(const boost::mpi::communicator& comm, const extents_type& extents, const Dist<D...>& dist,
                           const Grid<E...>& grid, const coords_type& offsets, Storage storage) {
    static_assert(sizeof...(E) == sizeof...(D),
                  "redist::DistArray<T, Dist<D...>>(comm, extents, grid) requires a grid of the same rank as Dist<D...>");
    std::optional<mapping_type> m;
    std::optional<std::string> failure;
    try {
      m.emplace(dist, extents, grid, offsets, storage, comm.size());
      const auto e = m->local_extents(comm.rank());
      const std::size_t fast = m->fastest();
      if (storage.ld != 0 && storage.ld < e[fast])
        detail::report_error("redist::DistArray(comm, extents, grid, offsets, storage) requires storage.ld to be at least "
                             "the local extent of the fastest dimension (" + std::to_string(storage.ld) + " < " +
                             std::to_string(e[fast]) + " on rank " + std::to_string(comm.rank()) + ")");
    } catch (const error& e) {
      failure = e.what();
    }
    if (default_options().check_consistency) {
      std::uint64_t shape = detail::hash_seed;
      for (index_t e : extents) shape = detail::hash_mix(shape, static_cast<std::uint64_t>(e));
      const detail::Parameter params[] = {{"extents", shape},
                                          {"distribution, grid and offsets", m ? m->fingerprint() : 0}};
      detail::agree(comm, "redist::DistArray(comm, extents, grid)", params, failure);
    } else if (failure) {
      detail::report_error(*failure);
    }
    return std::move(*m);
  }

  boost::mpi::communicator comm_;
  mapping_type mapping_;
  Dist<D...> dist_;
  std::vector<T> data_;
  detail::PlanCache cache_;
};

/// The transpose of the 2-D array a, for `b = redist::transpose(a)` or redistribute(transpose(a), b).
template <class T, class... D>
TransposeView<T, Dist<D...>> transpose(const DistArray<T, Dist<D...>>& a) {
  static_assert(sizeof...(D) == 2, "redist::transpose(a) requires a to be a 2-D array");
  return {a};
}

}  // namespace redist

// redistribute and make_plan (and the 1-D DistArray), when this header is included first.
#include <redist/array/dist_array.hpp>
