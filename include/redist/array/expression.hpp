/// @file Defines the scaled updates b = alpha * op(a) + beta * b (op: none, transpose, conj_transpose) as typed expressions, and update(), the redistribution that computes them inside the unpack.
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <string>
#include <type_traits>

#include <mpi.h>

#include <redist/array/access.hpp>
#include <redist/array/options.hpp>
#include <redist/array/partial_values.hpp>
#include <redist/array/plan_cache.hpp>
#include <redist/array/redistribute.hpp>
#include <redist/array/transpose.hpp>
#include <redist/plan/layout.hpp>
#include <redist/plan/plan.hpp>
#include <redist/plan/automatic.hpp>
#include <redist/runtime/store.hpp>
#include <redist/schedule/schedule.hpp>

namespace redist {

/// What redist::conj_transpose(a) returns: a's values seen as the 2-D array aᴴ (the conjugate
/// transpose; for real element types the transpose), to be assigned or scaled. Copies nothing.
template <class A>
struct ConjTransposeView {
  const A& array;
};

/// The conjugate transpose of the 2-D array a: `b = conj_transpose(a)`, `b = alpha *
/// conj_transpose(a) + beta * b` (ScaLAPACK's PxTRANC).
template <class A>
  requires requires { A::rank(); typename A::mapping_type; }
ConjTransposeView<A> conj_transpose(const A& a) {
  static_assert(A::rank() == 2, "redist::conj_transpose(a) requires a to be a 2-D array");
  return {a};
}

/// The source of a term: an array as it is (a plain reference), transposed, or conjugate-transposed.
template <class A>
struct PlainTerm {
  const A& array;
};

namespace detail {
template <class E>
struct term_traits;
template <class A>
struct term_traits<PlainTerm<A>> {
  using array_type = A;
  static constexpr bool transposed = false, conjugated = false;
};
template <class A>
struct term_traits<TransposeView<A>> {
  using array_type = A;
  static constexpr bool transposed = true, conjugated = false;
};
template <class A>
struct term_traits<ConjTransposeView<A>> {
  using array_type = A;
  static constexpr bool transposed = true, conjugated = true;
};
}  // namespace detail

/// alpha * op(a): made by `alpha * a`, `alpha * transpose(a)`, `alpha * conj_transpose(a)`.
/// E is PlainTerm<A>, TransposeView<A> or ConjTransposeView<A>; T is A's element type.
template <class E, class T>
struct Scaled {
  E term;
  T alpha;
};

/// alpha * op(a) + beta * b: assigned to b itself (`b = alpha * a + beta * b`).
template <class E, class B, class T>
struct Update {
  E term;
  T alpha;
  const B& b;
  T beta;
};

namespace detail {
/// A scalar for arrays of element type T: convertible to T (update() requires T to be arithmetic
/// or complex, with a sentence).
template <class S, class T>
concept ScalarFor = std::is_convertible_v<const S&, T> && !requires { typename S::distribution_type; };

template <class E>
concept Term = requires { typename term_traits<E>::array_type; };
}  // namespace detail

template <DistributedArray A, detail::ScalarFor<typename A::value_type> S>
Scaled<PlainTerm<A>, typename A::value_type> operator*(const S& alpha, const A& a) {
  return {{a}, static_cast<typename A::value_type>(alpha)};
}
template <class A, detail::ScalarFor<typename A::value_type> S>
Scaled<TransposeView<A>, typename A::value_type> operator*(const S& alpha, const TransposeView<A>& a) {
  return {a, static_cast<typename A::value_type>(alpha)};
}
template <class A, detail::ScalarFor<typename A::value_type> S>
Scaled<ConjTransposeView<A>, typename A::value_type> operator*(const S& alpha, const ConjTransposeView<A>& a) {
  return {a, static_cast<typename A::value_type>(alpha)};
}
/// alpha * op(a) + beta * b; the second term must be the array assigned to (checked there).
template <class E, class B, class T>
Update<E, B, T> operator+(const Scaled<E, T>& x, const Scaled<PlainTerm<B>, T>& y) {
  return {x.term, x.alpha, y.term.array, y.alpha};
}

namespace detail {
/// The policy of a scaled update and of a started or fused assignment: automatic where its plan
/// is one stage of direct messages whatever the decision (which a fused list needs: one message
/// per peer), all_at_once for the pairs whose automatic plan may forward or phase its messages
/// (Cyclic pairs).
template <class From, class To>
using update_policy = std::conditional_t<Decider<From, To, schedule::automatic_t>::adaptive, schedule::all_at_once_t,
                                         schedule::automatic_t>;

/// True when b (the second term of an update) is dst itself: the same array or view, or a section
/// of the same array with the same mapping. Decided from what every rank holds alike (the array's
/// plan cache, which a section shares with its array, and the mapping), never from the local
/// storage, which two arrays' empty local parts can share (a null pointer): the answer, and so the
/// error, is the same on every rank.
template <class B, class Dst>
bool same_target(const B& b, const Dst& dst) {
  if constexpr (!std::is_same_v<B, Dst>) return false;
  else
    return &array_access::cache(const_cast<B&>(b)) == &array_access::cache(const_cast<Dst&>(dst)) &&
           b.mapping() == dst.mapping();
}

/// The checks of dst = alpha * op(a) + beta * dst that every rank can make alone, made on every
/// rank before any data moves: the same as b = a's (b = transpose(a)'s when op transposes), and
/// a is not b.
template <class E, class Dst>
void check_term(const E& term, const Dst& dst, const char* call) {
  using traits = term_traits<E>;
  using A = typename traits::array_type;
  using T = typename Dst::value_type;
  static_assert(std::is_same_v<typename A::value_type, T>, "redist: b = alpha * op(a) + beta * b requires a and b to "
                                                           "have the same element type");
  const A& a = term.array;
  if constexpr (traits::transposed) {
    check_transposed(a, dst, call);
  } else {
    check_compatible(a, dst, call);
  }
  if (static_cast<const void*>(&a) == static_cast<const void*>(&dst))
    report_error(std::string("redist::") + call + " requires a to be another array than b");
}

/// f(r) with r the Redistribution of term -> dst (a BasicPlan's: update_policy), cached in dst.
template <class E, class Dst, class F>
decltype(auto) with_plan(const E& term, Dst& dst, F&& f) {
  using traits = term_traits<E>;
  using A = typename traits::array_type;
  const A& a = term.array;
  auto go = [&](const auto& from, const auto& to) -> decltype(auto) {
    using P = update_policy<std::remove_cvref_t<decltype(from)>, std::remove_cvref_t<decltype(to)>>;
    return f(array_access::cache(dst).get(from, to, P{}, default_options(), a.comm()));
  };
  if constexpr (traits::transposed) {
    return go(Transposed<typename A::mapping_type>{a.mapping()}, dst.mapping());
  } else {
    using L = plan_layouts<A, Dst>;
    return go(L::of(a), L::of(dst));
  }
}

/// dst = alpha * op(a) + beta * dst (has_beta), or alpha * op(a): the redistribution of a term
/// into dst with each element stored by a scaled store (runtime/store.hpp) inside the unpack and
/// the local copy, so that dst is read (when beta != 0) and written once. alpha = 0 reads no
/// element of a and sends nothing: dst = beta * dst (zeros when beta = 0), as PxGEADD. Collective.
template <class E, class Dst>
void update(const E& term, Dst& dst, typename Dst::value_type alpha, typename Dst::value_type beta, bool has_beta,
            const char* call) {
  using traits = term_traits<E>;
  using T = typename Dst::value_type;
  static_assert(runtime::scalable<T>, "redist: b = alpha * op(a) + beta * b requires an arithmetic or std::complex "
                                      "element type");
  using A = typename traits::array_type;
  check_partial_types<A, Dst, true>();
  check_indirect_destination<Dst>();
  using SrcOp = partial_op_t<A>;
  using DstOp = partial_op_t<Dst>;
  check_term(term, dst, call);
  const auto& a = term.array;
  auto local = dst.local();
  // Partial sums (Partial<std::plus<>>): the result's parts are beta times b's and, where the
  // elements arrive, alpha times the contributions added to them (start_partial).
  const T b0 = has_beta ? beta : T{};
  if constexpr (!std::is_void_v<SrcOp> || !std::is_void_v<DstOp>) {
    if (alpha == T{}) {
      // a is not referenced: every part of b scaled (zeros when beta = 0), on each rank alone.
      for_each_local_element(dst, [b0](T& x) { x = b0 == T{} ? T{} : static_cast<T>(b0 * x); });
      return;
    }
  }
  if constexpr (!std::is_void_v<SrcOp>) {
    with_plan(term, dst, [&](auto& r) {
      if (r.before_first_run()) check_no_overlap(a.comm(), const_local(a), local, sections_of_one_array(a, dst), call);
      r.run_update(a.comm(), const_local(a), local, runtime::accumulate_op<T, traits::conjugated>{alpha},
                   [&] { start_partial<SrcOp, DstOp>(dst, &b0); }, array_access::segment(a), true);
    });
    return;
  }
  if (alpha == T{}) {
    // PxGEADD: a is not referenced. dst = beta * dst element by element, through the plan of
    // dst's layout onto itself (local copies only, no messages), which touches dst's elements and
    // nothing else (not a section's neighbours, not the padding of a leading dimension).
    using L = plan_layouts<Dst, Dst>;
    std::span<const T> self(local.data(), local.size());
    auto& r = array_access::cache(dst).get(L::of(dst), L::of(dst), schedule::all_at_once, default_options(), a.comm());
    if (!has_beta || beta == T{}) r.run_update(a.comm(), self, local, runtime::fill_op<T>{T{}});
    else r.run_update(a.comm(), self, local, runtime::scale_op<T>{beta});
    return;
  }
  with_plan(term, dst, [&](auto& r) {
    if (r.before_first_run()) check_no_overlap(a.comm(), const_local(a), local, sections_of_one_array(a, dst), call);
    constexpr bool conj = traits::conjugated;
    const runtime::SharedSegment* seg = array_access::segment(a);
    auto none = [] {};
    if (has_beta && beta != T{}) r.run_update(a.comm(), const_local(a), local, runtime::axpby_op<T, conj>{alpha, beta}, none, seg, true);
    else r.run_update(a.comm(), const_local(a), local, runtime::scale_op<T, conj>{alpha}, none, seg, true);
  });
  if constexpr (!std::is_void_v<DstOp>) start_partial<void, DstOp>(dst, &b0);
}

/// dst = alpha * op(a): what `b = alpha * a` (and transpose, conj_transpose) runs.
template <class Dst, class E, class S>
void assign_expression(Dst& dst, const Scaled<E, S>& x) {
  static_assert(std::is_same_v<S, typename Dst::value_type>,
                "redist: b = alpha * op(a) requires a and b to have the same element type");
  update(x.term, dst, x.alpha, S{}, false, "b = alpha * op(a)");
}
/// dst = alpha * op(a) + beta * dst: what `b = alpha * a + beta * b` runs. The second term must be
/// dst itself (the same array, view or section), on every rank alike.
template <class Dst, class E, class B, class S>
void assign_expression(Dst& dst, const Update<E, B, S>& x) {
  static_assert(std::is_same_v<S, typename Dst::value_type>,
                "redist: b = alpha * op(a) + beta * b requires a and b to have the same element type");
  static_assert(std::is_same_v<B, Dst>,
                "redist: b = alpha * op(a) + beta * c requires c to be b itself (the array assigned to)");
  if (!same_target(x.b, dst))
    report_error("redist: b = alpha * op(a) + beta * c requires c to be b itself (the array assigned to)");
  update(x.term, dst, x.alpha, x.beta, true, "b = alpha * op(a) + beta * b");
}
/// dst = conj_transpose(a).
template <class Dst, class A>
void assign_expression(Dst& dst, const ConjTransposeView<A>& x) {
  static_assert(std::is_same_v<typename A::value_type, typename Dst::value_type>,
                "redist: b = conj_transpose(a) requires a and b to have the same element type");
  using T = typename Dst::value_type;
  update(x, dst, T{1}, T{}, false, "b = conj_transpose(a)");
}
}  // namespace detail

}  // namespace redist
