/// @file libredist-c: the C interface of redist/c.h over the typed engine. A layout is up to eight
/// AnyDist dimensions (redist/dist/any.hpp) on a dynamic grid, or this rank's list of indices of an
/// Indirect layout (redist/dist/indirect.hpp); a plan is a Redistribution between two such layouts
/// (of at most four dimensions: more fold, fold_whole_dims), run on the caller's buffers as elements
/// of any size (moved as units of 1, 2, 4, 8 or 16 bytes: in_units), or of a numeric type
/// (redist_plan_create_typed), in which partial sums are added, or computing dst = alpha * op(src) +
/// beta * dst (redist_plan_create_op: OpPlan).
#define OMPI_SKIP_MPICXX 1  // MPI's C++ bindings are not used (and warn under -Wextra)
#include <redist/c.h>

#include <algorithm>
#include <array>
#include <complex>
#include <cstdint>
#include <cstddef>
#include <exception>
#include <functional>
#include <limits>
#include <memory>
#include <new>
#include <numeric>
#include <optional>
#include <span>
#include <type_traits>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <redist/dist/any.hpp>
#include <redist/redist.hpp>

namespace {

using redist::AnyDist;
using redist::index_t;
using redist::Order;

constexpr int max_dims = REDIST_MAX_DIMS;  // a layout's dimensions
constexpr int plan_dims = 4;                // a plan's, after fold_whole_dims

thread_local std::string last_error;

/// Runs f; an exception becomes its class (REDIST_ERROR_ARGUMENT, _MISMATCH, _MEMORY, _MPI or
/// _INTERNAL) with its message, prefixed with the call's name.
template <class F>
int guarded(const char* call, F&& f) {
  const auto failed = [&](int code, const std::string& what) {
    last_error = std::string(call) + ": " + what;
    return code;
  };
  try {
    f();
    last_error.clear();
    return REDIST_SUCCESS;
  } catch (const std::bad_alloc&) {
    return failed(REDIST_ERROR_MEMORY, "out of memory");
  } catch (const redist::mismatch_error& e) {
    return failed(REDIST_ERROR_MISMATCH, e.what());
  } catch (const redist::error& e) {
    return failed(REDIST_ERROR_ARGUMENT, e.what());
  } catch (const boost::mpi::exception& e) {
    return failed(REDIST_ERROR_MPI, e.what());
  } catch (const std::exception& e) {
    return failed(REDIST_ERROR_INTERNAL, e.what());
  } catch (...) {
    return failed(REDIST_ERROR_INTERNAL, "unknown error");
  }
}

[[noreturn]] void fail(const std::string& what) { redist::detail::report_error(what); }

/// Dist<AnyDist, ..., AnyDist> of N dimensions.
template <class Seq>
struct any_dist_of;
template <std::size_t... I>
struct any_dist_of<std::index_sequence<I...>> {
  template <std::size_t>
  using any = AnyDist;
  using type = redist::Dist<any<I>...>;
};
template <std::size_t N>
using AnyDistN = typename any_dist_of<std::make_index_sequence<N>>::type;
template <std::size_t N>
using MappingN = typename AnyDistN<N>::mapping;

/// The rank-1 layout of an Indirect<Op> (Op void: copies; std::plus<>: partial sums), as a 1-D
/// DistArray of it has.
template <class Op>
using IndirectN = typename redist::Dist<redist::Indirect<Op>>::mapping;

}  // namespace

/// A layout as stated: bound to a communicator's size when a plan or a local size needs it. An
/// INDIRECT layout (redist_layout_create_indirect) is 1-D and holds this rank's list instead of
/// dimensions: its directory is made when a plan needs it, on the plan's communicator.
struct redist_layout_s {
  int ndims = 0;
  int indirect = 0;              // REDIST_INDIRECT or REDIST_INDIRECT_SUM; 0: dimensions
  std::vector<index_t> indices;  // INDIRECT: this rank's global indices, in local order
  std::array<AnyDist, max_dims> dists{};
  std::array<index_t, max_dims> extents{};
  std::array<int, max_dims> grid{};
  std::array<int, max_dims> offsets{};
  Order grid_order = Order::row_major;
  int grid_first = 0;
  std::vector<int> ranks;  // redist_layout_set_ranks: position k on ranks[k]; empty: grid_first + k
  redist::Storage storage{};

  /// This INDIRECT layout as the rank-1 layout of Indirect<Op> on nprocs ranks (no directory yet).
  template <class Op>
  IndirectN<Op> bind_indirect(int nprocs) const {
    return IndirectN<Op>(redist::Dist<redist::Indirect<Op>>(redist::Indirect<Op>(indices)), {extents[0]},
                         redist::DynamicGrid<1>(nprocs), {0}, redist::Storage{}, nprocs);
  }

  template <std::size_t N>
  MappingN<N> bind(int nprocs) const {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      const AnyDistN<N> dist{dists[I]...};
      redist::DynamicGrid<N> g = redist::DynamicGrid<N>(grid[I]...).with_order(grid_order).with_first(grid_first);
      if (!ranks.empty()) g = g.with_ranks(ranks);
      return MappingN<N>(dist, {extents[I]...}, g, {offsets[I]...}, storage, nprocs);
    }(std::make_index_sequence<N>{});
  }

  /// f(mapping) with the layout bound to nprocs, for its number of dimensions.
  template <class F>
  decltype(auto) visit(int nprocs, F&& f) const {
    switch (ndims) {
      case 1: return f(bind<1>(nprocs));
      case 2: return f(bind<2>(nprocs));
      case 3: return f(bind<3>(nprocs));
      case 4: return f(bind<4>(nprocs));
      case 5: return f(bind<5>(nprocs));
      case 6: return f(bind<6>(nprocs));
      case 7: return f(bind<7>(nprocs));
      default: return f(bind<8>(nprocs));
    }
  }
};

