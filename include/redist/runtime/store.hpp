/// @file Defines the store operations of unpack and local copy: assign (b = a, the default), scale (b = alpha * a), axpby (b = alpha * a + beta * b) and accumulate (b += alpha * a), each optionally conjugating a; fill, rescale and fold (partial values).
#pragma once

#include <complex>
#include <type_traits>

namespace redist::runtime {

/// dst = src: the plain copy of `b = a`. Kernels that get it copy whole pieces with memcpy.
struct assign_op {
  static constexpr bool assigns = true;
  template <class T>
  void operator()(T& dst, const T& src) const noexcept {
    dst = src;
  }
};

namespace detail {
template <class T>
struct is_complex : std::false_type {};
template <class T>
struct is_complex<std::complex<T>> : std::true_type {};

/// conj(x) for a complex x when Conj, x otherwise.
template <bool Conj, class T>
constexpr T maybe_conj(const T& x) noexcept {
  if constexpr (Conj && is_complex<T>::value) return std::conj(x);
  else return x;
}
}  // namespace detail

/// True for the element types of scaled updates: arithmetic types and std::complex.
template <class T>
inline constexpr bool scalable = std::is_arithmetic_v<T> || detail::is_complex<T>::value;

/// dst = alpha * op(src), op the identity or (Conj, complex T) the conjugate: b = alpha * a with
/// beta = 0, which never reads dst (NaNs in b do not propagate, as in ScaLAPACK's PxGEADD).
template <class T, bool Conj = false>
struct scale_op {
  static constexpr bool assigns = false;
  T alpha;
  void operator()(T& dst, const T& src) const noexcept { dst = static_cast<T>(alpha * detail::maybe_conj<Conj>(src)); }
};

/// dst = alpha * op(src) + beta * dst.
template <class T, bool Conj = false>
struct axpby_op {
  static constexpr bool assigns = false;
  T alpha, beta;
  void operator()(T& dst, const T& src) const noexcept {
    dst = static_cast<T>(alpha * detail::maybe_conj<Conj>(src) + beta * dst);
  }
};

/// dst = dst + alpha * op(src): a scaled contribution added to the element (a scaled update out of
/// partial sums, Partial<std::plus<>>: dst holds beta * b, or 0, before the first).
template <class T, bool Conj = false>
struct accumulate_op {
  static constexpr bool assigns = false;
  T alpha;
  void operator()(T& dst, const T& src) const noexcept {
    dst = static_cast<T>(dst + alpha * detail::maybe_conj<Conj>(src));
  }
};

/// dst = value, whatever src is: b = 0 * a + 0 * b (and dst's elements only, unlike a fill of
/// the local storage, which holds padding and the elements outside a section).
template <class T>
struct fill_op {
  static constexpr bool assigns = false;
  T value;
  void operator()(T& dst, const T&) const noexcept { dst = value; }
};

/// dst = beta * dst, whatever src is: b = 0 * a + beta * b inside a fused exchange (a's values are
/// not used).
template <class T>
struct rescale_op {
  static constexpr bool assigns = false;
  T beta;
  void operator()(T& dst, const T&) const noexcept { dst = static_cast<T>(beta * dst); }
};

/// dst = op(dst, src): a contribution folded into the element (a source of partial values,
/// Partial<Op>; dst holds op's identity before the first).
template <class Op>
struct fold_op {
  static constexpr bool assigns = false;
  [[no_unique_address]] Op op{};
  template <class T>
  void operator()(T& dst, const T& src) const {
    dst = static_cast<T>(op(dst, src));
  }
};

/// The store of one assignment, chosen at run time (beta = 0 must not read b, alpha = 0 must not
/// read a): operator()(f) calls f with the store operation, so that the kernels are instantiated
/// once per operation and the choice is made once per message, not per element.
enum class store_kind { assign, scale, axpby, fill, rescale, accumulate };
template <class T, bool Conj = false>
struct AnyStore {
  store_kind kind = store_kind::assign;
  T alpha{}, beta{};
  /// The store b = alpha * op(a) + beta * b with the special cases of PxGEADD: beta = 0 does not
  /// read b, alpha = 0 does not read a. has_beta false: b = alpha * op(a).
  static AnyStore of(T alpha, T beta, bool has_beta) {
    if constexpr (!scalable<T>) {
      return {};
    } else {
      const bool b = has_beta && beta != T{};
      if (alpha == T{}) return {b ? store_kind::rescale : store_kind::fill, alpha, beta};
      if (b) return {store_kind::axpby, alpha, beta};
      if (alpha == T{1} && !Conj) return {};
      return {store_kind::scale, alpha, beta};
    }
  }
  /// The store of a scaled update out of partial sums: each contribution times alpha added to the
  /// element (which holds beta * b first); alpha = 0 does not read a and leaves the element.
  static AnyStore accumulating(T alpha) {
    if constexpr (!scalable<T>) return {};
    else if (alpha == T{}) return {store_kind::rescale, alpha, T{1}};
    else return {store_kind::accumulate, alpha, T{}};
  }
  /// True when elements are assigned as they are (received straight into b where contiguous).
  bool assigns() const noexcept { return kind == store_kind::assign && !Conj; }
  template <class F>
  void operator()(F&& f) const {
    if constexpr (!scalable<T>) {
      f(assign_op{});
    } else {
      switch (kind) {
        case store_kind::assign:
          if constexpr (Conj) f(scale_op<T, true>{T{1}});
          else f(assign_op{});
          break;
        case store_kind::scale: f(scale_op<T, Conj>{alpha}); break;
        case store_kind::axpby: f(axpby_op<T, Conj>{alpha, beta}); break;
        case store_kind::fill: f(fill_op<T>{T{}}); break;
        case store_kind::rescale: f(rescale_op<T>{beta}); break;
        case store_kind::accumulate: f(accumulate_op<T, Conj>{alpha}); break;
      }
    }
  }
};

/// A store operation: assign_op, scale_op, axpby_op, accumulate_op, fill_op, rescale_op or fold_op (or any type with `assigns` and a call dst, src).
template <class Op>
concept StoreOp = requires { Op::assigns; };

}  // namespace redist::runtime
