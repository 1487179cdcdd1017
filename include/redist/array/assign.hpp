/// @file Defines assignments as values (`b <<= a`, `b <<= alpha * transpose(a) + beta * b`), redist::assign(...) that runs several in one exchange, redist::start(...) that starts them, and Pending, the move-only handle that completes them.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <typeinfo>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/hana/for_each.hpp>
#include <boost/hana/transform.hpp>
#include <boost/hana/tuple.hpp>
#include <boost/hana/unpack.hpp>
#include <boost/mpi/communicator.hpp>

#include <mpi.h>

#include <redist/array/access.hpp>
#include <redist/array/consistency.hpp>
#include <redist/array/expression.hpp>
#include <redist/array/plan_cache.hpp>
#include <redist/array/redistribute.hpp>
#include <redist/array/threads.hpp>
#include <redist/array/transpose.hpp>
#include <redist/runtime/exchange.hpp>
#include <redist/runtime/node.hpp>
#include <redist/runtime/store.hpp>

namespace redist {

namespace detail {
/// The right-hand sides an assignment takes: a distributed array, transpose(a),
/// conj_transpose(a), alpha * op(a), alpha * op(a) + beta * b.
template <class E>
struct rhs_traits {
  static constexpr bool valid = DistributedArray<E>;
};
template <class A>
struct rhs_traits<TransposeView<A>> {
  static constexpr bool valid = true;
};
template <class A>
struct rhs_traits<ConjTransposeView<A>> {
  static constexpr bool valid = true;
};
template <class E, class T>
struct rhs_traits<Scaled<E, T>> {
  static constexpr bool valid = true;
};
template <class E, class B, class T>
struct rhs_traits<Update<E, B, T>> {
  static constexpr bool valid = true;
};
template <class E>
concept AssignmentSource = rhs_traits<std::remove_cvref_t<E>>::valid;

}  // namespace detail

/// `b <<= e`: the assignment b = e as a value, to be run with others by redist::assign(...) or
/// started by redist::start(...). It refers to b and e's arrays and must be used in the same
/// full expression (as an argument of assign or start). B is b's type, or a SectionView held by
/// value.
template <class B, class E>
struct Assignment {
  B dst;
  E expr;
};

namespace detail {
/// How an assignment holds what it is given as X&& (X deduced): what it names (an array) by
/// reference, a temporary (a section, an expression, which refer to their arrays) by value.
template <class X>
using held_t = std::conditional_t<std::is_lvalue_reference_v<X>, X, std::remove_cvref_t<X>>;
template <class X>
using held_const_t = std::conditional_t<std::is_lvalue_reference_v<X>, const std::remove_reference_t<X>&,
                                        std::remove_cvref_t<X>>;
}  // namespace detail

template <class B, detail::AssignmentSource E>
  requires DistributedArray<std::remove_cvref_t<B>>
Assignment<detail::held_t<B>, detail::held_const_t<E>> operator<<=(B&& b, E&& e) {
  return {std::forward<B>(b), std::forward<E>(e)};
}

/// The handle of started assignments (redist::start): complete them with wait(), or advance them
/// with test() (true once complete). Until then the sources must not be written and the
/// destinations neither read nor written (nor assigned: their plans are in use). Move-only; its
/// destructor waits (and terminates the program if waiting fails, as an unjoined std::thread does).
class Pending {
 public:
  /// What a started exchange answers: implemented by the fused exchange's cache entry.
  struct job {
    virtual bool test_job() = 0;
    virtual void wait_job() = 0;
    virtual std::size_t messages_sent() const noexcept = 0;
    virtual std::size_t messages_received() const noexcept = 0;

   protected:
    ~job() = default;
  };

  Pending() noexcept = default;
  explicit Pending(job* j) noexcept : job_{j} {}
  Pending(Pending&& o) noexcept : job_{std::exchange(o.job_, nullptr)} {}
  Pending& operator=(Pending&& o) {
    if (this != &o) {
      wait();
      job_ = std::exchange(o.job_, nullptr);
    }
    return *this;
  }
  Pending(const Pending&) = delete;
  Pending& operator=(const Pending&) = delete;
  ~Pending() {
    if (job_ == nullptr) return;
    try {
      wait();
    } catch (...) {
      std::terminate();
    }
  }

