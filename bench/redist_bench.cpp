// redist-bench: times redist against pdgemr2d, MPI_Alltoallv/w, MPI_Allgatherv, MPI_Reduce_scatter,
// MPI_Allreduce, FFTW's transpose, memcpy and the naive method on a table of cases, verifies every method element by element, and writes one CSV row per
// (case, method). `redist-bench --list`; `redist-bench --all --reps 10 --csv results.csv`.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/mpi/communicator.hpp>
#include <boost/mpi/datatype.hpp>
#include <boost/mpi/environment.hpp>
#include <redist/redist.hpp>

#include "cli.hpp"
#include "harness.hpp"
#include "methods.hpp"
#include "expressions.hpp"
#include "methods_nd.hpp"
#include "transpose.hpp"

namespace mpi = boost::mpi;
using redist::index_t;
using namespace redist::bench;

namespace {

/// One benchmark case: a source and a destination layout of n doubles. `run` fills the source
/// with f(global index) and measures the methods that apply.
/// The sizes of the cases: n elements for 1-D, matrix × matrix for 2-D, cube³ for 3-D.
struct Sizes {
  index_t n = index_t{1} << 24;
  index_t matrix = 8192;
  index_t cube = 512;
};

/// The names of a table of methods, in order, followed by `extra`.
std::vector<std::string> names_of(const std::vector<MethodEntry>& entries, std::initializer_list<const char*> extra = {}) {
  std::vector<std::string> names;
  for (const MethodEntry& e : entries) names.push_back(e.name);
  names.insert(names.end(), extra.begin(), extra.end());
  return names;
}

struct Case {
  std::string name;
  std::string description;
  std::function<std::vector<std::string>()> method_names;
  std::function<std::vector<Row>(Harness&, const Sizes&, const BlacsGrids&, BlacsContexts&)> run;
};

/// A 1-D case: make_src(n, P) -> the source distribution, make_dst(n, P) -> the destination's.
template <class MakeSrc, class MakeDst>
Case case_1d(std::string name, std::string description, MakeSrc make_src, MakeDst make_dst) {
  using DS = std::invoke_result_t<MakeSrc, index_t, int>;
  using DD = std::invoke_result_t<MakeDst, index_t, int>;
  Case c{name, std::move(description), {}, {}};
  c.method_names = [] { return names_of(methods_1d<double, DS, DD>(nullptr)); };
  c.run = [name, make_src, make_dst](Harness& h, const Sizes& sizes, const BlacsGrids& grids, BlacsContexts&) {
    const index_t n = sizes.n;
    const int nprocs = h.comm().size();
    redist::DistArray<double, DS> a(h.comm(), n, make_src(n, nprocs));
    for (index_t l = 0; l < a.local_size(); ++l) a.local()[l] = value_of(a.global_index(l));
    const Layouts1d<double, DS, DD> layouts{&a, make_dst(n, nprocs), &grids};
    return h.measure(name, n, methods_1d(&layouts));
  };
  return c;
}

/// A grid shape for P processes: the process count split as rows × columns.
using Shape = std::array<int, 2>;
/// The most square shape r × c = P with r <= c (2 × 2 for 4 processes).
Shape square(int p) {
  int r = 1;
  for (int i = 1; i * i <= p; ++i)
    if (p % i == 0) r = i;
  return {r, p / r};
}

/// An N-D case: arrays of extents(sizes) with the layouts make_src(P) and make_dst(P), each a
/// tuple (dist, grid) of Dist<...> and Grid.
template <class DS, class DD, class Extents, class MakeSrc, class MakeDst>
Case case_nd(std::string name, std::string description, Extents extents, MakeSrc make_src, MakeDst make_dst) {
  Case c{name, std::move(description), {}, {}};
  c.method_names = [] { return names_of(methods_nd<redist::DistArray<double, DS>, redist::DistArray<double, DD>>(nullptr)); };
  c.run = [name, extents, make_src, make_dst](Harness& h, const Sizes& sizes, const BlacsGrids& grids,
                                              BlacsContexts& contexts) {
    const int nprocs = h.comm().size();
    const auto ext = extents(sizes);
    const auto [ds, gs] = make_src(nprocs);
    redist::DistArray<double, DS> a(h.comm(), ext, ds, gs);
    for_each_local_nd(a, [&](const auto& l, index_t off) { a.local()[off] = value_of(global_id(a.global_index(l), ext)); });
    const LayoutsNd<redist::DistArray<double, DS>, redist::DistArray<double, DD>> layouts{&a, [&h, ext, make_dst, nprocs] {
                                              const auto [dd, gd] = make_dst(nprocs);
                                              return redist::DistArray<double, DD>(h.comm(), ext, dd, gd);
                                            },
                                            &contexts, &grids};
    index_t elements = 1;
    for (index_t e : ext) elements *= e;
    return h.measure(name, elements, methods_nd(&layouts));
  };
  return c;
}

/// A transposed case: b = transpose(a), a of extents(sizes) and b of the swapped extents, with the
/// layouts make_src(P) and make_dst(P), each a tuple (dist, grid, storage). a is filled so that
/// transpose(a) holds f(global index), which the methods' checks then find in b.
template <class DS, class DD, class Extents, class MakeSrc, class MakeDst>
Case case_transpose(std::string name, std::string description, Extents extents, MakeSrc make_src, MakeDst make_dst) {
  Case c{name, std::move(description), {}, {}};
  c.method_names = [] { return names_of(methods_transpose<double, DS, DD>(nullptr)); };
  c.run = [name, extents, make_src, make_dst](Harness& h, const Sizes& sizes, const BlacsGrids&, BlacsContexts&) {
    const int nprocs = h.comm().size();
    const auto ext = extents(sizes);
    const auto [ds, gs, ss] = make_src(nprocs);
    redist::DistArray<double, DS> a(h.comm(), ext, ds, gs, {}, ss);
    const TransposedArray<redist::DistArray<double, DS>> at(a);
    for_each_local_nd(at, [&](const auto& l, index_t off) { a.local()[off] = value_of(global_id(at.global_index(l), at.extents())); });
    const LayoutsTransposed<double, DS, DD> layouts{&at, [&h, ext = at.extents(), make_dst, nprocs] {
                                                     const auto [dd, gd, sd] = make_dst(nprocs);
                                                     return redist::DistArray<double, DD>(h.comm(), ext, dd, gd, {}, sd);
                                                   }};
    index_t elements = 1;
    for (index_t e : ext) elements *= e;
    return h.measure(name, elements, methods_transpose(&layouts));
  };
  return c;
}

/// The view case: the caller's ScaLAPACK matrices, their local parts in std::vectors the caller
/// sized with required_span_size and wrapped in DistViews (make_src(P) and make_dst(P) give each
/// (dist, grid)). Every method works in place on that memory, pdgemr2d included. The references:
/// `redist_owning` is b = a between DistArrays of the same layouts (holding a copy of the source),
/// whose local parts redist allocates in node-shared windows; `redist_owning_messages` the same
/// with the message path (as `redist_messages` is for the views); `redist_shared_buffer` a view
/// whose source memory the caller allocated as a redist::SharedBuffer.
template <class DS, class DD, class Extents, class MakeSrc, class MakeDst>
Case case_view(std::string name, std::string description, Extents extents, MakeSrc make_src, MakeDst make_dst) {
  using A = redist::DistView<double, DS>;
  using B = redist::DistView<double, DD>;
  using OwnedA = redist::DistArray<double, DS>;
  using OwnedB = redist::DistArray<double, DD>;
  Case c{name, std::move(description), {}, {}};
  c.method_names = [] {
    return names_of(methods_nd<A, B>(nullptr), {"redist_owning", "redist_owning_messages", "redist_shared_buffer"});
  };
  c.run = [name, extents, make_src, make_dst](Harness& h, const Sizes& sizes, const BlacsGrids& grids,
                                              BlacsContexts& contexts) {
    const int nprocs = h.comm().size();
    const auto ext = extents(sizes);
    const auto [ds, gs] = make_src(nprocs);
    const auto [dd, gd] = make_dst(nprocs);
    std::vector<double> a_memory(static_cast<std::size_t>(A::required_span_size(h.comm(), ext, ds, gs)));
    A a(a_memory, h.comm(), ext, ds, gs);
    for_each_local_nd(a, [&](const auto& l, index_t off) { a.local()[off] = value_of(global_id(a.global_index(l), ext)); });
    std::deque<std::vector<double>> memory;  // the caller's destination buffers, one per method
    const LayoutsNd<A, B> layouts{&a, [&] {
                                    memory.emplace_back(static_cast<std::size_t>(B::required_span_size(h.comm(), ext, dd, gd)));
                                    return B(memory.back(), h.comm(), ext, dd, gd);
                                  },
                                  &contexts, &grids};
    std::vector<MethodEntry> entries = methods_nd(&layouts);
    // The owning arrays of the same layouts (b = a, and with the message path), and a view over
    // caller memory in a SharedBuffer (which node peers read in place, as an owning array's):
    // each source a copy of a's elements, made only when its method is measured.
    using automatic_t = redist::schedule::automatic_t;
    std::optional<OwnedA> owned;
    auto owned_source = [&]() -> const OwnedA& {
      if (!owned) {
        owned.emplace(h.comm(), ext, ds, gs);
        std::ranges::copy(a.local(), owned->local().begin());
      }
      return *owned;
    };
    entries.push_back({"redist_owning", [&] {
                         return std::make_unique<RedistMethod<OwnedA, OwnedB, automatic_t>>(
                             owned_source(), OwnedB(h.comm(), ext, dd, gd), redist::schedule::automatic, Call::assign);
                       }});
    entries.push_back({"redist_owning_messages", [&] {
                         return std::make_unique<RedistMethod<OwnedA, OwnedB, automatic_t>>(
                             owned_source(), OwnedB(h.comm(), ext, dd, gd), redist::schedule::automatic, Call::messages);
                       }});
    std::optional<redist::SharedBuffer<double>> shared;
    std::optional<A> shared_view;
    entries.push_back({"redist_shared_buffer", [&] {
                         if (!shared_view) {
                           shared.emplace(h.comm(), a_memory.size());
                           shared_view.emplace(shared->span(), h.comm(), ext, ds, gs);
                           std::ranges::copy(a.local(), shared_view->local().begin());
                         }
                         return std::make_unique<RedistMethod<A, B, automatic_t>>(*shared_view, layouts.make_dst(),
                                                                                  redist::schedule::automatic, Call::assign);
                       }});
    index_t elements = 1;
    for (index_t e : ext) elements *= e;
    return h.measure(name, elements, entries);
  };
  return c;
}

/// The rows row0, row0 + 2, ... of a 2-D array a, as a user's owner formulas see them: the
/// (m/2) × n array whose row i is row row0 + 2i of a. for_each_element visits a's local elements in
/// storage order and keeps those rows, so OnePassAlltoallv packs exactly the section's elements
/// from a's storage, without any redist section code.
template <class A>
class RowsOf {
 public:
  using value_type = typename A::value_type;
  RowsOf(const A& a, index_t row0) : a_{&a}, row0_{row0}, extents_{(a.extent(0) - row0 + 1) / 2, a.extent(1)} {}
  const auto& comm() const noexcept { return a_->comm(); }
  std::array<index_t, 2> extents() const noexcept { return extents_; }
  int owner(const std::array<index_t, 2>& g) const { return a_->owner(in_a(g)); }
  index_t local_index(const std::array<index_t, 2>& g) const { return a_->local_index(in_a(g)); }
  auto local() const { return a_->local(); }
  template <class F>
  void for_each_element(F&& f) const {
    for_each_local_nd(*a_, [&](const auto& l, index_t off) {
      const auto g = a_->global_index(l);
      if (g[0] >= row0_ && (g[0] - row0_) % 2 == 0) f(std::array<index_t, 2>{(g[0] - row0_) / 2, g[1]}, off);
    });
  }

