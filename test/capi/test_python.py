"""The Python package over the C interface (python/redist), under mpirun: Block -> Cyclic(4)
on NumPy arrays, layouts' global indices, error classes, elements of any fixed-size dtype (12-byte
records, 3-byte strings; objects refused), Cyclic(4) -> replicated and back into Block, partial sums (float64, int64, complex64,
and a (BLOCK, PARTIAL_SUM) float32 matrix) into Block, Replicated and partial sums, a 2-D case from a ScaLAPACK descriptor to (COLLAPSED, GEN_BLOCK) columns, a grid
placed by a rank map, indirect layouts (a halo of Block and 1-3 ghosts per side filled from Block, its
partial sums added into Block, indirect -> indirect, an unheld index), scaled and transposed plans,
a 5-D row-major pair, DistArray (a padded matrix filled by global index, redistributed and back; a
halo), and
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

# Scaled and transposed plans: A (21 x 17, (BLOCK, COLLAPSED) rows, Fortran order) -> C = 2 A^T + 0.5 C
# in (COLLAPSED, BLOCK) columns of the 17 x 21 transpose; complex128 conj_transpose; alpha and beta on
# a plain plan refused; integer dtypes refused.
rows = redist.Layout(redist.block(m, P), redist.collapsed(nc))
colsT = redist.Layout(redist.collapsed(nc), redist.block(m, P))
rper = -(-m // P)
ri = np.arange(rank * rper, min(m, (rank + 1) * rper))
for dtype, op in ((np.float64, "transpose"), (np.complex128, "conj_transpose")):
    Ar = np.asfortranarray((ri[:, None] * 100 + np.arange(nc)[None, :]).astype(dtype))
    if dtype == np.complex128:
        Ar = np.asfortranarray(Ar + 1j * (ri[:, None] - np.arange(nc)[None, :]))
    C0 = np.asfortranarray((np.arange(nc)[:, None] * -3.0 + 0.5 * ri[None, :]).astype(dtype))
    Cr = C0.copy(order="F")
    redist.Plan(rows, colsT, comm, dtype, op=op)(Ar, Cr, alpha=2.0, beta=0.5)
    At = Ar.T.conj() if op == "conj_transpose" else Ar.T
    check(np.allclose(Cr, 2.0 * At + 0.5 * C0, rtol=0, atol=0), f"{op} ({np.dtype(dtype)}): {Cr}")
Sy = np.full(a.local_size(comm), np.nan, dtype=np.float32)
redist.Plan(b, a, comm, np.float32, scaled=True)(y.astype(np.float32), Sy, alpha=3)
check(np.array_equal(Sy, 3 * x.astype(np.float32)), f"scaled, beta None over NaNs: {Sy}")
for bad, words in ((lambda: redist.Plan(a, b, comm, np.int64, scaled=True), "needs dtype float32, float64"),
                   (lambda: plan(x, y, alpha=2.0), "alpha and beta need a plan made with scaled=True"),
                   (lambda: redist.Plan(a, b, comm, np.float64, op="T"), "op must be None, 'transpose'")):
    try:
        bad()
        check(False, f"accepted: {words}")
    except redist.ArgumentError as e:
        check(words in str(e), f"message {e}")

# 5 dimensions, row-major: (3, P + 1, 2, 4, 3) from BLOCK on dimension 1 to CYCLIC(2) on dimension 3.
e5 = (3, P + 1, 2, 4, 3)
f5 = redist.Layout(redist.collapsed(3), redist.block(P + 1, P), redist.collapsed(2), redist.collapsed(4), redist.collapsed(3),
                   storage_order=redist.ROW_MAJOR)
t5 = redist.Layout(redist.collapsed(3), redist.collapsed(P + 1), redist.collapsed(2), redist.cyclic(4, 2, P), redist.collapsed(3),
                   storage_order=redist.ROW_MAJOR)
full5 = np.arange(np.prod(e5), dtype=np.int64).reshape(e5)
i1 = f5.global_indices(comm)[1]
i3 = t5.global_indices(comm)[3]
X5 = np.ascontiguousarray(full5[:, i1])
Y5 = np.full(t5.local_shape(comm), -1, dtype=np.int64)
redist.Plan(f5, t5, comm, np.int64)(X5, Y5)
check(np.array_equal(Y5, full5[:, :, :, i3]), f"5-D values {Y5}")

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

# Any fixed-size dtype, moved as its bytes (in units of 4 and 1 bytes: the layouts' fastest storage
# dimension in units): records (f8, i4) of 12 bytes and 3-byte strings, Block -> Cyclic(4), the
# descriptor's layout (column-major, LLD 23) -> (COLLAPSED, GEN_BLOCK), row-major (BLOCK, COLLAPSED)
# -> (COLLAPSED, GEN_BLOCK), a 1-D GEN_BLOCK -> Block. Objects are refused, on every rank.
rec = rec12 = np.dtype([("x", "f8"), ("id", "i4")])
check(rec.itemsize == 12, f"record size {rec.itemsize}")
ga, = a.global_indices(comm)
gb, = b.global_indices(comm)
xr = np.zeros(a.local_size(comm), dtype=rec)
xr["x"], xr["id"] = ga * 0.25, -ga
yr = np.zeros(b.local_size(comm), dtype=rec)
redist.Plan(a, b, comm, rec)(xr, yr)
check(np.array_equal(yr["x"], gb * 0.25) and np.array_equal(yr["id"], -gb), f"records block -> cyclic(4) {yr[:4]}")


def s3(v):
    return np.array([b"%03d" % (int(t) % 997) for t in np.ravel(v)], dtype="S3").reshape(np.shape(v))


A3 = np.full(A.shape, b"?!?", dtype="S3", order="F")
A3[:m, :gc.size] = s3(gr[:, None] * 1000 + gc[None, :])
B3 = np.zeros((m, sizes[rank]), dtype="S3", order="F")
redist.Plan(src, dst, comm, "S3")(A3, B3)
check(np.array_equal(B3, s3(expect)), "3-byte strings: descriptor (LLD 23) -> (COLLAPSED, GEN_BLOCK)")
Rr = np.zeros(R.shape, dtype=rec)
Rr["x"], Rr["id"] = R, R + 1
Cr = np.zeros((m, sizes[rank]), dtype=rec)
redist.Plan(rows, cols, comm, rec)(Rr, Cr)
check(np.array_equal(Cr["x"], expect) and np.array_equal(Cr["id"], expect + 1), "records: row-major rows -> columns")
k = n // (2 * P)
gen = redist.Layout(redist.gen_block([n - (P - 1) * k] + [k] * (P - 1)))
gg, = gen.global_indices(comm)
v3 = np.zeros(a.local_size(comm), dtype="V3")
redist.Plan(gen, a, comm, "V3")(s3(gg).view("V3"), v3)
check(np.array_equal(v3.view("S3"), s3(ga)), "3-byte records: gen_block -> block")
for bad in (np.dtype(object), np.dtype([("x", "f8"), ("o", "O")])):
    try:
        redist.Plan(a, b, comm, bad if rank == 0 else rec)
        check(False, f"dtype {bad} accepted")
    except redist.ArgumentError as e:
        check("dtype must hold no Python objects" in str(e), f"message {e}")
try:
    redist.Plan(parts, a, comm, rec)
    check(False, "partial sums of records accepted")
except redist.ArgumentError as e:
    check("a source of partial sums needs a numeric dtype" in str(e), f"message {e}")

# Indirect layouts: rank r holds its Block part of nn and 1 + r % 3 ghosts on the left, 1 + (r + 1) % 3
# on the right (its block, then the left ghosts from the nearest down, then the right ones); and a
# scattered list, the g with (7 g + 3) % P == r from the largest down.
nn = 7 * P + 2
bper = -(-nn // P)


def block_range(r):
    lo = min(nn, r * bper)
    return lo, min(nn, lo + bper)


def halo_of(r):
    lo, hi = block_range(r)
    left = [g for g in range(lo - 1, lo - 2 - r % 3, -1) if g >= 0]
    right = [g for g in range(hi, hi + 1 + (r + 1) % 3) if g < nn]
    return list(range(lo, hi)) + left + right


halos = [halo_of(r) for r in range(P)]
holders = np.array([sum(g in halos[r] for r in range(P)) for g in range(nn)])
lowest = np.array([min(r for r in range(P) if g in halos[r]) for g in range(nn)])
mine = np.array(halos[rank], dtype=np.int64)
scattered = [g for g in range(nn - 1, -1, -1) if (7 * g + 3) % P == rank]
lo, hi = block_range(rank)
blk = redist.Layout(redist.block(nn, P))
halo = redist.indirect(nn, mine)
halo_sums = redist.indirect(nn, list(mine), sums=True)
scat = redist.indirect(nn, scattered)
check(halo.local_size(comm) == mine.size and halo.local_shape(comm) == (mine.size,), "indirect local size and shape")
gh, = halo.global_indices(comm)
check(gh.dtype == np.int64 and np.array_equal(gh, mine), f"indirect global indices {gh}")
check(np.array_equal(scat.global_indices(comm)[0], scattered), "scattered global indices")
# Block -> halo: every holder, ghosts too, receives its elements (float64, and records as bytes).
vals = 0.5 + 3 * np.arange(nn)
hx = np.full(mine.size, -1.0)
redist.Plan(blk, halo, comm, np.float64)(vals[lo:hi].copy(), hx)
check(np.array_equal(hx, vals[mine]), f"block -> indirect {hx}")
rec = np.zeros(mine.size, dtype="V8")
redist.Plan(blk, halo, comm, np.dtype("V8"))(vals[lo:hi].copy().view("V8"), rec)
check(np.array_equal(rec.view(np.float64), vals[mine]), "block -> indirect as bytes")
# The ghosts updated in place: the owned head of hx as the source, hx the destination (twice); the
# sums of every holder added into the owned head of the same array (ghosts left alone). A plan
# that would write over its source other than element for element (the owned part one element
# in) refuses the overlap on its first run, on every rank; after a first run on separate arrays
# an overlap is read from a copy of the source.
update = redist.Plan(blk, halo, comm, np.float64)
for run in range(2):
    hx = np.full(mine.size, -1.0)
    hx[:hi - lo] = vals[lo:hi]
    update(hx[:hi - lo], hx)
    check(np.array_equal(hx, vals[mine]), f"ghosts in place (run {run}) {hx}")
for run in range(2):
    ones = np.ones(mine.size)
    redist.Plan(halo_sums, blk, comm, np.float64)(ones, ones[:hi - lo])
    check(np.array_equal(ones[:hi - lo], holders[lo:hi]) and np.all(ones[hi - lo:] == 1), f"sums in place {ones}")
summing = redist.Plan(halo_sums, blk, comm, np.float64)
ones = np.ones(mine.size + 1)
try:
    summing(ones[:mine.size], ones[1:1 + hi - lo])
    check(False, "sums one element into their own source accepted")
except redist.ArgumentError as e:
    check("src and dst must not overlap" in str(e) and np.all(ones == 1), f"message {e}, {ones}")
summing(np.ones(mine.size), np.zeros(hi - lo))
summing(ones[:mine.size], ones[1:1 + hi - lo])
check(np.array_equal(ones[1:1 + hi - lo], holders[lo:hi]), f"sums one element into their source after a first run {ones}")
# Records of 12 bytes (3 units of 4 per element: each listed index g as 3 g, 3 g + 1, 3 g + 2).
hr = np.zeros(mine.size, dtype=rec12)
src12 = np.zeros(hi - lo, dtype=rec12)
src12["x"], src12["id"] = vals[lo:hi], np.arange(lo, hi)
redist.Plan(blk, halo, comm, rec12)(src12, hr)
check(np.array_equal(hr["x"], vals[mine]) and np.array_equal(hr["id"], mine), f"block -> indirect of records {hr}")
# Partial sums: every holder holds 1, each element of Block is the number of its holders.
for dtype in (np.int64, np.float64, np.complex64):
    out = np.full(hi - lo, -1, dtype=dtype)
    pl = redist.Plan(halo_sums, blk, comm, dtype)
    for run in range(2):
        pl(np.ones(mine.size, dtype=dtype), out)
        check(np.array_equal(out, holders[lo:hi].astype(dtype)), f"indirect sums -> block ({np.dtype(dtype)}, run {run}): {out}")
try:
    redist.Plan(halo_sums, blk, comm, np.dtype("V8"))
    check(False, "indirect partial sums of 8-byte records accepted")
except redist.Error as e:
    check("a source of partial sums needs a numeric dtype" in str(e), f"message {e}")
# Indirect -> indirect: halo copies -> scattered; halo copies -> halo sums (the lowest-ranked holder
# of each index receives it, the others 0); halo sums (1 each) -> scattered sums (the counts).
sx = np.full(len(scattered), -1.0)
redist.Plan(halo, scat, comm, np.float64)(hx, sx)
check(np.array_equal(sx, vals[scattered]), f"indirect -> indirect {sx}")
hz = np.full(mine.size, -1.0)
redist.Plan(halo, halo_sums, comm, np.float64)(hx, hz)
check(np.array_equal(hz, np.where(lowest[mine] == rank, vals[mine], 0.0)), f"indirect -> indirect sums {hz}")
sc = np.full(len(scattered), -1, dtype=np.int64)
redist.Plan(halo_sums, redist.indirect(nn, scattered, sums=True), comm, np.int64)(np.ones(mine.size, dtype=np.int64), sc)
check(np.array_equal(sc, holders[scattered]), f"indirect sums -> indirect sums {sc}")
# Errors: an index no rank lists (every rank its block but nn // 2), on every rank, naming it; this
# rank's own list: an index outside [0, nn), one listed twice, not integers.
hole = nn // 2
try:
    redist.Plan(blk, redist.indirect(nn, [g for g in range(lo, hi) if g != hole]), comm, np.float64)
    check(False, "an unheld index accepted")
except redist.ArgumentError as e:
    check(f"no rank holds {hole})" in str(e) and "to is an INDIRECT layout" in str(e), f"message {e}")
for bad, words in (([0, nn], f"indices[1] must be in [0, extent) (got {nn}, extent {nn})"),
                   ([2, 0, 2], "indices[2] = 2 repeats indices[0]"),
                   ([0.5], "indices must be a 1-D sequence of integers")):
    try:
        redist.indirect(nn, bad)
        check(False, f"indices {bad} accepted")
    except redist.ArgumentError as e:
        check(words in str(e), f"message {e}")

# DistArray: a (BLOCK, COLLAPSED) matrix with a padded leading dimension filled by its global
# indices, redistributed into (COLLAPSED, CYCLIC(3)) columns and assigned back twice (one plan kept),
# the padding untouched; an Indirect halo filled from Block; a NumPy array, the array itself and an
# array on a communicator of the ranks in reverse refused.
m2, n2 = 13, 7
rows_l = redist.Layout(redist.block(m2, P), redist.collapsed(n2), leading_dimension=-(-m2 // P) + 2)
A2 = redist.DistArray(rows_l, comm)
gi, gj = A2.global_indices
A2.local[...] = gi[:, None] * 100 + gj[None, :] + 1  # none 0: the padding (0) stays told apart
check(A2.local.shape == rows_l.local_shape(comm), f"DistArray local shape {A2.local.shape}")
cols_l = redist.Layout(redist.collapsed(m2), redist.cyclic(n2, 3, P))
B2 = A2.redistribute(cols_l)
bi, bj = B2.global_indices
check(np.array_equal(B2.local, bi[:, None] * 100 + bj[None, :] + 1), f"DistArray redistributed {B2.local}")
C2 = redist.DistArray(rows_l, comm)
C2.local[...] = -1
C2.assign(B2)
C2.assign(B2)
check(np.array_equal(C2.local, A2.local) and len(C2._plans) == 1, f"DistArray assigned back {C2.local}, {len(C2._plans)} plans")
check(np.count_nonzero(C2._storage) == C2.local.size, "DistArray: the padding of the leading dimension written")
H2 = redist.DistArray(halo, comm).assign(redist.DistArray(blk, comm).assign(
    redist.DistArray(redist.Layout(redist.cyclic(nn, 2, P)), comm)))
check(np.array_equal(H2.local, np.zeros(mine.size)), "DistArray halo of zeros")
X2 = redist.DistArray(blk, comm)
X2.local[...] = vals[X2.global_indices[0]]
H2.assign(X2)
check(np.array_equal(H2.local, vals[mine]), f"DistArray halo {H2.local}")
refused = [(X2.local, "src must be a redist.DistArray"), (H2, "src must be another array than this one")]
if P > 1:  # (one rank's reversed communicator is congruent)
    refused.append((redist.DistArray(halo, comm.Split(0, P - rank)), "src must be on the same communicator"))
for bad, words in refused:
    try:
        H2.assign(bad)
        check(False, f"DistArray.assign accepted: {words}")
    except redist.ArgumentError as e:
        check(words in str(e), f"message {e}")

total = comm.allreduce(failures)
if rank == 0:
    print(f"python: {'ok' if total == 0 else 'FAILED'} ({total} failures, {P} processes)")
sys.exit(0 if total == 0 else 1)