namespace {

/// The largest power of two, at most 16, that divides element_size (> 0): the unit a plan moves
/// elements of element_size bytes in (Bytes<unit>: five instantiations per layout pair serve every
/// size).
std::size_t unit_of(std::size_t element_size) {
  std::size_t unit = 16;
  while (element_size % unit != 0) unit /= 2;
  return unit;
}

/// x * m, or a redist::error naming `what` when it does not fit an index_t.
index_t times(index_t x, index_t m, const std::string& what) {
  if (x > std::numeric_limits<index_t>::max() / m)
    fail("element_size makes " + what + " too large: " + std::to_string(x) + " elements of " + std::to_string(m) +
         " units each do not fit a 64-bit index");
  return x * m;
}

/// l's dimension d (n elements, distribution D) as n m elements, each index i of it standing for
/// the m indices i m .. i m + m - 1: the same ranks hold them. CYCLIC(k) |-> CYCLIC(k m); BLOCK,
/// GEN_BLOCK(sizes) |-> GEN_BLOCK(m sizes) (each process's part m times as long); COLLAPSED,
/// REPLICATED and PARTIAL_SUM keep their kind. Grid, offset and storage as they are.
void scale_dim(redist_layout_s& l, int d, index_t m) {
  const index_t n = l.extents[d];
  const auto& dist = l.dists[d].get();
  if (const auto* c = std::get_if<redist::Cyclic<>>(&dist)) {
    // m = 0 (an empty array): any block will do.
    l.dists[d] = redist::Cyclic<>{times(c->block_size(), std::max<index_t>(m, 1), "the block of dimension " + std::to_string(d))};
  } else if (std::holds_alternative<redist::Block>(dist) || std::holds_alternative<redist::GenBlock>(dist)) {
    const AnyDist::mapping one(l.dists[d], n, l.grid[d]);
    std::vector<index_t> sizes(static_cast<std::size_t>(l.grid[d]));
    for (int p = 0; p < l.grid[d]; ++p) sizes[static_cast<std::size_t>(p)] = one.local_size(p) * m;
    l.dists[d] = redist::GenBlock(sizes);
  }
  l.extents[d] = times(n, m, "the extent of dimension " + std::to_string(d));
}

/// l for elements of m units each, as the caller's memory holds them (the m units of an element
/// consecutive): the same elements on the same ranks, the dimension fastest in storage (0 when
/// column-major, the last when row-major) scaled by m (scale_dim), the leading dimension (the
/// next dimension's stride) m times as large. An INDIRECT list g |-> g m, g m + 1, ..., g m + m - 1.
redist_layout_s in_units(const redist_layout_s& l, index_t m) {
  redist_layout_s u = l;
  if (l.indirect != 0) {
    u.extents[0] = times(l.extents[0], m, "the extent");
    u.indices.resize(static_cast<std::size_t>(times(static_cast<index_t>(l.indices.size()), m, "this rank's list")));
    auto out = u.indices.begin();
    for (const index_t g : l.indices)
      for (index_t j = 0; j < m; ++j) *out++ = g * m + j;
    return u;
  }
  scale_dim(u, l.storage.order == Order::column_major ? 0 : l.ndims - 1, m);
  u.storage.ld = times(l.storage.ld, m, "the leading dimension");
  return u;
}

/// True when dimension d of l is whole on every process: a grid extent of 1 and BLOCK, CYCLIC,
/// GEN_BLOCK or COLLAPSED (every index local, at local index = global index).
bool whole(const redist_layout_s& l, int d) {
  const auto& dist = l.dists[d].get();
  return l.grid[d] == 1 && !std::holds_alternative<redist::Replicated>(dist) && !std::holds_alternative<redist::Partial<>>(dist);
}

/// The dimensions of a and b (layouts of dimensions, the same extents and storage order) folded so
/// that a plan of fewer dimensions moves them: the same elements at the same places of the same
/// ranks. In storage order (fastest first), a dimension whole on every process of both (`whole`)
/// folds into the next slower one that is not (its index i and that one's g become i + n g, that one
/// scaled by n: scale_dim); the whole dimensions slower than every other fold into one COLLAPSED
/// dimension of their product. The fastest dimension folds only when `tight` (both leading
/// dimensions 0, as every rank agreed), since the leading dimension is the stride of the second.
/// Grid extents of 1 drop out of the grid, which numbers its processes as before.
void fold_whole_dims(redist_layout_s& a, redist_layout_s& b, bool tight) {
  const int n = a.ndims;
  const bool column_major = a.storage.order == Order::column_major;
  auto at = [&](int j) { return column_major ? j : n - 1 - j; };  // the dimension at position j of storage order
  auto both_whole = [&](int d) { return whole(a, d) && whole(b, d); };
  int last = n - 1;  // the position of the slowest dimension that is not whole (-1: none)
  while (last >= 0 && both_whole(at(last))) --last;
  const int slow = last + 1 > 0 || tight ? last + 1 : 1;  // the first position of the slow end
  std::vector<int> kept;  // in storage order
  index_t pending = 1;    // the product of the whole dimensions waiting to fold into the next kept one
  for (int j = 0; j < std::min(slow, n); ++j) {
    const int d = at(j);
    if (j < last && both_whole(d) && (j > 0 || tight)) {
      pending = times(pending, a.extents[d], "the product of the whole dimensions");
      continue;
    }
    if (pending != 1) {
      scale_dim(a, d, pending);
      scale_dim(b, d, pending);
      pending = 1;
    }
    kept.push_back(d);
  }
  if (slow < n) {  // the slow end: one COLLAPSED dimension
    index_t product = 1;
    for (int j = slow; j < n; ++j) product = times(product, a.extents[at(j)], "the product of the whole dimensions");
    for (redist_layout_s* l : {&a, &b}) {
      l->extents[at(slow)] = product;
      l->dists[at(slow)] = redist::Collapsed{};
    }
    kept.push_back(at(slow));
  }
  if (static_cast<int>(kept.size()) == n) return;
  if (!column_major) std::reverse(kept.begin(), kept.end());  // index order
  for (redist_layout_s* l : {&a, &b}) {
    const redist_layout_s f = *l;
    l->ndims = static_cast<int>(kept.size());
    for (std::size_t k = 0; k < kept.size(); ++k) {
      l->dists[k] = f.dists[kept[k]];
      l->extents[k] = f.extents[kept[k]];
      l->grid[k] = f.grid[kept[k]];
      l->offsets[k] = f.offsets[kept[k]];
    }
  }
}

/// What a plan's run reads as its source when src shares bytes with dst on this rank (the exchange
/// reads the source while it writes the destination). The plan's first run refuses it on every
/// rank before anything moves (one all-reduce, as C++'s `b = a`), unless `in_place(src_at)` accepts
/// it (src_at: where src's first element sits in dst, in elements; an update in place, each element
/// written over the source being the one already there). A later run cannot agree a refusal without
/// a collective of its own on every call, so there an overlap it does not accept is read from a
/// private copy of src made first: the result is dst = src as src was, at one copy's cost.
template <class T>
class SourceGuard {
 public:
  /// The source to run with: src, or the private copy. `first`: the plan's first run.
  template <class InPlace>
  std::span<const T> operator()(const boost::mpi::communicator& comm, bool first, std::span<const T> src,
                                std::span<const T> dst, InPlace&& in_place) {
    const redist::runtime::Overlap o = redist::runtime::overlap(src, dst);
    bool overlap = o.shares;
    if (overlap && o.src_at && (accepted_at_ == o.src_at || in_place(*o.src_at))) {
      accepted_at_ = o.src_at;
      overlap = false;
    }
    if (first) {
      std::optional<std::string> failure;
      if (overlap)
        failure = "src and dst must not overlap (on rank " + std::to_string(comm.rank()) +
                  " they share bytes), unless each element the plan writes over src is the one already there (an "
                  "update in place: a ghosted array's owned part as src); pass another buffer as dst";
      redist::detail::agree(comm, "redist_plan_execute", {}, failure);
      return src;
    }
    if (!overlap) return src;
    copy_.assign(src.begin(), src.end());
    return copy_;
  }