 private:
  std::array<index_t, 2> in_a(const std::array<index_t, 2>& g) const noexcept { return {row0_ + 2 * g[0], g[1]}; }
  const A* a_;
  index_t row0_;
  std::array<index_t, 2> extents_;
};

/// The section case: every other row of the matrix a (layout make_src(P)) into the (m/2) × m
/// array b (layout make_dst(P)). `redist` is b = redist::section(a, strided_slice{0, m, 2},
/// full_extent); the baselines pack the same elements from a's storage through RowsOf. The odd
/// rows of a hold a value f never takes, so a method that moves them fails its check.
template <class DS, class DD, class MakeSrc, class MakeDst>
Case case_section(std::string name, std::string description, MakeSrc make_src, MakeDst make_dst) {
  using A = redist::DistArray<double, DS>;
  using B = redist::DistArray<double, DD>;
  using S = decltype(redist::section(std::declval<const A&>(), redist::strided_slice{index_t{}, index_t{}, index_t{}},
                                     redist::full_extent));
  Case c{name, std::move(description), {}, {}};
  c.method_names = [] { return std::vector<std::string>{"redist", "redist_messages", "alltoallv_onepass"}; };
  c.run = [name, make_src, make_dst](Harness& h, const Sizes& sizes, const BlacsGrids&, BlacsContexts&) {
    const int nprocs = h.comm().size();
    const index_t m = sizes.matrix;
    const std::array<index_t, 2> ext{m, m}, section_ext{(m + 1) / 2, m};
    const auto [ds, gs] = make_src(nprocs);
    const auto [dd, gd] = make_dst(nprocs);
    A a(h.comm(), ext, ds, gs);
    for_each_local_nd(a, [&](const auto& l, index_t off) {
      const auto g = a.global_index(l);
      a.local()[off] = g[0] % 2 == 0 ? value_of(global_id(std::array<index_t, 2>{g[0] / 2, g[1]}, section_ext)) : -2.0;
    });
    const S s = redist::section(std::as_const(a), redist::strided_slice{index_t{0}, m, index_t{2}}, redist::full_extent);
    const RowsOf<A> rows(a, 0);
    auto make_b = [&] { return B(h.comm(), section_ext, dd, gd); };
    using automatic_t = redist::schedule::automatic_t;
    const std::vector<MethodEntry> entries{
        {"redist", [&] { return std::make_unique<RedistMethod<S, B, automatic_t>>(s, make_b(), redist::schedule::automatic, Call::assign); }},
        {"redist_messages", [&] { return std::make_unique<RedistMethod<S, B, automatic_t>>(s, make_b(), redist::schedule::automatic, Call::messages); }},
        {"alltoallv_onepass", [&] { return std::make_unique<OnePassMethod<RowsOf<A>, B>>(rows, make_b()); }},
    };
    return h.measure(name, section_ext[0] * section_ext[1], entries);
  };
  return c;
}

/// Part p of n elements laid out by Block on P processes, as a user computes it: {first, count},
/// blocks of ceil(n/P), the trailing ones shorter or empty.
std::pair<index_t, index_t> block_part(index_t n, int p, int nprocs) {
  const index_t b = std::max<index_t>(1, (n + nprocs - 1) / nprocs);
  const index_t first = std::min(n, p * b);
  return {first, std::min(n, first + b) - first};
}

/// The 1-D copies baseline, what an MPI user writes: one MPI_Allgatherv of every rank's Block
/// part (counts and displacements from block_part) straight into the local storage of the
/// Replicated array, which is the whole array on every rank. No redist plan or pack code.
template <class A, class B>
class AllgathervMethod final : public IntoArray<A, B> {
 public:
  AllgathervMethod(const A& a, B b) : IntoArray<A, B>{a, std::move(b)} {}
  bool has_setup() const override { return true; }
  void setup() override {
    const int nprocs = this->a_.comm().size();
    me_ = this->a_.comm().rank();
    counts_.resize(static_cast<std::size_t>(nprocs));
    displs_.resize(static_cast<std::size_t>(nprocs));
    for (int p = 0; p < nprocs; ++p) {
      const auto [first, count] = block_part(this->a_.size(), p, nprocs);
      counts_[static_cast<std::size_t>(p)] = detail::checked_int(count, "elements of one rank");
      displs_[static_cast<std::size_t>(p)] = detail::checked_int(first, "displacement");
    }
    // MPI reads counts_[me_] elements of the source: the formula must be the array's.
    if (counts_[static_cast<std::size_t>(me_)] != this->a_.local_size())
      throw std::invalid_argument("allgatherv: the Block formula disagrees with the source's local size");
  }
  void run() override {
    const MPI_Datatype type = boost::mpi::get_mpi_datatype<value_type>();
    MPI_Allgatherv(this->a_.local().data(), counts_[static_cast<std::size_t>(me_)], type, this->b_.local().data(),
                   counts_.data(), displs_.data(), type, static_cast<MPI_Comm>(this->a_.comm()));
  }
  Cost cost() override {
    // This rank's part reaches every other rank.
    const std::int64_t mine = counts_[static_cast<std::size_t>(me_)];
    const std::int64_t peers = this->a_.comm().size() - 1;
    return Cost{mine * peers * static_cast<std::int64_t>(sizeof(value_type)), mine > 0 ? peers : 0, 1, 0};
  }

