# ranks: 2
#
# ok_py_isend_refill.py: the correct twin of bug_py_isend_refill.py. Rank
# 0 double-buffers: it refills the other numpy array while the send of
# the first is in flight, and refills the first only after its Wait.
# Rank 1 receives both blocks and checks them.
import numpy as np
from mpi4py import MPI

N = 8192


def refill(block, step):
    block[:] = np.arange(N) + step * N


def main():
    comm = MPI.COMM_WORLD
    good = True
    if comm.Get_rank() == 0:
        blocks = [np.empty(N), np.empty(N)]
        refill(blocks[0], 0)
        req = comm.Isend([blocks[0], MPI.DOUBLE], dest=1, tag=5)
        refill(blocks[1], 1)
        comm.Barrier()
        req.Wait()
        comm.Send([blocks[1], MPI.DOUBLE], dest=1, tag=6)
        refill(blocks[0], 2)
    else:
        block = np.empty(N)
        comm.Barrier()
        for step, tag in ((0, 5), (1, 6)):
            comm.Recv([block, MPI.DOUBLE], source=0, tag=tag)
            good = good and bool(np.all(block == np.arange(N) + step * N))
    good = comm.allreduce(good, op=MPI.LAND)
    if comm.Get_rank() == 0 and good:
        print("ok_py_isend_refill: OK")


main()
