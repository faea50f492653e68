# ranks: 2
#
# ok_py_get_sum_after_unlock.py: the correct twin of
# bug_py_get_sum_before_unlock.py: rank 0 fetches rank 1's histogram
# from its window with Get under a shared lock and totals it with numpy's
# sum(), mean() and a weighted average only after Unlock, then checks the
# total against the sample count rank 1 sent it. Library code reading the
# window's own memory (rank 1's numpy calls on its histogram before the
# barrier) is the program's, and no operation is pending on it.
# Correct: MPI-4.1 §12.5.3: MPI_Win_unlock completes the Get at the
# origin; the result buffer is the program's after it.
# Expected: no findings.
import numpy as np
from mpi4py import MPI

NBIN = 4096
NSAMPLE = 20000


def main():
    comm = MPI.COMM_WORLD
    rank = comm.Get_rank()
    rng = np.random.default_rng(rank)
    hist = np.zeros(NBIN)
    np.add.at(hist, rng.integers(0, NBIN, NSAMPLE), 1.0)
    assert hist.sum() == NSAMPLE
    win = MPI.Win.Create(hist, disp_unit=8, comm=comm)
    comm.Barrier()
    if rank == 0:
        theirs = np.zeros(NBIN)
        win.Lock(1, MPI.LOCK_SHARED)
        win.Get([theirs, MPI.DOUBLE], 1)
        win.Unlock(1)
        total = theirs.sum()
        centre = np.average(np.arange(NBIN), weights=theirs)
        assert total == NSAMPLE and 0 < centre < NBIN and theirs.mean() > 0
        print("ok_py_get_sum_after_unlock: OK")
    comm.Barrier()
    win.Free()


main()
