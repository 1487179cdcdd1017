"""redist from Python: redistribute NumPy arrays between HPF-style layouts over MPI.

A thin ctypes layer over redist's C interface (redist/c.h, libredist-c); communicators are
mpi4py's. Each rank passes its own NumPy array (its local part); a plan moves every element to
the rank that owns it in the target layout::

    from mpi4py import MPI
    import numpy as np
    import redist

    comm = MPI.COMM_WORLD
    P = comm.Get_size()
    a = redist.Layout(redist.block(1000, P))
    b = redist.Layout(redist.cyclic(1000, 4, P))
    plan = redist.Plan(a, b, comm, np.float64)
    x = np.arange(a.local_size(comm), dtype=np.float64)   # this rank's part of a
    y = np.empty(b.local_size(comm))                       # this rank's part of b
    plan(x, y)

A plan made with scaled=True computes y = alpha * op(x) + beta * y where the elements land
(ScaLAPACK's PxGEADD, PxTRAN): ``redist.Plan(a, b, comm, np.float64, scaled=True)(x, y, alpha=2.0,
beta=0.5)``, and with op="transpose" or "conj_transpose" (2-D layouts, b's extents a's swapped).

Elements are of any fixed-size NumPy dtype, structured ones too (np.dtype([('x', 'f8'), ('id',
'i4')])), moved as their bytes; partial sums are added in a numeric dtype. A layout tells each
rank its part: local_size(comm), local_shape(comm) and global_indices(comm).

Installed by `pip install --no-build-isolation ./python` or by redist's `meson install`. The
library libredist-c is found, first found first: at the path in the environment variable
REDIST_C_LIBRARY; at the path meson install wrote beside the package (redist/_library.py); beside
the package (a libredist-c.so* in its directory); on the loader's path (ldconfig's cache,
LD_LIBRARY_PATH). Errors raise redist.Error with redist's message (it names the parameter), as
one of its classes: ArgumentError (also a ValueError), MismatchError (ranks that passed different
values of what they must pass alike), OutOfMemoryError (also a MemoryError), MPIError; a plan's
errors are raised on every rank alike, before any data moves.
"""

import ctypes
import ctypes.util
import os

import numpy as np

__all__ = ["Error", "ArgumentError", "MismatchError", "OutOfMemoryError", "MPIError", "Layout", "Plan", "DistArray",
           "version", "block", "cyclic", "gen_block", "collapsed", "replicated", "partial_sum", "indirect", "ROW_MAJOR",
           "COLUMN_MAJOR", "TRANSPOSE", "CONJ_TRANSPOSE"]

BLOCK, CYCLIC, GEN_BLOCK, COLLAPSED, REPLICATED, PARTIAL_SUM = 0, 1, 2, 3, 4, 5
INDIRECT, INDIRECT_SUM = 6, 7
ROW_MAJOR, COLUMN_MAJOR = 0, 1
# Plan's op: what a scaled plan computes of its source (dst = alpha * op(src) + beta * dst).
_OP_NONE, TRANSPOSE, CONJ_TRANSPOSE = 0, 1, 2
_OPS = {None: _OP_NONE, "none": _OP_NONE, TRANSPOSE: TRANSPOSE, "transpose": TRANSPOSE, CONJ_TRANSPOSE: CONJ_TRANSPOSE,
        "conj_transpose": CONJ_TRANSPOSE}


class Error(RuntimeError):
    """An error reported by redist (the same on every rank for collective calls)."""


class ArgumentError(Error, ValueError):
    """A bad argument: the message names it (REDIST_ERROR_ARGUMENT)."""


class MismatchError(Error):
    """The ranks of a collective call passed different values of a parameter they must pass alike:
    the message names it, the first differing rank and both values (REDIST_ERROR_MISMATCH)."""


class OutOfMemoryError(Error, MemoryError):
    """redist ran out of memory (REDIST_ERROR_MEMORY)."""


