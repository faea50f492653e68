# planted.c's kind of mistake in a Python script (mpi4py, numpy), for the
# adapter's tests (dap/python_test.go): rank 0 sends four MPI.INT, rank 1
# receives them as MPI.DOUBLE: type-mismatch at rank 1's Recv.
import numpy as np
from mpi4py import MPI


def exchange(comm):
    if comm.Get_rank() == 0:
        comm.Send([np.arange(4, dtype=np.int32), MPI.INT], dest=1, tag=3)
    else:
        got = np.zeros(4)
        comm.Recv([got, MPI.DOUBLE], source=0, tag=3)  # FAULT


exchange(MPI.COMM_WORLD)
