/// @file Defines the methods redist-bench measures on b = transpose(a) (redist, FFTW's distributed transpose, alltoallv_onepass, alltoallw_darray, memcpy), TransposedArray, through which the baselines read transpose(a), and methods_transpose, their table.
#pragma once

#include <algorithm>
#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/mpi/collectives/all_reduce.hpp>
#include <boost/mpi/communicator.hpp>

#include <redist/redist.hpp>

#ifdef REDIST_BENCH_HAVE_FFTW_MPI
#include <fftw3-mpi.h>
#endif

#include "darray.hpp"
#include "harness.hpp"
#include "methods.hpp"
#include "methods_nd.hpp"
#include "onepass.hpp"

namespace redist::bench {

/// transpose(a) of a 2-D array a as an array of its own for the baselines: element (i, j) is a's
/// element (j, i), stored where a stores it. It has the queries the baselines ask (extents,
/// local extents and strides, global_index, owner, local_index), each a's with the two indices
/// swapped; base() is a.
template <class A>
class TransposedArray {
  static_assert(A::rank() == 2, "redist::bench::TransposedArray<A> requires a 2-D array");

 public:
  using value_type = typename A::value_type;
  using extents_type = typename A::extents_type;
  static constexpr std::size_t rank() noexcept { return 2; }

  explicit TransposedArray(const A& a) : a_{&a} {}
  const A& base() const noexcept { return *a_; }
  const boost::mpi::communicator& comm() const noexcept { return a_->comm(); }
  std::span<const value_type> local() const noexcept { return a_->local(); }
  index_t local_size() const noexcept { return a_->local_size(); }
  extents_type extents() const { return swap(a_->extents()); }
  extents_type local_extents() const { return swap(a_->local_extents()); }
  extents_type local_strides() const { return swap(a_->local_strides()); }
  extents_type global_index(const extents_type& l) const { return swap(a_->global_index(swap(l))); }
  int owner(const extents_type& g) const { return a_->owner(swap(g)); }
  index_t local_index(const extents_type& g) const { return a_->local_index(swap(g)); }

 private:
  static extents_type swap(extents_type e) noexcept {
    std::swap(e[0], e[1]);
    return e;
  }
  const A* a_;
};

/// What the methods of a transposed case share: transpose(a) over the source array (filled so
/// that transpose(a) holds f(global index)) and a maker of destination arrays.
template <class T, class DS, class DD>
struct LayoutsTransposed {
  const TransposedArray<DistArray<T, DS>>* src;
  std::function<DistArray<T, DD>()> make_dst;
};

/// redist: b = transpose(a). Setup builds the same plan (automatic schedule) as the one the first
/// call caches in b; the timed calls use b's.
template <class A, class B>
class RedistTransposeMethod final : public IntoArray<TransposedArray<A>, B> {
 public:
  /// messages: with shared memory off (the message path between every pair).
  RedistTransposeMethod(const TransposedArray<A>& at, B b, bool messages = false)
      : IntoArray<TransposedArray<A>, B>{at, std::move(b)}, opts_{messages ? messages_only() : default_options()},
        messages_{messages} {}
  bool has_setup() const override { return true; }
  void setup() override {
    const A& a = this->a_.base();
    plan_.emplace(Transposed<typename A::mapping_type>{a.mapping()}, this->b_.mapping(), a.comm().rank(),
                  schedule::automatic, opts_);
  }
  void run() override {
    if (messages_) redist::redistribute(redist::transpose(this->a_.base()), this->b_, schedule::automatic, opts_);
    else this->b_ = redist::transpose(this->a_.base());
  }
  Cost cost() override {
    // The buffers of the same plan as the one cached in b, once it has run.
    plan_->run(this->a_.comm(), this->a_.local(), this->b_.local());
    return redistribution_cost(*plan_, sizeof(typename A::value_type));
  }

