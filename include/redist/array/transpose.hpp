/// @file Defines TransposeView and transpose(a): a 2-D array's values seen as its transpose, for `b = transpose(a)`.
#pragma once

#include <cstddef>

namespace redist {

/// What redist::transpose(a) returns: a's values seen as the 2-D array aᵀ, to be assigned
/// (`b = redist::transpose(a)`) or passed to redistribute. It refers to a, copies nothing.
template <class A>
struct TransposeView {
  const A& array;
};

/// The transpose of the 2-D array a, for `b = redist::transpose(a)` or redistribute(transpose(a), b).
template <class A>
  requires requires { A::rank(); typename A::mapping_type; }
TransposeView<A> transpose(const A& a) {
  static_assert(A::rank() == 2, "redist::transpose(a) requires a to be a 2-D array");
  return {a};
}

}  // namespace redist
