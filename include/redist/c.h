/* redist's C interface (libredist-c): layouts stated at run time (HPF-style per dimension, or a
 * ScaLAPACK descriptor), plans between two layouts on an MPI communicator, run on the caller's
 * buffers. For C, Fortran (bind(C)) and Python (ctypes) callers; C++ callers use the typed API.
 *
 * Every function returns REDIST_SUCCESS (0) or REDIST_ERROR; redist_error_message() then gives
 * the message of this thread's last failed call (it names the parameter). Nothing calls exit or
 * abort. The collective functions (redist_plan_create, redist_plan_execute) fail on every rank
 * alike, before any data moves, when any rank's arguments are wrong. See doc/c-api.md. */
#ifndef REDIST_C_H
#define REDIST_C_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define REDIST_C_API __attribute__((visibility("default")))
#else
#define REDIST_C_API
#endif

/* The version of this header; redist_version() gives the library's (they differ when a program
 * built against one header runs with another library). */
#define REDIST_VERSION_MAJOR 0
#define REDIST_VERSION_MINOR 1
#define REDIST_VERSION_PATCH 0
#define REDIST_VERSION "0.1.0"

/* The most dimensions a layout has (redist_layout_create's ndims). A plan moves layouts of more
 * than 4 when at most 4 remain after folding the dimensions whole on every process (doc/c-api.md). */
#define REDIST_MAX_DIMS 8

/* What every function returns: REDIST_SUCCESS, or the class of its error (redist_error_message()
 * says more). A collective call returns the same class on every rank. */
enum {
  REDIST_SUCCESS = 0,
  REDIST_ERROR = 1,           /* a bad argument or state: the message names the parameter */
  REDIST_ERROR_ARGUMENT = 1,  /* the same */
  REDIST_ERROR_MISMATCH = 2,  /* the ranks of a collective call passed different values of a parameter they
                                 must pass alike (the message names it, the first differing rank, both values) */
  REDIST_ERROR_MEMORY = 3,    /* out of memory */
  REDIST_ERROR_MPI = 4,       /* an MPI call failed (under an error handler that returns, not MPI's default) */
  REDIST_ERROR_INTERNAL = 5   /* anything else: a bug in redist, please report it with the message */
};

/* The distribution of one dimension. */
enum {
  REDIST_BLOCK = 0,     /* HPF BLOCK: ceil(n / P) elements per process */
  REDIST_CYCLIC = 1,    /* HPF CYCLIC(block) */
  REDIST_GEN_BLOCK = 2, /* HPF GEN_BLOCK(sizes): sizes[p] elements on process p of the dimension */
  REDIST_COLLAPSED = 3, /* not distributed (the grid's extent must be 1) */
  REDIST_REPLICATED = 4, /* every process of the grid dimension holds all of it (copies; any nprocs) */
  REDIST_PARTIAL_SUM = 5, /* every process of the grid dimension holds all of it, a partial value of each
                             element: the element is their sum. As a source they are added on the way
                             (a plan made by redist_plan_create_typed); as a destination process 0 of
                             the grid dimension receives the element, the others 0 */
  /* The kinds of a 1-D INDIRECT layout (redist_layout_create_indirect: each rank lists the global
   * indices it holds; not kinds of a redist_dim): */
  REDIST_INDIRECT = 6,    /* an index may be listed by several ranks (ghosts), holding copies: as a destination
                             every holder receives the element, as a source a receiver reads one copy (its own
                             when it holds one) */
  REDIST_INDIRECT_SUM = 7 /* the holders of an index hold partial values whose sum is the element: as a source
                             every holder's value is added on the way (a plan made by redist_plan_create_typed);
                             as a destination the lowest-ranked holder receives the element, the others 0 */
};

/* Element types of redist_plan_create_typed (partial sums are added in them). */
enum {
  REDIST_FLOAT = 1,
  REDIST_DOUBLE = 2,
  REDIST_INT32 = 3,
  REDIST_INT64 = 4,
  REDIST_UINT32 = 5,
  REDIST_UINT64 = 6,
  REDIST_COMPLEX_FLOAT = 7, /* float _Complex, std::complex<float>, NumPy complex64 */
  REDIST_COMPLEX_DOUBLE = 8 /* double _Complex, std::complex<double>, NumPy complex128 */
};

/* What a plan of redist_plan_create_op computes from its source. */
enum {
  REDIST_OP_NONE = 0,          /* dst = alpha * src + beta * dst (ScaLAPACK's PxGEADD) */
  REDIST_OP_TRANSPOSE = 1,     /* dst = alpha * transpose(src) + beta * dst (PxTRAN, PxTRANU): 2-D layouts, to's
                                  extents from's swapped */
  REDIST_OP_CONJ_TRANSPOSE = 2 /* dst = alpha * conj(transpose(src)) + beta * dst (PxTRANC); of real types, the
                                  transpose */
};

