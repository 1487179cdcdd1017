/// @file Defines Replicated: a dimension every process of its grid dimension holds whole (Elemental's `*` in `[MC,*]`, DTensor's `Replicate`), and detail::whole_mapping, the mapping it shares with Partial.
#pragma once

#include <string>

#include <redist/dist/distribution.hpp>
#include <redist/dist/ldd.hpp>

namespace redist {

namespace detail {
/// The mapping of a dimension each of its P processes holds whole, element g at local index g
/// (Replicated's copies, Partial's partial values): owner(g) names process 0.
class whole_mapping {
 public:
  constexpr whole_mapping(index_t n, int nprocs, const char* who) : n_{n}, nprocs_{nprocs} {
    REDIST_EXPECTS(n >= 0, std::string(who) + " requires n to be >= 0");
    REDIST_EXPECTS(nprocs > 0, std::string(who) + " requires P to be > 0");
  }
  constexpr index_t size() const noexcept { return n_; }
  constexpr int nprocs() const noexcept { return nprocs_; }
  constexpr int owner(index_t) const noexcept { return 0; }
  constexpr index_t local_index(index_t g) const noexcept { return g; }
  constexpr index_t global_index(int, index_t l) const noexcept { return l; }
  constexpr index_t local_size(int p) const noexcept { return p >= 0 && p < nprocs_ ? n_ : 0; }
  constexpr LddSet ldds(int p) const {
    LddSet set;
    if (p >= 0 && p < nprocs_ && n_ > 0) set.push_back(Ldd{0, n_, n_, 1, 0});
    return set;
  }
  friend constexpr bool operator==(const whole_mapping&, const whole_mapping&) = default;

 private:
  index_t n_;
  int nprocs_;
};
}  // namespace detail

/// A dimension that is not split: every process along its grid dimension holds all of it, the
/// same values (as in `Dist<Block, Replicated>` on `Grid{4, 2}`: rows in blocks over the grid's
/// rows, every grid column a copy). A 1-D `DistArray<T, Replicated>` is held whole by every rank.
/// Its local index is its global index. As a source, each receiver reads one copy (plan/plan.hpp's
/// build_plan_of chooses it: its own when it holds one); as a destination, every copy receives.
class Replicated {
 public:
  using distribution_concept = distribution_tag;

  friend constexpr bool operator==(Replicated, Replicated) noexcept { return true; }

  /// Replicated bound to n elements on P processes: every process holds [0, n). owner(g) names
  /// the first copy, process 0.
  class mapping : public detail::whole_mapping {
   public:
    /// Every process of a dimension of this type holds copies (the plan builder reads one of them).
    static constexpr bool replicated = true;

    constexpr mapping(Replicated, index_t n, int nprocs) : whole_mapping{n, nprocs, "redist::Replicated::mapping(n, P)"} {}
    friend constexpr bool operator==(const mapping&, const mapping&) = default;
  };
};

namespace detail {
/// True for a 1-D mapping whose processes all hold copies of every element (Replicated's).
template <class M>
concept replicated_mapping = requires { requires M::replicated; };
}  // namespace detail

}  // namespace redist
