/// @file Defines Indirect<Op>: an arbitrary layout in which each rank lists the global indices it holds (HPF 2.0's INDIRECT, Tpetra's Map, PetscSF's leaves), ghosts allowed, and IndirectDirectory, a rank's part of the distributed directory of such a layout.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <ranges>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <redist/config.hpp>
#include <redist/detail/records.hpp>
#include <redist/dist/distribution.hpp>
#include <redist/dist/ldd.hpp>

namespace redist {

namespace detail {
/// A request to the directory: the sender holds [index, index + len) at its local places
/// [local, local + len) (a run of its list: consecutive indices at consecutive places). A record:
/// trivial, so that the buffers MPI fills with them are not initialized first.
struct DirectoryEntry {
  index_t index;
  index_t local;
  index_t len;
};
}  // namespace detail

/// One rank's part of the distributed directory of an Indirect layout (the rendezvous method):
/// who holds the global indices [lo, hi), the block of ceil(n / P) indices this rank is the BLOCK
/// owner of, as pieces: rank `rank` holds [index, index + len) at local [local, local + len).
/// Consecutive indices at consecutive local places are one piece, so a list that is really a
/// block is one piece: O(the lists' pieces in [lo, hi)) per rank, at most O(n / P + copies). Made,
/// collectively, when an array of the layout is made (array/indirect.hpp); read when a plan with
/// it is made.
struct IndirectDirectory {
  /// A record (trivial, as the moves and requests it is made of; `Piece{}` is all 0).
  struct Piece {
    index_t index;
    index_t len;
    int rank;
    index_t local;
    index_t end() const noexcept { return index + len; }
    friend constexpr bool operator==(const Piece&, const Piece&) = default;
  };
  index_t lo = 0;
  index_t hi = 0;
  /// By index, then rank. Read through detail::directory_pieces(dir): a part made of many requests
  /// (lists of short runs) keeps them unsorted in `deferred` until a pair that asks the directory
  /// needs its pieces (a pair planned by formula never does), and they are sorted then, once.
  mutable std::vector<Piece> pieces;
  /// The requests this part is made of, unsorted (counts per sending rank in deferred_counts, one
  /// rank's after the other's), while `pieces` is not made yet; empty after.
  mutable detail::records<detail::DirectoryEntry> deferred;
  mutable std::vector<index_t> deferred_counts;
  /// Whether some index of [0, n) (any rank's part, not only this one) is held by more than one
  /// rank: the same on every rank.
  bool copies = true;
  /// This rank's own list as runs (consecutive indices at consecutive places, in local order),
  /// when they are few (a halo, a partition into stretches); empty when they are not (the list
  /// is read instead).
  std::vector<Piece> list_runs;
};

namespace detail {
template <class Op>
struct indirect_from_owners;  // defined by array/indirect.hpp (collective: it needs MPI)
}  // namespace detail

/// An arbitrary 1-D layout: this rank holds the global indices it lists, in their local order
/// (`Indirect<>{mine}`: local element l is global element mine[l]). An index may be held by
/// several ranks (ghosts, halos):
///  - `Indirect<>` (Op = void): the copies hold the same value. As a destination every holder
///    receives the element; as a source each receiver reads one copy (its own when it holds one).
///  - `Indirect<Op>` (`Indirect<std::plus<>>`: Tpetra's Export with ADD, PetscSF's Reduce): the
///    holders hold partial values whose Op-fold is the element. As a source every holder sends and
///    the receiver folds; as a destination the lowest-ranked holder of each index receives the
///    element and the other holders Op's identity (fold_identity), as Partial<Op> does.
/// `Indirect<>::from_owners(comm, n, owners)` is HPF's INDIRECT(map) with the map distributed in
/// blocks. A layout that leaves an index of [0, n) unheld, lists one twice on one rank, or names
/// one outside [0, n) is refused with redist::error on every rank when its array is made, naming
/// the first such index. Arrays of it are 1-D; no rank holds an O(n) map: the plans come from a
/// directory distributed in blocks (IndirectDirectory), made when the array is made.
template <class Op = void>
class Indirect {
 public:
  using distribution_concept = distribution_tag;
  using op_type = Op;

  /// No index (a rank that holds nothing).
  Indirect() : indices_{std::make_shared<const std::vector<index_t>>()} {}
  /// This rank's global indices, in local order.
  template <std::ranges::input_range R>
    requires std::integral<std::ranges::range_value_t<R>>
  explicit Indirect(const R& indices)
      : indices_{std::make_shared<const std::vector<index_t>>(std::ranges::begin(indices), std::ranges::end(indices))} {}
  template <std::integral I>
  Indirect(std::initializer_list<I> indices)
      : indices_{std::make_shared<const std::vector<index_t>>(indices.begin(), indices.end())} {}

