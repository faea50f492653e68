# ranks: 2
#
# bug_py_type_mismatch.py: a particle code (mpi4py, numpy) migrates
# particles between two ranks. Rank 0 tells rank 1 how many particles of
# each species it sends, as np.int32 counts described as MPI.INT; rank 1
# receives the counts into a float64 array described as MPI.DOUBLE (it
# keeps its tallies in floating point). numpy is imported before mpi4py.
# Breaks MPI-4.1 §3.3.1: the type signature of the send must match that
# of the receive (MPI_INT against MPI_DOUBLE).
# Expected: type-mismatch at rank 1's Recv, the line of the script, with
# rank 0's Send as a related location.
#
# Natively the receive succeeds (4 ints fill half of the 16 bytes) and
# the tallies are garbage; the program does not look at them.
import numpy as np
from mpi4py import MPI

NSPECIES = 4


def migrate(comm, positions):
    rank = comm.Get_rank()
    if rank == 0:
        counts = np.array([len(p) for p in positions], dtype=np.int32)
        comm.Send([counts, MPI.INT], dest=1, tag=11)  # related "type-mismatch"
        for s, p in enumerate(positions):
            comm.Send([p, MPI.DOUBLE], dest=1, tag=20 + s)
    else:
        tallies = np.zeros(NSPECIES, dtype=np.float64)
        comm.Recv([tallies, MPI.DOUBLE], source=0, tag=11)  # want "type-mismatch" "sends MPI\.INT\[0\] where rank 1 receives MPI\.DOUBLE\[0\]"
        for s in range(NSPECIES):
            incoming = np.empty(3 * (s + 1), dtype=np.float64)
            comm.Recv([incoming, MPI.DOUBLE], source=0, tag=20 + s)


def main():
    comm = MPI.COMM_WORLD
    positions = [np.full(3 * (s + 1), float(s)) for s in range(NSPECIES)]
    migrate(comm, positions)
    comm.Barrier()


main()