class MPIError(Error):
    """An MPI call failed (REDIST_ERROR_MPI)."""


# The C interface's error classes (redist/c.h): 1 argument, 2 mismatch, 3 memory, 4 MPI, else Error.
_error_classes = {1: ArgumentError, 2: MismatchError, 3: OutOfMemoryError, 4: MPIError}


class _Dim(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("extent", ctypes.c_int64), ("block", ctypes.c_int64),
                ("sizes", ctypes.POINTER(ctypes.c_int64)), ("nprocs", ctypes.c_int), ("offset", ctypes.c_int)]


_handle = None


def _library_paths():
    """Where to look for libredist-c, in order: REDIST_C_LIBRARY; the path meson install wrote in
    _library.py; a libredist-c.so* beside this file; the loader's name for it (ldconfig's cache),
    then libredist-c.so on the loader's path."""
    env = os.environ.get("REDIST_C_LIBRARY")
    if env:
        return [env]
    paths = []
    try:
        from ._library import LIBRARY
        if os.path.exists(LIBRARY):
            paths.append(LIBRARY)
    except ImportError:
        pass
    here = os.path.dirname(os.path.abspath(__file__))
    paths += [os.path.join(here, f) for f in sorted(os.listdir(here)) if f.startswith("libredist-c.so")]
    found = ctypes.util.find_library("redist-c")
    if found:
        paths.append(found)
    paths.append("libredist-c.so")
    return paths


def _load():
    tried = []
    for path in _library_paths():
        try:
            return ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
        except OSError as e:
            tried.append(str(e))
    raise Error("redist: cannot load libredist-c (" + "; ".join(tried) + "): install redist's C library where the "
                "loader finds it (meson install), put it beside the package, or set REDIST_C_LIBRARY to its path")


def _lib():
    global _handle
    if _handle is None:
        lib = _load()
        vp = ctypes.c_void_p
        lib.redist_layout_create.argtypes = [ctypes.c_int, ctypes.POINTER(_Dim), ctypes.c_int, ctypes.c_int,
                                             ctypes.c_int, ctypes.c_int64, ctypes.POINTER(vp)]
        lib.redist_layout_from_descriptor.argtypes = [ctypes.POINTER(ctypes.c_int), ctypes.c_int, ctypes.c_int,
                                                      ctypes.c_int, ctypes.c_int, ctypes.POINTER(vp)]
        lib.redist_layout_create_indirect.argtypes = [ctypes.c_int64, ctypes.POINTER(ctypes.c_int64), ctypes.c_int64,
                                                      ctypes.c_int, ctypes.POINTER(vp)]
        lib.redist_layout_set_ranks.argtypes = [vp, ctypes.POINTER(ctypes.c_int)]
        lib.redist_layout_local_size_f.argtypes = [vp, ctypes.c_int, ctypes.POINTER(ctypes.c_int64)]
        lib.redist_layout_local_shape_f.argtypes = [vp, ctypes.c_int, ctypes.POINTER(ctypes.c_int64),
                                                    ctypes.POINTER(ctypes.c_int64)]
        lib.redist_layout_global_indices_f.argtypes = [vp, ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_int64)]
        lib.redist_layout_free.argtypes = [ctypes.POINTER(vp)]
        lib.redist_plan_create_f.argtypes = [vp, vp, ctypes.c_int, ctypes.c_size_t, ctypes.POINTER(vp)]
        lib.redist_plan_create_typed_f.argtypes = [vp, vp, ctypes.c_int, ctypes.c_int, ctypes.POINTER(vp)]
        lib.redist_plan_create_op_f.argtypes = [vp, vp, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.POINTER(vp)]
        lib.redist_plan_execute.argtypes = [vp, vp, vp]
        lib.redist_plan_execute_scaled.argtypes = [vp, vp, vp, vp, vp]
        lib.redist_plan_free.argtypes = [ctypes.POINTER(vp)]
        lib.redist_error_message.restype = ctypes.c_char_p
        lib.redist_version.restype = ctypes.c_char_p
        _handle = lib
    return _handle


