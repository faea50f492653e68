// ranks: 4
// native: hangs
//
// bug_deadlock_waitall.c: rank 0 posts receives for the reports of ranks
// 1 and 2 and waits for both with MPI_Waitall before it sends them their
// next tasks. Rank 1 reports, then waits for its task; rank 2 waits for
// its task before it reports. Rank 3 waits in the final MPI_Barrier.
// Breaks MPI-4.1 §3.5 (progress) and §3.7.5: MPI_Waitall returns only when
// all its requests are complete (an AND wait); rank 2's report comes only
// after rank 0's send, which comes after the MPI_Waitall.
// Expected: deadlock at rank 0's MPI_Waitall (rank 0 waits for rank 2 AND
// rank 1, rank 2 waits for rank 0: the cycle 0 -> 2 -> 0; rank 1's request
// is complete but does not help).
//
// Natively MPICH hangs the same way.
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, rep[3] = {0, 0, 0}, task = 0;
    MPI_Request r[2];
    MPI_Status sts[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    if (rank == 0) {
        MPI_Irecv(&rep[1], 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &r[0]);
        MPI_Irecv(&rep[2], 1, MPI_INT, 2, 0, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall(2, r, sts); // want "deadlock"
        task = 5;
        MPI_Send(&task, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
        MPI_Send(&task, 1, MPI_INT, 2, 1, MPI_COMM_WORLD);
    } else if (rank == 1) {
        rep[0] = 11;
        MPI_Send(&rep[0], 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        MPI_Recv(&task, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 2) {
        MPI_Recv(&task, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // bug: report first
        rep[0] = 22;
        MPI_Send(&rep[0], 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Finalize();
    return task < 0;
}
