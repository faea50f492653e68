# ranks: 2
#
# bug_py_get_sum_before_unlock.py: each rank keeps a histogram of its
# samples in a window (mpi4py, numpy); rank 0 fetches rank 1's with Get
# under a shared lock and totals it with numpy's sum() before Unlock.
# Breaks MPI-4.1 §12.3 and §12.5.3: the buffer a get writes must not be
# accessed until the operation completes at the origin (here at
# MPI_Win_unlock): the total may count old, new or mixed values.
# Expected: rma-origin-race at the line of the sum(), the script's line,
# not numpy's code that read the buffer for it (numpy/core/_methods.py),
# with the Get as the related location.
#
# The histogram is 32 KiB, so its pages are watched; rank 1 makes its
# window's data before the barrier that comes before the Get.
import numpy as np
from mpi4py import MPI

NBIN = 4096


def main():
    comm = MPI.COMM_WORLD
    rank = comm.Get_rank()
    rng = np.random.default_rng(rank)
    hist = np.zeros(NBIN)
    np.add.at(hist, rng.integers(0, NBIN, 20000), 1.0)
    win = MPI.Win.Create(hist, disp_unit=8, comm=comm)
    comm.Barrier()
    if rank == 0:
        theirs = np.zeros(NBIN)
        win.Lock(1, MPI.LOCK_SHARED)
        win.Get([theirs, MPI.DOUBLE], 1)
        total = theirs.sum()  # want "rma-origin-race"
        win.Unlock(1)
        assert total >= 0
    comm.Barrier()
    win.Free()


main()