 private:
  using value_type = typename A::value_type;
  int me_ = 0;
  std::vector<int> counts_, displs_;
};

/// The row baselines' communicators: one per grid row of an array's r × c grid (MPI_Comm_split on
/// the row index, collective: ranks outside the grid split into none), with this rank's grid row i
/// and column j; the grid must be row-major from rank 0 over every rank (else invalid_argument
/// naming the baseline).
class GridRows {
 public:
  GridRows() = default;
  GridRows(const GridRows&) = delete;
  GridRows& operator=(const GridRows&) = delete;
  ~GridRows() {
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  }
  template <class A>
  void split(const A& a, const char* baseline) {
    const int r = a.grid().extent(0), c = a.grid().extent(1);
    const int rank = a.comm().rank();
    i = rank / c;
    j = rank % c;
    const bool in_grid = rank < r * c;
    MPI_Comm_split(static_cast<MPI_Comm>(a.comm()), in_grid ? i : MPI_UNDEFINED, j, &comm);
    const auto coords = a.coords();
    if (!in_grid || !coords || (*coords)[0] != i || (*coords)[1] != j)
      throw std::invalid_argument(std::string(baseline) + ": the grid is not row-major from rank 0 over every rank");
  }
  MPI_Comm comm = MPI_COMM_NULL;
  int i = 0, j = 0;
};

/// The 2-D copies baseline, (Block, Block) -> (Block, Replicated) on one r × c grid, what a careful
/// MPI user writes: a communicator per grid row (MPI_Comm_split on the row index, once, at setup)
/// and one MPI_Allgatherv of the rank's column-major block along it, straight into the local array
/// (rows × M, column-major: the row's blocks, each rows × its columns, are its columns one after
/// the other); with a padded leading dimension, into a scratch buffer and then a copy of every
/// gathered column into place. Ranks by the grid's default row-major order, rank = i·c + j;
/// counts from block_part. No redist plan or pack code.
template <class A, class B>
class RowAllgathervMethod final : public IntoArray<A, B> {
 public:
  RowAllgathervMethod(const A& a, B b) : IntoArray<A, B>{a, std::move(b)} {}
  bool has_setup() const override { return true; }
  void setup() override {
    grid_rows_.split(this->a_, "allgatherv");
    const int r = this->a_.grid().extent(0), c = this->a_.grid().extent(1), i = grid_rows_.i;
    j_ = grid_rows_.j;
    const index_t m = this->a_.extent(0), n = this->a_.extent(1);
    rows_ = block_part(m, i, r).second;
    counts_.resize(static_cast<std::size_t>(c));
    displs_.resize(static_cast<std::size_t>(c));
    col0_.resize(static_cast<std::size_t>(c));
    cols_.resize(static_cast<std::size_t>(c));
    for (int q = 0; q < c; ++q) {
      const auto [col0, cols] = block_part(n, q, c);
      const auto k = static_cast<std::size_t>(q);
      col0_[k] = col0;
      cols_[k] = cols;
      counts_[k] = detail::checked_int(rows_ * cols, "elements of one block");
      displs_[k] = detail::checked_int(rows_ * col0, "displacement");
    }
    // The block is sent as it is stored: unpadded columns (leading dimension = rows).
    if (rows_ > 0 && this->a_.leading_dimension() != rows_)
      throw std::invalid_argument("allgatherv: the source's local columns are padded");
    ldb_ = this->b_.leading_dimension();
    if (ldb_ != rows_) scratch_.reset(new value_type[static_cast<std::size_t>(rows_ * n)]);
  }
  void run() override {
    const MPI_Datatype type = boost::mpi::get_mpi_datatype<value_type>();
    value_type* into = scratch_ ? scratch_.get() : this->b_.local().data();
    MPI_Allgatherv(this->a_.local().data(), counts_[static_cast<std::size_t>(j_)], type, into, counts_.data(),
                   displs_.data(), type, grid_rows_.comm);
    if (rows_ == 0 || !scratch_) return;
    // Unpack: column k of grid column q's block is column col0_[q] + k of the local array.
    value_type* out = this->b_.local().data();
    const std::size_t bytes = static_cast<std::size_t>(rows_) * sizeof(value_type);
    for (std::size_t q = 0; q < cols_.size(); ++q)
      for (index_t k = 0; k < cols_[q]; ++k)
        std::memcpy(out + (col0_[q] + k) * ldb_, scratch_.get() + displs_[q] + k * rows_, bytes);
  }
  Cost cost() override {
    // This rank's block reaches every other rank of its grid row.
    const std::int64_t mine = counts_[static_cast<std::size_t>(j_)];
    const std::int64_t peers = static_cast<std::int64_t>(counts_.size()) - 1;
    const auto size = static_cast<std::int64_t>(sizeof(value_type));
    return Cost{mine * peers * size, mine > 0 ? peers : 0, 1, scratch_ ? rows_ * this->a_.extent(1) * size : 0};
  }