 private:
  std::vector<T> copy_;
  std::optional<index_t> accepted_at_;  ///< an src_at in_place accepted (its answer does not change)
};

/// in_place of SourceGuard for a plan r of plain copies: r writes over the source, starting at
/// src_at in the destination, each element onto itself (redist::writes_over_source_only_itself;
/// the runtime's local copy then skips it), and no run replaces r.
template <class R>
auto copies_in_place(const R& r, index_t src_size, index_t dst_size) {
  return [&r, src_size, dst_size](index_t src_at) {
    return !R::replans && !r.runtime_sums() && redist::writes_over_source_only_itself(r.plan(), src_at, src_size, dst_size);
  };
}

/// in_place of SourceGuard for a plan r folding partial sums (an INDIRECT_SUM source: the ghosts'
/// contributions added into the owned part at the head of the same buffer): the local copy is
/// each element's first contribution, its own value in place, and the sends read none of the
/// places the receives fold into (C++'s in_place_for of partial values).
template <class R>
auto folds_in_place(const R& r, index_t src_size, index_t dst_size) {
  return [&r, src_size, dst_size](index_t src_at) {
    return !R::replans && r.fold_starts_from_local_copy() &&
           redist::writes_over_source_only_itself(r.plan(), src_at, src_size, dst_size, true);
  };
}

/// in_place of SourceGuard for a plan that reads what it writes (a scaled update) or writes zeros
/// where nothing lands: none.
constexpr auto never_in_place = [](index_t) { return false; };

/// A plan of any dimension and element size.
struct PlanBase {
  virtual ~PlanBase() = default;
  virtual void execute(const void* src, void* dst) = 0;
  /// dst = alpha * op(src) + beta * dst (beta null: dst not read); plans of redist_plan_create_op.
  virtual void scaled(const void* /*alpha*/, const void* /*src*/, const void* /*beta*/, void* /*dst*/) {
    fail("plan must be made by redist_plan_create_op (REDIST_OP_NONE for dst = alpha * src + beta * dst): a plan of "
         "redist_plan_create or redist_plan_create_typed runs by redist_plan_execute");
  }
};

/// Elements of S bytes, moved as they are.
template <std::size_t S>
struct Bytes {
  unsigned char b[S];
};

template <std::size_t N, class T>
struct TypedPlan final : PlanBase {
  TypedPlan(boost::mpi::communicator c, MappingN<N> from, MappingN<N> to)
      : comm{std::move(c)}, src_size{from.local_size(comm.rank())}, dst_size{to.local_size(comm.rank())},
        r{std::move(from), std::move(to), comm.rank()} {}
  void execute(const void* src, void* dst) override {
    const std::span<const T> s(static_cast<const T*>(src), static_cast<std::size_t>(src_size));
    const std::span<T> d(static_cast<T*>(dst), static_cast<std::size_t>(dst_size));
    r.run(comm, guard(comm, r.before_first_run(), s, d, copies_in_place(r, src_size, dst_size)), d);
  }
  boost::mpi::communicator comm;
  index_t src_size, dst_size;
  redist::Redistribution<MappingN<N>, MappingN<N>> r;
  SourceGuard<T> guard;
};

template <std::size_t N>
std::unique_ptr<PlanBase> make_typed(const boost::mpi::communicator& comm, MappingN<N> from, MappingN<N> to,
                                     std::size_t element_size) {
  switch (element_size) {
    case 1: return std::make_unique<TypedPlan<N, Bytes<1>>>(comm, std::move(from), std::move(to));
    case 2: return std::make_unique<TypedPlan<N, Bytes<2>>>(comm, std::move(from), std::move(to));
    case 4: return std::make_unique<TypedPlan<N, Bytes<4>>>(comm, std::move(from), std::move(to));
    case 8: return std::make_unique<TypedPlan<N, Bytes<8>>>(comm, std::move(from), std::move(to));
    default: return std::make_unique<TypedPlan<N, Bytes<16>>>(comm, std::move(from), std::move(to));
  }
}

/// f(std::type_identity<T>{}) for the numeric element type `type` of redist_plan_create_typed
/// (REDIST_FLOAT, ...); false for another value.
template <class F>
bool with_type(int type, F&& f) {
  switch (type) {
    case REDIST_FLOAT: f(std::type_identity<float>{}); return true;
    case REDIST_DOUBLE: f(std::type_identity<double>{}); return true;
    case REDIST_INT32: f(std::type_identity<std::int32_t>{}); return true;
    case REDIST_INT64: f(std::type_identity<std::int64_t>{}); return true;
    case REDIST_UINT32: f(std::type_identity<std::uint32_t>{}); return true;
    case REDIST_UINT64: f(std::type_identity<std::uint64_t>{}); return true;
    case REDIST_COMPLEX_FLOAT: f(std::type_identity<std::complex<float>>{}); return true;
    case REDIST_COMPLEX_DOUBLE: f(std::type_identity<std::complex<double>>{}); return true;
    default: return false;
  }
}

/// A plan of elements of a numeric type (redist_plan_create_typed).
template <std::size_t N>
std::unique_ptr<PlanBase> make_numeric(const boost::mpi::communicator& comm, MappingN<N> from, MappingN<N> to, int type) {
  std::unique_ptr<PlanBase> plan;
  with_type(type, [&](auto t) { plan = std::make_unique<TypedPlan<N, typename decltype(t)::type>>(comm, std::move(from), std::move(to)); });
  return plan;
}

/// The size of an element type of redist_plan_create_typed, 0 for none.
std::size_t size_of_type(int type) {
  std::size_t size = 0;
  with_type(type, [&](auto t) { size = sizeof(typename decltype(t)::type); });
  return size;
}

/// f(x) for each element x of this rank's part of `to` in dst (its local extents and strides: not the
/// padding of a leading dimension).
template <class M, class T, class F>
void for_each_local(const M& to, int rank, T* dst, F&& f) {
  if (!to.coords_of(rank).has_value()) return;
  const auto e = to.local_extents(rank);
  const auto st = to.strides(rank);
  constexpr std::size_t N = M::rank();
  for (std::size_t d = 0; d < N; ++d)
    if (e[d] == 0) return;
  std::array<index_t, N> i{};
  for (;;) {
    index_t off = 0;
    for (std::size_t d = 0; d < N; ++d) off += i[d] * static_cast<index_t>(st[d]);
    f(dst[off]);
    std::size_t d = 0;
    while (d < N && ++i[d] == e[d]) i[d++] = 0;
    if (d == N) return;
  }
}

/// dst = alpha * op(src) + beta * dst (redist_plan_create_op): the Redistribution of From (a layout,
/// or Transposed<MappingN<2>> for op = transpose) -> To whose every element is stored by a scaled
/// store inside the unpack and the local copy (dst read once when beta != 0, written once), as C++'s
/// `b = alpha * op(a) + beta * b` (array/expression.hpp) does, with its policy (direct messages).
/// alpha = 0 reads no element of src and sends nothing: dst = beta * dst (zeros when beta = 0), each
/// of this rank's elements of `to` scaled where it is; ScaLAPACK's PxGEADD and PxTRAN.
template <class From, class To, class T, bool Conj>
struct OpPlan final : PlanBase {
  OpPlan(boost::mpi::communicator c, From from, To to, index_t src_elements)
      : comm{std::move(c)}, src_size{src_elements}, dst_size{to.local_size(comm.rank())},
        r{std::move(from), std::move(to), comm.rank()} {}
  void execute(const void* src, void* dst) override {
    const T one{1};
    scaled(&one, src, nullptr, dst);
  }
  void scaled(const void* alpha_p, const void* src, const void* beta_p, void* dst) override {
    if (alpha_p == nullptr) fail("alpha must not be NULL");
    const T alpha = *static_cast<const T*>(alpha_p);
    const T beta = beta_p != nullptr ? *static_cast<const T*>(beta_p) : T{};
    std::span<const T> s(static_cast<const T*>(src), static_cast<std::size_t>(src_size));
    const std::span<T> d(static_cast<T*>(dst), static_cast<std::size_t>(dst_size));
    if (alpha == T{}) {
      if (beta == T{}) for_each_local(r.to(), comm.rank(), d.data(), [](T& x) { x = T{}; });
      else for_each_local(r.to(), comm.rank(), d.data(), [beta](T& x) { x = static_cast<T>(beta * x); });
      return;
    }
    s = guard(comm, r.before_first_run(), s, d, never_in_place);
    if (beta != T{}) r.run_update(comm, s, d, redist::runtime::axpby_op<T, Conj>{alpha, beta});
    else r.run_update(comm, s, d, redist::runtime::scale_op<T, Conj>{alpha});
  }
  boost::mpi::communicator comm;
  index_t src_size, dst_size;
  redist::Redistribution<From, To, redist::detail::update_policy<From, To>> r;
  SourceGuard<T> guard;
};

/// The OpPlan of from -> to (op REDIST_OP_NONE) or transpose(from) -> to (2-D) for elements of the
/// floating element_type (REDIST_FLOAT, _DOUBLE, _COMPLEX_FLOAT, _COMPLEX_DOUBLE: ScaLAPACK's s, d,
/// c, z), conjugated for REDIST_OP_CONJ_TRANSPOSE on complex ones.
template <std::size_t N>
std::unique_ptr<PlanBase> make_op(const boost::mpi::communicator& comm, MappingN<N> from, MappingN<N> to, int type, int op) {
  auto make = [&]<class T>(std::type_identity<T>) -> std::unique_ptr<PlanBase> {
    const index_t src_elements = from.local_size(comm.rank());
    if constexpr (N == 2) {
      if (op != REDIST_OP_NONE) {
        using F = redist::Transposed<MappingN<2>>;
        if (op == REDIST_OP_CONJ_TRANSPOSE && redist::runtime::detail::is_complex<T>::value)
          return std::make_unique<OpPlan<F, MappingN<2>, T, true>>(comm, F{std::move(from)}, std::move(to), src_elements);
        return std::make_unique<OpPlan<F, MappingN<2>, T, false>>(comm, F{std::move(from)}, std::move(to), src_elements);
      }
    }
    return std::make_unique<OpPlan<MappingN<N>, MappingN<N>, T, false>>(comm, std::move(from), std::move(to), src_elements);
  };
  switch (type) {
    case REDIST_FLOAT: return make(std::type_identity<float>{});
    case REDIST_DOUBLE: return make(std::type_identity<double>{});
    case REDIST_COMPLEX_FLOAT: return make(std::type_identity<std::complex<float>>{});
    default: return make(std::type_identity<std::complex<double>>{});
  }
}

/// A plan with an INDIRECT layout on one side or both: a Redistribution between the rank-1 layouts
/// From and To (Dist<AnyDist>'s, or Indirect<>'s standing for an Indirect<Op> of either Op, the
/// plan being made of the moves the directory gave for the real pair), run on elements of T.
/// Fold: the source holds partial sums (REDIST_INDIRECT_SUM, REDIST_PARTIAL_SUM), added in T on
/// the way into a destination first zeroed. Otherwise moved as they are, and the places of an
/// INDIRECT_SUM destination that receive nothing (each index's holders but its lowest-ranked) get
/// zero (T{}: zero bytes).
template <class From, class To, class T, bool Fold>
struct IndirectPlan final : PlanBase {
  IndirectPlan(boost::mpi::communicator c, From from, To to, bool zero_unwritten)
      : comm{std::move(c)}, src_size{from.local_size(comm.rank())}, dst_size{to.local_size(comm.rank())},
        zero_unwritten_{zero_unwritten}, r{std::move(from), std::move(to), comm.rank()} {}
  void execute(const void* src, void* dst) override {
    std::span<const T> s(static_cast<const T*>(src), static_cast<std::size_t>(src_size));
    const std::span<T> d(static_cast<T*>(dst), static_cast<std::size_t>(dst_size));
    if constexpr (Fold) s = guard(comm, r.before_first_run(), s, d, folds_in_place(r, src_size, dst_size));
    else if (zero_unwritten_) s = guard(comm, r.before_first_run(), s, d, never_in_place);
    else s = guard(comm, r.before_first_run(), s, d, copies_in_place(r, src_size, dst_size));
    if constexpr (Fold) {
      // dst = sum of the holders' values: each contribution added into 0.
      r.run_update(comm, s, d, redist::runtime::fold_op<std::plus<>>{}, [&] { std::fill(d.begin(), d.end(), T{}); });
    } else {
      r.run(comm, s, d);
      if (zero_unwritten_) {
        const std::vector<unsigned char> written = redist::detail::written_places(r.plan(), dst_size);
        for (std::size_t i = 0; i < d.size(); ++i)
          if (written[i] == 0) d[i] = T{};
      }
    }
  }
  boost::mpi::communicator comm;
  index_t src_size, dst_size;
  bool zero_unwritten_;
  redist::Redistribution<From, To> r;
  SourceGuard<T> guard;
};

/// The plan's rank-1 layout standing for m: itself, or for an Indirect layout Indirect<>'s of the
/// same list without its directory (the moves are made; the sums of an Indirect<std::plus<>> are the
/// plan's own business: IndirectPlan's Fold and zeros).
template <class M>
auto stand_in(const M& m) {
  if constexpr (std::is_same_v<M, IndirectN<std::plus<>>>) {
    return IndirectN<void>(redist::Dist<redist::Indirect<>>(redist::Indirect<>(m.linear().indices())), m.extents(), m.grid(),
                           m.offsets(), m.storage(), m.nprocs());
  } else if constexpr (std::is_same_v<M, IndirectN<void>>) {
    M s = m;  // shares the list
    s.linear().attach(nullptr);
    return s;
  } else {
    return m;
  }
}

/// The IndirectPlan of from -> to (stand-ins) for elements of element_size bytes or, when the source
/// folds, of the numeric element_type.
template <class From, class To>
std::unique_ptr<PlanBase> make_indirect_typed(const boost::mpi::communicator& comm, From from, To to, bool fold,
                                              bool zero_unwritten, int element_type, std::size_t element_size) {
  std::unique_ptr<PlanBase> plan;
  if (fold) {
    with_type(element_type, [&](auto t) {
      plan = std::make_unique<IndirectPlan<From, To, typename decltype(t)::type, true>>(comm, std::move(from), std::move(to),
                                                                                        zero_unwritten);
    });
    return plan;
  }
  switch (element_size) {
    case 1: return std::make_unique<IndirectPlan<From, To, Bytes<1>, false>>(comm, std::move(from), std::move(to), zero_unwritten);
    case 2: return std::make_unique<IndirectPlan<From, To, Bytes<2>, false>>(comm, std::move(from), std::move(to), zero_unwritten);
    case 4: return std::make_unique<IndirectPlan<From, To, Bytes<4>, false>>(comm, std::move(from), std::move(to), zero_unwritten);
    case 8: return std::make_unique<IndirectPlan<From, To, Bytes<8>, false>>(comm, std::move(from), std::move(to), zero_unwritten);
    default: return std::make_unique<IndirectPlan<From, To, Bytes<16>, false>>(comm, std::move(from), std::move(to), zero_unwritten);
  }
}

/// One side of a pair with an INDIRECT layout, bound to the communicator: a 1-D layout of
/// dimensions, or an Indirect layout of copies or of partial sums (with its directory, once made).
using Side = std::variant<MappingN<1>, IndirectN<void>, IndirectN<std::plus<>>>;

/// `l` bound to nprocs ranks as a Side (no communication). A layout of dimensions paired with an
/// INDIRECT layout must place its element g on the rank its 1-D distribution names: the whole
/// communicator from rank 0 in order, no offset, tight storage; else a redist::error naming `name`.
Side side_of(const redist_layout_s& l, int nprocs, const char* name) {
  if (l.indirect == REDIST_INDIRECT) return l.bind_indirect<void>(nprocs);
  if (l.indirect == REDIST_INDIRECT_SUM) return l.bind_indirect<std::plus<>>(nprocs);
  MappingN<1> m = l.bind<1>(nprocs);
  if (!m.is_linear()) {
    const std::string n = name;
    if (l.grid[0] != nprocs)
      fail(n + " must span the communicator to be paired with an INDIRECT layout: dims[0].nprocs must be its size (" +
           std::to_string(nprocs) + ", got " + std::to_string(l.grid[0]) + ")");
    fail(n + " must lie on the communicator's ranks in order to be paired with an INDIRECT layout: grid_first 0, "
             "dims[0].offset 0, no redist_layout_set_ranks, leading_dimension 0 (got grid_first " + std::to_string(l.grid_first) +
         ", offset " + std::to_string(l.offsets[0]) + (l.ranks.empty() ? "" : ", a rank map") + ", leading_dimension " +
         std::to_string(l.storage.ld) + ")");
  }
  return m;
}

/// The plan of from -> to on comm, one of them (or both) INDIRECT. Collective over comm: each
/// INDIRECT side's directory is made (from's, then to's; an index of [0, extent) that no rank
/// lists is an error on every rank, naming the side and the index), then the pair's moves are
/// asked of the directories, of which the plan is made.
std::unique_ptr<PlanBase> make_indirect_plan(const boost::mpi::communicator& comm, Side from, Side to, bool fold,
                                             bool zero_unwritten, int element_type, std::size_t element_size) {
  auto attach = [&](Side& s, const char* name) {
    std::visit(
        [&](auto& m) {
          if constexpr (!std::is_same_v<std::remove_cvref_t<decltype(m)>, MappingN<1>>) {
            try {
              m.linear().attach(redist::detail::make_indirect_directory(comm, m.linear()));
            } catch (const redist::error& e) {  // on every rank alike (the directory agrees on it)
              fail(std::string(name) + " is an INDIRECT layout whose lists must hold every index of [0, extent) on some rank: " +
                   e.what());
            }
          }
        },
        s);
  };
  attach(from, "from");
  attach(to, "to");
  return std::visit(
      [&](const auto& f, const auto& t) -> std::unique_ptr<PlanBase> {
        using F = std::remove_cvref_t<decltype(f)>;
        using T = std::remove_cvref_t<decltype(t)>;
        if constexpr (std::is_same_v<F, MappingN<1>> && std::is_same_v<T, MappingN<1>>) {
          fail("a plan of two layouts of dimensions is not made here");  // create_plan's other path
        } else {
          // The directories give this rank's moves of the real pair; the plan is made of them.
          return redist::detail::with_directory_moves(f, t, comm, [&] {
            return make_indirect_typed(comm, stand_in(f), stand_in(t), fold, zero_unwritten, element_type, element_size);
          });
        }
      },
      from, to);
}

bool valid_order(int o) { return o == REDIST_ROW_MAJOR || o == REDIST_COLUMN_MAJOR; }
Order order_of(int o) { return o == REDIST_ROW_MAJOR ? Order::row_major : Order::column_major; }

}  // namespace