def _check(code):
    if code != 0:
        raise _error_classes.get(code, Error)(_lib().redist_error_message().decode())


def version():
    """The version of the redist library loaded, "MAJOR.MINOR.PATCH"."""
    return _lib().redist_version().decode()


# One dimension: (kind, extent, block, sizes, nprocs, offset).
def block(extent, nprocs, offset=0):
    """HPF BLOCK: ceil(extent / nprocs) elements per process, from grid coordinate offset."""
    return (BLOCK, extent, 0, None, nprocs, offset)


def cyclic(extent, k, nprocs, offset=0):
    """HPF CYCLIC(k): blocks of k elements dealt to the nprocs processes from offset."""
    return (CYCLIC, extent, k, None, nprocs, offset)


def gen_block(sizes, offset=0):
    """HPF GEN_BLOCK(sizes): sizes[p] consecutive elements on process p."""
    sizes = [int(s) for s in sizes]
    return (GEN_BLOCK, sum(sizes), 0, sizes, len(sizes), offset)


def collapsed(extent):
    """Not distributed (one process along this dimension)."""
    return (COLLAPSED, extent, 0, None, 1, 0)


def replicated(extent, nprocs):
    """Not split: each of the nprocs processes along this dimension holds all of it, the same values
    (as a source one copy is read, as a destination every copy is written)."""
    return (REPLICATED, extent, 0, None, nprocs, 0)


def partial_sum(extent, nprocs):
    """Not split: each of the nprocs processes along this dimension holds a partial value of every
    element, the element being their sum (DTensor's Partial()). As a source the values are added on
    the way (the Plan's dtype must be a number: float32/64, int32/64, uint32/64, complex64/128); as a
    destination process 0 of the dimension receives the elements and the others 0."""
    return (PARTIAL_SUM, extent, 0, None, nprocs, 0)


def indirect(extent, indices, sums=False):
    """A 1-D layout of extent elements in which this rank holds the global indices listed (a NumPy
    integer array or any sequence of integers, copied), in that local order: element l of its array
    is global element indices[l] (HPF's INDIRECT, Tpetra's Map). Each rank passes its own list;
    an index may be listed by several ranks (ghosts), by each at most once, and every index of
    [0, extent) by some rank (a Plan with the layout checks that, on every rank alike). sums=False:
    the holders of an index hold copies (as a target every holder receives the element, as a source
    one copy is read). sums=True: they hold partial values whose sum is the element (as a source
    they are added, the Plan's dtype must then be a number; as a target the lowest-ranked holder
    receives the element and the others 0). Pair it in a Plan with another indirect layout or a 1-D
    layout over every rank of the communicator."""
    return Layout._indirect(extent, indices, sums)


# The numeric element types of redist_plan_create_typed (REDIST_FLOAT, ...), in native byte order.
_TYPES = {np.dtype(np.float32): 1, np.dtype(np.float64): 2, np.dtype(np.int32): 3, np.dtype(np.int64): 4,
          np.dtype(np.uint32): 5, np.dtype(np.uint64): 6, np.dtype(np.complex64): 7, np.dtype(np.complex128): 8}


