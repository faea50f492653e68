# ranks: 2
#
# ok_py_type_match.py: the correct twin of bug_py_type_mismatch.py. Rank
# 0 sends the particle counts per species as np.int32 with MPI.INT and
# rank 1 receives them into an np.int32 array with MPI.INT, then the
# particles of each species as MPI.DOUBLE into arrays sized by the
# counts, and checks them.
import numpy as np
from mpi4py import MPI

NSPECIES = 4


def migrate(comm, positions):
    rank = comm.Get_rank()
    if rank == 0:
        counts = np.array([len(p) for p in positions], dtype=np.int32)
        comm.Send([counts, MPI.INT], dest=1, tag=11)
        for s, p in enumerate(positions):
            comm.Send([p, MPI.DOUBLE], dest=1, tag=20 + s)
        return True
    counts = np.zeros(NSPECIES, dtype=np.int32)
    comm.Recv([counts, MPI.INT], source=0, tag=11)
    good = list(counts) == [3 * (s + 1) for s in range(NSPECIES)]
    for s in range(NSPECIES):
        incoming = np.empty(counts[s], dtype=np.float64)
        comm.Recv([incoming, MPI.DOUBLE], source=0, tag=20 + s)
        good = good and bool(np.all(incoming == float(s)))
    return good


def main():
    comm = MPI.COMM_WORLD
    positions = [np.full(3 * (s + 1), float(s)) for s in range(NSPECIES)]
    good = migrate(comm, positions)
    good = comm.allreduce(good, op=MPI.LAND)
    if comm.Get_rank() == 0 and good:
        print("ok_py_type_match: OK")


main()