struct redist_plan_s {
  std::unique_ptr<PlanBase> plan;
};

extern "C" {

int redist_layout_create(int ndims, const redist_dim* dims, int grid_order, int grid_first, int storage_order,
                         int64_t leading_dimension, redist_layout* layout) {
  const char* call = "redist_layout_create";
  return guarded(call, [&] {
    if (layout == nullptr) fail("layout must not be NULL");
    *layout = nullptr;
    if (ndims < 1 || ndims > max_dims)
      fail("ndims must be in [1, " + std::to_string(max_dims) + "] (got " + std::to_string(ndims) + ")");
    if (dims == nullptr) fail("dims must not be NULL");
    if (!valid_order(grid_order)) fail("grid_order must be REDIST_ROW_MAJOR or REDIST_COLUMN_MAJOR (got " + std::to_string(grid_order) + ")");
    if (!valid_order(storage_order))
      fail("storage_order must be REDIST_ROW_MAJOR or REDIST_COLUMN_MAJOR (got " + std::to_string(storage_order) + ")");
    if (grid_first < 0) fail("grid_first must be >= 0 (got " + std::to_string(grid_first) + ")");
    if (leading_dimension < 0) fail("leading_dimension must be >= 0 (got " + std::to_string(leading_dimension) + ")");
    auto l = std::make_unique<redist_layout_s>();
    l->ndims = ndims;
    for (int d = 0; d < ndims; ++d) {
      const redist_dim& x = dims[d];
      const std::string name = "dims[" + std::to_string(d) + "]";
      if (x.extent < 0) fail(name + ".extent must be >= 0 (got " + std::to_string(x.extent) + ")");
      if (x.nprocs < 1) fail(name + ".nprocs must be > 0 (got " + std::to_string(x.nprocs) + ")");
      if (x.offset < 0 || x.offset >= x.nprocs)
        fail(name + ".offset must be in [0, nprocs) (got " + std::to_string(x.offset) + ", nprocs " + std::to_string(x.nprocs) + ")");
      switch (x.kind) {
        case REDIST_BLOCK: l->dists[d] = redist::Block{}; break;
        case REDIST_CYCLIC:
          if (x.block < 1) fail(name + ".block must be > 0 for REDIST_CYCLIC (got " + std::to_string(x.block) + ")");
          l->dists[d] = redist::Cyclic<>{x.block};
          break;
        case REDIST_GEN_BLOCK: {
          if (x.sizes == nullptr) fail(name + ".sizes must not be NULL for REDIST_GEN_BLOCK");
          std::vector<index_t> sizes(x.sizes, x.sizes + x.nprocs);
          for (int p = 0; p < x.nprocs; ++p)
            if (sizes[p] < 0) fail(name + ".sizes[" + std::to_string(p) + "] must be >= 0 (got " + std::to_string(sizes[p]) + ")");
          const index_t sum = std::accumulate(sizes.begin(), sizes.end(), index_t{0});
          if (sum != x.extent)
            fail(name + ".sizes must sum to extent (extent " + std::to_string(x.extent) + ", sum " + std::to_string(sum) + ")");
          l->dists[d] = redist::GenBlock(sizes);
          break;
        }
        case REDIST_COLLAPSED:
          if (x.nprocs != 1) fail(name + ".nprocs must be 1 for REDIST_COLLAPSED (got " + std::to_string(x.nprocs) + ")");
          l->dists[d] = redist::Collapsed{};
          break;
        case REDIST_REPLICATED: l->dists[d] = redist::Replicated{}; break;
        case REDIST_PARTIAL_SUM: l->dists[d] = redist::Partial<>{}; break;
        case REDIST_INDIRECT:
        case REDIST_INDIRECT_SUM:
          fail(name + ".kind must be a kind of dimension; an INDIRECT layout (REDIST_INDIRECT, REDIST_INDIRECT_SUM) is "
                      "made of this rank's indices by redist_layout_create_indirect (got " + std::to_string(x.kind) + ")");
        default:
          fail(name + ".kind must be REDIST_BLOCK, REDIST_CYCLIC, REDIST_GEN_BLOCK, REDIST_COLLAPSED, REDIST_REPLICATED or "
                      "REDIST_PARTIAL_SUM (got " + std::to_string(x.kind) + ")");
      }
      l->extents[d] = x.extent;
      l->grid[d] = x.nprocs;
      l->offsets[d] = x.offset;
    }
    l->grid_order = order_of(grid_order);
    l->grid_first = grid_first;
    l->storage = redist::Storage{order_of(storage_order), leading_dimension};
    *layout = l.release();
  });
}

int redist_layout_from_descriptor(const int desc[9], int nprow, int npcol, int grid_order, int grid_first,
                                  redist_layout* layout) {
  return guarded("redist_layout_from_descriptor", [&] {
    if (layout == nullptr) fail("layout must not be NULL");
    *layout = nullptr;
    if (desc == nullptr) fail("desc must not be NULL");
    if (desc[0] != 1) fail("desc[0] (DTYPE_) must be 1 (got " + std::to_string(desc[0]) + ")");
    if (desc[4] < 1 || desc[5] < 1)
      fail("desc[4] and desc[5] (MB_, NB_) must be > 0 (got " + std::to_string(desc[4]) + ", " + std::to_string(desc[5]) + ")");
    if (desc[8] < 1) fail("desc[8] (LLD_) must be >= 1 (got " + std::to_string(desc[8]) + ")");
    const redist_dim dims[2] = {{REDIST_CYCLIC, desc[2], desc[4], nullptr, nprow, desc[6]},
                                {REDIST_CYCLIC, desc[3], desc[5], nullptr, npcol, desc[7]}};
    if (redist_layout_create(2, dims, grid_order, grid_first, REDIST_COLUMN_MAJOR, desc[8], layout) != REDIST_SUCCESS)
      fail(last_error.substr(last_error.find(": ") + 2) + " (from the descriptor: dims[0] is M_, MB_, nprow, RSRC_; dims[1] N_, NB_, npcol, CSRC_)");
  });
}

int redist_layout_create_indirect(int64_t extent, const int64_t* indices, int64_t count, int kind, redist_layout* layout) {
  return guarded("redist_layout_create_indirect", [&] {
    if (layout == nullptr) fail("layout must not be NULL");
    *layout = nullptr;
    if (extent < 0) fail("extent must be >= 0 (got " + std::to_string(extent) + ")");
    if (count < 0) fail("count must be >= 0 (got " + std::to_string(count) + ")");
    if (count > 0 && indices == nullptr) fail("indices must not be NULL (count is " + std::to_string(count) + ")");
    if (kind != REDIST_INDIRECT && kind != REDIST_INDIRECT_SUM)
      fail("kind must be REDIST_INDIRECT or REDIST_INDIRECT_SUM (got " + std::to_string(kind) + ")");
    auto l = std::make_unique<redist_layout_s>();
    l->ndims = 1;
    l->indirect = kind;
    l->extents[0] = extent;
    if (count > 0) l->indices.assign(indices, indices + count);
    // This rank's own checks (the others' lists are theirs: an index no rank holds is found by the
    // plan, on every rank): each index in [0, extent), none listed twice; the first bad one named.
    for (std::size_t i = 0; i < l->indices.size(); ++i)
      if (l->indices[i] < 0 || l->indices[i] >= extent)
        fail("indices[" + std::to_string(i) + "] must be in [0, extent) (got " + std::to_string(l->indices[i]) + ", extent " +
             std::to_string(extent) + ")");
    std::vector<std::pair<index_t, std::size_t>> sorted(l->indices.size());
    for (std::size_t i = 0; i < sorted.size(); ++i) sorted[i] = {l->indices[i], i};
    std::sort(sorted.begin(), sorted.end());
    std::optional<std::pair<std::size_t, std::size_t>> repeat;  // (first place, repeated place), the earliest repeat
    for (std::size_t i = 1; i < sorted.size(); ++i)
      if (sorted[i].first == sorted[i - 1].first && (!repeat || sorted[i].second < repeat->second))
        repeat = std::pair{sorted[i - 1].second, sorted[i].second};
    if (repeat)
      fail("indices must list each index once on a rank (indices[" + std::to_string(repeat->second) + "] = " +
           std::to_string(l->indices[repeat->second]) + " repeats indices[" + std::to_string(repeat->first) + "])");
    *layout = l.release();
  });
}

int redist_layout_set_ranks(redist_layout layout, const int* ranks) {
  return guarded("redist_layout_set_ranks", [&] {
    if (layout == nullptr) fail("layout must not be NULL");
    if (ranks == nullptr) fail("ranks must not be NULL");
    if (layout->indirect != 0)
      fail("layout must be a layout of dimensions: an INDIRECT layout has no grid to place (its indices are on the ranks "
           "that list them)");
    int size = 1;
    for (int d = 0; d < layout->ndims; ++d) size *= layout->grid[d];
    std::vector<int> r(ranks, ranks + size);
    (void)redist::DynamicGrid<1>(size).with_ranks(r);  // Grid's own checks: ranks >= 0, distinct
    layout->ranks = std::move(r);
  });
}

int redist_layout_local_size(redist_layout layout, MPI_Comm comm, int64_t* elements) {
  return guarded("redist_layout_local_size", [&] {
    if (layout == nullptr) fail("layout must not be NULL");
    if (elements == nullptr) fail("elements must not be NULL");
    if (comm == MPI_COMM_NULL) fail("comm must not be MPI_COMM_NULL");
    int size = 0, rank = 0;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    if (layout->indirect != 0) {
      *elements = static_cast<int64_t>(layout->indices.size());
      return;
    }
    *elements = layout->visit(size, [&](const auto& m) { return static_cast<int64_t>(m.local_size(rank)); });
  });
}

int redist_layout_local_shape(redist_layout layout, MPI_Comm comm, int64_t* extents, int64_t* strides) {
  return guarded("redist_layout_local_shape", [&] {
    if (layout == nullptr) fail("layout must not be NULL");
    if (comm == MPI_COMM_NULL) fail("comm must not be MPI_COMM_NULL");
    int size = 0, rank = 0;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    if (layout->indirect != 0) {  // a 1-D list, contiguous
      if (extents != nullptr) extents[0] = static_cast<int64_t>(layout->indices.size());
      if (strides != nullptr) strides[0] = 1;
      return;
    }
    layout->visit(size, [&](const auto& m) {
      const auto e = m.local_extents(rank);
      const bool inside = m.coords_of(rank).has_value();
      const auto s = m.strides(rank);
      for (std::size_t d = 0; d < e.size(); ++d) {
        if (extents != nullptr) extents[d] = static_cast<int64_t>(e[d]);
        if (strides != nullptr) strides[d] = inside ? static_cast<int64_t>(s[d]) : 0;
      }
    });
  });
}

int redist_layout_global_indices(redist_layout layout, MPI_Comm comm, int dim, int64_t* indices) {
  return guarded("redist_layout_global_indices", [&] {
    if (layout == nullptr) fail("layout must not be NULL");
    if (comm == MPI_COMM_NULL) fail("comm must not be MPI_COMM_NULL");
    if (dim < 0 || dim >= layout->ndims)
      fail("dim must be in [0, " + std::to_string(layout->ndims) + ") (got " + std::to_string(dim) + ")");
    int size = 0, rank = 0;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    if (layout->indirect != 0) {  // this rank's list
      const std::vector<index_t>& v = layout->indices;
      if (!v.empty() && indices == nullptr) fail("indices must not be NULL (this rank holds " + std::to_string(v.size()) + " along dim)");
      std::copy(v.begin(), v.end(), indices);
      return;
    }
    layout->visit(size, [&](const auto& m) {
      if (!m.coords_of(rank).has_value()) return;  // outside the grid: no element
      const auto d = static_cast<std::size_t>(dim);
      const index_t n = m.local_extents(rank)[d];
      if (n > 0 && indices == nullptr) fail("indices must not be NULL (this rank holds " + std::to_string(n) + " along dim)");
      auto l = m.local_extents(rank);
      for (auto& x : l) x = 0;
      for (index_t i = 0; i < n; ++i) {
        l[d] = i;
        indices[i] = static_cast<int64_t>(m.global_index(rank, l)[d]);
      }
    });
  });
}

int redist_layout_free(redist_layout* layout) {
  return guarded("redist_layout_free", [&] {
    if (layout == nullptr) return;
    delete *layout;
    *layout = nullptr;
  });
}

}  // extern "C"

