/// @file Defines Node (the ranks of a communicator that share memory with this one), node_of, and SharedSegment (one rank's part of an MPI-3 shared-memory window on its node).
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

#include <boost/mpi/exception.hpp>

namespace redist::runtime {

/// The ranks of a communicator that can load and store each other's memory: MPI-3's
/// MPI_COMM_TYPE_SHARED split of the communicator, optionally cut into emulated nodes of
/// `node_size` consecutive ranks (to test the mixed path, shared memory within a node and
/// messages between nodes, on one machine).
struct Node : std::enable_shared_from_this<Node> {
  MPI_Comm comm = MPI_COMM_NULL;  ///< this rank's node: the ranks of the parent on it
  int size = 1;                   ///< ranks on the node
  int rank = 0;                   ///< this rank's rank on the node
  int parent_size = 1;            ///< ranks of the parent communicator
  std::vector<int> rank_of;       ///< per rank of the parent: its rank on this node, or -1 when elsewhere
  /// Every node of the parent, numbered 0, 1, ... in the order of their lowest parent ranks: per
  /// rank of the parent its node (node_index), and node k's parent ranks, ascending, at
  /// members[member_start[k], member_start[k + 1]) (the same on every rank).
  std::vector<int> node_index, member_start, members;
  int index = 0;                  ///< this rank's node's number
  bool crowded = false;           ///< some node of the parent holds several ranks

  Node() = default;
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;
  ~Node() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized && comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  }
  /// Every rank of the parent is on this node.
  bool whole() const noexcept { return size == parent_size; }
  /// True when peer (a rank of the parent) is on this node.
  bool holds(int peer) const noexcept { return rank_of[static_cast<std::size_t>(peer)] >= 0; }
  /// How many nodes the parent spans; node k's parent ranks, ascending.
  int nodes() const noexcept { return static_cast<int>(member_start.size()) - 1; }
  std::span<const int> members_of(int k) const noexcept {
    const auto a = static_cast<std::size_t>(member_start[static_cast<std::size_t>(k)]);
    const auto b = static_cast<std::size_t>(member_start[static_cast<std::size_t>(k) + 1]);
    return std::span<const int>(members).subspan(a, b - a);
  }
};

namespace detail {
inline void check(int rc, const char* routine) {
  if (rc != MPI_SUCCESS) throw boost::mpi::exception(routine, rc);
}

/// The nodes of one communicator, by node_size, kept as an attribute of the communicator and
/// freed with it.
using NodeCache = std::map<int, std::shared_ptr<const Node>>;

inline int node_keyval() {
  static const int keyval = [] {
    int k = MPI_KEYVAL_INVALID;
    auto del = [](MPI_Comm, int, void* value, void*) -> int {
      delete static_cast<NodeCache*>(value);
      return MPI_SUCCESS;
    };
    check(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del, &k, nullptr), "MPI_Comm_create_keyval");
    return k;
  }();
  return keyval;
}

