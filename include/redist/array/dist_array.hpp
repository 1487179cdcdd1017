/// @file Defines DistArray<T, D>: a 1-D array distributed over a communicator by the distribution D.
#pragma once

#include <concepts>
#include <span>
#include <type_traits>
#include <vector>

#include <boost/mpi/communicator.hpp>

#include <optional>
#include <string>

#include <redist/array/access.hpp>
#include <redist/array/consistency.hpp>
#include <redist/array/options.hpp>
#include <redist/array/plan_cache.hpp>
#include <redist/dist/distribution.hpp>
#include <redist/schedule/schedule.hpp>

namespace redist {

template <class T, class D>
class DistArray;

namespace detail {
template <class D>
struct mapping_of {
  // An error "no type named 'type'" here means D is not a redist distribution.
};
template <class D>
  requires enable_distribution<D>
struct mapping_of<D> {
  using type = typename D::mapping;
};
}  // namespace detail

/// Defined in redist/array/redistribute.hpp (included at the end of this header).
template <class T, class D, class U, class E, class S = schedule::automatic_t>
void redistribute(const DistArray<U, E>& src, DistArray<T, D>& dst, S policy = {},
                  const options& opts = default_options());

/// n elements of T distributed over the processes of comm by D. `b = a` redistributes a's values
/// into b's layout (collective); the plan is kept, so repeating it does no index work.
template <class T, class D>
class DistArray {
  static_assert(enable_distribution<D>,
                "redist::DistArray<T, D> requires D to be a redist distribution (Block, Cyclic<X>, GenBlock, "
                "or a type declaring `using distribution_concept = redist::distribution_tag;`)");
  static_assert(std::is_trivially_copyable_v<T>, "redist::DistArray<T, D> requires T to be trivially copyable");

 public:
  using value_type = T;
  using distribution_type = D;
  using mapping_type = typename detail::mapping_of<D>::type;

  /// The array of n elements laid out by dist on comm. Collective: every rank of comm constructs
  /// it with the same n and dist; with default_options().check_consistency (the default), one
  /// small all-reduce verifies that, and a bad parameter throws redist::error on every rank.
  DistArray(const boost::mpi::communicator& comm, index_t n, const D& dist)
      : comm_{comm}, mapping_{bind(comm, n, dist)}, dist_{dist},
        data_(static_cast<std::size_t>(mapping_.local_size(comm.rank()))) {}

  DistArray(const boost::mpi::communicator& comm, index_t n)
    requires std::default_initializable<D>
      : DistArray(comm, n, D{}) {}

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

  index_t size() const noexcept { return mapping_.size(); }
  index_t local_size() const noexcept { return static_cast<index_t>(data_.size()); }
  std::span<T> local() noexcept { return data_; }
  std::span<const T> local() const noexcept { return data_; }
  /// Global index of this rank's local element l.
  index_t global_index(index_t l) const noexcept { return mapping_.global_index(comm_.rank(), l); }
  /// Rank that owns global element g.
  int owner(index_t g) const noexcept { return mapping_.owner(g); }
  /// Local index of global element g on its owner.
  index_t local_index(index_t g) const noexcept { return mapping_.local_index(g); }
  const boost::mpi::communicator& comm() const noexcept { return comm_; }
  const D& distribution() const noexcept { return dist_; }
  const mapping_type& mapping() const noexcept { return mapping_; }

 private:
  friend struct detail::array_access;

  static mapping_type bind(const boost::mpi::communicator& comm, index_t n, const D& dist) {
    std::optional<mapping_type> m;
    std::optional<std::string> failure;
    try {
      m.emplace(dist, n, comm.size());
    } catch (const error& e) {
      failure = e.what();
    }
    if (default_options().check_consistency) {
      const detail::Parameter params[] = {{"n", static_cast<std::uint64_t>(n)},
                                          {"distribution", m ? detail::layout_fingerprint(*m) : 0}};
      detail::agree(comm, "redist::DistArray(comm, n, dist)", params, failure);
    } else if (failure) {
      detail::report_error(*failure);
    }
    return std::move(*m);
  }

  boost::mpi::communicator comm_;
  mapping_type mapping_;
  D dist_;
  std::vector<T> data_;
  detail::PlanCache cache_;
};

template <class D>
DistArray(const boost::mpi::communicator&, index_t, D) -> DistArray<double, D>;

}  // namespace redist

#include <redist/array/dist_array_nd.hpp>
#include <redist/array/redistribute.hpp>
