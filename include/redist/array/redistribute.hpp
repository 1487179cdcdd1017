/// @file Defines redistribute(src, dst[, policy]) and make_plan(src, dst) for distributed arrays.
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <type_traits>

#include <mpi.h>

#include <redist/array/access.hpp>
#include <redist/array/consistency.hpp>
#include <redist/array/indirect.hpp>
#include <redist/array/options.hpp>
#include <redist/array/partial_values.hpp>
#include <redist/array/plan_cache.hpp>
#include <redist/array/transpose.hpp>
#include <redist/dist/dist.hpp>
#include <redist/dist/partial.hpp>
#include <redist/plan/layout.hpp>
#include <redist/plan/plan.hpp>
#include <redist/plan/planner.hpp>
#include <redist/schedule/schedule.hpp>

namespace redist {

/// A distributed array: DistArray, or any type with its layout and local-storage interface.
template <class A>
concept DistributedArray = requires(const A& a) {
  typename A::value_type;
  typename A::distribution_type;
  typename A::mapping_type;
  { A::rank() } -> std::convertible_to<std::size_t>;
  { A::one_dimensional } -> std::convertible_to<bool>;
  { A::static_nprocs() } -> std::convertible_to<std::size_t>;
  { A::static_extent(std::size_t{0}) } -> std::convertible_to<std::size_t>;
  a.mapping();
  a.comm();
  a.local();
};

namespace detail {
/// a's local elements, read-only (a DistView's local() is a span of its element type, like std::span).
template <class A>
std::span<const typename A::value_type> const_local(const A& a) noexcept {
  return a.local();
}

/// The layouts a plan of Src -> Dst is built on: the arrays' own (a 1-D array's is the rank-1
/// grid layout it is). The planners look through a rank-1 layout to its 1-D distribution where a
/// 1-D schedule applies (as_cyclic, as_gen_block: basic-cycle tables, circulant, GEN_BLOCK).
template <class Src, class Dst>
struct plan_layouts {
  template <class A>
  static const auto& of(const A& a) {
    return a.mapping();
  }
  using from_type = std::remove_cvref_t<decltype(of(std::declval<const Src&>()))>;
  using to_type = std::remove_cvref_t<decltype(of(std::declval<const Dst&>()))>;
};

/// False when some dimension d has static extents in both types, and they differ (dimension d of
/// B is dimension perm(d) of A: d itself, or 1 - d for transpose(a)).
template <class A, class B, bool Transposed = false>
consteval bool static_extents_agree() {
  if (A::rank() != B::rank()) return true;  // reported by its own check
  for (std::size_t d = 0; d < B::rank(); ++d) {
    const std::size_t ea = A::static_extent(Transposed ? B::rank() - 1 - d : d), eb = B::static_extent(d);
    if (ea != dynamic && eb != dynamic && ea != eb) return false;
  }
  return true;
}

/// The checks every rank can make alone, made on every rank before any data moves.
template <class A, class B>
void check_compatible(const A& src, const B& dst, const char* call) {
  static_assert(A::rank() == B::rank(), "redist::redistribute(src, dst) requires src and dst to have the same rank");
  static_assert(static_extents_agree<A, B>(),
                "redist::redistribute(src, dst) requires src and dst to have the same static extents");
  int cmp = MPI_UNEQUAL;
  MPI_Comm_compare(static_cast<MPI_Comm>(src.comm()), static_cast<MPI_Comm>(dst.comm()), &cmp);
  if (cmp != MPI_IDENT && cmp != MPI_CONGRUENT)
    report_error(std::string("redist::") + call +
                 "(src, dst) requires src and dst to be on the same communicator (MPI_Comm_compare says " +
                 (cmp == MPI_SIMILAR ? "similar: same processes, other order" : "unequal") + ")");
  if (A::rank() > 1 && src.extents() != dst.extents()) {
    std::string s, d;
    for (index_t e : src.extents()) s += (s.empty() ? "" : " x ") + std::to_string(e);
    for (index_t e : dst.extents()) d += (d.empty() ? "" : " x ") + std::to_string(e);
    report_error(std::string("redist::") + call + "(src, dst) requires src and dst to have the same extents (" + s +
                 " vs " + d + ")");
  }
  if (src.size() != dst.size())
    report_error(std::string("redist::") + call + "(src, dst) requires src.size() to equal dst.size() (" +
                 std::to_string(src.size()) + " vs " + std::to_string(dst.size()) + ")");
}

/// check_compatible's checks for b = transpose(a) (also scaled, or conjugated): 2-D arrays, one
/// communicator, b's extents a's swapped. Made on every rank before any data moves.
template <class A, class B>
void check_transposed(const A& a, const B& dst, const char* call) {
  static_assert(B::rank() == 2 && !B::one_dimensional && A::rank() == 2,
                "redist: b = transpose(a) requires a and b to be 2-D arrays");
  static_assert(static_extents_agree<A, B, true>(), "redist: b = transpose(a) requires b's static extents to be a's swapped");
  int cmp = MPI_UNEQUAL;
  MPI_Comm_compare(static_cast<MPI_Comm>(a.comm()), static_cast<MPI_Comm>(dst.comm()), &cmp);
  if (cmp != MPI_IDENT && cmp != MPI_CONGRUENT)
    report_error(std::string("redist::") + call + " requires a and b to be on the same communicator");
  if (a.extent(0) != dst.extent(1) || a.extent(1) != dst.extent(0))
    report_error(std::string("redist::") + call + " requires b's extents to be a's swapped (" + std::to_string(a.extent(0)) +
                 " x " + std::to_string(a.extent(1)) + " -> " + std::to_string(dst.extent(0)) + " x " +
                 std::to_string(dst.extent(1)) + ")");
}

/// Refuses, on every rank, a source whose local memory overlaps the destination's on some rank
/// (two views over one buffer, b = section(b, ...)): the exchange reads the source while it
/// writes the destination. Sections of one array are exempt (SectionView checks that their
/// elements are disjoint), and so is an overlap `in_place(src_at)` accepts, src_at being where the
/// source's first element sits in the destination's local storage, in elements (an update in
/// place: redistribute's). Collective: one all-reduce, made on the first run of a plan only.
template <class T, class U, class InPlace = std::nullptr_t>
void check_no_overlap(const boost::mpi::communicator& comm, std::span<const T> src, std::span<U> dst, bool exempt,
                      const char* call, InPlace in_place = nullptr) {
  const runtime::Overlap o = runtime::overlap(src, std::span<const U>(dst));
  bool overlap = !exempt && o.shares;
  if constexpr (!std::is_same_v<InPlace, std::nullptr_t>) {
    if (overlap && o.src_at) overlap = !in_place(*o.src_at);
  }
  std::optional<std::string> failure;
  if (overlap)
    failure = std::string("redist::") + call + " requires the source's memory not to overlap the destination's (on rank " +
              std::to_string(comm.rank()) + " they share bytes: views over one buffer, or b = section(b, ...)?)" +
              (std::is_same_v<InPlace, std::nullptr_t>
                   ? std::string()
                   : std::string(", unless each element the plan writes there is the one already there (an update in "
                                 "place: a ghosted array's owned part as the source)")) +
              "; redistribute through another array";
  agree(comm, std::string("redist::") + call, {}, failure);
}

/// The in_place test of check_no_overlap for b = a with plan r, a plan no run replaces: plain
/// copies (no partial values on either side) that write over the source's elements only
/// themselves (writes_over_source_only_itself), which the runtime's local copy then skips; or a
/// fold of partial values into plain ones (an Indirect<Op> or Partial<Op> source: a ghosted
/// array's contributions summed into its owned part) whose local copy is each element's first
/// contribution (fold_starts_from_local_copy), its own value in place, the receives folded onto
/// it and the sends reading none of those places (writes_over_source_only_itself's `folds`).
/// Into partial values never: the ranks that receive nothing write Op's identity first.
template <class Src, class Dst, class R>
auto in_place_for(const R& r, index_t src_size, index_t dst_size) {
  return [&r, src_size, dst_size](index_t src_at) {
    if constexpr (has_partial<Dst>) {
      return false;
    } else {
      constexpr bool folds = has_partial<Src>;
      return !R::replans && !r.runtime_sums() && (!folds || r.fold_starts_from_local_copy()) &&
             writes_over_source_only_itself(r.plan(), src_at, src_size, dst_size, folds);
    }
  };
}

/// True when src and dst are sections of one array (whose elements SectionView checks are disjoint).
template <class A, class B>
bool sections_of_one_array(const A& src, const B& dst) noexcept {
  if constexpr (requires { src.array(); src.slices(); dst.array(); dst.slices(); })
    return static_cast<const void*>(&src.array()) == static_cast<const void*>(&dst.array());
  else
    return false;
}
}  // namespace detail

/// dst = src in dst's layout (collective over their communicator). The plan is cached in dst and
/// reused while src's and dst's layouts stay the same. Bad arguments throw redist::error on every
/// rank before any data moves.
template <DistributedArray Src, DistributedArray Dst, class S = schedule::automatic_t>
void redistribute(const Src& src, Dst& dst, S policy = {}, const options& opts = default_options()) {
  static_assert(std::is_same_v<typename Src::value_type, typename Dst::value_type>,
                "redist::redistribute(src, dst) requires src and dst to have the same element type");
  static_assert(SchedulePolicy<S>, "redist::redistribute(src, dst, policy) requires policy to be a redist::schedule policy");
  detail::check_partial_types<Src, Dst>();
  detail::check_compatible(src, dst, "redistribute");
  if (static_cast<const void*>(&src) == static_cast<const void*>(&dst)) return;
  using L = detail::plan_layouts<Src, Dst>;
  auto& r = detail::array_access::cache(dst).get(L::of(src), L::of(dst), policy, opts, src.comm());
  if (r.before_first_run()) {
    const auto from = detail::const_local(src);
    const auto to = dst.local();
    detail::check_no_overlap(src.comm(), from, to, detail::sections_of_one_array(src, dst), "redistribute(src, dst)",
                             detail::in_place_for<Src, Dst>(r, static_cast<index_t>(from.size()), static_cast<index_t>(to.size())));
  }
  r.run_arrays(src, dst);
}

/// What `b = a` (or redistribute(a, b, policy, opts)) does on this rank: the schedule and the
/// transport of its plan, this rank's messages and bytes to other ranks (node-peer copies from
/// shared memory are not messages), the schedule's steps, and str(), a few lines for a person.
/// Before the first run it reports the decision as planned (the plan is built and cached in b, as
/// b = a would, without communication); after, what the last run did. Communicates nothing, but
/// for a new pair with an Indirect layout, whose plan asks its directory (collective).
template <DistributedArray Src, DistributedArray Dst, class S = schedule::automatic_t>
Explanation explain(const Src& src, Dst& dst, S policy = {}, const options& opts = default_options()) {
  static_assert(std::is_same_v<typename Src::value_type, typename Dst::value_type>,
                "redist::explain(src, dst) requires src and dst to have the same element type");
  static_assert(SchedulePolicy<S>, "redist::explain(src, dst, policy) requires policy to be a redist::schedule policy");
  detail::check_compatible(src, dst, "explain");
  using L = detail::plan_layouts<Src, Dst>;
  const auto& r = detail::array_access::cache(dst).get(L::of(src), L::of(dst), policy, opts, src.comm());
  const runtime::SharedSegment* seg = detail::array_access::segment(src);
  const runtime::Node* node =
      opts.shared_memory && seg != nullptr && seg->node().size > 1 ? &seg->node() : nullptr;
  return r.template explain<typename Src::value_type>(node);
}

/// dst = transpose(a) for 2-D arrays: dst(i, j) = a(j, i), fused with the redistribution (no
/// intermediate copy). Collective; the plan is cached in dst like redistribute's.
template <DistributedArray A, DistributedArray Dst, class S = schedule::automatic_t>
void redistribute(const TransposeView<A>& src, Dst& dst, S policy = {}, const options& opts = default_options()) {
  static_assert(std::is_same_v<typename A::value_type, typename Dst::value_type>,
                "redist::redistribute(transpose(a), b) requires a and b to have the same element type");
  static_assert(SchedulePolicy<S>, "redist::redistribute(transpose(a), b, policy) requires policy to be a redist::schedule policy");
  const auto& a = src.array;
  detail::check_partial_types<A, Dst>();
  detail::check_transposed(a, dst, "redistribute(transpose(a), b)");
  if (static_cast<const void*>(&a) == static_cast<const void*>(&dst))
    detail::report_error("redist::redistribute(transpose(a), b) requires b to be another array than a");
  using From = Transposed<typename A::mapping_type>;
  auto& r = detail::array_access::cache(dst).get(From{a.mapping()}, dst.mapping(), policy, opts, a.comm());
  if (r.before_first_run())
    detail::check_no_overlap(a.comm(), detail::const_local(a), dst.local(), detail::sections_of_one_array(a, dst),
                             "redistribute(transpose(a), b)");
  r.run_arrays(a, dst);
}

/// dst = src with the automatic schedule and the given options.
template <DistributedArray Src, DistributedArray Dst>
void redistribute(const Src& src, Dst& dst, const options& opts) {
  redistribute(src, dst, schedule::automatic, opts);
}

/// The plan of src -> dst for this rank, built without communication (with an Indirect layout,
/// of the moves its directory gives: collective); run it with
/// plan.execute(src, dst) as often as needed. A source held in copies is read from a copy on the
/// reader's node where there is one, by the nodes its array learnt when it was made (see
/// doc/placements.md). For a pair with an Indirect layout whose plan `dst = src` made (cached in dst),
/// a copy of that plan: its directory is not asked again. Otherwise, when dst's cache holds no
/// plan, the plan made is left there as well (the two share its element lists), so that `dst = src`
/// after make_plan asks nothing either; a plan of another pair cached in dst is left alone.
template <DistributedArray Src, DistributedArray Dst, class S = schedule::automatic_t>
Redistribution<typename detail::plan_layouts<Src, Dst>::from_type, typename detail::plan_layouts<Src, Dst>::to_type, S>
make_plan(const Src& src, const Dst& dst, S policy = {}, const options& opts = default_options()) {
  static_assert(std::is_same_v<typename Src::value_type, typename Dst::value_type>,
                "redist::make_plan(src, dst) requires src and dst to have the same element type");
  static_assert(SchedulePolicy<S>, "redist::make_plan(src, dst, policy) requires policy to be a redist::schedule policy");
  detail::check_partial_types<Src, Dst>();
  detail::check_compatible(src, dst, "make_plan");
  using L = detail::plan_layouts<Src, Dst>;
  const auto& c = src.comm();
  const auto from = L::of(src);
  using R = Redistribution<typename L::from_type, typename L::to_type, S>;
  // The plan dst = src made (every rank alike: a cache's entries are made and dropped by collective
  // calls), copied: a pair with an Indirect layout asks its directory once.
  if constexpr (detail::indirect_layout<typename L::from_type> || detail::indirect_layout<typename L::to_type>) {
    detail::PlanCache& plans = detail::array_access::cache(dst);
    if (const R* r = plans.cached(from, L::of(dst), policy, opts, c)) return R{detail::fresh_plan, *r};
    // A cache with room keeps the plan made here (collective), shared with the copy returned: the
    // two hold one set of element lists, and `dst = src` after make_plan asks nothing.
    if (plans.has_room()) return R{detail::fresh_plan, plans.get(from, L::of(dst), policy, opts, c)};
  }
  // A pair with an Indirect layout is planned of the moves its directory gives (collective).
  return detail::with_directory_moves(from, L::of(dst), c, [&] {
    return R{from, L::of(dst), c.rank(), policy, opts,
             c.size() > 1 && detail::reads_copies(from) ? runtime::known_node(static_cast<MPI_Comm>(c), opts.node_size)
                                                        : nullptr};
  });
}

}  // namespace redist