inline std::shared_ptr<const Node> make_node(MPI_Comm parent, int node_size) {
  auto node = std::make_shared<Node>();
  int rank = 0;
  MPI_Comm_rank(parent, &rank);
  MPI_Comm_size(parent, &node->parent_size);
  MPI_Comm shared = MPI_COMM_NULL;
  check(MPI_Comm_split_type(parent, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shared), "MPI_Comm_split_type");
  if (node_size > 0) {
    int r = 0;
    MPI_Comm_rank(shared, &r);
    check(MPI_Comm_split(shared, r / node_size, r, &node->comm), "MPI_Comm_split");
    MPI_Comm_free(&shared);
  } else {
    node->comm = shared;
  }
  MPI_Comm_size(node->comm, &node->size);
  MPI_Comm_rank(node->comm, &node->rank);
  MPI_Group pg = MPI_GROUP_NULL, ng = MPI_GROUP_NULL;
  MPI_Comm_group(parent, &pg);
  MPI_Comm_group(node->comm, &ng);
  std::vector<int> all(static_cast<std::size_t>(node->parent_size));
  for (int p = 0; p < node->parent_size; ++p) all[static_cast<std::size_t>(p)] = p;
  node->rank_of.resize(all.size());
  check(MPI_Group_translate_ranks(pg, node->parent_size, all.data(), ng, node->rank_of.data()),
            "MPI_Group_translate_ranks");
  for (int& r : node->rank_of)
    if (r == MPI_UNDEFINED) r = -1;
  MPI_Group_free(&pg);
  MPI_Group_free(&ng);
  // Every rank's node, by its lowest parent rank (one all-gather over the parent).
  int lowest = rank;
  check(MPI_Allreduce(MPI_IN_PLACE, &lowest, 1, MPI_INT, MPI_MIN, node->comm), "MPI_Allreduce");
  std::vector<int> lowest_of(all.size());
  check(MPI_Allgather(&lowest, 1, MPI_INT, lowest_of.data(), 1, MPI_INT, parent), "MPI_Allgather");
  std::vector<int> firsts = lowest_of;
  std::sort(firsts.begin(), firsts.end());
  firsts.erase(std::unique(firsts.begin(), firsts.end()), firsts.end());
  node->node_index.resize(all.size());
  node->member_start.assign(firsts.size() + 1, 0);
  for (std::size_t p = 0; p < all.size(); ++p) {
    const auto k = static_cast<std::size_t>(std::lower_bound(firsts.begin(), firsts.end(), lowest_of[p]) - firsts.begin());
    node->node_index[p] = static_cast<int>(k);
    ++node->member_start[k + 1];
  }
  for (std::size_t k = 0; k < firsts.size(); ++k) node->member_start[k + 1] += node->member_start[k];
  node->members.resize(all.size());
  std::vector<int> fill(node->member_start.begin(), node->member_start.end() - 1);
  for (std::size_t p = 0; p < all.size(); ++p)  // ascending p: each node's members ascending
    node->members[static_cast<std::size_t>(fill[static_cast<std::size_t>(node->node_index[p])]++)] = static_cast<int>(p);
  node->index = node->node_index[static_cast<std::size_t>(rank)];
  for (std::size_t k = 0; k < firsts.size(); ++k)
    node->crowded = node->crowded || node->member_start[k + 1] - node->member_start[k] > 1;
  return node;
}
}  // namespace detail

/// This rank's node in comm (collective over comm the first time for a given node_size, then a
/// lookup in the communicator's attribute). node_size 0: the machine's nodes; k > 0: each
/// machine node cut into emulated nodes of k consecutive ranks.
inline std::shared_ptr<const Node> node_of(MPI_Comm comm, int node_size = 0) {
  void* value = nullptr;
  int found = 0;
  detail::check(MPI_Comm_get_attr(comm, detail::node_keyval(), &value, &found), "MPI_Comm_get_attr");
  auto* cache = static_cast<detail::NodeCache*>(value);
  if (!found) {
    cache = new detail::NodeCache;
    detail::check(MPI_Comm_set_attr(comm, detail::node_keyval(), cache), "MPI_Comm_set_attr");
  }
  auto it = cache->find(node_size);
  if (it == cache->end()) it = cache->emplace(node_size, detail::make_node(comm, node_size)).first;
  return it->second;
}

/// This rank's node in comm when it is known already (node_of has been called on comm with this
/// node_size, collectively, so it is known on every rank alike), else null. No communication.
inline std::shared_ptr<const Node> known_node(MPI_Comm comm, int node_size = 0) {
  void* value = nullptr;
  int found = 0;
  detail::check(MPI_Comm_get_attr(comm, detail::node_keyval(), &value, &found), "MPI_Comm_get_attr");
  if (!found) return nullptr;
  const auto* cache = static_cast<const detail::NodeCache*>(value);
  const auto it = cache->find(node_size);
  return it == cache->end() ? nullptr : it->second;
}