namespace {
/// redist_plan_create (typed false: elements of element_size bytes), redist_plan_create_typed
/// (typed: of element_type) and redist_plan_create_op (typed, op >= 0: REDIST_OP_...).
int create_plan(const char* call, redist_layout from, redist_layout to, MPI_Comm comm, std::size_t element_size,
                bool typed, int element_type, redist_plan* plan, int op = -1) {
  return guarded(call, [&] {
    if (plan == nullptr) fail("plan must not be NULL");
    *plan = nullptr;
    if (comm == MPI_COMM_NULL) fail("comm must not be MPI_COMM_NULL");
    const boost::mpi::communicator world(comm, boost::mpi::comm_attach);
    // The checks each rank makes alone, then agreed (one all-reduce): every rank fails alike.
    std::optional<std::string> error;
    const bool indirect = from != nullptr && to != nullptr && (from->indirect != 0 || to->indirect != 0);
    std::optional<Side> from_side, to_side;  // a pair with an INDIRECT layout, bound
    std::optional<redist_layout_s> from_folded, to_folded;  // from and to folded (fold_whole_dims), more than 4 dimensions
    std::optional<redist_layout_s> from_units, to_units;    // from and to in units (in_units), when the plan needs them
    bool tight = false;  // more than 4 dimensions: both leading dimensions 0 on this rank (agreed)
    std::size_t unit = element_size;                      // the size of what the plan moves
    try {
      if (from == nullptr || to == nullptr) fail("from and to must not be NULL");
      if (from->ndims != to->ndims)
        fail("from and to must have the same number of dimensions (" + std::to_string(from->ndims) + " vs " +
             std::to_string(to->ndims) + ")");
      if (typed && size_of_type(element_type) == 0)
        fail("element_type must be REDIST_FLOAT, REDIST_DOUBLE, REDIST_INT32, REDIST_INT64, REDIST_UINT32, REDIST_UINT64, "
             "REDIST_COMPLEX_FLOAT or REDIST_COMPLEX_DOUBLE (got " + std::to_string(element_type) + ")");
      if (element_size == 0) fail("element_size must be >= 1 (got 0)");
      const bool transposed = op == REDIST_OP_TRANSPOSE || op == REDIST_OP_CONJ_TRANSPOSE;
      if (op >= 0) {
        if (op != REDIST_OP_NONE && !transposed)
          fail("op must be REDIST_OP_NONE, REDIST_OP_TRANSPOSE or REDIST_OP_CONJ_TRANSPOSE (got " + std::to_string(op) + ")");
        if (element_type != REDIST_FLOAT && element_type != REDIST_DOUBLE && element_type != REDIST_COMPLEX_FLOAT &&
            element_type != REDIST_COMPLEX_DOUBLE)
          fail("element_type must be REDIST_FLOAT, REDIST_DOUBLE, REDIST_COMPLEX_FLOAT or REDIST_COMPLEX_DOUBLE for a scaled "
               "or transposed plan (ScaLAPACK's s, d, c and z; got " + std::to_string(element_type) + ")");
        for (const auto& [l, name] : {std::pair{from, "from"}, std::pair{to, "to"}}) {
          if (l->indirect != 0)
            fail(std::string(name) + " must be a layout of dimensions for redist_plan_create_op (an INDIRECT layout moves by "
                 "redist_plan_create or redist_plan_create_typed)");
          for (int d = 0; d < l->ndims; ++d)
            if (std::holds_alternative<redist::Partial<>>(l->dists[d].get()))
              fail(std::string(name) + "'s dimension " + std::to_string(d) + " is REDIST_PARTIAL_SUM, which a scaled or "
                   "transposed plan does not take (redist_plan_create_typed adds partial sums)");
        }
        if (transposed && (from->ndims != 2 || to->ndims != 2))
          fail("from and to must be 2-D for a transpose (got " + std::to_string(from->ndims) + " and " +
               std::to_string(to->ndims) + " dimensions)");
      }
      if (transposed) {
        if (from->extents[0] != to->extents[1] || from->extents[1] != to->extents[0])
          fail("to's extents must be from's swapped for a transpose (" + std::to_string(from->extents[0]) + " x " +
               std::to_string(from->extents[1]) + " -> " + std::to_string(to->extents[0]) + " x " +
               std::to_string(to->extents[1]) + ")");
      } else {
        for (int d = 0; d < from->ndims; ++d)
          if (from->extents[d] != to->extents[d])
            fail("from and to must have the same extents (dimension " + std::to_string(d) + ": " +
                 std::to_string(from->extents[d]) + " vs " + std::to_string(to->extents[d]) + ")");
      }
      if (!typed && from->indirect == REDIST_INDIRECT_SUM)
        fail("from is REDIST_INDIRECT_SUM: adding partial sums needs their element type, make the plan with "
             "redist_plan_create_typed");
      if (!typed && from->indirect == 0)
        for (int d = 0; d < from->ndims; ++d)
          if (std::holds_alternative<redist::Partial<>>(from->dists[d].get()))
            fail("from's dimension " + std::to_string(d) + " is REDIST_PARTIAL_SUM: adding partial sums needs their "
                 "element type, make the plan with redist_plan_create_typed");
      // More dimensions than a plan takes: the dimensions whole on every process folded into others.
      if (from->indirect == 0 && from->ndims > plan_dims) {
        tight = from->storage.ld == 0 && to->storage.ld == 0;
        if (from->storage.order != to->storage.order)
          fail("from and to must have the same storage_order when they have more than " + std::to_string(plan_dims) +
               " dimensions (" + std::to_string(from->ndims) + ")");
        from_folded = *from;
        to_folded = *to;
        fold_whole_dims(*from_folded, *to_folded, tight);
        if (from_folded->ndims > plan_dims) {
          std::string split;
          for (int d = 0; d < from->ndims; ++d)
            if (!whole(*from, d) || !whole(*to, d)) split += (split.empty() ? "" : ", ") + std::to_string(d);
          fail("from and to have " + std::to_string(from->ndims) + " dimensions, which a plan takes when at most " +
               std::to_string(plan_dims) + " remain after folding those whole on every process of both (nprocs 1; BLOCK, "
               "CYCLIC, GEN_BLOCK or COLLAPSED) into their neighbours: " + std::to_string(from_folded->ndims) +
               " remain (not whole: dimensions " + split + (tight ? "" : "; the fastest in storage folds only "
               "when both leading_dimension are 0") + ")");
        }
        from = &*from_folded;
        to = &*to_folded;
      }
      // Elements of another size than 1, 2, 4, 8 or 16 bytes: the layouts in units of their
      // largest power-of-two divisor up to 16 (in_units), the plan of those.
      if (!typed && unit_of(element_size) != element_size) {
        unit = unit_of(element_size);
        if (element_size / unit > static_cast<std::size_t>(std::numeric_limits<index_t>::max()))
          fail("element_size must fit a 64-bit index (got " + std::to_string(element_size) + ")");
        const auto m = static_cast<index_t>(element_size / unit);
        from_units = in_units(*from, m);
        to_units = in_units(*to, m);
        from = &*from_units;
        to = &*to_units;
      }
      if (indirect) {
        // Bound on the communicator (the grid of a layout of dimensions must fit it and lie on its ranks in order).
        from_side = side_of(*from, world.size(), "from");
        to_side = side_of(*to, world.size(), "to");
      } else {
        from->visit(world.size(), [](const auto&) {});  // the grid must fit the communicator
        to->visit(world.size(), [](const auto&) {});
      }
    } catch (const std::exception& e) {
      error = e.what();
    }
    // A pair with an INDIRECT layout makes its directories (collective) right after this
    // agreement: every rank must take that path, on the same extent.
    const redist::detail::Parameter params[] = {
        {"element_size", element_size, true},
        {"whether from's and to's leading_dimension are both 0 (in a plan of more than 4 dimensions)", tight, true},
        {"element_type", static_cast<std::uint64_t>(element_type), true},
        {"op", static_cast<std::uint64_t>(op), true},
        {"the number of dimensions", from != nullptr ? std::uint64_t(from->ndims) : 0, true},
        {"kind of from (REDIST_INDIRECT 6, REDIST_INDIRECT_SUM 7, 0: a layout of dimensions)",
         from != nullptr ? static_cast<std::uint64_t>(from->indirect) : 0, true},
        {"kind of to (REDIST_INDIRECT 6, REDIST_INDIRECT_SUM 7, 0: a layout of dimensions)",
         to != nullptr ? static_cast<std::uint64_t>(to->indirect) : 0, true},
        {"extent of a plan with an INDIRECT layout", indirect ? static_cast<std::uint64_t>(from->extents[0]) : 0, true}};
    redist::detail::agree(world, call, params, error);
    // redist's own communicator: its messages never meet the caller's.
    const boost::mpi::communicator c(comm, boost::mpi::comm_duplicate);
    auto p = std::make_unique<redist_plan_s>();
    if (indirect) {
      // The source folds when it holds partial sums (INDIRECT_SUM, or a PARTIAL_SUM dimension: the
      // plan is then typed); an INDIRECT_SUM destination's places that receive nothing get zero.
      const bool fold = from->indirect == REDIST_INDIRECT_SUM ||
                        (from->indirect == 0 && std::holds_alternative<redist::Partial<>>(from->dists[0].get()));
      p->plan = make_indirect_plan(c, std::move(*from_side), std::move(*to_side), fold, to->indirect == REDIST_INDIRECT_SUM,
                                   element_type, unit);
      *plan = p.release();
      return;
    }
    const int n = c.size();
    auto make = [&]<std::size_t N>(std::integral_constant<std::size_t, N>) {
      if (op >= 0) return make_op<N>(c, from->bind<N>(n), to->bind<N>(n), element_type, op);
      if (typed) return make_numeric<N>(c, from->bind<N>(n), to->bind<N>(n), element_type);
      return make_typed<N>(c, from->bind<N>(n), to->bind<N>(n), unit);
    };
    switch (from->ndims) {
      case 1: p->plan = make(std::integral_constant<std::size_t, 1>{}); break;
      case 2: p->plan = make(std::integral_constant<std::size_t, 2>{}); break;
      case 3: p->plan = make(std::integral_constant<std::size_t, 3>{}); break;
      default: p->plan = make(std::integral_constant<std::size_t, 4>{}); break;
    }
    *plan = p.release();
  });
}
}  // namespace

