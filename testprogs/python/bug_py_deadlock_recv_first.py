# ranks: 2
# native: hangs
#
# bug_py_deadlock_recv_first.py: two ranks (mpi4py, numpy) swap the
# halos of a 1-D domain, each receiving its neighbour's halo before it
# sends its own.
# Breaks MPI-4.1 §3.5 (progress): each blocking receive waits for a send
# the other rank makes only after its own receive returns.
# Expected: deadlock at rank 0's Recv (the lowest rank of the cycle).
#
# Natively both ranks wait for ever.
import numpy as np
from mpi4py import MPI


def exchange(comm, u):
    other = 1 - comm.Get_rank()
    halo = np.empty(1)
    comm.Recv([halo, MPI.DOUBLE], source=other, tag=0)  # want "deadlock"
    comm.Send([u[-1:], MPI.DOUBLE], dest=other, tag=0)
    return halo[0]


def main():
    comm = MPI.COMM_WORLD
    u = np.linspace(0.0, 1.0, 32) + comm.Get_rank()
    exchange(comm, u)


main()
