// ranks: 3
// native: hangs
//
// bug_deadlock_waitany.c: rank 0 serves whichever worker asks first: it
// posts a receive for a request from rank 1 and one from rank 2 and waits
// for either with MPI_Waitany. Both workers first wait for a greeting from
// rank 0, which rank 0 only sends once it has served a request.
// Breaks MPI-4.1 §3.5 (progress) and §3.7.5: MPI_Waitany returns when any
// one request completes (an OR wait), but every rank it could wait for
// waits for rank 0 (a knot, not just a cycle).
// Expected: deadlock at rank 0's MPI_Waitany.
//
// Natively MPICH hangs the same way.
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, i, idx, req[3] = {0, 0, 0}, hello = 1;
    MPI_Request r[2];
    MPI_Status sts[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (rank == 0) {
        for (i = 1; i < size; i++)
            MPI_Irecv(&req[i], 1, MPI_INT, i, 0, MPI_COMM_WORLD, &r[i - 1]);
        MPI_Waitany(size - 1, r, &idx, MPI_STATUS_IGNORE); // want "deadlock"
        for (i = 1; i < size; i++)
            MPI_Send(&hello, 1, MPI_INT, i, 1, MPI_COMM_WORLD);
        MPI_Waitall(size - 1, r, sts);
    } else {
        MPI_Recv(&hello, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // bug: ask first
        req[0] = rank;
        MPI_Send(&req[0], 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }

    MPI_Finalize();
    return 0;
}
