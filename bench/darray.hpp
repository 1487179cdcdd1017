/// @file Defines AlltoallwDarray, the MPI_Alltoallw baseline written the way a user writes it with darray and subarray types: per peer, one datatype over each local array, built once from the arrays' own index queries; a call is one MPI_Alltoallw.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/mpi/datatype.hpp>

#include <redist/config.hpp>
#include <redist/dist/grid.hpp>

#include "alltoall.hpp"

namespace redist::bench {

/// One dimension of a local array restricted to the indices one peer owns in the other layout,
/// as a user describes it to MPI: one interval (a subarray's start and subsize), or the local
/// indices whose block of `block` is dealt to coordinate `coord` of `procs` (a darray dimension,
/// MPI_DISTRIBUTE_CYCLIC with darg = block, or MPI_DISTRIBUTE_NONE when procs = 1); both when
/// both fit, neither when the set is irregular (then no darray or subarray type describes it).
struct DimSelection {
  index_t extent = 0;  ///< local extent of the dimension
  index_t count = 0;   ///< indices selected
  bool interval = false;
  index_t start = 0, size = 0;
  bool cyclic = false;
  index_t block = 0;
  int procs = 1, coord = 0;
};

namespace detail {

/// The selection `mine[L]` (L < extent) as an interval and/or a block-cyclic pattern.
inline DimSelection select(const std::vector<char>& mine) {
  DimSelection s;
  s.extent = static_cast<index_t>(mine.size());
  const index_t n = s.extent;
  index_t first = -1, last = -1;
  for (index_t l = 0; l < n; ++l)
    if (mine[static_cast<std::size_t>(l)]) {
      if (first < 0) first = l;
      last = l;
      ++s.count;
    }
  if (s.count == 0) return s;
  if (last - first + 1 == s.count) {
    s.interval = true;
    s.start = first;
    s.size = s.count;
  }
  // The first run gives the block; the gap to the next run, the process count.
  index_t b = 0;
  while (first + b < n && mine[static_cast<std::size_t>(first + b)]) ++b;
  index_t next = first + b;
  while (next < n && !mine[static_cast<std::size_t>(next)]) ++next;
  std::vector<std::pair<index_t, index_t>> candidates;  // (block, procs); coord = first / block
  if (s.count == n) {
    candidates.push_back({n, 1});
  } else if (next < n) {
    if ((next - first) % b == 0) candidates.push_back({b, (next - first) / b});
  } else {
    candidates.push_back({b, (n + b - 1) / b});  // one block: [first, first + b)
    if (first + b == n) candidates.push_back({first, 2});  // the trailing part [first, n) of block 1
  }
  for (const auto& [blk, p] : candidates) {
    if (blk <= 0 || first % blk != 0 || first / blk >= p || p > INT_MAX) continue;
    bool fits = true;
    for (index_t l = 0; l < n && fits; ++l) fits = (mine[static_cast<std::size_t>(l)] != 0) == ((l / blk) % p == first / blk);
    if (fits) {
      s.cyclic = true;
      s.block = blk;
      s.procs = static_cast<int>(p);
      s.coord = static_cast<int>(first / blk);
      break;
    }
  }
  return s;
}

/// The grid coordinate, along dimension d, of the process of x that owns global index g along d
/// (the other coordinates at 0): a user's owner formula per dimension, from x's own queries.
template <class X>
int owner_coord(const X& x, std::size_t d, index_t g) {
  auto idx = x.extents();
  for (auto& v : idx) v = 0;
  idx[d] = g;
  return (*x.grid().coords_of(x.owner(idx)))[d];
}

/// Global index along d of x's local index l along d (the other local indices at 0).
template <class X>
index_t global_along(const X& x, std::size_t d, index_t l) {
  auto idx = x.local_extents();
  for (auto& v : idx) v = 0;
  idx[d] = l;
  return x.global_index(idx)[d];
}

}  // namespace detail

/// A source seen through another array's storage: TransposedArray (bench/transpose.hpp) has base().
template <class X>
concept transposed_source = requires(const X& x) { x.base(); };

/// The array whose local storage holds x's elements: x, or the array x transposes.
template <class X>
const auto& storage_of(const X& x) {
  if constexpr (transposed_source<X>) return x.base();
  else return x;
}

/// dst = src (or dst = transpose(src) when src is a TransposedArray of bench/transpose.hpp) as
/// one MPI_Alltoallw with the datatypes a user writes, nothing from redist's plans:
///
///   for every peer q:  send type = the elements of my local source that q owns in dst,
///                      receive type = the elements of my local destination that q owns in src;
///   MPI_Alltoallw(src, 1 or 0, 0, send types, dst, 1 or 0, 0, receive types)
///
/// Layouts of Block, Cyclic<X> and Collapsed dimensions are products over dimensions, so per
/// dimension the indices of my local array that a peer owns in the other layout are one set,
/// and the type is the product of those sets over the local array, in its storage order:
///  - MPI_Type_create_subarray when every set is one interval (Block or Collapsed against
///    Block or Collapsed: corner_turn, transpose_rows);
///  - MPI_Type_create_darray on the local array, dimension by dimension MPI_DISTRIBUTE_CYCLIC
///    with darg = the block the peer's part shows in *local* indices, or MPI_DISTRIBUTE_NONE,
///    when every set is block-cyclic in local indices. That holds when the blocks nest: CYCLIC(b1)
///    on P1 processes against CYCLIC(b2) on P2 with b2 a multiple of b1·P1 shows as CYCLIC(b2/P1)
///    on P2 in the source's local indices and as CYCLIC(b1) on P1 in the destination's
///    (mat_b32_b128: 32 on 2 -> 128 on 2 is CYCLIC(64) and CYCLIC(32)), and when one side has
///    one process along the dimension.
/// The sets are read from the arrays' public queries (global_index, owner, grid().coords_of),
/// one dimension at a time, and the darray or subarray parameters recognized from them; a set
/// that is neither (CYCLIC(64) on 2 against CYCLIC(100) on 4) has no such type, and the
/// constructor throws std::invalid_argument on every rank (the harness then skips the method).
/// A transposed source is sent in its own storage order and received by the column-vector type
/// of a transpose: nested hvectors in the sender's order (as MPI_Type_vector of one column,
/// resized to one element, repeated), which exists for intervals only.
/// The local part is in the call too (MPI copies it), as for the alltoallw baseline.
template <class T>
class AlltoallwDarray {
 public:
  /// Collective over src's communicator. Src: a DistArray or a TransposedArray (has base()); Dst: a DistArray.
  template <class Src, class Dst>
  AlltoallwDarray(const Src& src, const Dst& dst) {
    constexpr bool transposed = transposed_source<Src>;
    const auto& a = storage_of(src);
    constexpr std::size_t N = std::remove_cvref_t<decltype(a)>::rank();
    // Dimension d of a's storage is dimension to_dst(d) of dst (and back).
    auto to_dst = [](std::size_t d) { return transposed ? N - 1 - d : d; };

    const MPI_Comm comm = static_cast<MPI_Comm>(a.comm());
    const int nprocs = a.comm().size();
    const auto P = static_cast<std::size_t>(nprocs);
    scount_.assign(P, 0);
    rcount_.assign(P, 0);
    displ_.assign(P, 0);
    stypes_.v.assign(P, MPI_BYTE);
    rtypes_.v.assign(P, MPI_BYTE);
    std::vector<index_t> sent(P, 0), expected(P, 0);

    std::string why;
    try {
      // Send side: per dimension d of my source, per coordinate c of dst's grid along to_dst(d),
      // the local indices whose element dst's coordinate c owns.
      const auto ea = a.local_extents();
      const bool have_src = a.local_size() > 0 && std::all_of(ea.begin(), ea.end(), [](index_t e) { return e > 0; });
      const auto eb = dst.local_extents();
      const bool have_dst = dst.local_size() > 0 && std::all_of(eb.begin(), eb.end(), [](index_t e) { return e > 0; });
      std::array<std::vector<DimSelection>, N> ssel, rsel;
      if (have_src)
        for (std::size_t d = 0; d < N; ++d) ssel[d] = selections(a, d, ea[d], dst, to_dst(d));
      if (have_dst)
        for (std::size_t e = 0; e < N; ++e) rsel[e] = selections(dst, e, eb[e], a, to_dst(e));

      // Traversal: a's storage order; dst takes the same dimensions in the same order.
      const std::array<std::size_t, N> a_order = storage_order<N>(a);
      std::array<std::size_t, N> b_traversal{};
      for (std::size_t k = 0; k < N; ++k) b_traversal[k] = to_dst(a_order[k]);
      const bool b_in_storage_order = b_traversal == storage_order<N>(dst);

      for (int q = 0; q < nprocs; ++q) {
        const auto qs = static_cast<std::size_t>(q);
        if (const auto c = dst.grid().coords_of(q); have_src && c) {
          std::array<DimSelection, N> s;
          for (std::size_t d = 0; d < N; ++d) s[d] = ssel[d][static_cast<std::size_t>((*c)[to_dst(d)])];
          sent[qs] = product(s);
          if (sent[qs] > 0) {
            stypes_.v[qs] = storage_type(a, s, "source", q);
            scount_[qs] = 1;
          }
        }
        if (const auto c = a.grid().coords_of(q); have_dst && c) {
          std::array<DimSelection, N> s;
          for (std::size_t e = 0; e < N; ++e) s[e] = rsel[e][static_cast<std::size_t>((*c)[to_dst(e)])];
          expected[qs] = product(s);
          if (expected[qs] > 0) {
            rtypes_.v[qs] = b_in_storage_order ? storage_type(dst, s, "destination", q) : strided_type(dst, s, b_traversal, q);
            rcount_[qs] = 1;
          }
        }
        if (q != a.comm().rank() && sent[qs] > 0) {
          bytes_sent_ += sent[qs] * index_t{sizeof(T)};
          ++messages_;
        }
      }
    } catch (const std::exception& e) {
      why = e.what();
    }
    // Every rank agrees before any data moves: no type missing anywhere, the counts a rank
    // receives equal what its senders describe.
    int ok = why.empty() ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, comm);
    if (!ok) throw std::invalid_argument(why.empty() ? "no darray or subarray type on another rank" : why);
    std::vector<index_t> told(P, 0);
    const MPI_Datatype index_type = boost::mpi::get_mpi_datatype<index_t>(index_t{});
    MPI_Alltoall(sent.data(), 1, index_type, told.data(), 1, index_type, comm);
    ok = told == expected ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, comm);
    if (!ok) throw std::runtime_error("redist::bench::AlltoallwDarray: the element counts of sender and receiver differ");
  }

  /// src -> dst (collective over comm): MPI packs and unpacks through the datatypes.
  void run(MPI_Comm comm, const T* src, T* dst) {
    // Exchange
    MPI_Alltoallw(src, scount_.data(), displ_.data(), stypes_.v.data(), dst, rcount_.data(), displ_.data(),
                  rtypes_.v.data(), comm);
  }

  std::int64_t bytes_sent() const noexcept { return bytes_sent_; }
  std::int64_t messages() const noexcept { return messages_; }

 private:
  /// Committed datatypes, freed on destruction (also when the constructor throws).
  struct Types {
    std::vector<MPI_Datatype> v;
    Types() = default;
    Types(const Types&) = delete;
    Types& operator=(const Types&) = delete;
    ~Types() {
      for (MPI_Datatype& t : v)
        if (t != MPI_BYTE && t != MPI_DATATYPE_NULL) MPI_Type_free(&t);
    }
  };

  static MPI_Datatype element() { return boost::mpi::get_mpi_datatype<T>(T{}); }

  template <std::size_t N, class X>
  static std::array<std::size_t, N> storage_order(const X& x) {
    std::array<std::size_t, N> o{};
    for (std::size_t k = 0; k < N; ++k) o[k] = x.mapping().storage().order == Order::column_major ? k : N - 1 - k;
    return o;
  }

  /// For each coordinate c of y's grid along dimension e, the indices of x's local dimension d
  /// (extent n) whose element y's coordinate c owns.
  template <class X, class Y>
  static std::vector<DimSelection> selections(const X& x, std::size_t d, index_t n, const Y& y, std::size_t e) {
    std::vector<int> coord(static_cast<std::size_t>(n));
    for (index_t l = 0; l < n; ++l) coord[static_cast<std::size_t>(l)] = detail::owner_coord(y, e, detail::global_along(x, d, l));
    std::vector<DimSelection> out;
    std::vector<char> mine(coord.size());
    for (int c = 0; c < y.grid().extent(e); ++c) {
      for (std::size_t l = 0; l < coord.size(); ++l) mine[l] = coord[l] == c;
      out.push_back(detail::select(mine));
    }
    return out;
  }

  template <std::size_t N>
  static index_t product(const std::array<DimSelection, N>& s) {
    index_t n = 1;
    for (const DimSelection& x : s) n *= x.count;
    return n;
  }

  /// Throws unless x's local storage is tight (leading dimension = local extent): a darray or a
  /// subarray describes a dense array.
  template <class X>
  static void require_tight(const X& x) {
    const auto e = x.local_extents();
    const auto st = x.local_strides();
    constexpr std::size_t N = X::rank();
    index_t want = 1;
    for (std::size_t k = 0; k < N; ++k) {
      const std::size_t d = x.mapping().storage().order == Order::column_major ? k : N - 1 - k;
      if (st[d] != want)
        throw std::invalid_argument("redist::bench::AlltoallwDarray: padded local storage is no darray or subarray");
      want *= e[d];
    }
  }

  /// The subarray or darray type of the selection s over x's local array, in its storage order.
  template <class X, std::size_t N>
  static MPI_Datatype storage_type(const X& x, const std::array<DimSelection, N>& s, const char* side, int peer) {
    require_tight(x);
    const int order = x.mapping().storage().order == Order::column_major ? MPI_ORDER_FORTRAN : MPI_ORDER_C;
    std::array<int, N> sizes{}, sub{}, starts{};
    bool intervals = true, cyclic = true;
    for (std::size_t d = 0; d < N; ++d) {
      sizes[d] = detail::checked_int(s[d].extent, "local extent");
      intervals = intervals && s[d].interval;
      cyclic = cyclic && s[d].cyclic;
    }
    MPI_Datatype t = MPI_DATATYPE_NULL;
    if (intervals) {
      for (std::size_t d = 0; d < N; ++d) {
        sub[d] = detail::checked_int(s[d].size, "subarray size");
        starts[d] = detail::checked_int(s[d].start, "subarray start");
      }
      MPI_Type_create_subarray(static_cast<int>(N), sizes.data(), sub.data(), starts.data(), order, element(), &t);
    } else if (cyclic) {
#ifdef SMPI_H
      // SimGrid's SMPI (3.32) aborts in MPI_Type_create_darray ("Not yet implemented"): the
      // method is skipped where it needs one (bench/sim/).
      throw std::invalid_argument(std::string("the ") + side + " needs a darray type, which SMPI does not implement");
#endif
      std::array<int, N> distribs{}, dargs{}, psizes{};
      int size = 1, rank = 0;
      for (std::size_t d = 0; d < N; ++d) {
        distribs[d] = s[d].procs == 1 ? MPI_DISTRIBUTE_NONE : MPI_DISTRIBUTE_CYCLIC;
        dargs[d] = s[d].procs == 1 ? MPI_DISTRIBUTE_DFLT_DARG : detail::checked_int(s[d].block, "darray block");
        psizes[d] = s[d].procs;
        size *= s[d].procs;
        rank = rank * s[d].procs + s[d].coord;  // darray's process grid is row-major
      }
      MPI_Type_create_darray(size, rank, static_cast<int>(N), sizes.data(), distribs.data(), dargs.data(),
                             psizes.data(), order, element(), &t);
    } else {
      std::size_t d = 0;
      while (s[d].interval || s[d].cyclic) ++d;
      throw std::invalid_argument(std::string("dimension ") + std::to_string(d) + " of the " + side +
                                  ": the local indices rank " + std::to_string(peer) +
                                  " owns in the other layout are neither one interval nor block-cyclic (no subarray "
                                  "or darray type)");
    }
    MPI_Type_commit(&t);
    return t;
  }

  /// The selection s (intervals) over x's local array traversed in the dimension order
  /// `traversal` (fastest first) rather than x's storage order: the receive type of a transpose.
  template <class X, std::size_t N>
  static MPI_Datatype strided_type(const X& x, const std::array<DimSelection, N>& s,
                                   const std::array<std::size_t, N>& traversal, int peer) {
    const auto st = x.local_strides();
    MPI_Datatype t = element();
    bool owned = false;
    MPI_Aint offset = 0;
    for (std::size_t d : traversal) {
      if (!s[d].interval) {
        if (owned) MPI_Type_free(&t);
        throw std::invalid_argument(std::string("dimension ") + std::to_string(d) +
                                    " of the transposed destination: the local indices rank " + std::to_string(peer) +
                                    " owns in the source are not one interval (no transposing vector type)");
      }
      MPI_Datatype v = MPI_DATATYPE_NULL;
      MPI_Type_create_hvector(detail::checked_int(s[d].size, "vector count"), 1,
                              static_cast<MPI_Aint>(st[d] * index_t{sizeof(T)}), t, &v);
      if (owned) MPI_Type_free(&t);
      t = v;
      owned = true;
      offset += static_cast<MPI_Aint>(s[d].start * st[d] * index_t{sizeof(T)});
    }
    MPI_Datatype placed = MPI_DATATYPE_NULL;
    MPI_Type_create_hindexed_block(1, 1, &offset, t, &placed);
    MPI_Type_free(&t);
    MPI_Type_commit(&placed);
    return placed;
  }

  std::vector<int> scount_, rcount_, displ_;
  Types stypes_, rtypes_;
  std::int64_t bytes_sent_ = 0, messages_ = 0;
};

}  // namespace redist::bench
