# ranks: 2
#
# bug_py_isend_refill.py: a producer (mpi4py, numpy) streams blocks of a
# field to a consumer. Rank 0 starts the send of one block with Isend and,
# before Wait, refills the same numpy array with the next block in a
# helper (another function, another name for the array: nothing at the
# Isend says the array is reused).
# Breaks MPI-4.1 §3.7.2: the sender must not modify any part of the send
# buffer after a nonblocking send operation is called, until the send
# completes.
# Expected: send-buffer-write at the store in refill(), the script's
# line, with the Isend as the related location.
#
# The block is 64 KiB (Open MPI sends it by rendezvous), and rank 1 posts
# its receive only after a barrier that rank 0 enters after the store:
# the store is certainly before MPI read the array. Natively rank 1 gets
# the refilled values; the program does not check them.
import numpy as np
from mpi4py import MPI

N = 8192


def refill(block, step):
    block[:] = np.arange(N) + step * N  # want "send-buffer-write"


def main():
    comm = MPI.COMM_WORLD
    block = np.arange(N, dtype=np.float64)
    if comm.Get_rank() == 0:
        req = comm.Isend([block, MPI.DOUBLE], dest=1, tag=5)  # related "send-buffer-write"
        refill(block, 1)
        comm.Barrier()
        req.Wait()
    else:
        comm.Barrier()
        comm.Recv([block, MPI.DOUBLE], source=0, tag=5)


main()