 private:
  using value_type = typename A::value_type;
  GridRows grid_rows_;
  int j_ = 0;
  index_t rows_ = 0, ldb_ = 1;
  std::vector<int> counts_, displs_;
  std::vector<index_t> col0_, cols_;
  std::unique_ptr<value_type[]> scratch_;
};

/// The methods of the copies cases (a destination held in copies): `redist` (b = a),
/// `redist_messages` (the message path, shared memory off) and `allgatherv` (Gather, the MPI
/// baseline), each into its own destination make_b(). pdgemr2d and the alltoall baselines do not
/// apply: they write one owner per element.
template <template <class, class> class Gather, class A, class MakeB>
std::vector<MethodEntry> copies_methods(const A& a, MakeB make_b) {
  using B = std::invoke_result_t<MakeB>;
  using automatic_t = redist::schedule::automatic_t;
  return {
      {"redist", [&a, make_b] { return std::make_unique<RedistMethod<A, B, automatic_t>>(a, make_b(), redist::schedule::automatic, Call::assign); }},
      {"redist_messages", [&a, make_b] { return std::make_unique<RedistMethod<A, B, automatic_t>>(a, make_b(), redist::schedule::automatic, Call::messages); }},
      {"allgatherv", [&a, make_b] { return std::make_unique<Gather<A, B>>(a, make_b()); }},
  };
}

std::vector<std::string> copies_method_names() { return {"redist", "redist_messages", "allgatherv"}; }

/// replicate: n doubles, Block -> Replicated (the whole array on every rank).
std::vector<Row> run_replicate(Harness& h, index_t n) {
  using A = redist::DistArray<double, redist::Block>;
  using B = redist::DistArray<double, redist::Replicated>;
  A a(h.comm(), n);
  for (index_t l = 0; l < a.local_size(); ++l) a.local()[l] = value_of(a.global_index(l));
  return h.measure("replicate", n, copies_methods<AllgathervMethod>(a, [&h, n] { return B(h.comm(), n); }));
}

/// replicate_2d: the m × m matrix, (Block, Block) -> (Block, Replicated) on the square grid: the
/// row blocks gathered along each grid row, every grid column a copy.
std::vector<Row> run_replicate_2d(Harness& h, index_t m) {
  using A = redist::DistArray<double, redist::Dist<redist::Block, redist::Block>>;
  using B = redist::DistArray<double, redist::Dist<redist::Block, redist::Replicated>>;
  const Shape s = square(h.comm().size());
  const redist::Grid grid{s[0], s[1]};
  const std::array<index_t, 2> ext{m, m};
  A a(h.comm(), ext, grid);
  for_each_local_nd(a, [&](const auto& l, index_t off) { a.local()[off] = value_of(global_id(a.global_index(l), ext)); });
  return h.measure("replicate_2d", m * m, copies_methods<RowAllgathervMethod>(a, [&h, ext, grid] { return B(h.comm(), ext, grid); }));
}

/// Elements of n that process p of P holds when n is dealt in blocks of k cyclically (ScaLAPACK's
/// NUMROC), as a user computes it.
index_t cyclic_count(index_t n, index_t k, int p, int nprocs) {
  const index_t round = k * nprocs;
  return n / round * k + std::clamp<index_t>(n % round - p * k, 0, k);
}

/// The mixed move's baseline, what a user without redist writes: gather the matrix on rank 0 from
/// one copy of each row block (grid column 0's ranks of the (Block, Replicated) source, MPI_Gatherv
/// of their column-major blocks), then scatter it (rank 0 packs each rank's (Cyclic<64>,
/// Cyclic<64>) part in its column-major local order; MPI_Scatterv straight into every rank's local
/// array). Ranks by the grids' default row-major order; counts from block_part and cyclic_count.
/// No redist plan or pack code.
template <class A, class B>
class GatherScatterMethod final : public IntoArray<A, B> {
 public:
  GatherScatterMethod(const A& a, B b) : IntoArray<A, B>{a, std::move(b)} {}
  bool has_setup() const override { return true; }
  void setup() override {
    const auto& comm = this->a_.comm();
    const int nprocs = comm.size();
    r_ = this->a_.grid().extent(0);
    c_ = this->a_.grid().extent(1);
    m_ = this->a_.extent(0);
    n_ = this->a_.extent(1);
    block_ = std::max<index_t>(1, (m_ + r_ - 1) / r_);
    gcounts_.assign(static_cast<std::size_t>(nprocs), 0);
    gdispls_.assign(static_cast<std::size_t>(nprocs), 0);
    scounts_.assign(static_cast<std::size_t>(nprocs), 0);
    sdispls_.assign(static_cast<std::size_t>(nprocs), 0);
    int gat = 0, sat = 0;
    for (int q = 0; q < nprocs; ++q) {
      const auto k = static_cast<std::size_t>(q);
      // Source: rank q is grid position (q / c, q % c); column 0 sends its row block.
      if (q % c_ == 0) gcounts_[k] = detail::checked_int(block_part(m_, q / c_, r_).second * n_, "elements of a row block");
      gdispls_[k] = gat;
      gat += gcounts_[k];
      // Destination: (Cyclic<64>, Cyclic<64>) on c x r, rank q at (q / r, q % r).
      scounts_[k] = detail::checked_int(cyclic_count(m_, 64, q / r_, c_) * cyclic_count(n_, 64, q % r_, r_), "elements of a part");
      sdispls_[k] = sat;
      sat += scounts_[k];
    }
    const int me = comm.rank();
    const index_t rows = block_part(m_, me / c_, r_).second;
    if (rows > 0 && this->a_.leading_dimension() != rows) throw std::invalid_argument("gather_scatter: padded source");
    const index_t brows = cyclic_count(m_, 64, me / r_, c_);
    if (brows > 0 && this->b_.leading_dimension() != brows) throw std::invalid_argument("gather_scatter: padded destination");
    if (me == 0) {
      whole_.assign(static_cast<std::size_t>(gat), 0.0);
      packed_.assign(static_cast<std::size_t>(sat), 0.0);
    }
  }
  void run() override {
    const MPI_Comm comm = static_cast<MPI_Comm>(this->a_.comm());
    const int me = this->a_.comm().rank();
    const auto mine = static_cast<std::size_t>(me);
    MPI_Gatherv(this->a_.local().data(), gcounts_[mine], MPI_DOUBLE, whole_.data(), gcounts_.data(), gdispls_.data(),
                MPI_DOUBLE, 0, comm);
    if (me == 0) {
      // Element (i, j) of the matrix: in row block i / block_, at row i % block_ of its rows x n
      // block. Each column's rows go in runs of 64 (a block of the destination), split where a
      // run crosses into the next row block, each run one memcpy.
      double* out = packed_.data();
      for (int q = 0; q < this->a_.comm().size(); ++q) {
        const int pr = q / r_, pc = q % r_;
        const index_t lrows = cyclic_count(m_, 64, pr, c_), lcols = cyclic_count(n_, 64, pc, r_);
        for (index_t lj = 0; lj < lcols; ++lj) {
          const index_t j = (lj / 64 * r_ + pc) * 64 + lj % 64;
          for (index_t li = 0; li < lrows;) {
            index_t i = (li / 64 * c_ + pr) * 64;
            index_t len = std::min<index_t>(64, lrows - li);
            while (len > 0) {
              const index_t blk = i / block_, rows = block_part(m_, static_cast<int>(blk), r_).second;
              const index_t take = std::min(len, (blk + 1) * block_ - i);
              std::memcpy(out, &whole_[static_cast<std::size_t>(gdispls_[static_cast<std::size_t>(blk * c_)] + i - blk * block_ + j * rows)],
                          static_cast<std::size_t>(take) * sizeof(double));
              out += take, i += take, li += take, len -= take;
            }
          }
        }
      }
    }
    MPI_Scatterv(packed_.data(), scounts_.data(), sdispls_.data(), MPI_DOUBLE, this->b_.local().data(), scounts_[mine],
                 MPI_DOUBLE, 0, comm);
  }
  Cost cost() override {
    const int me = this->a_.comm().rank();
    const auto mine = static_cast<std::size_t>(me);
    const std::int64_t size = sizeof(double);
    if (me == 0) {
      std::int64_t out = 0, msgs = 0;
      for (std::size_t q = 1; q < scounts_.size(); ++q)
        if (scounts_[q] > 0) out += scounts_[q] * size, ++msgs;
      return Cost{out, msgs, 2, static_cast<std::int64_t>(whole_.size() + packed_.size()) * size};
    }
    return Cost{gcounts_[mine] * size, gcounts_[mine] > 0 ? 1 : 0, 2, 0};
  }

