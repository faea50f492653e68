# ranks: 4
#
# ok_py_farm_by_rank.py: the correct twin of
# bug_py_message_race_farm.py. Rank 0 receives each worker's integral
# from that worker (source=w), into the worker's slot, so the table is
# the same whatever the arrival order; it checks the distribution against
# the error function.
import math

import numpy as np
from mpi4py import MPI

NPTS = 200


def integrate(lo, hi):
    x = np.linspace(lo, hi, NPTS + 1)
    f = np.exp(-x * x / 2) / np.sqrt(2 * np.pi)
    h = (hi - lo) / NPTS
    return h / 3 * (f[0] + f[-1] + 4 * f[1:-1:2].sum() + 2 * f[2:-1:2].sum())


def main():
    comm = MPI.COMM_WORLD
    rank, nworker = comm.Get_rank(), comm.Get_size() - 1
    if rank == 0:
        for w in range(1, nworker + 1):
            bounds = np.array([w - 1, w], dtype=np.float64) * 3.0 / nworker
            comm.Send([bounds, MPI.DOUBLE], dest=w, tag=1)
        piece = np.zeros(nworker)
        part = np.empty(1)
        for w in range(1, nworker + 1):
            comm.Recv([part, MPI.DOUBLE], source=w, tag=2)
            piece[w - 1] = part[0]
        cdf = 0.5 + np.cumsum(piece)
        want = [0.5 * (1 + math.erf(3.0 * w / nworker / math.sqrt(2))) for w in range(1, nworker + 1)]
        if np.allclose(cdf, want, atol=1e-9):
            print("ok_py_farm_by_rank: OK")
    else:
        bounds = np.empty(2)
        comm.Recv([bounds, MPI.DOUBLE], source=0, tag=1)
        comm.Send([np.array([integrate(bounds[0], bounds[1])]), MPI.DOUBLE], dest=0, tag=2)


main()