  /// HPF's INDIRECT(map): rank r passes owners[i], the rank that holds global index r * b + i for
  /// each index of its block [r * b, min(n, (r + 1) * b)), b = ceil(n / P); every owner holds its
  /// indices in increasing order. Collective over comm (a boost::mpi::communicator or MPI_Comm);
  /// an owner outside [0, P) or an owners list of the wrong length is a redist::error on every rank.
  template <class Comm, class R>
  static Indirect from_owners(const Comm& comm, index_t n, const R& owners) {
    return detail::indirect_from_owners<Op>::make(comm, n, owners);
  }

  /// This rank's global indices, in local order.
  const std::vector<index_t>& indices() const noexcept { return *indices_; }

  /// Equal when both list the same indices on this rank (an array's layout compares its directory too).
  friend bool operator==(const Indirect& a, const Indirect& b) noexcept {
    return a.indices_ == b.indices_ || *a.indices_ == *b.indices_;
  }

  /// Indirect bound to n elements on P processes, as this rank sees it: its own indices, and
  /// (once its array is made) its part of the directory. It answers global_index and local_size
  /// for this rank only, and shows no LDDs (the other ranks' lists are not here); owner(g) and
  /// local_index(g) need the directory (a collective question) and are not offered.
  class mapping {
   public:
    /// A layout whose index sets are lists the directory knows (the plan builder asks it).
    static constexpr bool indirect = true;
    using op_type = Op;

    mapping(const Indirect& d, index_t n, int nprocs) : indices_{d.indices_}, n_{n}, nprocs_{nprocs} {
      REDIST_EXPECTS(n >= 0, "redist::Indirect::mapping(n, P) requires n to be >= 0");
      REDIST_EXPECTS(nprocs > 0, "redist::Indirect::mapping(n, P) requires P to be > 0");
      check_local();
    }
    index_t size() const noexcept { return n_; }
    int nprocs() const noexcept { return nprocs_; }
    /// Global index of this rank's local element l (p is not read: the mapping is this rank's).
    index_t global_index(int, index_t l) const noexcept { return (*indices_)[static_cast<std::size_t>(l)]; }
    /// This rank's element count (p is not read).
    index_t local_size(int) const noexcept { return static_cast<index_t>(indices_->size()); }
    /// None: an Indirect layout's sets are lists that only their ranks and the directory know.
    LddSet ldds(int) const noexcept { return {}; }
    const std::vector<index_t>& indices() const noexcept { return *indices_; }
    /// This rank's part of the directory, or nullptr before the array is made.
    const IndirectDirectory* directory() const noexcept { return directory_.get(); }
    /// Sets the directory (array/indirect.hpp, when the array is made).
    void attach(std::shared_ptr<const IndirectDirectory> d) noexcept { directory_ = std::move(d); }
    /// Equal when bound alike to the same lists and the same directory: a new array (a new
    /// directory, on every rank alike) is a new layout.
    friend bool operator==(const mapping& a, const mapping& b) noexcept {
      return a.n_ == b.n_ && a.nprocs_ == b.nprocs_ && a.indices_ == b.indices_ && a.directory_ == b.directory_;
    }

   private:
    /// This rank's own check: every index in [0, n); names the first bad one in local order. (An
    /// index listed twice by one rank is found by the directory, which sees a rank's pieces overlap.)
    void check_local() const {
      const std::vector<index_t>& v = *indices_;
      for (std::size_t l = 0; l < v.size(); ++l)
        if (v[l] < 0 || v[l] >= n_)
          detail::report_error("redist::Indirect(indices) requires every index to be in [0, n) (n = " + std::to_string(n_) +
                               "; indices[" + std::to_string(l) + "] = " + std::to_string(v[l]) + ")");
    }

    std::shared_ptr<const std::vector<index_t>> indices_;
    std::shared_ptr<const IndirectDirectory> directory_;
    index_t n_;
    int nprocs_;
  };

 private:
  std::shared_ptr<const std::vector<index_t>> indices_;
};

namespace detail {
/// True for the mapping of an Indirect layout.
template <class M>
concept indirect_mapping = requires { requires M::indirect; };
/// True for Indirect<Op>.
template <class D>
inline constexpr bool is_indirect = false;
template <class Op>
inline constexpr bool is_indirect<Indirect<Op>> = true;
}  // namespace detail

}  // namespace redist
