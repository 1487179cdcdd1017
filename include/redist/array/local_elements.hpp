/// @file Defines for_each_local: every element of this rank's part of an array or view, with its global index.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <numeric>
#include <type_traits>
#include <utility>
#include <vector>

#include <redist/config.hpp>

namespace redist {

/// f(g, x) for every element x of this rank's part of `a`, a DistArray or a DistView (the padding
/// of a leading dimension left out), with g its global index: a std::array<index_t, N> (the
/// global multi-index), or for a 1-D array an index_t when f takes one. x is a T&, a const T& for
/// a const array. In storage order (the dimension of stride 1 innermost, the others by increasing
/// stride), so that a fill or a check runs at memory speed. Local: no communication. A rank outside
/// the array's grid has nothing to visit. Along a Replicated dimension every global index is
/// visited (this rank's copy), along a Partial one this rank's partial value.
/// Cost: O(the rank's elements), plus one vector of global indices per dimension (O(Σ local extents)).
///
///     redist::DistArray<double, redist::Dist<redist::Block, redist::Cyclic<>>> a(world, {m, n}, grid);
///     redist::for_each_local(a, [](const std::array<redist::index_t, 2>& g, double& x) { x = g[0] * 10.0 + g[1]; });
template <class A, class F>
void for_each_local(A&& a, F&& f) {
  using Array = std::remove_cvref_t<A>;
  static_assert(requires(const Array& c) {
    Array::rank();
    c.local_extents();
    c.local_strides();
    c.global_index(c.local_extents());
  }, "redist::for_each_local(a, f) requires a to be a DistArray or a DistView (for a section, visit its array)");
  constexpr std::size_t N = Array::rank();
  using Index = std::array<index_t, N>;
  using Value = std::remove_reference_t<decltype(a.local()[0])>;
  // (conjunction: whether f takes an index_t is asked of 1-D arrays only, so that a generic f
  // written for multi-indices is never instantiated with one)
  constexpr bool by_index = std::conjunction_v<std::bool_constant<N == 1>, std::is_invocable<F&, index_t, Value&>>;
  static_assert(by_index || std::is_invocable_v<F&, const Index&, Value&>,
                "redist::for_each_local(a, f) requires f(g, x) with g the global multi-index (std::array<index_t, N>, "
                "or index_t for a 1-D array) and x a reference to the element");

  const Index e = a.local_extents();
  for (index_t x : e)
    if (x <= 0) return;
  // The global index along each dimension of each local index (the layouts of Dist<...> map each
  // dimension by its own distribution).
  std::array<std::vector<index_t>, N> global;
  for (std::size_t d = 0; d < N; ++d) {
    global[d].resize(static_cast<std::size_t>(e[d]));
    Index l{};
    for (index_t i = 0; i < e[d]; ++i) {
      l[d] = i;
      global[d][static_cast<std::size_t>(i)] = a.global_index(l)[d];
    }
  }
  // Dimensions by increasing stride: order[0] is contiguous.
  const Index stride = a.local_strides();
  std::array<std::size_t, N> order{};
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return stride[x] < stride[y]; });
  const std::size_t inner = order[0];
  auto local = a.local();
  Index l{}, g{};
  for (std::size_t d = 0; d < N; ++d) g[d] = global[d][0];
  for (;;) {
    index_t at = 0;
    for (std::size_t d = 0; d < N; ++d) at += l[d] * stride[d];
    const std::vector<index_t>& gi = global[inner];
    for (index_t i = 0; i < e[inner]; ++i) {
      Value& x = local[static_cast<std::size_t>(at + i * stride[inner])];
      if constexpr (by_index) {
        f(gi[static_cast<std::size_t>(i)], x);
      } else {
        g[inner] = gi[static_cast<std::size_t>(i)];
        f(std::as_const(g), x);
      }
    }
    std::size_t k = 1;
    for (; k < N; ++k) {
      const std::size_t d = order[k];
      if (++l[d] < e[d]) {
        g[d] = global[d][static_cast<std::size_t>(l[d])];
        break;
      }
      l[d] = 0;
      g[d] = global[d][0];
    }
    if (k == N) return;
  }
}

}  // namespace redist
