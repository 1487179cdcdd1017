/// @file Defines detail::linear_fingerprint(m), the hash of a bound 1-D layout that every rank must agree on, and detail::hash_ldds, which it and the N-D layouts share.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <typeinfo>

#include <redist/config.hpp>
#include <redist/detail/hash.hpp>
#include <redist/dist/ldd.hpp>

namespace redist {

namespace detail {
/// h mixed with every LDD of the range: its (o, b, s, n, local, step, lblock).
template <LddRange R>
std::uint64_t hash_ldds(std::uint64_t h, const R& ldds) {
  for (const Ldd& l : ldds)
    for (index_t v : {l.o, l.b, l.s, l.n, l.local, l.step, l.lblock}) h = hash_mix(h, static_cast<std::uint64_t>(v));
  return h;
}

/// A fingerprint of a bound 1-D layout: its type, size, process count and the LDDs of every
/// process (O(P)). Two layouts with the same fingerprint place every element on the same rank at
/// the same local index. The N-D layouts (Dist<D...>::mapping::fingerprint) hash their
/// dimensions' LDDs the same way.
template <class M>
std::uint64_t linear_fingerprint(const M& m) {
  std::uint64_t h = hash_string(hash_seed, typeid(M).name());
  h = hash_mix(h, static_cast<std::uint64_t>(m.size()));
  h = hash_mix(h, static_cast<std::uint64_t>(m.nprocs()));
  for (int p = 0; p < m.nprocs(); ++p) h = hash_ldds(h, m.ldds(p));
  return h;
}
}  // namespace detail

}  // namespace redist
