// ranks: 4
//
// bug_coll_gatherv.c: rank i contributes i+1 doubles to an MPI_Gatherv at
// rank 0, but rank 3 computes its count as i (an off-by-one), so it sends
// 3 doubles where rank 0's recvcounts[3] is 4.
// Breaks MPI-4.1 §6.1 and §6.5 (MPI_GATHERV): the type signature of
// sendcount, sendtype on process i must equal that of recvcounts[i],
// recvtype at the root; unlike point-to-point, a shorter message is an
// error.
// Expected: collective-type-mismatch at the MPI_Gatherv (every rank).
//
// Natively MPICH completes (the root takes a shorter message from rank 3
// without complaint) and rank 0's last value is left unset.
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, i, counts[8], displs[8];
    double mine[8], all[64];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    for (i = 0; i < size; i++) {
        counts[i] = i + 1;
        displs[i] = i * (i + 1) / 2;
    }
    for (i = 0; i <= rank; i++)
        mine[i] = rank + 0.1 * i;
    int n = rank == 3 ? rank : rank + 1; // bug: rank 3 is off by one
    MPI_Gatherv(mine, n, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD); // want "collective-type-mismatch" "rank 3 sends 3 of MPI_DOUBLE, the root receives 4 of MPI_DOUBLE \(recvcounts\[3\]\)"

    MPI_Finalize();
    return 0;
}
