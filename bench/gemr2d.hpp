/// @file Defines the ScaLAPACK pdgemr2d baseline for 1-D arrays: an n×1 matrix on a P×1 process grid.
#pragma once

#include <dlfcn.h>
#include <mpi.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include <redist/dist/block.hpp>
#include <redist/dist/cyclic.hpp>

// BLACS and ScaLAPACK (Debian's libscalapack-openmpi: 32-bit integers).
extern "C" {
void Cblacs_pinfo(int* mypnum, int* nprocs);
void Cblacs_get(int icontxt, int what, int* val);
void Cblacs_gridinit(int* icontxt, const char* layout, int nprow, int npcol);
void Cblacs_gridinfo(int icontxt, int* nprow, int* npcol, int* myrow, int* mycol);
void Cblacs_gridexit(int icontxt);
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrcproc, const int* nprocs);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb, const int* irsrc,
               const int* icsrc, const int* ictxt, const int* lld, int* info);
void pdgemr2d_(const int* m, const int* n, const double* a, const int* ia, const int* ja, const int* desca,
               double* b, const int* ib, const int* jb, const int* descb, const int* ictxt);
}

namespace redist::bench {

/// False when redist-bench is built without ScaLAPACK (-DREDIST_BENCH_NO_SCALAPACK: under
/// SimGrid's SMPI, bench/sim/, where Debian's ScaLAPACK, built for Open MPI, cannot link): the
/// pdgemr2d, dropin and pdtran methods are then left out, and no BLACS grid is made.
#ifdef REDIST_BENCH_NO_SCALAPACK
inline constexpr bool have_scalapack = false;
#else
inline constexpr bool have_scalapack = true;
#endif

/// PDGEMR2D's Fortran signature.
using pdgemr2d_fn = void(const int*, const int*, const double*, const int*, const int*, const int*, double*, const int*,
                         const int*, const int*, const int*);

/// The `dropin` method's pdgemr2d_: libredist-scalapack's (issue 17), loaded privately
/// (RTLD_LOCAL), so that the `pdgemr2d` method still calls ScaLAPACK's own. nullptr when the
/// library was not built.
inline pdgemr2d_fn* dropin_pdgemr2d() {
#ifdef REDIST_BENCH_DROPIN_LIBRARY
  static pdgemr2d_fn* const f = [] {
    void* h = dlopen(REDIST_BENCH_DROPIN_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    return h == nullptr ? nullptr : reinterpret_cast<pdgemr2d_fn*>(dlsym(h, "pdgemr2d_"));
  }();
  return f;
#else
  return nullptr;
#endif
}

/// True for the distributions ScaLAPACK can express as the rows of an n×1 matrix on a P×1 grid:
/// Block (row block ceil(n/P)) and Cyclic<k> (row block k). GenBlock cannot be expressed.
template <class D>
inline constexpr bool scalapack_expressible = false;
template <>
inline constexpr bool scalapack_expressible<Block> = have_scalapack;
template <std::size_t X>
inline constexpr bool scalapack_expressible<Cyclic<X>> = have_scalapack;

/// The two BLACS grids over the processes of MPI_COMM_WORLD that pdgemr2d needs: P×1 for the
/// matrices and 1×P as its global context (a global context of another shape makes pdgemr2d
/// build a new one, collectively, on every call). Collective to construct and to destroy;
/// destroy before MPI_Finalize.
class BlacsGrids {
 public:
  BlacsGrids() {
    if constexpr (have_scalapack) {
      int me = 0;
      Cblacs_pinfo(&me, &nprocs_);
      Cblacs_get(-1, 0, &column_);
      Cblacs_gridinit(&column_, "R", nprocs_, 1);
      Cblacs_get(-1, 0, &row_);
      Cblacs_gridinit(&row_, "R", 1, nprocs_);
      int nprow = 0, npcol = 0, mycol = 0;
      Cblacs_gridinfo(column_, &nprow, &npcol, &myrow_, &mycol);
    }
  }
  BlacsGrids(const BlacsGrids&) = delete;
  BlacsGrids& operator=(const BlacsGrids&) = delete;
  ~BlacsGrids() {
    if constexpr (have_scalapack) {
      Cblacs_gridexit(row_);
      Cblacs_gridexit(column_);
    }
  }
  int nprocs() const noexcept { return nprocs_; }
  /// This process's row in the P×1 grid (its MPI rank in MPI_COMM_WORLD).
  int myrow() const noexcept { return myrow_; }
  int column_context() const noexcept { return column_; }
  int row_context() const noexcept { return row_; }

 private:
  int nprocs_ = 1;
  int myrow_ = 0;
  int column_ = -1;
  int row_ = -1;
};

/// The descriptor of a 1-D layout as an n×1 ScaLAPACK matrix with row block mb on the P×1 grid.
/// Its local storage is the layout's local order, so DistArray::local() is the local matrix.
inline void describe(int (&desc)[9], const BlacsGrids& grids, index_t n, index_t mb, index_t local_size) {
  const int m = static_cast<int>(n), one = 1, zero = 0, block = static_cast<int>(mb);
  if (static_cast<index_t>(m) != n || static_cast<index_t>(block) != mb)
    throw std::length_error("redist::bench::describe requires n and the block size to fit ScaLAPACK's int");
  const int myrow = grids.myrow(), nprow = grids.nprocs(), ctxt = grids.column_context();
  const int rows = numroc_(&m, &block, &myrow, &zero, &nprow);
  if (rows != local_size)
    throw std::logic_error("redist::bench::describe: ScaLAPACK holds " + std::to_string(rows) +
                           " rows here, the layout " + std::to_string(local_size));
  const int lld = std::max(1, rows);
  int info = 0;
  descinit_(desc, &m, &one, &block, &one, &zero, &zero, &ctxt, &lld, &info);
  if (info != 0) throw std::invalid_argument("redist::bench::describe: descinit_ info = " + std::to_string(info));
}

/// pdgemr2d between two block-cyclic 1-D layouts given by their mappings (Block or Cyclic<k>,
/// see scalapack_expressible). Descriptors are built once; a call is one pdgemr2d (collective):
/// ScaLAPACK's, or f (the drop-in's).
class Gemr2d {
 public:
  template <class From, class To>
  Gemr2d(const BlacsGrids& grids, const From& from, const To& to, pdgemr2d_fn* f = &pdgemr2d_)
      : n_{static_cast<int>(from.size())}, grids_{&grids}, f_{f} {
    describe(desc_a_, grids, from.size(), from.block_size(), from.local_size(grids.myrow()));
    describe(desc_b_, grids, to.size(), to.block_size(), to.local_size(grids.myrow()));
  }

  /// b = a: a and b are this rank's local arrays of the two layouts.
  void run(const double* a, double* b) const {
    const int one = 1, ctxt = grids_->row_context();
    f_(&n_, &one, a, &one, &one, desc_a_, b, &one, &one, desc_b_, &ctxt);
  }

 private:
  int n_;
  const BlacsGrids* grids_;
  pdgemr2d_fn* f_;
  int desc_a_[9] = {};
  int desc_b_[9] = {};
};

}  // namespace redist::bench
