# ranks: 3
#
# ok_py_coll_order.py: the correct twin of bug_py_coll_order.py. Every
# rank broadcasts the boundary values, then reduces the residual, in the
# same order; rank 0 checks both results.
from mpi4py import MPI
import numpy as np


def step(comm, boundary, local):
    residual = np.array([np.abs(local).sum()])
    total = np.zeros(1)
    comm.Bcast([boundary, MPI.DOUBLE], root=0)
    comm.Allreduce([residual, MPI.DOUBLE], [total, MPI.DOUBLE], op=MPI.SUM)
    return total[0]


def main():
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    boundary = np.linspace(0.0, 1.0, 16) if rank == 0 else np.zeros(16)
    local = np.ones(64) * rank
    total = step(comm, boundary, local)
    good = total == 64.0 * sum(range(size)) and np.allclose(boundary, np.linspace(0.0, 1.0, 16))
    good = comm.allreduce(bool(good), op=MPI.LAND)
    if rank == 0 and good:
        print("ok_py_coll_order: OK")


main()
