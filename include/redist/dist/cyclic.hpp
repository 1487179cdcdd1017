/// @file Defines Cyclic<X>, HPF's CYCLIC(X) (block-cyclic) distribution; X may be `dynamic`.
#pragma once

#include <algorithm>
#include <concepts>
#include <limits>
#include <string>
#include <utility>

#include <redist/detail/math.hpp>
#include <redist/detail/maybe_static.hpp>
#include <redist/dist/distribution.hpp>

namespace redist {

/// CYCLIC(X): blocks of X elements dealt to processes 0, 1, ..., P-1, 0, 1, ...
/// Cyclic<1> is HPF's CYCLIC; Cyclic<dynamic> takes its block size at run time.
template <std::size_t X = dynamic>
class Cyclic {
  static_assert(X != 0, "redist::Cyclic<X> requires X > 0; use Cyclic<redist::dynamic> for a run-time block size");
  static_assert(X == dynamic || X <= static_cast<std::size_t>(std::numeric_limits<index_t>::max()),
                "redist::Cyclic<X> requires X to fit in a 64-bit signed index");

 public:
  using distribution_concept = distribution_tag;

  static constexpr std::size_t static_block_size() noexcept { return X; }
  constexpr index_t block_size() const noexcept { return x_.value(); }

  constexpr Cyclic() noexcept requires(X != dynamic) = default;

  template <std::integral I>
    requires(X == dynamic)
  constexpr explicit Cyclic(I x) : x_{static_cast<index_t>(x)} {
    if (!std::cmp_greater(x, 0) || std::cmp_greater(x, std::numeric_limits<index_t>::max()))
      detail::report_error("redist::Cyclic<dynamic>(k) requires k to be > 0 (got " +
                           std::to_string(x) + ")");
  }

  friend constexpr bool operator==(const Cyclic&, const Cyclic&) = default;

  /// CYCLIC(k) bound to n elements on P processes. With s = k*P, process p owns the LDD
  /// (p*k, k, s, full blocks) and, when n is ragged, one shorter tail block. A static block size
  /// stays static in the mapping (maybe_static, no storage): its index arithmetic divides by a
  /// constant, and the planners read it from the type (static basic-cycle tables).
  class mapping {
   public:
    /// The distribution this maps (so that code can recognize a CYCLIC mapping and its static X).
    using distribution_type = Cyclic;

    constexpr mapping(const Cyclic& d, index_t n, int nprocs) : n_{n}, p_{nprocs}, k_{d.x_} {
      REDIST_EXPECTS(n >= 0, "redist::Cyclic::mapping(n, P) requires n to be >= 0");
      REDIST_EXPECTS(nprocs > 0, "redist::Cyclic::mapping(n, P) requires P to be > 0");
      s_ = detail::checked_mul(block_size(), nprocs, "Cyclic<k> on P processes: k*P");
    }
    constexpr index_t size() const noexcept { return n_; }
    constexpr int nprocs() const noexcept { return p_; }
    constexpr index_t block_size() const noexcept { return k_.value(); }
    constexpr int owner(index_t g) const noexcept { return static_cast<int>((g / block_size()) % p_); }
    constexpr index_t local_index(index_t g) const noexcept { return (g / s_) * block_size() + g % block_size(); }
    constexpr index_t global_index(int p, index_t l) const noexcept {
      const index_t k = block_size();
      return (l / k) * s_ + p * k + l % k;
    }
    constexpr index_t local_size(int p) const noexcept {
      const index_t k = block_size();
      const index_t cycles = n_ / s_;
      return cycles * k + std::clamp<index_t>(n_ - cycles * s_ - p * k, 0, k);
    }
    constexpr LddSet ldds(int p) const {
      LddSet set;
      set.push_blocks(p * block_size(), block_size(), s_, n_, 0);
      return set;
    }
    friend constexpr bool operator==(const mapping&, const mapping&) = default;

   private:
    index_t n_;
    int p_;
    [[no_unique_address]] detail::maybe_static<X> k_;
    index_t s_ = 1;
  };

 private:
  [[no_unique_address]] detail::maybe_static<X> x_{};
};

Cyclic(std::integral auto) -> Cyclic<dynamic>;

namespace detail {
/// True for Cyclic<X>, static or dynamic X.
template <class D>
inline constexpr bool is_cyclic_distribution = false;
template <std::size_t X>
inline constexpr bool is_cyclic_distribution<Cyclic<X>> = true;
}  // namespace detail

static_assert(std::is_empty_v<Cyclic<4>>);

}  // namespace redist
