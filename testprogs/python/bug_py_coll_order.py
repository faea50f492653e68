# ranks: 3
# native: hangs
#
# bug_py_coll_order.py: one step of a solver (mpi4py, numpy). Rank 0
# broadcasts the new boundary values and then joins the residual's
# Allreduce; the other ranks reduce the residual first and wait for the
# boundary afterwards, so the first collective of rank 0 meets the first
# collective of the others: a broadcast against an allreduce.
# Breaks MPI-4.1 §6.1: all processes of a communicator must call the
# same collective operations in the same order.
# Expected: collective-mismatch at rank 0's Bcast, with the others'
# Allreduce as a related line of the script, and deadlock at
# rank 0's Allreduce (the lowest rank of the deadlock; mpidbg then ends
# the job).
#
# Natively Open MPI hangs: each rank waits in a collective the others
# never join.
from mpi4py import MPI
import numpy as np


def step(comm, boundary, local):
    rank = comm.Get_rank()
    residual = np.array([np.abs(local).sum()])
    total = np.zeros(1)
    if rank == 0:
        comm.Bcast([boundary, MPI.DOUBLE], root=0)  # want "collective-mismatch"
        comm.Allreduce([residual, MPI.DOUBLE], [total, MPI.DOUBLE], op=MPI.SUM)  # want "deadlock"
    else:
        comm.Allreduce([residual, MPI.DOUBLE], [total, MPI.DOUBLE], op=MPI.SUM)  # related "collective-mismatch"
        comm.Bcast([boundary, MPI.DOUBLE], root=0)
    return total[0]


def main():
    comm = MPI.COMM_WORLD
    boundary = np.linspace(0.0, 1.0, 16)
    local = np.ones(64) * comm.Get_rank()
    step(comm, boundary, local)


main()