/* The order of a grid's processes (row-major: the last coordinate varies fastest, as BLACS
 * "Row") and of a process's local storage (column-major: the first index varies fastest, as
 * Fortran and ScaLAPACK). */
enum { REDIST_ROW_MAJOR = 0, REDIST_COLUMN_MAJOR = 1 };

/* One dimension of a layout. */
typedef struct redist_dim {
  int kind;             /* REDIST_BLOCK, REDIST_CYCLIC, REDIST_GEN_BLOCK, REDIST_COLLAPSED, REDIST_REPLICATED or
                           REDIST_PARTIAL_SUM */
  int64_t extent;       /* global extent, >= 0 */
  int64_t block;        /* CYCLIC's block size, > 0 (ignored for the other kinds) */
  const int64_t* sizes; /* GEN_BLOCK: nprocs sizes summing to extent (copied; ignored otherwise) */
  int nprocs;           /* the grid's extent along this dimension, > 0 */
  int offset;           /* the grid coordinate of the first block (ScaLAPACK's RSRC/CSRC), in [0, nprocs) */
} redist_dim;

typedef struct redist_layout_s* redist_layout;
typedef struct redist_plan_s* redist_plan;

/* A layout of ndims (1 to REDIST_MAX_DIMS) dimensions on a grid of dims[0].nprocs x ... processes, numbered
 * grid_order on ranks grid_first, grid_first + 1, ... of the communicator, each process storing
 * its elements in storage_order with the given leading dimension (0: tight). Not collective. */
REDIST_C_API int redist_layout_create(int ndims, const redist_dim* dims, int grid_order, int grid_first, int storage_order,
                         int64_t leading_dimension, redist_layout* layout);

/* The layout of a ScaLAPACK descriptor (DTYPE 1; this rank's LLD) on an nprow x npcol grid
 * numbered grid_order from rank grid_first. A rank outside the grid may pass any descriptor with
 * the same global values. Not collective. */
REDIST_C_API int redist_layout_from_descriptor(const int desc[9], int nprow, int npcol, int grid_order, int grid_first,
                                  redist_layout* layout);

/* An INDIRECT layout of extent elements (HPF's INDIRECT, Tpetra's Map): this rank holds the count
 * global indices listed in indices (copied), in that local order: local element l is global
 * element indices[l]. kind is REDIST_INDIRECT (copies: ghosts allowed) or REDIST_INDIRECT_SUM
 * (partial sums). 1-D; each rank passes its own list (count 0 and indices NULL: none), each index
 * in [0, extent) and listed once on a rank; every index of [0, extent) must be listed by some rank,
 * which redist_plan_create finds (on every rank alike). Not collective. */
REDIST_C_API int redist_layout_create_indirect(int64_t extent, const int64_t* indices, int64_t count, int kind,
                                               redist_layout* layout);

/* Places layout's grid on any ranks: process k of the grid (numbered in its grid_order) on rank
 * ranks[k], for all k < dims[0].nprocs x ... (distinct ranks >= 0; a plan checks them against its
 * communicator). For grids made by BLACS's Cblacs_gridmap. Replaces grid_first. Not collective. */
REDIST_C_API int redist_layout_set_ranks(redist_layout layout, const int* ranks);

/* The number of elements this rank of comm stores for layout (its buffer's size; 0 outside the
 * grid; an INDIRECT layout's: its count). Not collective. */
REDIST_C_API int redist_layout_local_size(redist_layout layout, MPI_Comm comm, int64_t* elements);

/* This rank's part of layout on comm as an array (writes ndims values each; all zero outside the
 * grid): extents[d], its local extent along dimension d, and strides[d], the distance in elements
 * between consecutive local indices along d in its storage (storage order and leading dimension
 * applied). Either pointer may be NULL. Not collective. */
REDIST_C_API int redist_layout_local_shape(redist_layout layout, MPI_Comm comm, int64_t* extents, int64_t* strides);

/* The global indices this rank of comm holds along dimension dim (0 to ndims - 1): writes its
 * local extent along dim (redist_layout_local_shape's extents[dim]) values, indices[l] the global
 * index of local index l. In a REPLICATED or PARTIAL_SUM dimension, 0 to extent - 1; of an
 * INDIRECT layout (dim 0), this rank's list. Nothing is written outside the grid (the local extent
 * is 0). Not collective. */
REDIST_C_API int redist_layout_global_indices(redist_layout layout, MPI_Comm comm, int dim, int64_t* indices);

/* Frees a layout and sets *layout to NULL (a plan keeps what it needs). NULL is allowed. */
REDIST_C_API int redist_layout_free(redist_layout* layout);