 private:
  int r_ = 1, c_ = 1;
  index_t m_ = 0, n_ = 0, block_ = 1;
  std::vector<int> gcounts_, gdispls_, scounts_, sdispls_;
  std::vector<double> whole_, packed_;
};

/// mixed: the m x m matrix, (Block, Replicated) on r x c ([MC,*]: rows in blocks over the grid's
/// rows, every grid column a copy; r = P/2, c = 2, or P x 1 for odd P) -> (Cyclic<64>, Cyclic<64>)
/// on c x r, against gather-then-scatter.
std::vector<Row> run_mixed(Harness& h, index_t m) {
  const int p = h.comm().size();
  const int r = p % 2 == 0 ? p / 2 : p, c = p / r;
  using A = redist::DistArray<double, redist::Dist<redist::Block, redist::Replicated>>;
  using B = redist::DistArray<double, redist::Dist<redist::Cyclic<64>, redist::Cyclic<64>>>;
  const std::array<index_t, 2> ext{m, m};
  A a(h.comm(), ext, redist::Grid{r, c});
  for_each_local_nd(a, [&](const auto& l, index_t off) { a.local()[off] = value_of(global_id(a.global_index(l), ext)); });
  auto make_b = [&h, ext, r, c] { return B(h.comm(), ext, redist::Grid{c, r}); };
  using automatic_t = redist::schedule::automatic_t;
  return h.measure("mixed", m * m,
                   {
                       {"redist", [&a, make_b] { return std::make_unique<RedistMethod<A, B, automatic_t>>(a, make_b(), redist::schedule::automatic, Call::assign); }},
                       {"redist_messages", [&a, make_b] { return std::make_unique<RedistMethod<A, B, automatic_t>>(a, make_b(), redist::schedule::automatic, Call::messages); }},
                       {"gather_scatter", [&a, make_b] { return std::make_unique<GatherScatterMethod<A, B>>(a, make_b()); }},
                   });
}

/// redist from partial values (Partial<Op> sources): b = a, or redistribute with shared memory off
/// (`messages`; partial values move by messages or by a reduction either way). make_plan does not
/// take such arrays, so the cost is what redist::explain says of the last run (no scratch count).
template <class A, class B>
class FoldMethod final : public IntoArray<A, B> {
 public:
  FoldMethod(const A& a, B b, Call call) : IntoArray<A, B>{a, std::move(b)}, call_{call} {}
  void run() override {
    if (call_ == Call::assign) this->b_ = this->a_;
    else redist::redistribute(this->a_, this->b_, redist::schedule::automatic, options_of(call_));
  }
  Cost cost() override {
    const redist::Explanation e = redist::explain(this->a_, this->b_, redist::schedule::automatic, options_of(call_));
    return Cost{static_cast<std::int64_t>(e.bytes), static_cast<std::int64_t>(e.messages), static_cast<std::int64_t>(e.steps), 0};
  }
  std::string explain() override { return redist::explain(this->a_, this->b_, redist::schedule::automatic, options_of(call_)).str(); }