class Layout:
    """A layout of 1 to 8 dimensions (a plan takes more than 4 when the others are whole on every
    process: see the C interface's doc, "More than 4 dimensions") on a process grid (the
    dimensions' nprocs), numbered grid_order on ranks grid_first, ... of the communicator, or on
    any ranks: process k of the grid
    on ranks[k]; each rank stores its part in storage_order (COLUMN_MAJOR: NumPy's order='F') with
    the given leading dimension (0: tight)."""

    def __init__(self, *dims, grid_order=ROW_MAJOR, grid_first=0, storage_order=COLUMN_MAJOR, leading_dimension=0,
                 ranks=None):
        self._ptr = ctypes.c_void_p()
        if not dims:
            raise ArgumentError("redist.Layout: give 1 to 8 dimensions")
        self.ndims = len(dims)
        self.storage_order = storage_order
        self.partial = any(dim[0] == PARTIAL_SUM for dim in dims)
        arr = (_Dim * len(dims))()
        keep = []
        for d, (kind, extent, k, sizes, nprocs, offset) in enumerate(dims):
            sp = None
            if sizes is not None:
                buf = (ctypes.c_int64 * len(sizes))(*sizes)
                keep.append(buf)
                sp = ctypes.cast(buf, ctypes.POINTER(ctypes.c_int64))
            arr[d] = _Dim(kind, extent, k, sp, nprocs, offset)
        _check(_lib().redist_layout_create(len(dims), arr, grid_order, grid_first, storage_order, leading_dimension,
                                           ctypes.byref(self._ptr)))
        if ranks is not None:
            size = 1
            for dim in dims:
                size *= dim[4]
            if len(ranks) != size:
                raise ArgumentError(f"redist.Layout: ranks must hold one rank per grid process ({size}, got {len(ranks)})")
            _check(_lib().redist_layout_set_ranks(self._ptr, (ctypes.c_int * size)(*[int(r) for r in ranks])))

    @classmethod
    def from_descriptor(cls, desc, nprow, npcol, grid_order=ROW_MAJOR, grid_first=0):
        """The layout of a ScaLAPACK descriptor (9 integers; this rank's LLD)."""
        self = cls.__new__(cls)
        self._ptr = ctypes.c_void_p()
        self.ndims = 2
        self.storage_order = COLUMN_MAJOR
        self.partial = False
        d = (ctypes.c_int * 9)(*[int(x) for x in desc])
        _check(_lib().redist_layout_from_descriptor(d, nprow, npcol, grid_order, grid_first, ctypes.byref(self._ptr)))
        return self

    @classmethod
    def _indirect(cls, extent, indices, sums):
        a = np.asarray(indices)
        if a.size == 0:
            a = np.empty(0, dtype=np.int64)
        if a.ndim != 1 or a.dtype.kind not in "iu":
            raise ArgumentError(f"redist.indirect: indices must be a 1-D sequence of integers (got {a.ndim} dimensions of "
                                f"dtype {a.dtype})")
        a = np.ascontiguousarray(a, dtype=np.int64)
        self = cls.__new__(cls)
        self._ptr = ctypes.c_void_p()
        self.ndims = 1
        self.storage_order = COLUMN_MAJOR
        self.partial = bool(sums)
        _check(_lib().redist_layout_create_indirect(int(extent), a.ctypes.data_as(ctypes.POINTER(ctypes.c_int64)), a.size,
                                                    INDIRECT_SUM if sums else INDIRECT, ctypes.byref(self._ptr)))
        return self

    def local_size(self, comm):
        """Elements this rank of comm stores (its array's size)."""
        n = ctypes.c_int64()
        _check(_lib().redist_layout_local_size_f(self._ptr, comm.py2f(), ctypes.byref(n)))
        return n.value

    def local_shape(self, comm):
        """This rank's local extents, one per dimension (all 0 outside the grid)."""
        return self._local_shape(comm)[0]

    def global_indices(self, comm):
        """The global indices this rank holds, one NumPy int64 array per dimension: element
        [i0, i1, ...] of its local array is the global element (g[0][i0], g[1][i1], ...). Empty
        arrays outside the grid."""
        out = []
        for dim, n in enumerate(self.local_shape(comm)):
            g = np.empty(n, dtype=np.int64)
            _check(_lib().redist_layout_global_indices_f(self._ptr, comm.py2f(), dim,
                                                          g.ctypes.data_as(ctypes.POINTER(ctypes.c_int64))))
            out.append(g)
        return tuple(out)

    def _local_shape(self, comm):
        # (extents, strides in elements) of this rank's part, as stored (storage order, leading dimension).
        ext = (ctypes.c_int64 * self.ndims)()
        strides = (ctypes.c_int64 * self.ndims)()
        _check(_lib().redist_layout_local_shape_f(self._ptr, comm.py2f(), ext, strides))
        return tuple(ext), tuple(strides)

    def __del__(self):
        if getattr(self, "_ptr", None) and _handle is not None:
            _handle.redist_layout_free(ctypes.byref(self._ptr))