/// One rank's part of an MPI-3 shared-memory window on its node (MPI_Win_allocate_shared),
/// with the addresses of every node peer's part in this process. Construction and destruction
/// are collective over the node (destruction frees the window unless MPI is finalized). The
/// window stays in a passive-target epoch (MPI_Win_lock_all) for its lifetime, so that
/// MPI_Win_sync orders this process's loads and stores against the other ranks' (MPI-3's
/// separate-memory-model rule for shared windows: store, sync, synchronize with the other rank,
/// sync, load).
class SharedSegment {
 public:
  SharedSegment(std::shared_ptr<const Node> node, std::size_t bytes, std::size_t unit)
      : node_{std::move(node)}, bytes_{bytes} {
    MPI_Info info = MPI_INFO_NULL;
    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_shared_noncontig", "true");  // each rank's part on its own pages
    void* base = nullptr;
    const int rc = MPI_Win_allocate_shared(static_cast<MPI_Aint>(bytes), static_cast<int>(unit), info, node_->comm,
                                           &base, &win_);
    MPI_Info_free(&info);
    detail::check(rc, "MPI_Win_allocate_shared");
    detail::check(MPI_Win_lock_all(MPI_MODE_NOCHECK, win_), "MPI_Win_lock_all");
    data_ = static_cast<std::byte*>(base);
    populate(data_, bytes);
    peers_.resize(static_cast<std::size_t>(node_->size));
    for (int r = 0; r < node_->size; ++r) {
      MPI_Aint size = 0;
      int disp = 0;
      void* p = nullptr;
      detail::check(MPI_Win_shared_query(win_, r, &size, &disp, &p), "MPI_Win_shared_query");
      peers_[static_cast<std::size_t>(r)] = static_cast<const std::byte*>(p);
    }
  }
  SharedSegment(const SharedSegment&) = delete;
  SharedSegment& operator=(const SharedSegment&) = delete;
  /// Asks the system for the pages of [p, p + bytes) now, in one call (Linux's
  /// MADV_POPULATE_WRITE, 5.14 on), where the first writes would take a fault per page: every
  /// window made here is written whole right after it is made (an array's or a SharedBuffer's
  /// elements initialized, an aggregation window zeroed, a staging window packed by the first
  /// exchange). Advice only: where it is refused, the faults come as before.
  static void populate([[maybe_unused]] std::byte* p, [[maybe_unused]] std::size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
    const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    const auto lo = (reinterpret_cast<std::uintptr_t>(p) + page - 1) / page * page;
    const auto hi = (reinterpret_cast<std::uintptr_t>(p) + bytes) / page * page;
    if (hi > lo) (void)::madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_POPULATE_WRITE);
#endif
  }
  ~SharedSegment() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized || win_ == MPI_WIN_NULL) return;
    MPI_Win_unlock_all(win_);
    MPI_Win_free(&win_);
  }

  std::byte* data() noexcept { return data_; }
  const std::byte* data() const noexcept { return data_; }
  std::size_t bytes() const noexcept { return bytes_; }
  const Node& node() const noexcept { return *node_; }
  const std::shared_ptr<const Node>& node_ptr() const noexcept { return node_; }
  MPI_Win window() const noexcept { return win_; }
  /// The part of peer (a rank of the parent communicator) as this process sees it: nullptr
  /// when peer is on another node (or its part is empty).
  const std::byte* peer(int parent_rank) const noexcept {
    const int r = node_->rank_of[static_cast<std::size_t>(parent_rank)];
    return r < 0 ? nullptr : peers_[static_cast<std::size_t>(r)];
  }
  /// Makes this process's stores to the window visible and the others' visible to it, once
  /// the ranks have synchronized in between (MPI_Win_sync).
  void sync() const { detail::check(MPI_Win_sync(win_), "MPI_Win_sync"); }

 private:
  std::shared_ptr<const Node> node_;
  MPI_Win win_ = MPI_WIN_NULL;
  std::byte* data_ = nullptr;
  std::size_t bytes_ = 0;
  std::vector<const std::byte*> peers_;
};

}  // namespace redist::runtime
