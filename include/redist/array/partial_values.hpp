/// @file Defines what the array layer knows of Partial placements: the Op of an array's partial dimensions (layout_partial, has_partial, partial_op_t), and start_partial, what a destination holds before an exchange's elements arrive.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <type_traits>

#include <redist/dist/dist.hpp>
#include <redist/dist/partial.hpp>
#include <redist/plan/layout.hpp>
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

/// f(x) for every local element x of dst (not the padding of a leading dimension), in storage
/// order: whole arrays and views (sections of arrays with partial values are refused).
template <class A, class F>
void for_each_local_element(A& dst, F&& f) {
  constexpr std::size_t N = A::rank();
  const auto e = dst.local_extents();
  for (index_t x : e)
    if (x == 0) return;
  auto local = dst.local();
  std::array<index_t, N> l{};
  const std::size_t inner = dst.mapping().fastest();
  while (true) {
    const index_t at = dst.local_offset(l);
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

/// Every local element of dst set to v.
template <class A>
void fill_local_elements(A& dst, const typename A::value_type& v) {
  for_each_local_element(dst, [&](auto& x) { x = v; });
}

/// The Op of the Partial dimensions of an array's layout (void: none).
template <class A>
using partial_op_t = typename layout_partial<typename A::mapping_type>::type;

/// What partial layouts hold before the elements of `b = a` (beta == nullptr) or of
/// `b = alpha * op(a) + beta * b` (*beta; 0 when b's values are not used) arrive in b = dst,
/// SrcOp and DstOp the Ops of a's and b's Partial dimensions (void: none):
/// - on a rank of b's Partial dimensions that is not their process 0 (it receives nothing), its
///   part of the result: DstOp's identity, or beta * b (a partial sum scales part by part);
/// - on a rank that receives, when a holds partial values, the start of their fold: SrcOp's
///   identity, or beta * b, to which each contribution (alpha times it) is added.
/// Written on every rank after the plan's first run agreed, before any element moves. Scaled
/// updates take Partial<std::plus<>> only (checked by their callers).
template <class SrcOp, class DstOp, class Dst>
void start_partial(Dst& dst, const typename Dst::value_type* beta) {
  using T = typename Dst::value_type;
  bool receives = true;
  if constexpr (!std::is_void_v<DstOp>) receives = detail::receives(dst.mapping(), dst.comm().rank());
  if (receives && std::is_void_v<SrcOp>) return;
  if constexpr (runtime::scalable<T>) {
    if (beta != nullptr) {
      if (*beta == T{}) fill_local_elements(dst, T{});  // b's values are not read (NaNs do not propagate)
      else if (*beta != T{1}) for_each_local_element(dst, [b = *beta](T& x) { x = static_cast<T>(b * x); });
      return;
    }
  }
  if constexpr (!std::is_void_v<DstOp>)
    if (!receives) return fill_local_elements(dst, fold_identity<DstOp, T>::value());
  if constexpr (!std::is_void_v<SrcOp>) fill_local_elements(dst, fold_identity<SrcOp, T>::value());
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
  static_assert((std::is_void_v<SrcOp> && std::is_void_v<DstOp>) ||
                    (!is_section_layout<typename A::mapping_type> && !is_section_layout<typename B::mapping_type>),
                "redist: sections of arrays with Partial dimensions are not supported; assign the whole arrays");
  static_assert(!Scaled || ((std::is_void_v<SrcOp> || std::is_same_v<SrcOp, std::plus<>>) &&
                            (std::is_void_v<DstOp> || std::is_same_v<DstOp, std::plus<>>)),
                "redist: b = alpha * op(a) + beta * b takes Partial dimensions of sums only (Partial<std::plus<>>: a scaled "
                "sum is the sum of the scaled parts); assign b = a for other Ops");
}

}  // namespace redist::detail
