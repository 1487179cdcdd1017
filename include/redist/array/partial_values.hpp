/// @file Defines what the array layer knows of Partial placements: the Op of an array's partial dimensions (layout_partial, has_partial, partial_op_t), and start_partial, what a destination holds before an exchange's elements arrive.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <span>
#include <type_traits>
#include <vector>

#include <redist/dist/dist.hpp>
#include <redist/dist/indirect.hpp>
#include <redist/dist/partial.hpp>
#include <redist/dist/ldd.hpp>
#include <redist/plan/layout.hpp>
#include <redist/plan/moves.hpp>
#include <redist/runtime/store.hpp>

namespace redist::detail {

/// The Op of a distribution's dimensions of partial values (Partial<Op>), or void when it has none;
/// one_op: they all have the same Op.
template <class D>
struct partial_op_of {
  using type = void;
};
template <class Op>
struct partial_op_of<Partial<Op>> {
  using type = Op;
};
/// Indirect<Op>'s holders hold partial values (Indirect<> = Indirect<void>: copies).
template <class Op>
struct partial_op_of<Indirect<Op>> {
  using type = Op;
};
template <class... Ops>
struct first_non_void {
  using type = void;
};
template <class O, class... Rest>
struct first_non_void<O, Rest...> {
  using type = std::conditional_t<std::is_void_v<O>, typename first_non_void<Rest...>::type, O>;
};
template <class D>
struct dist_partial {
  using type = void;
  static constexpr bool one_op = true;
};
template <class... D>
struct dist_partial<Dist<D...>> {
  using type = typename first_non_void<typename partial_op_of<D>::type...>::type;
  static constexpr bool one_op =
      ((std::is_void_v<typename partial_op_of<D>::type> || std::is_same_v<typename partial_op_of<D>::type, type>) && ...);
};
/// dist_partial of a layout type: of its distribution, or of its base's (a section, a transposed view).
template <class M>
struct layout_partial : dist_partial<void> {};
template <class M>
  requires requires { typename M::base_type; }
struct layout_partial<M> : layout_partial<typename M::base_type> {};
template <class M>
  requires(!requires { typename M::base_type; } && requires { typename M::distribution_type; })
struct layout_partial<M> : dist_partial<typename M::distribution_type> {};
/// True for an array whose layout has dimensions of partial values (its own, or its base's).
template <class A>
inline constexpr bool has_partial = !std::is_void_v<typename layout_partial<typename A::mapping_type>::type>;
/// True for the layout of a section (SectionLayout).
template <class M>
inline constexpr bool is_section_layout = requires { typename M::base_type; typename M::slices_type; };

/// f(x) for every element x of rank r's local storage `local` of layout m (not the padding of a
/// leading dimension), in storage order: a whole array's or view's layout.
template <class M, class T, class F>
  requires(!is_section_layout<M>)
void for_each_local_element(const M& m, int r, std::span<T> local, F&& f) {
  constexpr std::size_t N = M::rank();
  const auto e = m.local_extents(r);
  for (index_t x : e)
    if (x == 0) return;
  const auto stride = m.strides(r);
  std::array<index_t, N> l{};
  const std::size_t inner = m.fastest();
  while (true) {
    index_t at = 0;
    for (std::size_t d = 0; d < N; ++d) at += l[d] * stride[d];
    for (index_t i = 0; i < e[inner]; ++i) f(local[static_cast<std::size_t>(at + i)]);  // the fastest dimension is contiguous
    std::size_t d = 0;
    for (; d < N; ++d) {
      if (d == inner) continue;
      if (++l[d] < e[d]) break;
      l[d] = 0;
    }
    if (d == N) return;
  }
}
/// f(x) for every element x of a section (SectionLayout m) that rank r holds in `local`, the local
/// storage of its array, and for nothing else there: along each kept dimension the base's local
/// indices its LDDs list, at the origin of the dropped dimensions' indices. O(the rank's elements
/// of the section).
template <class M, class T, class F>
  requires is_section_layout<M>
void for_each_local_element(const M& m, int r, std::span<T> local, F&& f) {
  constexpr std::size_t K = M::rank();
  const auto c = m.coords_of(r);
  if (!c) return;
  std::array<std::vector<index_t>, K> at;  // along kept dimension k: the local indices of the section's elements
  for (std::size_t k = 0; k < K; ++k) {
    for (const Ldd& l : m.ldds(k, (*c)[k]))
      for (index_t i = 0; i < l.n; ++i)
        for (index_t j = 0; j < l.b; ++j) at[k].push_back(l.local + i * l.lblock + j * l.step);
    if (at[k].empty()) return;
  }
  const auto stride = m.strides(r);
  const index_t origin = m.origin(r);
  const std::size_t inner = m.fastest();
  std::array<std::size_t, K> l{};
  while (true) {
    index_t base = origin;
    for (std::size_t k = 0; k < K; ++k)
      if (k != inner) base += at[k][l[k]] * stride[k];
    for (index_t x : at[inner]) f(local[static_cast<std::size_t>(base + x * stride[inner])]);
    std::size_t k = 0;
    for (; k < K; ++k) {
      if (k == inner) continue;
      if (++l[k] < at[k].size()) break;
      l[k] = 0;
    }
    if (k == K) return;
  }
}
/// f(x) for every local element x of the array, view or section dst.
template <class A, class F>
void for_each_local_element(A& dst, F&& f) {
  for_each_local_element(dst.mapping(), dst.comm().rank(), dst.local(), f);
}

/// Every local element of dst set to v.
template <class A>
void fill_local_elements(A& dst, const typename A::value_type& v) {
  for_each_local_element(dst, [&](auto& x) { x = v; });
}

/// The Op of the Partial dimensions of an array's layout (void: none).
template <class A>
using partial_op_t = typename layout_partial<typename A::mapping_type>::type;

/// What partial layouts hold before the elements of `b = a` (beta == nullptr) or of
/// `b = alpha * op(a) + beta * b` (*beta; 0 when b's values are not used) arrive in `dst`, rank r's
/// local storage of layout `to`, when a holds partial values (`from_partial`) and when b does
/// (`to_partial`):
/// - on a rank of b's partial dimensions that is not their process 0 (it receives nothing), its
///   part of the result: b's Op's identity `to_identity`, or beta * b (sums scale part by part);
/// - on a rank that receives, when a holds partial values, the start of their fold: a's Op's
///   identity `from_identity`, or beta * b, to which each contribution (alpha times it) is added.
/// Written on every rank after the plan's first run agreed, before any element moves. Scaled
/// updates take partial sums only (checked by their callers).
template <class M, class T>
void start_parts(const M& to, int r, std::span<T> dst, bool from_partial, bool to_partial, const T& from_identity,
                 const T& to_identity, const T* beta) {
  const bool receives = !to_partial || detail::receives(to, r);
  if (receives && !from_partial) return;
  if constexpr (runtime::scalable<T>) {
    if (beta != nullptr) {
      if (*beta == T{}) for_each_local_element(to, r, dst, [](T& x) { x = T{}; });  // b's values are not read
      else if (*beta != T{1}) for_each_local_element(to, r, dst, [b = *beta](T& x) { x = static_cast<T>(b * x); });
      return;
    }
  }
  const T v = receives ? from_identity : to_identity;
  for_each_local_element(to, r, dst, [&v](T& x) { x = v; });
}

/// start_parts for arrays whose Partial dimensions' Ops are SrcOp and DstOp (void: none).
template <class SrcOp, class DstOp, class Dst>
void start_partial(Dst& dst, const typename Dst::value_type* beta) {
  using T = typename Dst::value_type;
  T from_identity{}, to_identity{};
  if constexpr (!std::is_void_v<SrcOp>) from_identity = fold_identity<SrcOp, T>::value();
  if constexpr (!std::is_void_v<DstOp>) to_identity = fold_identity<DstOp, T>::value();
  start_parts(dst.mapping(), dst.comm().rank(), dst.local(), !std::is_void_v<SrcOp>, !std::is_void_v<DstOp>,
              from_identity, to_identity, beta);
}

/// Refuses, at compile time, an Indirect<Op> destination of partial values in an expression, a
/// fused list or a started exchange: b = a (redistribute, make_plan) writes Op's identity into the
/// places such a destination does not receive; the others do not.
template <class Dst>
constexpr void check_indirect_destination() {
  using M = typename Dst::mapping_type;
  static_assert(!(indirect_layout<M> && !std::is_void_v<typename layout_partial<M>::type>),
                "redist: an Indirect<Op> destination of partial values takes b = a (redistribute, make_plan) only, not an "
                "expression, redist::assign(...) or redist::start(...)");
}

/// The checks of Partial<Op> dimensions every assignment of a source array A to a destination B
/// makes at compile time (`Scaled`: a scaled update, b = alpha * op(a) + beta * b).
template <class A, class B, bool Scaled = false>
constexpr void check_partial_types() {
  using T = typename B::value_type;
  using SrcP = layout_partial<typename A::mapping_type>;
  using DstP = layout_partial<typename B::mapping_type>;
  using SrcOp = typename SrcP::type;
  using DstOp = typename DstP::type;
  static_assert(SrcP::one_op && DstP::one_op, "redist: an array's Partial<Op> dimensions must all have the same Op");
  static_assert(std::is_void_v<SrcOp> || folds<SrcOp, T>,
                "redist: b = a from Partial<Op> values requires Op to fold a's element type (Op(T, T) converts to T) and an "
                "identity of Op on T (redist::fold_identity<Op, T>)");
  static_assert(std::is_void_v<DstOp> || folds<DstOp, T>,
                "redist: b = a into Partial<Op> values requires Op to fold b's element type (Op(T, T) converts to T) and an "
                "identity of Op on T (redist::fold_identity<Op, T>)");
  static_assert(!Scaled || ((std::is_void_v<SrcOp> || std::is_same_v<SrcOp, std::plus<>>) &&
                            (std::is_void_v<DstOp> || std::is_same_v<DstOp, std::plus<>>)),
                "redist: b = alpha * op(a) + beta * b takes Partial dimensions of sums only (Partial<std::plus<>>: a scaled "
                "sum is the sum of the scaled parts); assign b = a for other Ops");
}

}  // namespace redist::detail