def _order_name(a):
    if a.flags.c_contiguous:
        return "C order (row-major)"
    if a.flags.f_contiguous:
        return "Fortran order (column-major)"
    return "neither C nor Fortran order (not contiguous)"


def _buffer_problem(name, a, size, shape, dtype, rank):
    """Why the NumPy array a cannot hold this rank's part of a layout (local_size `size`, `shape` =
    (extents, strides, storage order)), or "" when it can."""
    extents, strides, order = shape
    if not isinstance(a, np.ndarray) or a.dtype != dtype:
        return f"redist.Plan: {name} must be a NumPy array of dtype {dtype}"
    if a.ndim == 1:
        if a.size > 1 and a.strides[0] != a.itemsize:
            return f"redist.Plan: {name} must be contiguous (a 1-D array with a step of {a.strides[0] // a.itemsize} elements)"
        if a.size < size:
            return f"redist.Plan: {name} must hold at least {size} elements on rank {rank} (it holds {a.size})"
        return ""
    if a.ndim != len(extents):
        return (f"redist.Plan: {name} has {a.ndim} dimensions and its layout {len(extents)}; pass an array of the "
                f"layout's dimensions or a 1-D buffer of local_size elements")
    if any(a.shape[d] < extents[d] for d in range(a.ndim)):
        return (f"redist.Plan: {name} must cover this rank's local shape {tuple(extents)} on rank {rank} "
                f"(its shape is {a.shape})")
    if 0 in extents:
        return ""
    want = tuple(s * a.itemsize for s in strides)
    if any(extents[d] > 1 and a.strides[d] != want[d] for d in range(a.ndim)):
        stored = "COLUMN_MAJOR (NumPy's order='F')" if order == COLUMN_MAJOR else "ROW_MAJOR (NumPy's order='C')"
        return (f"redist.Plan: {name} must be laid out in memory as its layout stores it, {stored}, with strides "
                f"{want} bytes on rank {rank}; it is in {_order_name(a)} with strides {a.strides} (use "
                f"np.asfortranarray / np.ascontiguousarray, or make the layout with the other storage_order)")
    return ""


def _dtype_problem(dtype, partial):
    """Why a Plan cannot move elements of dtype (a source of partial sums when partial), or ""."""
    if dtype.hasobject:
        return (f"redist.Plan: dtype must hold no Python objects (elements are moved as their bytes); got {dtype}; "
                f"use a fixed-size dtype (numbers, strings of a given length 'S3'/'U3', structured dtypes of them)")
    if dtype.itemsize == 0:
        return f"redist.Plan: dtype must have a size of at least 1 byte; got {dtype} of 0 bytes"
    if partial and dtype not in _TYPES:
        return (f"redist.Plan: a source of partial sums needs a numeric dtype to add them in (float32, float64, int32, "
                f"int64, uint32, uint64, complex64, complex128 in native byte order); got {dtype}")
    return ""


_SCALED_TYPES = (np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.complex64), np.dtype(np.complex128))