/* The plan of from -> to on comm for elements of element_size bytes (any size >= 1: a struct, a
 * record of 12 bytes, a string of 3), moved as their bytes, built without communication but
 * agreed on its first run. Sizes other than 1, 2, 4, 8 and 16 are moved in units of the largest
 * of those dividing the size (doc/c-api.md, "Any element size"). Collective: every rank of comm calls it
 * with layouts of the same global values. With an INDIRECT layout on either side (the other a 1-D
 * layout on every rank of comm in order, or INDIRECT too) it communicates: it makes each INDIRECT
 * layout's directory (distributed in blocks over comm) and asks it for this rank's moves. */
REDIST_C_API int redist_plan_create(redist_layout from, redist_layout to, MPI_Comm comm, size_t element_size, redist_plan* plan);

/* The plan of from -> to on comm for elements of element_type (REDIST_DOUBLE, ...): as
 * redist_plan_create with their size, and partial sums (REDIST_PARTIAL_SUM) added in that type.
 * A source of partial sums needs it; redist_plan_create refuses one. Collective, as
 * redist_plan_create. */
REDIST_C_API int redist_plan_create_typed(redist_layout from, redist_layout to, MPI_Comm comm, int element_type,
                                          redist_plan* plan);

/* The plan of dst = alpha * op(src) + beta * dst from `from` to `to` on comm, for elements of
 * element_type REDIST_FLOAT, REDIST_DOUBLE, REDIST_COMPLEX_FLOAT or REDIST_COMPLEX_DOUBLE; op is
 * REDIST_OP_NONE, REDIST_OP_TRANSPOSE or REDIST_OP_CONJ_TRANSPOSE. Run by redist_plan_execute_scaled
 * (or redist_plan_execute: alpha 1, beta 0). Layouts of dimensions (not INDIRECT, no
 * REDIST_PARTIAL_SUM), of the same extents (swapped for a transpose, 2-D). Collective, as
 * redist_plan_create. */
REDIST_C_API int redist_plan_create_op(redist_layout from, redist_layout to, MPI_Comm comm, int element_type, int op,
                                       redist_plan* plan);

/* dst = alpha * op(src) + beta * dst with a plan of redist_plan_create_op, each element computed
 * where it lands (dst read once and written once). alpha and beta point to one value of the plan's
 * element type (float, double, float _Complex, double _Complex); they must be the same on every
 * rank. beta NULL or zero: dst is not read (NaNs in it do not propagate); alpha zero: src is not
 * read and nothing is sent, dst = beta * dst (ScaLAPACK's semantics). src and dst must not overlap:
 * the plan's first run refuses an overlap on every rank, a later run reads src from a private copy
 * (as redist_plan_execute). Collective over the plan's communicator. */
REDIST_C_API int redist_plan_execute_scaled(redist_plan plan, const void* alpha, const void* src, const void* beta,
                                            void* dst);

/* dst = src: src holds this rank's elements of `from` (redist_layout_local_size of them), dst
 * receives its elements of `to`. Collective over the plan's communicator. The first run checks
 * that every rank made the same plan, and refuses on every rank a src sharing bytes with dst on
 * some rank unless the plan writes over src only each element onto itself (an update in place: a
 * halo's owned part at the head of its buffer). A later run whose src and dst overlap on a rank
 * reads that rank's src from a private copy made first (correct, at one copy's cost). */
REDIST_C_API int redist_plan_execute(redist_plan plan, const void* src, void* dst);

/* Frees a plan and sets *plan to NULL. NULL is allowed. Not collective. */
REDIST_C_API int redist_plan_free(redist_plan* plan);

/* redist_layout_local_size, _local_shape, _global_indices, redist_plan_create, _typed and _op with the communicator's Fortran handle
 * (MPI_Comm_c2f; Fortran's integer communicators, mpi4py's comm.py2f()), for Fortran and Python
 * callers, whose handles are not C's. */
REDIST_C_API int redist_layout_local_size_f(redist_layout layout, MPI_Fint comm, int64_t* elements);
REDIST_C_API int redist_layout_local_shape_f(redist_layout layout, MPI_Fint comm, int64_t* extents, int64_t* strides);
REDIST_C_API int redist_layout_global_indices_f(redist_layout layout, MPI_Fint comm, int dim, int64_t* indices);
REDIST_C_API int redist_plan_create_f(redist_layout from, redist_layout to, MPI_Fint comm, size_t element_size,
                                      redist_plan* plan);
REDIST_C_API int redist_plan_create_typed_f(redist_layout from, redist_layout to, MPI_Fint comm, int element_type,
                                            redist_plan* plan);
REDIST_C_API int redist_plan_create_op_f(redist_layout from, redist_layout to, MPI_Fint comm, int element_type, int op,
                                         redist_plan* plan);

/* The message of this thread's last failed call ("" when none failed). */
REDIST_C_API const char* redist_error_message(void);

/* The library's version, "MAJOR.MINOR.PATCH" (REDIST_VERSION of the header it was built with). */
REDIST_C_API const char* redist_version(void);

#ifdef __cplusplus
}
#endif

#endif /* REDIST_C_H */
