# ranks: 2
#
# ok_py_sendrecv_halo.py: the correct twin of
# bug_py_deadlock_recv_first.py. The two ranks swap their halos with one
# Sendrecv each, which MPI completes whatever the order, and check what
# they got.
import numpy as np
from mpi4py import MPI


def exchange(comm, u):
    other = 1 - comm.Get_rank()
    halo = np.empty(1)
    comm.Sendrecv([u[-1:], MPI.DOUBLE], dest=other, sendtag=0, recvbuf=[halo, MPI.DOUBLE], source=other, recvtag=0)
    return halo[0]


def main():
    comm = MPI.COMM_WORLD
    rank = comm.Get_rank()
    u = np.linspace(0.0, 1.0, 32) + rank
    got = exchange(comm, u)
    good = comm.allreduce(bool(got == 1.0 + (1 - rank)), op=MPI.LAND)
    if rank == 0 and good:
        print("ok_py_sendrecv_halo: OK")


main()
