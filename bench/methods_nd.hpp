/// @file Defines the methods redist-bench measures on N-D arrays (redist and its schedules, pdgemr2d and the drop-in's on 2-D descriptors, alltoallv, alltoallv_onepass, alltoallw, alltoallw_darray, memcpy, naive) and methods_nd, their table for one pair of layouts.
#pragma once

#include <array>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <redist/redist.hpp>

#include "darray.hpp"
#include "gemr2d.hpp"
#include "harness.hpp"
#include "methods.hpp"
#include "onepass.hpp"

namespace redist::bench {

/// BLACS contexts of the grid shapes the N-D cases use, made on first use (collectively: every
/// rank asks for the same shapes in the same order) and released on destruction.
class BlacsContexts {
 public:
  BlacsContexts() = default;
  BlacsContexts(const BlacsContexts&) = delete;
  BlacsContexts& operator=(const BlacsContexts&) = delete;
  ~BlacsContexts() {
    if constexpr (have_scalapack)
      for (auto& [shape, ctxt] : contexts_)
        if (ctxt >= 0) Cblacs_gridexit(ctxt);
  }
  /// The row-major nprow × npcol grid on processes 0 ... nprow·npcol − 1 (-1 on the others).
  int get(int nprow, int npcol) {
    auto [it, fresh] = contexts_.try_emplace({nprow, npcol}, -1);
    if constexpr (have_scalapack)
      if (fresh) {
        int ctxt = 0;
        Cblacs_get(-1, 0, &ctxt);
        Cblacs_gridinit(&ctxt, "R", nprow, npcol);
        it->second = ctxt;
      }
    return it->second;
  }

 private:
  std::map<std::pair<int, int>, int> contexts_;
};

/// A 2-D ScaLAPACK view of an N-D layout: M × N matrix, MB × NB blocks on an nprow × npcol
/// row-major grid starting at rank 0, source offsets. 2-D layouts of Cyclic / Block /
/// Collapsed dimensions map directly; a 3-D layout Dist<X, Collapsed, Y> maps as the n0 × (n1·n2)
/// matrix whose column index is j + n1·k (column blocks of n1 · block(Y)).
struct MatrixView {
  int m = 0, n = 0, mb = 1, nb = 1, nprow = 1, npcol = 1, rsrc = 0, csrc = 0;
};

namespace detail {
template <class M1>
index_t block_of(const M1& m, index_t n) {
  if constexpr (requires { m.block_size(); }) return m.block_size();
  else return std::max<index_t>(1, n);  // Collapsed: one block
}
inline int as_int(index_t v) {
  if (v < 0 || v > INT_MAX) throw std::length_error("does not fit ScaLAPACK's int");
  return static_cast<int>(v);
}
}  // namespace detail

template <class M>
MatrixView matrix_view(const M& m) {
  constexpr std::size_t N = M::rank();
  if (m.grid().first() != 0 || (m.grid().order() != Order::row_major && m.grid().size() > 1 && m.grid().extent(0) > 1 &&
                                 m.grid().extent(N - 1) > 1))
    throw std::invalid_argument("pdgemr2d needs a row-major grid from rank 0");
  if (m.storage().order != Order::column_major) throw std::invalid_argument("pdgemr2d needs column-major storage");
  std::array<index_t, N> block{};
  for (std::size_t d = 0; d < N; ++d) block[d] = m.visit(d, 0, [&](const auto& one, int) { return detail::block_of(one, m.extent(d)); });
  MatrixView v;
  if constexpr (N == 2) {
    v = {detail::as_int(m.extent(0)), detail::as_int(m.extent(1)), detail::as_int(block[0]), detail::as_int(block[1]),
         m.grid().extent(0), m.grid().extent(1), m.offsets()[0], m.offsets()[1]};
  } else if constexpr (N == 3) {
    if (m.grid().extent(1) != 1 || block[1] < m.extent(1)) throw std::invalid_argument("pdgemr2d needs dimension 1 collapsed");
    v = {detail::as_int(m.extent(0)), detail::as_int(m.extent(1) * m.extent(2)), detail::as_int(block[0]),
         detail::as_int(m.extent(1) * block[2]), m.grid().extent(0), m.grid().extent(2), m.offsets()[0], m.offsets()[2]};
  } else {
    throw std::invalid_argument("pdgemr2d handles 2-D and 3-D (middle collapsed) layouts");
  }
  return v;
}

/// The ScaLAPACK descriptor of an N-D layout that matrix_view can express, on this rank.
template <class M>
void describe_nd(int (&desc)[9], BlacsContexts& contexts, int rank, const M& m) {
  const MatrixView v = matrix_view(m);
  const int ctxt = contexts.get(v.nprow, v.npcol);
  const int lld = std::max<int>(1, detail::as_int(m.leading_dimension(rank)));
  desc[0] = 1;
  desc[1] = ctxt;
  desc[2] = v.m;
  desc[3] = v.n;
  desc[4] = v.mb;
  desc[5] = v.nb;
  desc[6] = v.rsrc;
  desc[7] = v.csrc;
  desc[8] = lld;
}

/// pdgemr2d between two N-D layouts that matrix_view can express, on their own local storage.
class Gemr2dNd {
 public:
  template <class From, class To>
  Gemr2dNd(BlacsContexts& contexts, int all_ctxt, int rank, const From& from, const To& to, pdgemr2d_fn* f = &pdgemr2d_)
      : all_ctxt_{all_ctxt}, f_{f} {
    describe_nd(desc_a_, contexts, rank, from);
    describe_nd(desc_b_, contexts, rank, to);
    m_ = desc_a_[2];
    n_ = desc_a_[3];
  }
  void run(const double* a, double* b) const {
    const int one = 1;
    f_(&m_, &n_, a, &one, &one, desc_a_, b, &one, &one, desc_b_, &all_ctxt_);
  }