  /// Advances the exchange without blocking (MPI progresses messages inside this call and
  /// wait()): unpacks what has arrived. True once everything has (then the handle is done).
  bool test() {
    if (job_ == nullptr) return true;
    if (!job_->test_job()) return false;
    job_ = nullptr;
    return true;
  }
  /// Blocks until the exchange is complete: unpacks each receive as it arrives.
  void wait() {
    if (job_ == nullptr) return;
    job* j = std::exchange(job_, nullptr);
    j->wait_job();
  }
  /// True once completed (by test() or wait()), or for a default-constructed handle.
  bool done() const noexcept { return job_ == nullptr; }
  /// The MPI messages (before splitting into 2 GiB chunks) this rank sends and receives in the
  /// exchange: one per peer, whatever the number of assignments. Read before completion.
  std::size_t messages_sent() const noexcept { return job_ == nullptr ? 0 : job_->messages_sent(); }
  std::size_t messages_received() const noexcept { return job_ == nullptr ? 0 : job_->messages_received(); }

 private:
  job* job_ = nullptr;
};

namespace detail {
/// An assignment's right-hand side as a term and its scalars: b = alpha * op(a) [+ beta * b].
template <class Term, class T>
struct Normalized {
  Term term;
  T alpha;
  T beta;
  bool has_beta;
};
/// 1 for the scalable element types; a value-initialized T (never used as a scalar) for others.
template <class T>
T unit() {
  if constexpr (runtime::scalable<T>) return T{1};
  else return T{};
}
template <class T, class E, class Dst>
auto normalize(const E& e, const Dst&) {
  if constexpr (DistributedArray<E>) return Normalized<PlainTerm<E>, T>{{e}, unit<T>(), T{}, false};
  else return Normalized<E, T>{e, unit<T>(), T{}, false};
}
template <class T, class E, class Dst>
auto normalize(const Scaled<E, T>& e, const Dst&) {
  return Normalized<E, T>{e.term, e.alpha, T{}, false};
}
template <class T, class E, class B, class Dst>
auto normalize(const Update<E, B, T>& e, const Dst& dst) {
  static_assert(std::is_same_v<B, Dst>, "redist: b <<= alpha * op(a) + beta * c requires c to be b itself");
  if (!same_target(e.b, dst)) report_error("redist: b <<= alpha * op(a) + beta * c requires c to be b itself");
  return Normalized<E, T>{e.term, e.alpha, e.beta, true};
}

template <class E>
inline constexpr bool is_scaled = false;
template <class E, class T>
inline constexpr bool is_scaled<Scaled<E, T>> = true;
template <class E, class B, class T>
inline constexpr bool is_scaled<Update<E, B, T>> = true;

/// One assignment of a started list, resolved: its plan (agreed on every rank), its spans and store,
/// and what its destination holds before elements arrive (before(): start_partial's writes).
template <class T, class R, class Store, class Before>
struct Resolved {
  runtime::Part<T, R, Store> part;
  Before before;
  std::uint64_t id;
  const void* cache;  ///< the destination's plan cache (each may serve one assignment of a list)
  std::span<const std::byte> src_bytes;
  std::span<const std::byte> dst_bytes;
  bool sections_of_one_array;
};

/// Resolves `b <<= e`: checks it (every rank alike, before data moves), finds its plan in b's
/// cache and agrees on it (collective, first time only).
template <class B, class E>
auto resolve(Assignment<B, E>& x) {
  auto& dst = x.dst;
  using Dst = std::remove_cvref_t<decltype(dst)>;
  using T = typename Dst::value_type;
  static_assert(!std::is_const_v<std::remove_reference_t<decltype(dst.local()[0])>>,
                "redist::DistView<const T, D> is read-only: it cannot be assigned to");
  const auto n = normalize<T>(x.expr, dst);
  using Term = std::remove_cvref_t<decltype(n.term)>;
  using traits = term_traits<Term>;
  // b <<= a and b <<= transpose(a) move any element type; scaling and conjugating need arithmetic ones.
  static_assert(runtime::scalable<T> || (!is_scaled<std::remove_cvref_t<E>> && !traits::conjugated),
                "redist: b <<= alpha * op(a) + beta * b requires an arithmetic or std::complex element type");
  check_term(n.term, dst, "assign(b <<= e)");
  const auto& a = n.term.array;
  // Partial values (start_partial): out of them, each contribution folds into Op's identity, or is
  // added (times alpha) to beta * b for a scaled update of sums; into them, the processes that
  // receive nothing hold the identity, or beta * b.
  constexpr bool scaled = is_scaled<std::remove_cvref_t<E>> || traits::conjugated;
  check_partial_types<typename traits::array_type, Dst, scaled>();
  check_indirect_destination<Dst>();
  using SrcOp = partial_op_t<typename traits::array_type>;
  using DstOp = partial_op_t<Dst>;
  using Any = runtime::AnyStore<T, traits::conjugated>;
  using Store = std::conditional_t<!std::is_void_v<SrcOp> && !scaled, runtime::fold_op<SrcOp>, Any>;
  Store store{};
  if constexpr (std::is_same_v<Store, Any>)
    store = std::is_void_v<SrcOp> ? Any::of(n.alpha, n.beta, n.has_beta) : Any::accumulating(n.alpha);
  const T b0 = n.has_beta ? n.beta : T{};
  auto before = [&dst, b0] {
    if constexpr (!std::is_void_v<SrcOp> || !std::is_void_v<DstOp>) start_partial<SrcOp, DstOp>(dst, scaled ? &b0 : nullptr);
  };
  return with_plan(n.term, dst, [&](auto& r) {
    auto src = const_local(a);
    auto out = dst.local();
    r.prepare(a.comm(), src, out);
    using R = typename std::remove_cvref_t<decltype(r.plan())>::run_type;
    return Resolved<T, R, Store, decltype(before)>{
        runtime::part(r.plan(), src, out, r.workspace(), store, array_access::segment(a), r.source_ld()),
        before,
        r.id(),
        &array_access::cache(dst),
        std::as_bytes(src),
        std::as_bytes(std::span<const T>(out.data(), out.size())),
        sections_of_one_array(a, dst)};
  });
}

/// A started exchange of K assignments, kept in a process-wide cache by its plans' ids: its state
/// (requests, scratch, where it is) and the parts of the current run.
template <std::size_t K, class Parts>
struct FusedEntry final : Pending::job {
  MPI_Comm comm = MPI_COMM_NULL;
  std::size_t chunk = runtime::max_chunk_bytes;
  std::array<std::uint64_t, K> ids{};
  runtime::ExchangeState state;
  Parts parts;
  std::uint64_t used = 0;  ///< last use, for eviction

