# ranks: 4
# flags: --checks=+message-race-info
#
# bug_py_message_race_farm.py: a task farm (mpi4py, numpy) that tabulates
# a cumulative distribution: rank 0 sends each worker the bounds of one
# subinterval, the workers integrate the density over theirs with
# Simpson's rule, and rank 0 collects the integrals with MPI.ANY_SOURCE,
# storing each in the slot of its arrival instead of the slot of its
# sender (status.Get_source()), then sums them up into the distribution.
# Breaks MPI-4.1 §3.5: with MPI_ANY_SOURCE the message matched depends on
# arrival order, which MPI does not fix; nothing orders the workers'
# sends, so the table comes out permuted from run to run.
# Every candidate message fits the receive, so no other order makes MPI
# fail: the bug is in what the program does with the order, which mpidbg
# reports only when asked.
# Expected: message-race-info at rank 0's Recv (--checks +message-race-info).
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
        for k in range(nworker):
            comm.Recv([part, MPI.DOUBLE], source=MPI.ANY_SOURCE, tag=2)  # want "message-race-info"
            piece[k] = part[0]
        cdf = np.concatenate(([0.5], 0.5 + np.cumsum(piece)))
        assert cdf[-1] > 0.99
    else:
        bounds = np.empty(2)
        comm.Recv([bounds, MPI.DOUBLE], source=0, tag=1)
        comm.Send([np.array([integrate(bounds[0], bounds[1])]), MPI.DOUBLE], dest=0, tag=2)


main()
