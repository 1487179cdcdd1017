"""redist from Python (the package python/redist; doc/c-api.md, "Python"): an ADI-style switch of a
matrix from rows to columns as DistArrays filled by their global indices, a load balancer's
GEN_BLOCK vector moved to CYCLIC(4) by a Plan on NumPy arrays, and c = 2 r^T + c by a scaled,
transposed plan, every value checked. Run: mpiexec -n 4 python3 example/python_api.py"""
import sys

import numpy as np
from mpi4py import MPI

import redist

comm = MPI.COMM_WORLD
rank, P = comm.Get_rank(), comm.Get_size()
wrong = 0

# A 12 x 9 matrix in rows (BLOCK, COLLAPSED), filled from its global indices, switched to columns
# (COLLAPSED, CYCLIC(2)); and back into a second array of rows.
m, n = 12, 9
rows = redist.Layout(redist.block(m, P), redist.collapsed(n))
cols = redist.Layout(redist.collapsed(m), redist.cyclic(n, 2, P))
a = redist.DistArray(rows, comm)
i, j = a.global_indices
a.local[...] = 10 * i[:, None] + j[None, :]
b = a.redistribute(cols)                     # a new DistArray in cols
bi, bj = b.global_indices
wrong += not np.array_equal(b.local, 10 * bi[:, None] + bj[None, :])
back = redist.DistArray(rows, comm)
back.assign(b)                               # its plan is kept: assign(b) again plans nothing
wrong += not np.array_equal(back.local, a.local)

# GEN_BLOCK (rank p holds 100 + 50 p elements) -> CYCLIC(4), as a Plan on plain NumPy arrays.
sizes = [100 + 50 * p for p in range(P)]
gen = redist.Layout(redist.gen_block(sizes))
cyc = redist.Layout(redist.cyclic(sum(sizes), 4, P))
x = gen.global_indices(comm)[0].astype(np.float64)    # each element its global index
y = np.empty(cyc.local_size(comm))
redist.Plan(gen, cyc, comm, np.float64)(x, y)
wrong += not np.array_equal(y, cyc.global_indices(comm)[0])

# c = 2 r^T + c: r the rows above (m x n), c its n x m transpose in (COLLAPSED, BLOCK) columns.
tcols = redist.Layout(redist.collapsed(n), redist.block(m, P))
c = redist.DistArray(tcols, comm)
ci, cj = c.global_indices
c.local[...] = cj[None, :]
redist.Plan(rows, tcols, comm, np.float64, op="transpose")(a.local, c.local, alpha=2.0, beta=1.0)
wrong += not np.array_equal(c.local, 2 * (10 * cj[None, :] + ci[:, None]) + cj[None, :])

total = comm.allreduce(int(wrong))
if rank == 0:
    print(f"redist {redist.version()} from Python on {P} processes: rows -> columns and back, GEN_BLOCK -> CYCLIC(4), "
          f"c = 2 r^T + c: {'every value right' if total == 0 else 'WRONG VALUES'}")
sys.exit(0 if total == 0 else 1)
