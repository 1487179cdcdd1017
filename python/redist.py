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

The library is found through the environment variable REDIST_C_LIBRARY (a path), else as
libredist-c.so on the loader's path. Errors raise redist.Error with redist's message (it names
the parameter); a plan's errors are raised on every rank alike, before any data moves.
"""

import ctypes
import os

import numpy as np

__all__ = ["Error", "Layout", "Plan", "block", "cyclic", "gen_block", "collapsed", "ROW_MAJOR", "COLUMN_MAJOR"]

BLOCK, CYCLIC, GEN_BLOCK, COLLAPSED = 0, 1, 2, 3
ROW_MAJOR, COLUMN_MAJOR = 0, 1


class Error(RuntimeError):
    """An error reported by redist (the same on every rank for collective calls)."""


class _Dim(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("extent", ctypes.c_int64), ("block", ctypes.c_int64),
                ("sizes", ctypes.POINTER(ctypes.c_int64)), ("nprocs", ctypes.c_int), ("offset", ctypes.c_int)]


_handle = None


def _lib():
    global _handle
    if _handle is None:
        lib = ctypes.CDLL(os.environ.get("REDIST_C_LIBRARY", "libredist-c.so"), mode=ctypes.RTLD_GLOBAL)
        vp = ctypes.c_void_p
        lib.redist_layout_create.argtypes = [ctypes.c_int, ctypes.POINTER(_Dim), ctypes.c_int, ctypes.c_int,
                                             ctypes.c_int, ctypes.c_int64, ctypes.POINTER(vp)]
        lib.redist_layout_from_descriptor.argtypes = [ctypes.POINTER(ctypes.c_int), ctypes.c_int, ctypes.c_int,
                                                      ctypes.c_int, ctypes.c_int, ctypes.POINTER(vp)]
        lib.redist_layout_set_ranks.argtypes = [vp, ctypes.POINTER(ctypes.c_int)]
        lib.redist_layout_local_size_f.argtypes = [vp, ctypes.c_int, ctypes.POINTER(ctypes.c_int64)]
        lib.redist_layout_free.argtypes = [ctypes.POINTER(vp)]
        lib.redist_plan_create_f.argtypes = [vp, vp, ctypes.c_int, ctypes.c_size_t, ctypes.POINTER(vp)]
        lib.redist_plan_execute.argtypes = [vp, vp, vp]
        lib.redist_plan_free.argtypes = [ctypes.POINTER(vp)]
        lib.redist_error_message.restype = ctypes.c_char_p
        _handle = lib
    return _handle


def _check(code):
    if code != 0:
        raise Error(_lib().redist_error_message().decode())


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


class Layout:
    """A layout of 1 to 4 dimensions on a process grid (the dimensions' nprocs), numbered
    grid_order on ranks grid_first, ... of the communicator, or on any ranks: process k of the grid
    on ranks[k]; each rank stores its part in storage_order (COLUMN_MAJOR: NumPy's order='F') with
    the given leading dimension (0: tight)."""

    def __init__(self, *dims, grid_order=ROW_MAJOR, grid_first=0, storage_order=COLUMN_MAJOR, leading_dimension=0,
                 ranks=None):
        self._ptr = ctypes.c_void_p()
        if not dims:
            raise Error("redist.Layout: give 1 to 4 dimensions")
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
                raise Error(f"redist.Layout: ranks must hold one rank per grid process ({size}, got {len(ranks)})")
            _check(_lib().redist_layout_set_ranks(self._ptr, (ctypes.c_int * size)(*[int(r) for r in ranks])))

    @classmethod
    def from_descriptor(cls, desc, nprow, npcol, grid_order=ROW_MAJOR, grid_first=0):
        """The layout of a ScaLAPACK descriptor (9 integers; this rank's LLD)."""
        self = cls.__new__(cls)
        self._ptr = ctypes.c_void_p()
        d = (ctypes.c_int * 9)(*[int(x) for x in desc])
        _check(_lib().redist_layout_from_descriptor(d, nprow, npcol, grid_order, grid_first, ctypes.byref(self._ptr)))
        return self

    def local_size(self, comm):
        """Elements this rank of comm stores (its array's size)."""
        n = ctypes.c_int64()
        _check(_lib().redist_layout_local_size_f(self._ptr, comm.py2f(), ctypes.byref(n)))
        return n.value

    def __del__(self):
        if getattr(self, "_ptr", None) and _handle is not None:
            _handle.redist_layout_free(ctypes.byref(self._ptr))


class Plan:
    """The redistribution source -> target on comm for elements of dtype (1, 2, 4, 8 or 16
    bytes). Collective: every rank makes it. plan(src, dst) runs it (collective)."""

    def __init__(self, source, target, comm, dtype):
        self._ptr = ctypes.c_void_p()
        self.dtype = np.dtype(dtype)
        self.comm = comm
        self.sizes = (source.local_size(comm), target.local_size(comm))
        _check(_lib().redist_plan_create_f(source._ptr, target._ptr, comm.py2f(), self.dtype.itemsize,
                                           ctypes.byref(self._ptr)))

    def __call__(self, src, dst):
        """dst = src: src holds this rank's part of the source layout, dst receives its part of the
        target layout (contiguous arrays of the plan's dtype, at least local_size elements)."""
        problem = ""
        for name, a, n in (("src", src, self.sizes[0]), ("dst", dst, self.sizes[1])):
            if not isinstance(a, np.ndarray) or a.dtype != self.dtype:
                problem = f"redist.Plan: {name} must be a NumPy array of dtype {self.dtype}"
            elif not (a.flags.c_contiguous or a.flags.f_contiguous):
                problem = f"redist.Plan: {name} must be contiguous"
            elif a.size < n:
                problem = f"redist.Plan: {name} must hold at least {n} elements on rank {self.comm.Get_rank()} (it holds {a.size})"
            if problem:
                break
        if not dst.flags.writeable and not problem:
            problem = "redist.Plan: dst must be writeable"
        # Agreed: a bad buffer on any rank is an error on every rank, before any data moves.
        from mpi4py import MPI
        if self.comm.allreduce(1 if problem else 0, op=MPI.MAX):
            raise Error(next(m for m in self.comm.allgather(problem) if m))
        _check(_lib().redist_plan_execute(self._ptr, src.ctypes.data, dst.ctypes.data))

    def __del__(self):
        if getattr(self, "_ptr", None) and _handle is not None:
            _handle.redist_plan_free(ctypes.byref(self._ptr))
