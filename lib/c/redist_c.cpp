/// @file libredist-c: the C interface of redist/c.h over the typed engine. A layout is up to four
/// AnyDist dimensions (redist/dist/any.hpp) on a dynamic grid; a plan is a Redistribution between
/// two such layouts, run on the caller's buffers as elements of 1 to 16 bytes, or of a numeric
/// type (redist_plan_create_typed), in which partial sums are added.
#define OMPI_SKIP_MPICXX 1  // MPI's C++ bindings are not used (and warn under -Wextra)
#include <redist/c.h>

#include <array>
#include <complex>
#include <cstdint>
#include <cstddef>
#include <exception>
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

constexpr int max_dims = 4;

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

}  // namespace

/// A layout as stated: bound to a communicator's size when a plan or a local size needs it.
struct redist_layout_s {
  int ndims = 0;
  std::array<AnyDist, max_dims> dists{};
  std::array<index_t, max_dims> extents{};
  std::array<int, max_dims> grid{};
  std::array<int, max_dims> offsets{};
  Order grid_order = Order::row_major;
  int grid_first = 0;
  std::vector<int> ranks;  // redist_layout_set_ranks: position k on ranks[k]; empty: grid_first + k
  redist::Storage storage{};

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
      default: return f(bind<4>(nprocs));
    }
  }
};

namespace {

/// A plan of any dimension and element size.
struct PlanBase {
  virtual ~PlanBase() = default;
  virtual void execute(const void* src, void* dst) = 0;
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
    r.run(comm, std::span<const T>(static_cast<const T*>(src), static_cast<std::size_t>(src_size)),
          std::span<T>(static_cast<T*>(dst), static_cast<std::size_t>(dst_size)));
  }
  boost::mpi::communicator comm;
  index_t src_size, dst_size;
  redist::Redistribution<MappingN<N>, MappingN<N>> r;
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
    if (ndims < 1 || ndims > max_dims) fail("ndims must be in [1, 4] (got " + std::to_string(ndims) + ")");
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

int redist_layout_set_ranks(redist_layout layout, const int* ranks) {
  return guarded("redist_layout_set_ranks", [&] {
    if (layout == nullptr) fail("layout must not be NULL");
    if (ranks == nullptr) fail("ranks must not be NULL");
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
/// redist_plan_create (typed false: elements of element_size bytes) and redist_plan_create_typed
/// (typed: of element_type).
int create_plan(const char* call, redist_layout from, redist_layout to, MPI_Comm comm, std::size_t element_size,
                bool typed, int element_type, redist_plan* plan) {
  return guarded(call, [&] {
    if (plan == nullptr) fail("plan must not be NULL");
    *plan = nullptr;
    if (comm == MPI_COMM_NULL) fail("comm must not be MPI_COMM_NULL");
    const boost::mpi::communicator world(comm, boost::mpi::comm_attach);
    // The checks each rank makes alone, then agreed (one all-reduce): every rank fails alike.
    std::optional<std::string> error;
    try {
      if (from == nullptr || to == nullptr) fail("from and to must not be NULL");
      if (from->ndims != to->ndims)
        fail("from and to must have the same number of dimensions (" + std::to_string(from->ndims) + " vs " +
             std::to_string(to->ndims) + ")");
      if (typed && size_of_type(element_type) == 0)
        fail("element_type must be REDIST_FLOAT, REDIST_DOUBLE, REDIST_INT32, REDIST_INT64, REDIST_UINT32, REDIST_UINT64, "
             "REDIST_COMPLEX_FLOAT or REDIST_COMPLEX_DOUBLE (got " + std::to_string(element_type) + ")");
      if (element_size != 1 && element_size != 2 && element_size != 4 && element_size != 8 && element_size != 16)
        fail("element_size must be 1, 2, 4, 8 or 16 (got " + std::to_string(element_size) + ")");
      for (int d = 0; d < from->ndims; ++d)
        if (from->extents[d] != to->extents[d])
          fail("from and to must have the same extents (dimension " + std::to_string(d) + ": " +
               std::to_string(from->extents[d]) + " vs " + std::to_string(to->extents[d]) + ")");
      if (!typed)
        for (int d = 0; d < from->ndims; ++d)
          if (std::holds_alternative<redist::Partial<>>(from->dists[d].get()))
            fail("from's dimension " + std::to_string(d) + " is REDIST_PARTIAL_SUM: adding partial sums needs their "
                 "element type, make the plan with redist_plan_create_typed");
      from->visit(world.size(), [](const auto&) {});  // the grid must fit the communicator
      to->visit(world.size(), [](const auto&) {});
    } catch (const std::exception& e) {
      error = e.what();
    }
    const redist::detail::Parameter params[] = {{"element_size", element_size, true},
                                                {"element_type", static_cast<std::uint64_t>(element_type), true},
                                                {"the number of dimensions", from != nullptr ? std::uint64_t(from->ndims) : 0, true}};
    redist::detail::agree(world, call, params, error);
    // redist's own communicator: its messages never meet the caller's.
    const boost::mpi::communicator c(comm, boost::mpi::comm_duplicate);
    auto p = std::make_unique<redist_plan_s>();
    const int n = c.size();
    auto make = [&]<std::size_t N>(std::integral_constant<std::size_t, N>) {
      if (typed) return make_numeric<N>(c, from->bind<N>(n), to->bind<N>(n), element_type);
      return make_typed<N>(c, from->bind<N>(n), to->bind<N>(n), element_size);
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

const char* redist_error_message(void) { return last_error.c_str(); }

const char* redist_version(void) { return REDIST_VERSION; }

}  // extern "C"
