"""The Python module over the C interface (python/redist.py), under mpirun: Block -> Cyclic(4)
on NumPy arrays, layouts' global indices, error classes, Cyclic(4) -> replicated and back into Block, partial sums (float64, int64, complex64,
and a (BLOCK, PARTIAL_SUM) float32 matrix) into Block, Replicated and partial sums, a 2-D case from a ScaLAPACK descriptor to (COLLAPSED, GEN_BLOCK) columns, a grid
placed by a rank map, and
errors raised on every rank alike. Values are checked against index formulas written here."""
import sys

import numpy as np
from mpi4py import MPI

import redist

comm = MPI.COMM_WORLD
rank, P = comm.Get_rank(), comm.Get_size()
failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print(f"rank {rank}: FAIL {what}", file=sys.stderr)


# 1-D: Block -> Cyclic(4), n = 1000.
n = 1000
a = redist.Layout(redist.block(n, P))
b = redist.Layout(redist.cyclic(n, 4, P))
per = -(-n // P)
x = np.arange(rank * per, min(n, (rank + 1) * per), dtype=np.float64)
check(x.size == a.local_size(comm), "block local size")
y = np.full(b.local_size(comm), -1.0)
plan = redist.Plan(a, b, comm, np.float64)
plan(x, y)
l = np.arange(y.size)
check(np.array_equal(y, ((l // 4) * P + rank) * 4 + l % 4), "1-D values")

# Replicated: Cyclic(4) -> every rank holds the whole vector; a (BLOCK, REPLICATED) matrix whose
# grid columns each hold a copy.
everyone = redist.Layout(redist.replicated(n, P))
check(everyone.local_size(comm) == n, "replicated local size")
z = np.full(n, -1.0)
redist.Plan(b, everyone, comm, np.float64)(y, z)
check(np.array_equal(z, np.arange(n, dtype=np.float64)), "replicated values")
w = np.full(a.local_size(comm), -1.0)
redist.Plan(everyone, a, comm, np.float64)(z, w)
check(np.array_equal(w, x), "block out of the copies")

# Partial sums: rank r holds 1000 g + r of every element g (a (BLOCK, PARTIAL_SUM) matrix too);
# their sum folds into Block, and back into partial sums rank 0 holds the elements, the others 0.
parts = redist.Layout(redist.partial_sum(n, P))
check(parts.local_size(comm) == n, "partial_sum local size")
g = np.arange(n)
summed = 1000 * g * P + P * (P - 1) // 2
for dtype in (np.float64, np.int64, np.complex64):
    v = np.full(a.local_size(comm), -1, dtype=dtype)
    redist.Plan(parts, a, comm, dtype)((1000 * g + rank).astype(dtype), v)
    check(np.array_equal(v, summed[rank * per:(rank + 1) * per].astype(dtype)), f"partial sums into block ({np.dtype(dtype)})")
back = np.full(n, 7.0)
redist.Plan(a, parts, comm, np.float64)(summed[rank * per:(rank + 1) * per].astype(np.float64), back)
check(np.array_equal(back, summed.astype(np.float64) if rank == 0 else np.zeros(n)), "into partial sums")
cols = 2 if P % 2 == 0 else 1
rows_p = P // cols
mm, kk = 9, 5
pm = redist.Layout(redist.block(mm, rows_p), redist.partial_sum(kk, cols))
bm = redist.Layout(redist.block(mm, rows_p), redist.replicated(kk, cols))
row, col = rank // cols, rank % cols
mper = -(-mm // rows_p)
gi = np.arange(row * mper, min(mm, (row + 1) * mper))
M = np.asfortranarray((gi[:, None] * 10 + np.arange(kk)[None, :] + 100 * col).astype(np.float32))
R = np.full(bm.local_shape(comm), -1, dtype=np.float32, order="F")
redist.Plan(pm, bm, comm, np.float32)(M, R)
want = cols * (gi[:, None] * 10 + np.arange(kk)[None, :]) + 100 * cols * (cols - 1) // 2
check(np.array_equal(R, want.astype(np.float32)), "(BLOCK, PARTIAL_SUM) into (BLOCK, REPLICATED)")
try:
    redist.Plan(parts, a, comm, np.dtype("V8"))
    check(False, "partial sums of 8-byte records accepted")
except redist.Error as e:
    check("a source of partial sums needs a numeric dtype" in str(e), f"message {e}")

# 2-D: a 21 x 17 matrix in 2 x 3 blocks on a 1 x P grid (descriptor, LLD 23) -> (COLLAPSED,
# GEN_BLOCK) columns, int32 elements, Fortran order.
m, nc = 21, 17
desc = [1, 0, m, nc, 2, 3, 0, 0, 23]
src = redist.Layout.from_descriptor(desc, 1, P)
sizes = [nc // P + (1 if p < nc % P else 0) for p in range(P)]
dst = redist.Layout(redist.collapsed(m), redist.gen_block(sizes))
A = np.full((23, max(1, src.local_size(comm) // 23)), -5, dtype=np.int32, order="F")
for lj in range(A.shape[1]):
    gj = ((lj // 3) * P + rank) * 3 + lj % 3
    if gj < nc:
        A[:m, lj] = np.arange(m) * 1000 + gj
B = np.zeros((m, sizes[rank]), dtype=np.int32, order="F")
redist.Plan(src, dst, comm, np.int32)(A, B)
first = sum(sizes[:rank])
expect = np.arange(m)[:, None] * 1000 + (first + np.arange(sizes[rank]))[None, :]
check(np.array_equal(B, expect), "2-D values")

# Global indices per dimension: the descriptor's layout (rows whole on the 1 x P grid, columns in
# blocks of 3 dealt from process 0) and the GEN_BLOCK columns; every local element's value is its
# global (row * 1000 + column), so the indices index the values.
gr, gc = src.global_indices(comm)
check(np.array_equal(gr, np.arange(m)), f"descriptor rows {gr}")
lj = np.arange(src.local_shape(comm)[1])
check(np.array_equal(gc, ((lj // 3) * P + rank) * 3 + lj % 3), f"descriptor columns {gc}")
check(np.array_equal(A[:m, :gc.size], gr[:, None] * 1000 + gc[None, :]), "values at their global indices")
dr, dc = dst.global_indices(comm)
check(dr.dtype == np.int64 and np.array_equal(dr, np.arange(m)), f"collapsed rows {dr}")
check(np.array_equal(dc, first + np.arange(sizes[rank])), f"gen_block columns {dc}")
check(np.array_equal(B, dr[:, None] * 1000 + dc[None, :]), "B at its global indices")
check(redist.version().count(".") == 2, f"version {redist.version()}")

# Memory order: the layout's local shape; an array in the other order, or not contiguous, raises on
# every rank before any data moves (it was accepted and gave wrong values); a view whose strides are
# the layout's (the first m rows of the 23-row array, LLD 23) is accepted.
check(dst.local_shape(comm) == (m, sizes[rank]), f"local_shape {dst.local_shape(comm)}")
check(src.local_shape(comm)[0] == m, f"local_shape {src.local_shape(comm)}")
plan2 = redist.Plan(src, dst, comm, np.int32)
wrong = np.zeros((m, sizes[rank]), dtype=np.int32, order="C")
try:
    plan2(A, wrong)
    check(False, "a C-ordered dst for a column-major layout accepted")
except redist.Error as e:
    check("dst must be laid out in memory as its layout stores it, COLUMN_MAJOR" in str(e), f"message {e}")
check(np.all(wrong == 0), "dst written although refused")
B2 = np.zeros((m, sizes[rank]), dtype=np.int32, order="F")
plan2(A[:m, :], B2)
check(np.array_equal(B2, expect), "2-D values from a strided view with the layout's strides")
try:
    plan(x, y[::2])
    check(False, "a strided 1-D dst accepted")
except redist.Error as e:
    check("dst must be contiguous" in str(e), f"message {e}")
# ROW_MAJOR storage takes C-ordered arrays, and refuses Fortran-ordered ones.
rows = redist.Layout(redist.block(m, P), redist.collapsed(nc), storage_order=redist.ROW_MAJOR)
cols = redist.Layout(redist.collapsed(m), redist.gen_block(sizes), storage_order=redist.ROW_MAJOR)
rm = rows.local_shape(comm)
first_row = min(m, rank * (-(-m // P)))
R = (np.arange(first_row, first_row + rm[0])[:, None] * 1000 + np.arange(nc)[None, :]).astype(np.int32)
C = np.zeros((m, sizes[rank]), dtype=np.int32)
redist.Plan(rows, cols, comm, np.int32)(R, C)
check(np.array_equal(C, expect), "row-major values")
try:
    redist.Plan(rows, cols, comm, np.int32)(R, np.asfortranarray(C))
    check(False, "a Fortran-ordered dst for a row-major layout accepted")
except redist.Error as e:
    check("ROW_MAJOR (NumPy's order='C')" in str(e), f"message {e}")

# A grid placed by a rank map (process p on rank P - 1 - p): Cyclic(3) there -> Cyclic(4).
n3 = 50
me = P - 1 - rank
c3 = redist.Layout(redist.cyclic(n3, 3, P), ranks=[P - 1 - p for p in range(P)])
c4 = redist.Layout(redist.cyclic(n3, 4, P))
l3 = np.arange(c3.local_size(comm))
u = (((l3 // 3) * P + me) * 3 + l3 % 3).astype(np.float64)
v = np.full(c4.local_size(comm), -1.0)
redist.Plan(c3, c4, comm, np.float64)(u, v)
l4 = np.arange(v.size)
check(np.array_equal(v, ((l4 // 4) * P + rank) * 4 + l4 % 4), "mapped values")

# Errors: a bad layout names the parameter; a short buffer on one rank fails on every rank.
try:
    redist.Layout(redist.cyclic(10, 0, P))
    check(False, "cyclic(10, 0) accepted")
except redist.Error as e:
    check("dims[0].block must be > 0" in str(e), f"message {e}")
    check(isinstance(e, redist.ArgumentError) and isinstance(e, ValueError), f"class {type(e).__name__}")
# Ranks that disagree (float32 on rank 0, float64 elsewhere): MismatchError on every rank.
if P > 1:
    try:
        redist.Plan(a, b, comm, np.float32 if rank == 0 else np.float64)
        check(False, "element types that differ between ranks accepted")
    except redist.MismatchError as e:
        check("differs between ranks" in str(e), f"message {e}")
    except redist.Error as e:
        check(False, f"class {type(e).__name__}: {e}")
if comm.allreduce(y.size, op=MPI.MIN) > 0:
    short = y[:-1] if rank == P - 1 else y
    try:
        plan(x, short)
        check(False, "a short buffer on the last rank accepted")
    except redist.Error as e:
        last = comm.bcast(y.size, root=P - 1)
        check(f"dst must hold at least {last} elements on rank {P - 1}" in str(e), f"message {e}")
try:
    redist.Plan(a, b, comm, np.dtype("V3"))
    check(False, "3-byte elements accepted")
except redist.Error as e:
    check("element_size" in str(e), f"message {e}")

total = comm.allreduce(failures)
if rank == 0:
    print(f"python: {'ok' if total == 0 else 'FAILED'} ({total} failures, {P} processes)")
sys.exit(0 if total == 0 else 1)
