# ranks: 2
#
# bug_py_init_before_mpi4py.py: a solver script whose MPI is initialised
# by a native library before mpi4py.MPI is imported, as petsc4py or h5py
# do when imported first (here through ctypes, calling MPI_Init_thread as
# the program sees it, so that the shim's wrapper runs). mpi4py then finds
# MPI initialised and leaves it to the program to finalise. Rank 0 sends
# boundary values as np.int32 with MPI.INT; rank 1 receives them into a
# float64 array described as MPI.DOUBLE.
# Breaks MPI-4.1 §3.3.1: the type signature of the send must match that
# of the receive (MPI_INT against MPI_DOUBLE).
# Expected: type-mismatch at rank 1's Recv, named by the script's line
# although mpi4py's module was not loaded when MPI was initialised.
#
# Natively the receive succeeds (4 ints fill half of the 16 bytes).
import ctypes
import ctypes.util

# The MPI library in the global scope, then MPI_Init_thread as any
# extension calling it would find it (the preloaded shim's first).
ctypes.CDLL(ctypes.util.find_library("mpi"), mode=ctypes.RTLD_GLOBAL)
provided = ctypes.c_int(0)
ctypes.CDLL(None).MPI_Init_thread(None, None, 0, ctypes.byref(provided))

import numpy as np
from mpi4py import MPI


def exchange(comm):
    if comm.Get_rank() == 0:
        boundary = np.arange(4, dtype=np.int32)
        comm.Send([boundary, MPI.INT], dest=1, tag=5)  # related "type-mismatch"
    else:
        ghost = np.zeros(4, dtype=np.float64)
        comm.Recv([ghost, MPI.DOUBLE], source=0, tag=5)  # want "type-mismatch" "sends MPI\.INT\[0\] where rank 1 receives MPI\.DOUBLE\[0\]"


def main():
    comm = MPI.COMM_WORLD
    exchange(comm)
    comm.Barrier()
    MPI.Finalize()  # mpi4py did not initialise MPI: it does not finalise it


main()