 private:
  std::optional<Redistribution<Transposed<typename A::mapping_type>, typename B::mapping_type, schedule::automatic_t>> plan_;
  options opts_;
  bool messages_;
};

#ifdef REDIST_BENCH_HAVE_FFTW_MPI
/// FFTW's distributed transpose: an n0 × n1 matrix of doubles in row blocks of FFTW's default
/// size (ceil(n0/P), as Block), row-major, into the n1 × n0 transpose in row blocks, row-major:
/// fftw_mpi_plan_many_transpose, out-of-place, planned once with FFTW_MEASURE (which picks
/// FFTW's algorithm by timing them) on the arrays' own storage; a call is one fftw_execute.
/// Applies when the arrays' local blocks are FFTW's (checked at setup).
template <class A, class B>
class FftwTransposeMethod final : public IntoArray<TransposedArray<A>, B> {
 public:
  FftwTransposeMethod(const TransposedArray<A>& at, B b) : IntoArray<TransposedArray<A>, B>{at, std::move(b)} {}
  FftwTransposeMethod(const FftwTransposeMethod&) = delete;
  FftwTransposeMethod& operator=(const FftwTransposeMethod&) = delete;
  ~FftwTransposeMethod() override {
    if (plan_ != nullptr) fftw_destroy_plan(plan_);  // collective, as every method's destruction
  }
  bool has_setup() const override { return true; }
  void setup() override {
    static const bool initialized = (fftw_mpi_init(), true);
    (void)initialized;
    const A& a = this->a_.base();
    B& b = this->b_;
    const MPI_Comm comm = static_cast<MPI_Comm>(a.comm());
    const ptrdiff_t n[2] = {static_cast<ptrdiff_t>(a.extent(0)), static_cast<ptrdiff_t>(a.extent(1))};
    ptrdiff_t local_n0 = 0, start0 = 0, local_n1 = 0, start1 = 0;
    const ptrdiff_t alloc = fftw_mpi_local_size_many_transposed(2, n, 1, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK,
                                                                comm, &local_n0, &start0, &local_n1, &start1);
    // FFTW's blocks against the arrays' (tight row-major storage, the same rows), agreed by every
    // rank before the collective planning.
    auto rows_match = [](const auto& x, ptrdiff_t rows, ptrdiff_t start, ptrdiff_t cols) {
      const auto e = x.local_extents();
      const auto s = x.local_strides();
      if (rows == 0) return e[0] == 0 || e[1] == 0;
      return e[0] == rows && e[1] == cols && s[1] == 1 && s[0] == cols && x.global_index({0, 0})[0] == start;
    };
    bool ok = rows_match(a, local_n0, start0, n[1]) && rows_match(b, local_n1, start1, n[0]) &&
              alloc <= static_cast<ptrdiff_t>(a.local().size()) && alloc <= static_cast<ptrdiff_t>(b.local().size());
    if (!boost::mpi::all_reduce(a.comm(), ok, std::logical_and<bool>()))
      throw std::invalid_argument("the arrays' local blocks are not FFTW's row blocks (row-major, ceil(n/P) rows)");

    // FFTW_MEASURE overwrites in and out while it plans: a's values are kept and put back.
    const std::vector<double> kept(a.local().begin(), a.local().end());
    double* in = const_cast<double*>(a.local().data());
    plan_ = fftw_mpi_plan_many_transpose(n[0], n[1], 1, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK, in,
                                         b.local().data(), comm, FFTW_MEASURE);
    std::copy(kept.begin(), kept.end(), in);
    if (!boost::mpi::all_reduce(a.comm(), plan_ != nullptr, std::logical_and<bool>()))
      throw std::runtime_error("fftw_mpi_plan_many_transpose returned no plan");

    // The traffic: my rows' columns that other ranks own in b.
    std::vector<ptrdiff_t> cols(static_cast<std::size_t>(a.comm().size()));
    MPI_Allgather(&local_n1, 1, MPI_AINT, cols.data(), 1, MPI_AINT, comm);
    for (int q = 0; q < a.comm().size(); ++q)
      if (q != a.comm().rank() && local_n0 > 0 && cols[static_cast<std::size_t>(q)] > 0) {
        bytes_sent_ += static_cast<std::int64_t>(local_n0 * cols[static_cast<std::size_t>(q)]) * 8;
        ++messages_;
      }
  }
  void run() override { fftw_execute(plan_); }
  Cost cost() override {
    Cost c;
    c.bytes_sent = bytes_sent_;
    c.messages = messages_;
    c.steps = 1;
    return c;
  }

 private:
  fftw_plan plan_ = nullptr;
  std::int64_t bytes_sent_ = 0, messages_ = 0;
};
#endif

/// Every method of the transposed pair of L: redist (b = transpose(a)), fftw_transpose (when
/// built with FFTW-MPI), alltoallv_onepass, alltoallw_darray, memcpy. pdgemr2d and the plan-based
/// baselines do not transpose. L may be null when only names are listed.
template <class T, class DS, class DD>
std::vector<MethodEntry> methods_transpose(const LayoutsTransposed<T, DS, DD>* L) {
  using A = DistArray<T, DS>;
  using At = TransposedArray<A>;
  using B = DistArray<T, DD>;
  std::vector<MethodEntry> e;
  e.push_back({"redist", [L] { return std::make_unique<RedistTransposeMethod<A, B>>(*L->src, L->make_dst()); }});
  e.push_back({"redist_messages",
               [L] { return std::make_unique<RedistTransposeMethod<A, B>>(*L->src, L->make_dst(), true); }});
#ifdef REDIST_BENCH_HAVE_FFTW_MPI
  if constexpr (std::is_same_v<T, double>)
    e.push_back({"fftw_transpose", [L] { return std::make_unique<FftwTransposeMethod<A, B>>(*L->src, L->make_dst()); }});
#endif
  e.push_back({"alltoallv_onepass", [L] { return std::make_unique<OnePassMethod<At, B>>(*L->src, L->make_dst()); }});
  e.push_back({"alltoallw_darray", [L] { return std::make_unique<AlltoallwDarrayMethod<At, B>>(*L->src, L->make_dst()); }});
  e.push_back({"memcpy", [L] { return std::make_unique<MemcpyNdMethod<At>>(*L->src); }});
  return e;
}

}  // namespace redist::bench