 private:
  int all_ctxt_;
  pdgemr2d_fn* f_;
  int m_ = 0, n_ = 0;
  int desc_a_[9] = {};
  int desc_b_[9] = {};
};

/// What the methods of an N-D case share: the source array A (filled with f), a maker of
/// destination arrays B, and the BLACS state for pdgemr2d. A and B are DistArrays or DistViews.
template <class A, class B>
struct LayoutsNd {
  const A* src;
  std::function<B()> make_dst;
  BlacsContexts* contexts;
  const BlacsGrids* grids;
};

template <class A, class B>
class Gemr2dNdMethod final : public IntoArray<A, B> {
 public:
  Gemr2dNdMethod(const A& a, B b, BlacsContexts& contexts, const BlacsGrids& grids, pdgemr2d_fn* f = &pdgemr2d_)
      : IntoArray<A, B>{a, std::move(b)}, contexts_{&contexts}, grids_{&grids}, f_{f} {}
  void setup() override {
    gemr2d_.emplace(*contexts_, grids_->row_context(), this->a_.comm().rank(), this->a_.mapping(), this->b_.mapping(), f_);
  }
  void run() override { gemr2d_->run(this->a_.local().data(), this->b_.local().data()); }
  Cost cost() override {
    Cost c = traffic(general_plan(this->a_, this->b_), sizeof(double));
    c.steps = this->a_.comm().size();
    c.scratch_bytes = static_cast<std::int64_t>(this->a_.local().size() + this->b_.local().size()) *
                      static_cast<std::int64_t>(sizeof(double));
    return c;
  }

 private:
  BlacsContexts* contexts_;
  const BlacsGrids* grids_;
  pdgemr2d_fn* f_;
  std::optional<Gemr2dNd> gemr2d_;
};

/// MPI_Alltoallw with the darray or subarray types a user writes, no redist plan (see AlltoallwDarray).
/// A is a DistArray or a TransposedArray (bench/transpose.hpp).
template <class A, class B>
class AlltoallwDarrayMethod final : public IntoArray<A, B> {
 public:
  AlltoallwDarrayMethod(const A& a, B b) : IntoArray<A, B>{a, std::move(b)} {}
  bool has_setup() const override { return true; }
  void setup() override { exchange_.emplace(this->a_, this->b_); }
  void run() override {
    exchange_->run(static_cast<MPI_Comm>(this->a_.comm()), this->a_.local().data(), this->b_.local().data());
  }
  Cost cost() override {
    Cost c;
    c.bytes_sent = exchange_->bytes_sent();
    c.messages = exchange_->messages();
    c.steps = 1;
    return c;
  }

 private:
  std::optional<AlltoallwDarray<typename A::value_type>> exchange_;
};

/// The floor: memcpy of the local source storage.
template <class A>
class MemcpyNdMethod final : public Method {
 public:
  explicit MemcpyNdMethod(const A& a) : a_{a}, copy_(a.local().size()) {}
  void run() override {
    if (!copy_.empty()) std::memcpy(copy_.data(), a_.local().data(), copy_.size() * sizeof(typename A::value_type));
  }
  void clear() override { std::ranges::fill(copy_, cleared_value); }
  bool verify() const override {
    bool ok = true;
    for_each_local_nd(a_, [&](const auto& l, index_t off) {
      ok = ok && copy_[static_cast<std::size_t>(off)] == value_of(global_id(a_.global_index(l), a_.extents()));
    });
    return ok;
  }
  Cost cost() override { return {}; }

 private:
  const A& a_;
  std::vector<typename A::value_type> copy_;
};

/// Every method that applies to the N-D pair of layouts of L, in CSV order.
template <class A, class B>
std::vector<MethodEntry> methods_nd(const LayoutsNd<A, B>* L) {
  using T = typename A::value_type;
  using DS = typename A::distribution_type;
  using DD = typename B::distribution_type;
  std::vector<MethodEntry> e;
  add_redist_methods<A, B, DS, DD>(e, L);
  if constexpr (std::is_same_v<T, double> && have_scalapack) {
    e.push_back({"pdgemr2d", [L] {
                   return std::make_unique<Gemr2dNdMethod<A, B>>(*L->src, L->make_dst(), *L->contexts, *L->grids);
                 }});
    if (dropin_pdgemr2d() != nullptr)
      e.push_back({"dropin", [L] {
                     return std::make_unique<Gemr2dNdMethod<A, B>>(*L->src, L->make_dst(), *L->contexts, *L->grids,
                                                                   dropin_pdgemr2d());
                   }});
  }
  e.push_back({"alltoallv", [L] { return std::make_unique<AlltoallvMethod<A, B>>(*L->src, L->make_dst()); }});
  e.push_back({"alltoallv_onepass", [L] { return std::make_unique<OnePassMethod<A, B>>(*L->src, L->make_dst()); }});
  e.push_back({"alltoallw", [L] { return std::make_unique<AlltoallwMethod<A, B>>(*L->src, L->make_dst()); }});
  e.push_back({"alltoallw_darray", [L] { return std::make_unique<AlltoallwDarrayMethod<A, B>>(*L->src, L->make_dst()); }});
  e.push_back({"memcpy", [L] { return std::make_unique<MemcpyNdMethod<A>>(*L->src); }});
  e.push_back({"naive", [L] { return std::make_unique<NaiveMethod<A, B>>(*L->src, L->make_dst()); }});
  return e;
}

}  // namespace redist::bench
