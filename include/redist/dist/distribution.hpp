/// @file Defines `dynamic`, the distribution tag and the `Distribution` concept.
#pragma once

#include <concepts>
#include <cstddef>
#include <span>
#include <type_traits>

#include <redist/config.hpp>
#include <redist/fwd.hpp>
#include <redist/dist/ldd.hpp>

namespace redist {

/// Types opt into the Distribution concept with `using distribution_concept = distribution_tag;`
/// or by specializing `enable_distribution` (as stdexec's sender_concept / enable_sender).
struct distribution_tag {};

template <class D>
inline constexpr bool enable_distribution = requires {
  typename D::distribution_concept;
  requires std::same_as<typename D::distribution_concept, distribution_tag>;
};

/// A 1-D distribution: a policy (CYCLIC(4), BLOCK, ...) whose nested `mapping`, bound to a global
/// size n and a process count P, answers owner, local_index, global_index, local_size and the
/// LDDs of each process (the way a layout policy's mapping binds it to extents in mdspan). The
/// LDDs may come in any LddRange; the built-in distributions return an LddSet.
template <class D>
concept Distribution =
    enable_distribution<D> && std::copy_constructible<D> &&
    requires(const D& d, const typename D::mapping& m, index_t i, int p) {
      { typename D::mapping(d, i, p) };
      { m.size() } -> std::same_as<index_t>;
      { m.nprocs() } -> std::same_as<int>;
      { m.owner(i) } -> std::same_as<int>;
      { m.local_index(i) } -> std::same_as<index_t>;
      { m.global_index(p, i) } -> std::same_as<index_t>;
      { m.local_size(p) } -> std::same_as<index_t>;
      { m.ldds(p) } -> LddRange;
      { m == m } -> std::same_as<bool>;
    };

}  // namespace redist
