/// @file Defines IndirectMove, one element's move of a plan with an Indirect layout, the moves the plan builder is given for such a plan (indirect_moves_scope), and indirect_layout, which tells such layouts.
#pragma once

#include <span>
#include <type_traits>

#include <redist/config.hpp>
#include <redist/dist/indirect.hpp>

namespace redist {

/// A run of a redistribution with an Indirect layout: rank `from`'s local elements [src, src + len)
/// go to rank `to`'s local elements [dst, dst + len) (from == to: a local copy). The distributed
/// directory, or the formula of a regular side (plan/indirect.hpp), gives each rank the moves it
/// takes part in; the plan builder turns them into messages of runs. A record: trivial, so that
/// the buffers MPI fills with a permutation's moves (one per element) are not initialized first.
struct IndirectMove {
  int from;
  int to;
  index_t src;
  index_t dst;
  index_t len;
  friend constexpr bool operator==(const IndirectMove&, const IndirectMove&) = default;
};

namespace detail {
/// True for a layout with an Indirect dimension: the Indirect mapping itself, a layout whose 1-D
/// mapping is one (a 1-D array's, the rank-1 grid layout), a section or a view of one (base_type).
template <class L>
struct indirect_layout_t : std::false_type {};
template <class L>
  requires indirect_mapping<L>
struct indirect_layout_t<L> : std::true_type {};
template <class L>
  requires(!indirect_mapping<L> && requires(const L& l) { l.linear(); })
struct indirect_layout_t<L> : indirect_layout_t<std::remove_cvref_t<decltype(std::declval<const L&>().linear())>> {};
template <class L>
  requires(!indirect_mapping<L> && !requires(const L& l) { l.linear(); } && requires { typename L::base_type; })
struct indirect_layout_t<L> : indirect_layout_t<typename L::base_type> {};
template <class L>
  requires(!indirect_mapping<L> && !requires(const L& l) { l.linear(); } && !requires { typename L::base_type; } &&
           requires(const L& l) { l.m; })
struct indirect_layout_t<L> : indirect_layout_t<std::remove_cvref_t<decltype(std::declval<const L&>().m)>> {};
template <class L>
inline constexpr bool indirect_layout = indirect_layout_t<L>::value;

/// A message of single elements, whole, as a formula pair's Indirect rank makes it for a list of
/// short runs (plan/indirect.hpp's formula_lists) and its other end receives it: rank `from`'s
/// local elements `places[0, size)` go to rank `to`'s `places[size, 2 size)`, in packed order
/// (the layout of Stage::list).
struct ListedBlock {
  int from;
  int to;
  std::span<const index_t> places;
  index_t size() const noexcept { return static_cast<index_t>(places.size() / 2); }
};

/// This rank's moves for a plan with an Indirect layout: those it made (by formula) and those it
/// received (from the formula's side or the directory), read in that order, and element lists
/// made whole (`blocks`: its own and those its peers sent it), each after the moves of its pair of
/// ranks.
struct IndirectMoves {
  std::span<const IndirectMove> made, received;
  std::span<const ListedBlock> blocks = {};
  /// The buffer every block lies in (when there are blocks): the plan made of these moves takes
  /// it as its element lists (moved out of here: one plan is made of one set of moves), each
  /// block's message listed where the block is, without a copy.
  records<index_t>* lists = nullptr;
};

/// The moves of this rank for the plan being built on this thread with an Indirect layout (set by
/// an indirect_moves_scope: the array layer's, which made them by formula or asked the directory
/// for them), or none.
inline const IndirectMoves*& indirect_moves() noexcept {
  thread_local const IndirectMoves* moves = nullptr;
  return moves;
}
/// While it lives, the plans built on this thread with an Indirect layout are made of `moves`
/// (the previous ones come back when it ends). A plan stays a function of its inputs: the moves
/// are what the formula or the directory gave for this pair and this rank.
class indirect_moves_scope {
 public:
  explicit indirect_moves_scope(const IndirectMoves& moves) noexcept : saved_{indirect_moves()} { indirect_moves() = &moves; }
  indirect_moves_scope(const indirect_moves_scope&) = delete;
  indirect_moves_scope& operator=(const indirect_moves_scope&) = delete;
  ~indirect_moves_scope() { indirect_moves() = saved_; }

 private:
  const IndirectMoves* saved_;
};
}  // namespace detail

}  // namespace redist