  bool test_job() override { return runtime::test(parts, state, comm, chunk); }
  void wait_job() override { runtime::wait(parts, state, comm, chunk); }
  std::size_t messages_sent() const noexcept override { return state.messages_sent; }
  std::size_t messages_received() const noexcept override { return state.messages_received; }
};

/// The fused exchanges of this process: at most `capacity`, the least recently used one that is
/// not in flight released first.
struct FusedCache {
  struct slot {
    std::shared_ptr<void> entry;      ///< a FusedEntry<K, Parts>
    const std::type_info* type = nullptr;
    bool (*in_flight)(const void*) = nullptr;
    std::uint64_t* used = nullptr;
  };
  static constexpr std::size_t capacity = 16;
  std::vector<slot> slots;
  std::uint64_t clock = 0;

  template <class E, class Match>
  E* find(Match&& match) {
    for (slot& s : slots)
      if (*s.type == typeid(E)) {
        auto* e = static_cast<E*>(s.entry.get());
        if (match(*e)) {
          e->used = ++clock;
          return e;
        }
      }
    return nullptr;
  }
  template <class E>
  E& make() {
    if (slots.size() >= capacity) {
      std::size_t victim = slots.size();
      for (std::size_t k = 0; k < slots.size(); ++k)
        if (!slots[k].in_flight(slots[k].entry.get()) && (victim == slots.size() || *slots[k].used < *slots[victim].used))
          victim = k;
      if (victim < slots.size()) slots.erase(slots.begin() + static_cast<std::ptrdiff_t>(victim));
    }
    auto e = std::make_shared<E>();
    e->used = ++clock;
    E& ref = *e;
    slots.push_back({e, &typeid(E), [](const void* p) { return static_cast<const E*>(p)->state.in_flight; }, &ref.used});
    return ref;
  }
};
inline FusedCache& fused_cache() {
  thread_local FusedCache cache;  // each thread's lists (doc/threads.md)
  return cache;
}

/// Starts the resolved assignments as one fused exchange (collective).
template <class... Rs>
Pending start_resolved(const boost::mpi::communicator& comm, Rs&... rs) {
  const CallGuard guard(static_cast<MPI_Comm>(comm), "redist::start(...)");
  constexpr std::size_t K = sizeof...(Rs);
  using Parts = boost::hana::tuple<decltype(rs.part)...>;
  using E = FusedEntry<K, Parts>;
  const std::array<std::uint64_t, K> ids{rs.id...};
  const MPI_Comm c = static_cast<MPI_Comm>(comm);
  E* e = fused_cache().find<E>([&](const E& x) { return x.comm == c && x.ids == ids; });
  if (e == nullptr) {
    // First run of this list: every rank refuses, alike, a list whose destinations share a plan
    // cache (one array twice) or whose memory overlaps another's source or destination.
    const std::array<const void*, K> caches{rs.cache...};
    const std::array<std::span<const std::byte>, K> srcs{rs.src_bytes...}, dsts{rs.dst_bytes...};
    const std::array<bool, K> exempt{rs.sections_of_one_array...};
    std::optional<std::string> failure;
    for (std::size_t i = 0; i < K && !failure; ++i)
      for (std::size_t j = 0; j < K && !failure; ++j) {
        if (i < j && caches[i] == caches[j])
          failure = "redist::assign(...) and redist::start(...) require each destination array at most once in a list "
                    "(assignments " + std::to_string(i + 1) + " and " + std::to_string(j + 1) + " write the same array)";
        else if ((i != j || !exempt[i]) && runtime::overlap(dsts[i], srcs[j]).shares)
          failure = "redist::assign(...) and redist::start(...) require no destination to overlap a source (on rank " +
                    std::to_string(comm.rank()) + ", assignment " + std::to_string(i + 1) + " writes what assignment " +
                    std::to_string(j + 1) + " reads)";
        else if (i < j && runtime::overlap(dsts[i], dsts[j]).shares)
          failure = "redist::assign(...) and redist::start(...) require the destinations not to overlap (assignments " +
                    std::to_string(i + 1) + " and " + std::to_string(j + 1) + ")";
      }
    agree(comm, "redist::assign(...)", {}, failure);
    E& made = fused_cache().make<E>();
    made.comm = c;
    made.ids = ids;
    e = &made;
  }
  (rs.before(), ...);  // after the list's agreement, before any element moves
  e->parts = Parts{rs.part...};
  const options& opts = default_options();
  e->chunk = opts.max_message_bytes;
  // On a node whose ranks' sources are all in its window, node peers copy from shared memory (every
  // part's plan is one stage of direct messages: update_policy).
  const runtime::Node* on_node = nullptr;
  if (opts.shared_memory && comm.size() > 1) {
    const auto node = runtime::node_of(c, opts.node_size);
    if (node->size > 1 && runtime::agree_on_node(e->parts, *node, true)) on_node = node.get();
  }
  runtime::start(e->parts, e->state, c, on_node, e->chunk);
  return Pending(e);
}
}  // namespace detail

/// Starts the assignments (`b <<= a`, `c <<= alpha * transpose(d) + beta * c`, ...: any element
/// types and layouts, on one communicator) as one exchange: one message per pair of ranks carrying
/// every assignment's pieces, all posted now; the local pieces are copied now. Collective: every
/// rank starts the same list in the same order. Complete it with the returned handle's wait() (or
/// test(), or its destructor). Checks as b = a's, on every rank before any data moves. Plans are
/// cached in the destinations, the fused message layout per list of plans: a repeated start plans
/// and allocates nothing.
template <class... B, class... E>
[[nodiscard]] Pending start(Assignment<B, E>... xs) {
  static_assert(sizeof...(B) >= 1, "redist::start(...) requires at least one assignment b <<= a");
  const boost::mpi::communicator& comm = std::get<0>(std::tie(xs...)).dst.comm();
  bool same_comm = true;
  auto compare = [&](const boost::mpi::communicator& c) {
    int cmp = MPI_UNEQUAL;
    MPI_Comm_compare(static_cast<MPI_Comm>(comm), static_cast<MPI_Comm>(c), &cmp);
    return cmp == MPI_IDENT || cmp == MPI_CONGRUENT;
  };
  ((same_comm = same_comm && compare(xs.dst.comm())), ...);
  if (!same_comm) detail::report_error("redist::start(...) requires every assignment on the same communicator");
  // Resolved left to right (a braced list): each plan's first run agrees across ranks in list order.
  boost::hana::tuple<decltype(detail::resolve(xs))...> resolved{detail::resolve(xs)...};
  return boost::hana::unpack(resolved, [&](auto&... rs) { return detail::start_resolved(comm, rs...); });
}

/// Runs the assignments as one exchange (redist::start(...).wait()): k arrays cost one round of
/// messages, one per pair of ranks, instead of k. Collective; see start.
template <class... B, class... E>
void assign(Assignment<B, E>... xs) {
  start(std::move(xs)...).wait();
}

}  // namespace redist