 private:
  Call call_;
};

/// The reductions baseline, (Block, Partial<>) on one r × c grid into (Block, Block) (`All` false:
/// MPI_Reduce_scatter) or (Block, Replicated) (`All`: MPI_Allreduce), what an MPI user writes: a
/// communicator per grid row (MPI_Comm_split on the row index, once, at setup) and one reduction of
/// the rank's column-major local array along it, from the source's storage straight into the
/// destination's (a column-major rows × n block holds grid column q's columns as one range, so the
/// reduce-scatter needs no pack). Ranks by the grid's default row-major order; counts from
/// block_part. No redist plan or pack code.
template <class A, class B, bool All>
class RowReduceMethod final : public IntoArray<A, B> {
 public:
  RowReduceMethod(const A& a, B b) : IntoArray<A, B>{a, std::move(b)} {}
  bool has_setup() const override { return true; }
  void setup() override {
    grid_rows_.split(this->a_, All ? "allreduce" : "reduce_scatter");
    const int r = this->a_.grid().extent(0), c = this->a_.grid().extent(1), i = grid_rows_.i;
    j_ = grid_rows_.j;
    const index_t m = this->a_.extent(0);
    n_ = this->a_.extent(1);
    rows_ = block_part(m, i, r).second;
    counts_.resize(static_cast<std::size_t>(c));
    for (int q = 0; q < c; ++q)
      counts_[static_cast<std::size_t>(q)] = detail::checked_int(rows_ * block_part(n_, q, c).second, "elements of one block");
    if (rows_ > 0 && (this->a_.leading_dimension() != rows_ || this->b_.leading_dimension() != rows_))
      throw std::invalid_argument("reduce: a local array's columns are padded");
  }
  void run() override {
    const MPI_Datatype type = boost::mpi::get_mpi_datatype<value_type>();
    if constexpr (All)
      MPI_Allreduce(this->a_.local().data(), this->b_.local().data(), detail::checked_int(rows_ * n_, "elements"), type,
                    MPI_SUM, grid_rows_.comm);
    else
      MPI_Reduce_scatter(this->a_.local().data(), this->b_.local().data(), counts_.data(), type, MPI_SUM, grid_rows_.comm);
  }
  Cost cost() override {
    // The point-to-point equivalent: every part of this rank's contribution that another rank of
    // its grid row holds.
    const std::int64_t peers = static_cast<std::int64_t>(counts_.size()) - 1;
    const std::int64_t mine = counts_[static_cast<std::size_t>(j_)];
    const std::int64_t elements = All ? rows_ * n_ * peers : rows_ * n_ - mine;
    return Cost{elements * static_cast<std::int64_t>(sizeof(value_type)), peers, 1, 0};
  }

