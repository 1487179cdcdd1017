/// @file Defines Partial<Op>: a dimension every process of its grid dimension holds whole, each a partial value of every element (DTensor's `Partial`, OneFlow's `P`), the element their Op-fold; min_op, max_op and fold_identity.
#pragma once

#include <concepts>
#include <functional>
#include <limits>
#include <type_traits>

#include <redist/dist/distribution.hpp>
#include <redist/dist/replicated.hpp>

namespace redist {

/// The smaller of two values (Partial<min_op>: the element is the least of the partial values).
struct min_op {
  template <class T>
  constexpr T operator()(const T& a, const T& b) const {
    return b < a ? b : a;
  }
};
/// The larger of two values (Partial<max_op>).
struct max_op {
  template <class T>
  constexpr T operator()(const T& a, const T& b) const {
    return a < b ? b : a;
  }
};

/// The identity of Op on T: the x with Op(x, y) == y for every y. Given for std::plus<>
/// (0), std::multiplies<> (1), min_op (+infinity, or T's largest value) and max_op (-infinity, or
/// T's lowest); an Op of your own declares `template <class T> static constexpr T identity()`.
template <class Op, class T>
struct fold_identity {};
template <class Op, class T>
  requires requires { { Op::template identity<T>() } -> std::convertible_to<T>; }
struct fold_identity<Op, T> {
  static constexpr T value() { return Op::template identity<T>(); }
};
template <class T>
struct fold_identity<std::plus<>, T> {
  static constexpr T value() { return T{}; }
};
template <class T>
struct fold_identity<std::multiplies<>, T> {
  static constexpr T value() { return T{1}; }
};
template <class T>
struct fold_identity<min_op, T> {
  static constexpr T value() {
    if constexpr (std::numeric_limits<T>::has_infinity) return std::numeric_limits<T>::infinity();
    else return std::numeric_limits<T>::max();
  }
};
template <class T>
struct fold_identity<max_op, T> {
  static constexpr T value() {
    if constexpr (std::numeric_limits<T>::has_infinity) return -std::numeric_limits<T>::infinity();
    else return std::numeric_limits<T>::lowest();
  }
};

/// True when Op folds values of T: Op(T, T) converts to T, and Op has an identity on T.
template <class Op, class T>
concept folds = std::is_invocable_v<const Op&, const T&, const T&> &&
                std::convertible_to<std::invoke_result_t<const Op&, const T&, const T&>, T> &&
                requires { { fold_identity<Op, T>::value() } -> std::convertible_to<T>; };

/// A dimension that is not split, held as partial values: every process along its grid dimension
/// holds all of it, and the array's element is the Op-fold of the processes' values (as in
/// `Dist<Block, Partial<>>` on `Grid{4, 2}`: rows in blocks over the grid's rows, the two grid
/// columns each a partial sum). As a source the values are folded on the way (every holder
/// sends, the receiver folds into its element); as a destination coordinate 0 of the grid
/// dimension receives the element and the others Op's identity (fold_identity).
template <class Op = std::plus<>>
class Partial {
 public:
  using distribution_concept = distribution_tag;
  using op_type = Op;

  friend constexpr bool operator==(Partial, Partial) noexcept { return true; }

  /// Partial bound to n elements on P processes: every process stores [0, n) (its partial
  /// values); owner(g) names process 0, which holds the element itself as a destination.
  class mapping : public detail::whole_mapping {
   public:
    /// Every process of a dimension of this type holds a partial value of every element.
    static constexpr bool partial = true;
    using op_type = Op;

    constexpr mapping(Partial, index_t n, int nprocs) : whole_mapping{n, nprocs, "redist::Partial::mapping(n, P)"} {}
    friend constexpr bool operator==(const mapping&, const mapping&) = default;
  };
};

namespace detail {
/// True for a 1-D mapping whose processes hold partial values of every element (Partial's).
template <class M>
concept partial_mapping = requires { requires M::partial; };
}  // namespace detail

}  // namespace redist