class Plan:
    """The redistribution source -> target on comm for elements of dtype: a number (float32/64,
    int32/64, uint32/64, complex64/128; partial sums are added in it), or any other fixed-size dtype
    (structured ones, strings 'S3', ...: no Python objects), moved as its bytes. Collective: every
    rank makes it. plan(src, dst) runs it (collective).

    scaled=True, or op "transpose" / "conj_transpose" (redist.TRANSPOSE, redist.CONJ_TRANSPOSE):
    plan(src, dst, alpha=1, beta=None) computes dst = alpha * op(src) + beta * dst where each
    element lands, for float32/64 and complex64/128 (ScaLAPACK's s, d, c, z). beta None or 0: dst
    is not read; alpha 0: src is not read. alpha and beta must be the same on every rank. A
    transpose takes 2-D layouts whose extents are swapped."""

    def __init__(self, source, target, comm, dtype, scaled=False, op=None):
        self._ptr = ctypes.c_void_p()
        self.dtype = np.dtype(dtype)
        self.comm = comm
        self.sizes = (source.local_size(comm), target.local_size(comm))
        self.shapes = (source._local_shape(comm) + (source.storage_order,),
                       target._local_shape(comm) + (target.storage_order,))
        if op not in _OPS:
            raise ArgumentError(f"redist.Plan: op must be None, 'transpose' or 'conj_transpose'; got {op!r}")
        self.scaled = bool(scaled) or op is not None
        # Agreed: a dtype that cannot be moved on any rank is an error on every rank.
        problem = _dtype_problem(self.dtype, getattr(source, "partial", False))
        if not problem and self.scaled and self.dtype not in _SCALED_TYPES:
            problem = (f"redist.Plan: a scaled or transposed plan needs dtype float32, float64, complex64 or "
                       f"complex128 (native byte order); got {self.dtype}")
        from mpi4py import MPI
        if comm.allreduce(1 if problem else 0, op=MPI.MAX):
            raise ArgumentError(next(m for m in comm.allgather(problem) if m))
        if self.scaled:
            _check(_lib().redist_plan_create_op_f(source._ptr, target._ptr, comm.py2f(), _TYPES[self.dtype], _OPS[op],
                                                  ctypes.byref(self._ptr)))
        elif self.dtype in _TYPES:
            _check(_lib().redist_plan_create_typed_f(source._ptr, target._ptr, comm.py2f(), _TYPES[self.dtype],
                                                     ctypes.byref(self._ptr)))
        else:
            _check(_lib().redist_plan_create_f(source._ptr, target._ptr, comm.py2f(), self.dtype.itemsize,
                                               ctypes.byref(self._ptr)))

    def __call__(self, src, dst, alpha=None, beta=None):
        """dst = src (a scaled plan: dst = alpha * op(src) + beta * dst, alpha 1 when None): src holds
        this rank's part of the source layout, dst receives its part of the target layout. Each is
        either a 1-D array of the plan's dtype, contiguous, of at least local_size elements (the
        part as the layout stores it), or an array of the layout's number
        of dimensions whose shape covers local_shape and whose strides are the layout's (its storage
        order and leading dimension: order='F' for COLUMN_MAJOR, 'C' for ROW_MAJOR); anything else
        raises redist.Error on every rank, before any data moves. src and dst sharing memory on
        some rank: redist.ArgumentError on every rank at the plan's first run (unless each element
        written over src is the one already there: a halo's ghosts updated in place), a private
        copy of src at a later run (the C interface's rule, doc/c-api.md)."""
        rank = self.comm.Get_rank()
        problem = ""
        for name, a, n, shape in (("src", src, self.sizes[0], self.shapes[0]), ("dst", dst, self.sizes[1], self.shapes[1])):
            problem = _buffer_problem(name, a, n, shape, self.dtype, rank)
            if problem:
                break
        if not problem and not dst.flags.writeable:
            problem = "redist.Plan: dst must be writeable"
        # Agreed: a bad buffer on any rank is an error on every rank, before any data moves.
        from mpi4py import MPI
        if not problem and not self.scaled and (alpha is not None or beta is not None):
            problem = "redist.Plan: alpha and beta need a plan made with scaled=True (or an op)"
        if self.comm.allreduce(1 if problem else 0, op=MPI.MAX):
            raise ArgumentError(next(m for m in self.comm.allgather(problem) if m))
        if not self.scaled:
            _check(_lib().redist_plan_execute(self._ptr, src.ctypes.data, dst.ctypes.data))
            return
        a = np.array(1 if alpha is None else alpha, dtype=self.dtype)
        b = None if beta is None else np.array(beta, dtype=self.dtype)
        _check(_lib().redist_plan_execute_scaled(self._ptr, a.ctypes.data, src.ctypes.data,
                                                 None if b is None else b.ctypes.data, dst.ctypes.data))

    def __del__(self):
        if getattr(self, "_ptr", None) and _handle is not None:
            _handle.redist_plan_free(ctypes.byref(self._ptr))