 private:
  using value_type = typename A::value_type;
  GridRows grid_rows_;
  int j_ = 0;
  index_t rows_ = 0, n_ = 0;
  std::vector<int> counts_;
};

/// reduce and reduce_replicated: the m × m matrix of partial sums along the square grid's rows,
/// (Block, Partial<>) into (Block, Block) (a reduce-scatter per grid row) or (Block, Replicated) (an
/// all-reduce per grid row). Grid column j holds value_of(g) - (c - 1) for j = 0 and 1 elsewhere,
/// whose sum is value_of(g) (exact: quarters).
template <class D, bool All>
std::vector<Row> run_reduce(Harness& h, index_t m, const std::string& name) {
  using A = redist::DistArray<double, redist::Dist<redist::Block, redist::Partial<>>>;
  using B = redist::DistArray<double, redist::Dist<redist::Block, D>>;
  const Shape s = square(h.comm().size());
  const redist::Grid grid{s[0], s[1]};
  const std::array<index_t, 2> ext{m, m};
  A a(h.comm(), ext, grid);
  const int j = a.coords() ? (*a.coords())[1] : 0;
  for_each_local_nd(a, [&](const auto& l, index_t off) {
    a.local()[off] = j == 0 ? value_of(global_id(a.global_index(l), ext)) - (s[1] - 1) : 1.0;
  });
  auto make_b = [&h, ext, grid] { return B(h.comm(), ext, grid); };
  const std::vector<MethodEntry> entries{
      {"redist", [&] { return std::make_unique<FoldMethod<A, B>>(a, make_b(), Call::assign); }},
      {"redist_messages", [&] { return std::make_unique<FoldMethod<A, B>>(a, make_b(), Call::messages); }},
      {All ? "allreduce" : "reduce_scatter", [&] { return std::make_unique<RowReduceMethod<A, B, All>>(a, make_b()); }},
  };
  return h.measure(name, m * m, entries);
}

template <class D>
auto fixed() {
  return [](index_t, int) { return D{}; };
}

/// nprocs part sizes that sum to n, each within ±90 % of n/P: deviations drawn from a fixed
/// seed (mt19937_64, the same on every rank and machine), centred, scaled into [-0.9, 0.9].
std::vector<index_t> uneven_sizes(index_t n, int nprocs, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::vector<double> d(static_cast<std::size_t>(nprocs));
  double mean = 0;
  for (double& x : d) {
    x = 2.0 * static_cast<double>(gen() >> 11) * 0x1.0p-53 - 1.0;
    mean += x / nprocs;
  }
  double widest = 0;
  for (double& x : d) widest = std::max(widest, std::abs(x -= mean));
  const double scale = widest > 0.9 ? 0.9 / widest : 1.0;
  std::vector<index_t> sizes(d.size());
  index_t given = 0;
  for (std::size_t p = 0; p + 1 < d.size(); ++p) {
    sizes[p] = static_cast<index_t>(std::floor(static_cast<double>(n) / nprocs * (1.0 + scale * d[p])));
    given += sizes[p];
  }
  sizes.back() = n - given;
  return sizes;
}

template <std::uint64_t Seed>
auto uneven() {
  return [](index_t n, int nprocs) { return redist::GenBlock(uneven_sizes(n, nprocs, Seed)); };
}

using redist::Block;
using redist::Collapsed;
using redist::Cyclic;
using redist::Dist;
using redist::Grid;
using redist::Storage;

std::array<index_t, 2> matrix(const Sizes& s) { return {s.matrix, s.matrix}; }
std::array<index_t, 3> cube(const Sizes& s) { return {s.cube, s.cube, s.cube}; }

/// The cases (1-D, meant for 4 ranks). Append a line to add one.
std::vector<Case> make_cases() {
  return {
      case_1d("cyc8_cyc5", "Cyclic<8> -> Cyclic<5>", fixed<Cyclic<8>>(), fixed<Cyclic<5>>()),
      case_1d("cyc100_cyc3", "Cyclic<100> -> Cyclic<3>", fixed<Cyclic<100>>(), fixed<Cyclic<3>>()),
      case_1d("cyc4_cyc28", "Cyclic<4> -> Cyclic<28> (K = 7)", fixed<Cyclic<4>>(), fixed<Cyclic<28>>()),
      case_1d("cyc4_cyc124", "Cyclic<4> -> Cyclic<124> (K = 31)", fixed<Cyclic<4>>(), fixed<Cyclic<124>>()),
      case_1d("block_cyc1", "Block -> Cyclic<1>", fixed<Block>(), fixed<Cyclic<1>>()),
      case_1d("genblock_uneven", "GenBlock (uneven, seed 1) -> GenBlock (uneven, seed 2)", uneven<1>(), uneven<2>()),
      case_nd<Dist<Cyclic<64>, Cyclic<64>>, Dist<Cyclic<100>, Cyclic<100>>>(
          "mat_b64_b100", "matrix, 2x2 grid 64x64 blocks -> 4x1 grid 100x100 blocks", matrix,
          [](int p) { const Shape s = square(p); return std::tuple{Dist<Cyclic<64>, Cyclic<64>>{}, Grid{s[0], s[1]}}; },
          [](int p) { return std::tuple{Dist<Cyclic<100>, Cyclic<100>>{}, Grid{p, 1}}; }),
      case_nd<Dist<Cyclic<32>, Cyclic<32>>, Dist<Cyclic<128>, Cyclic<128>>>(
          "mat_b32_b128", "matrix, 2x2 grid 32x32 blocks -> 2x2 grid 128x128 blocks", matrix,
          [](int p) { const Shape s = square(p); return std::tuple{Dist<Cyclic<32>, Cyclic<32>>{}, Grid{s[0], s[1]}}; },
          [](int p) { const Shape s = square(p); return std::tuple{Dist<Cyclic<128>, Cyclic<128>>{}, Grid{s[0], s[1]}}; }),
      case_nd<Dist<Cyclic<8>, Cyclic<8>>, Dist<Cyclic<24>, Cyclic<24>>>(
          "mat_b8_b24", "matrix, 2x2 grid 8x8 blocks -> 2x2 grid 24x24 blocks (small blocks: pieces of 8 and 16)", matrix,
          [](int p) { const Shape s = square(p); return std::tuple{Dist<Cyclic<8>, Cyclic<8>>{}, Grid{s[0], s[1]}}; },
          [](int p) { const Shape s = square(p); return std::tuple{Dist<Cyclic<24>, Cyclic<24>>{}, Grid{s[0], s[1]}}; }),
      case_nd<Dist<Block, Collapsed>, Dist<Collapsed, Block>>(
          "corner_turn", "matrix, row blocks on 4x1 -> column blocks on 1x4", matrix,
          [](int p) { return std::tuple{Dist<Block, Collapsed>{}, Grid{p, 1}}; },
          [](int p) { return std::tuple{Dist<Collapsed, Block>{}, Grid{1, p}}; }),
      case_transpose<Dist<Block, Collapsed>, Dist<Block, Collapsed>>(
          "transpose_rows", "matrix, b = transpose(a), row blocks on 4x1, row-major local storage (FFTW's layout)", matrix,
          [](int p) { return std::tuple{Dist<Block, Collapsed>{}, Grid{p, 1}, Storage{redist::row_major}}; },
          [](int p) { return std::tuple{Dist<Block, Collapsed>{}, Grid{p, 1}, Storage{redist::row_major}}; }),
      case_nd<Dist<Cyclic<1>, Cyclic<8>>, Dist<Cyclic<1>, Cyclic<5>>>(
          "row_c8_c5", "1 x n row vector, CYCLIC(8) -> CYCLIC(5) columns on 1xP (the 1-D pair through the N-D engine)",
          [](const Sizes& s) { return std::array<index_t, 2>{1, s.n}; },
          [](int p) { return std::tuple{Dist<Cyclic<1>, Cyclic<8>>{}, Grid{1, p}}; },
          [](int p) { return std::tuple{Dist<Cyclic<1>, Cyclic<5>>{}, Grid{1, p}}; }),
      case_nd<Dist<Cyclic<64>, Collapsed, Block>, Dist<Block, Collapsed, Cyclic<8>>>(
          "cube_3d", "3-D cube, (CYCLIC(64), *, BLOCK) on 2x1x2 -> (BLOCK, *, CYCLIC(8)) on 4x1x1", cube,
          [](int p) { const Shape s = square(p); return std::tuple{Dist<Cyclic<64>, Collapsed, Block>{}, Grid{s[0], 1, s[1]}}; },
          [](int p) { return std::tuple{Dist<Block, Collapsed, Cyclic<8>>{}, Grid{p, 1, 1}}; }),
      case_view<Dist<Cyclic<64>, Cyclic<64>>, Dist<Cyclic<100>, Cyclic<100>>>(
          "view", "the caller's matrices (DistView), 2x2 grid 64x64 blocks -> 4x1 grid 100x100 blocks, in place", matrix,
          [](int p) { const Shape s = square(p); return std::tuple{Dist<Cyclic<64>, Cyclic<64>>{}, Grid{s[0], s[1]}}; },
          [](int p) { return std::tuple{Dist<Cyclic<100>, Cyclic<100>>{}, Grid{p, 1}}; }),
      Case{"fused8", "8 arrays of 2^14 doubles, Block -> Cyclic<3>: one fused exchange against 8 b = a",
           [] { return std::vector<std::string>{"redist", "redist:separate"}; },
           [](Harness& h, const Sizes&, const BlacsGrids&, BlacsContexts&) { return run_fused8(h); }},
      Case{"overlap", "n doubles Block -> Cyclic<8> started, compute as long as b = a takes, wait; against compute then b = a",
           [] { return std::vector<std::string>{"redist", "redist:blocking"}; },
           [](Harness& h, const Sizes& s, const BlacsGrids&, BlacsContexts&) { return run_overlap(h, s.n); }},
      Case{"tran", "matrix, c = 0.5 * transpose(a) + 2 * c, 64x64 blocks on the square grid, against pdtran",
           [] { return have_scalapack ? std::vector<std::string>{"redist", "pdtran"} : std::vector<std::string>{"redist"}; },
           [](Harness& h, const Sizes& s, const BlacsGrids&, BlacsContexts& contexts) { return run_tran(h, s.matrix, contexts); }},
      case_section<Dist<Cyclic<64>, Cyclic<64>>, Dist<Block, Block>>(
          "section", "every other row of the matrix, 2x2 grid 64x64 blocks -> (BLOCK, BLOCK) on 2x2",
          [](int p) { const Shape s = square(p); return std::tuple{Dist<Cyclic<64>, Cyclic<64>>{}, Grid{s[0], s[1]}}; },
          [](int p) { const Shape s = square(p); return std::tuple{Dist<Block, Block>{}, Grid{s[0], s[1]}}; }),
      Case{"replicate", "n doubles, Block -> Replicated (the whole array on every rank), against MPI_Allgatherv",
           copies_method_names,
           [](Harness& h, const Sizes& s, const BlacsGrids&, BlacsContexts&) { return run_replicate(h, s.n); }},
      Case{"replicate_2d", "matrix, (BLOCK, BLOCK) -> (BLOCK, REPLICATED) on the square grid, against MPI_Allgatherv per grid row",
           copies_method_names,
           [](Harness& h, const Sizes& s, const BlacsGrids&, BlacsContexts&) { return run_replicate_2d(h, s.matrix); }},
      Case{"mixed", "matrix, (BLOCK, REPLICATED) on P/2 x 2 -> (CYCLIC(64), CYCLIC(64)) on 2 x P/2, against gather-then-scatter",
           [] { return std::vector<std::string>{"redist", "redist_messages", "gather_scatter"}; },
           [](Harness& h, const Sizes& s, const BlacsGrids&, BlacsContexts&) { return run_mixed(h, s.matrix); }},
      Case{"reduce", "matrix, (BLOCK, PARTIAL) -> (BLOCK, BLOCK) on the square grid, against MPI_Reduce_scatter per grid row",
           [] { return std::vector<std::string>{"redist", "redist_messages", "reduce_scatter"}; },
           [](Harness& h, const Sizes& s, const BlacsGrids&, BlacsContexts&) {
             return run_reduce<redist::Block, false>(h, s.matrix, "reduce");
           }},
      Case{"reduce_replicated", "matrix, (BLOCK, PARTIAL) -> (BLOCK, REPLICATED) on the square grid, against MPI_Allreduce per grid row",
           [] { return std::vector<std::string>{"redist", "redist_messages", "allreduce"}; },
           [](Harness& h, const Sizes& s, const BlacsGrids&, BlacsContexts&) {
             return run_reduce<redist::Replicated, true>(h, s.matrix, "reduce_replicated");
           }},
  };
}

struct Options {
  bool list = false;
  bool all = false;
  std::vector<std::string> cases;
  std::vector<std::string> methods;
  int reps = 10;
  Sizes sizes;
  std::string csv;
  bool explain = false;
};

/// redist-bench's options, read into `o`.
cli::Parser make_parser(Options& o) {
  cli::Parser parser("redist-bench", "(--list | --all | --case NAME [--case NAME ...]) [options]");
  parser.flag("--list", "print the cases and their methods", o.list)
      .flag("--all", "run every case", o.all)
      .repeated("--case NAME", "run this case", o.cases)
      .words("--methods M1,M2,...", "comma-separated methods (default: every one that applies)", o.methods)
      .integer("--reps R", "timed repetitions after one warm-up", o.reps, 1)
      .integer("--n N", "elements (doubles) of the 1-D cases", o.sizes.n, index_t{1})
      .integer("--matrix M", "extent of the 2-D cases, M x M", o.sizes.matrix, index_t{1})
      .integer("--cube C", "extent of the 3-D case, C x C x C", o.sizes.cube, index_t{1})
      .text("--csv FILE", "write the rows to FILE (default: standard output)", o.csv)
      .flag("--explain", "print what redist decided for each of its methods (redist::explain, rank 0) to stderr",
            o.explain);
  return parser;
}

int run(const mpi::communicator& world, const Options& o) {
  const bool root = world.rank() == 0;
  const std::vector<Case> cases = make_cases();
  std::set<std::string> known_methods;
  for (const Case& c : cases)
    for (const std::string& m : c.method_names()) known_methods.insert(m);

  if (o.list) {
    if (root)
      for (const Case& c : cases) {
        std::printf("%-18s %s\n%-18s methods:", c.name.c_str(), c.description.c_str(), "");
        for (const std::string& m : c.method_names()) std::printf(" %s", m.c_str());
        std::printf("\n");
      }
    return EXIT_SUCCESS;
  }
  for (const std::string& m : o.methods)
    if (!known_methods.contains(m)) {
      if (root) std::fprintf(stderr, "redist-bench: unknown method %s\n", m.c_str());
      return 2;
    }
  std::vector<const Case*> selected;
  for (const Case& c : cases)
    if (o.all || std::find(o.cases.begin(), o.cases.end(), c.name) != o.cases.end()) selected.push_back(&c);
  for (const std::string& name : o.cases)
    if (std::none_of(cases.begin(), cases.end(), [&](const Case& c) { return c.name == name; })) {
      if (root) std::fprintf(stderr, "redist-bench: unknown case %s (see --list)\n", name.c_str());
      return 2;
    }

  std::FILE* csv = stdout;
  if (root && !o.csv.empty() && (csv = std::fopen(o.csv.c_str(), "w")) == nullptr) {
    std::fprintf(stderr, "redist-bench: cannot write %s\n", o.csv.c_str());
    csv = stdout;
  }
  if (root) {
    std::fprintf(csv, "%s\n", csv_header);
    std::fprintf(stderr,
                 "redist-bench: n = %lld (1-D), %lld^2 (2-D), %lld^3 (3-D) doubles on %d processes, %d repetitions "
                 "after one warm-up\n",
                 static_cast<long long>(o.sizes.n), static_cast<long long>(o.sizes.matrix),
                 static_cast<long long>(o.sizes.cube), world.size(), o.reps);
  }

  const BlacsGrids grids;
  BlacsContexts contexts;
  Harness harness(world, o.reps, o.methods, o.explain);
  bool all_ok = true;
  for (const Case* c : selected) {
    for (const Row& r : c->run(harness, o.sizes, grids, contexts)) {
      all_ok = all_ok && r.ok;
      if (!root) continue;
      write_csv_row(csv, r);
      std::fflush(csv);
      std::fprintf(stderr, "%-16s %-20s median %10.3f ms  [%9.3f, %9.3f]  plan %8.3f ms  %4lld msgs  %s\n",
                   r.case_name.c_str(), r.method.c_str(), r.median_ms, r.min_ms, r.max_ms, r.plan_ms,
                   static_cast<long long>(r.messages), r.ok ? "ok" : "FAIL");
    }
  }
  if (root && csv != stdout) std::fclose(csv);
  if (root && !all_ok) std::fprintf(stderr, "redist-bench: some checks failed\n");
  return all_ok ? EXIT_SUCCESS : EXIT_FAILURE;
}

}  // namespace

int main(int argc, char* argv[]) {
  mpi::environment env(argc, argv);
  mpi::communicator world;
  Options options;
  const cli::Parser parser = make_parser(options);
  const bool root = world.rank() == 0;
  if (const std::optional<int> status = parser.parse(argc, argv, root)) return *status;
  if (!options.list && !options.all && options.cases.empty())
    return parser.fail("choose --list, --all or --case NAME", root);
  try {
    return run(world, options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "redist-bench (rank %d): %s\n", world.rank(), e.what());
    env.abort(3);
  }
  return 3;
}