extern "C" {

int redist_plan_create(redist_layout from, redist_layout to, MPI_Comm comm, size_t element_size, redist_plan* plan) {
  return create_plan("redist_plan_create", from, to, comm, element_size, false, 0, plan);
}

int redist_plan_create_typed(redist_layout from, redist_layout to, MPI_Comm comm, int element_type, redist_plan* plan) {
  const std::size_t size = size_of_type(element_type);
  return create_plan("redist_plan_create_typed", from, to, comm, size == 0 ? 8 : size, true, element_type, plan);
}

int redist_plan_create_op(redist_layout from, redist_layout to, MPI_Comm comm, int element_type, int op, redist_plan* plan) {
  const std::size_t size = size_of_type(element_type);
  return create_plan("redist_plan_create_op", from, to, comm, size == 0 ? 8 : size, true, element_type, plan,
                     op < 0 ? std::numeric_limits<int>::max() : op);
}

int redist_plan_execute_scaled(redist_plan plan, const void* alpha, const void* src, const void* beta, void* dst) {
  return guarded("redist_plan_execute_scaled", [&] {
    if (plan == nullptr || !plan->plan) fail("plan must be a plan made by redist_plan_create_op");
    plan->plan->scaled(alpha, src, beta, dst);
  });
}

int redist_plan_execute(redist_plan plan, const void* src, void* dst) {
  return guarded("redist_plan_execute", [&] {
    if (plan == nullptr || !plan->plan) fail("plan must be a plan made by redist_plan_create");
    plan->plan->execute(src, dst);
  });
}

int redist_plan_free(redist_plan* plan) {
  return guarded("redist_plan_free", [&] {
    if (plan == nullptr) return;
    delete *plan;
    *plan = nullptr;
  });
}

int redist_layout_local_size_f(redist_layout layout, MPI_Fint comm, int64_t* elements) {
  return redist_layout_local_size(layout, MPI_Comm_f2c(comm), elements);
}

int redist_layout_local_shape_f(redist_layout layout, MPI_Fint comm, int64_t* extents, int64_t* strides) {
  return redist_layout_local_shape(layout, MPI_Comm_f2c(comm), extents, strides);
}

int redist_layout_global_indices_f(redist_layout layout, MPI_Fint comm, int dim, int64_t* indices) {
  return redist_layout_global_indices(layout, MPI_Comm_f2c(comm), dim, indices);
}

int redist_plan_create_f(redist_layout from, redist_layout to, MPI_Fint comm, size_t element_size, redist_plan* plan) {
  return redist_plan_create(from, to, MPI_Comm_f2c(comm), element_size, plan);
}

int redist_plan_create_typed_f(redist_layout from, redist_layout to, MPI_Fint comm, int element_type, redist_plan* plan) {
  return redist_plan_create_typed(from, to, MPI_Comm_f2c(comm), element_type, plan);
}

int redist_plan_create_op_f(redist_layout from, redist_layout to, MPI_Fint comm, int element_type, int op, redist_plan* plan) {
  return redist_plan_create_op(from, to, MPI_Comm_f2c(comm), element_type, op, plan);
}

const char* redist_error_message(void) { return last_error.c_str(); }

const char* redist_version(void) { return REDIST_VERSION; }

}  // extern "C"