class DistArray:
    """A distributed array: on each rank of comm, its part of `layout` as the NumPy array `local`
    (the layout's local shape, viewing storage laid out as the layout stores it: its storage order
    and leading dimension, padding included), with the global index of every local index
    (`global_indices`, one int64 array per dimension). In the spirit of mpi4py-fft's DistArray:

        a = redist.DistArray(redist.Layout(redist.block(m, P), redist.collapsed(n)), comm)
        a.local[...] = f(*np.ix_(*a.global_indices))       # fill by global index
        b = a.redistribute(redist.Layout(redist.collapsed(m), redist.cyclic(n, 4, P)))
        b.assign(a)                                         # again, into b's storage

    assign and redistribute are collective; each array keeps the plans it was assigned by (one per
    source layout; a layout object is the key, so reuse the object to reuse the plan)."""

    def __init__(self, layout, comm, dtype=np.float64):
        self.layout = layout
        self.comm = comm
        self.dtype = np.dtype(dtype)
        extents, strides = layout._local_shape(comm)
        size = layout.local_size(comm)
        # The storage as the layout lays it out (local_size elements, at least one so that a pointer exists).
        self._storage = np.zeros(max(size, 1), dtype=self.dtype)
        if size == 0 or 0 in extents:
            self.local = self._storage[:0].reshape(extents)
        else:
            self.local = np.lib.stride_tricks.as_strided(self._storage, shape=extents,
                                                         strides=tuple(s * self.dtype.itemsize for s in strides))
        self._global = None
        self._plans = {}

    @property
    def global_indices(self):
        """The global indices of this rank's local indices, one NumPy int64 array per dimension
        (the layout's global_indices(comm)): local[i0, i1, ...] is global element (g[0][i0], ...)."""
        if self._global is None:
            self._global = self.layout.global_indices(self.comm)
        return self._global

    def assign(self, src):
        """self = src: src's elements, from src's layout into self's (the same global shape and
        dtype, on the same communicator). Collective."""
        if not isinstance(src, DistArray):
            raise ArgumentError(f"redist.DistArray.assign: src must be a redist.DistArray (got {type(src).__name__})")
        if src is self:
            raise ArgumentError("redist.DistArray.assign: src must be another array than this one")
        from mpi4py import MPI
        if MPI.Comm.Compare(src.comm, self.comm) not in (MPI.IDENT, MPI.CONGRUENT):
            raise ArgumentError("redist.DistArray.assign: src must be on the same communicator as this array "
                                "(its ranks in the same order)")
        key = id(src.layout)
        entry = self._plans.get(key)
        if entry is None or entry[0] is not src.layout:
            entry = (src.layout, Plan(src.layout, self.layout, self.comm, self.dtype))  # keeps the key's layout alive
            self._plans[key] = entry
        entry[1](src._storage, self._storage)
        return self

    def redistribute(self, layout):
        """A new DistArray in `layout` holding this array's elements. Collective."""
        return DistArray(layout, self.comm, self.dtype).assign(self)
