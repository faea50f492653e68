// ranks: 2
//
// bug_buffer_overlap.c: rank 1 receives two 6-integer messages into one
// array at offsets 0 and 4 (the second offset should be 6): the two pending
// receives share elements 4 and 5.
// Breaks MPI-4.1 §3.7.2: the buffer of a pending receive must not be
// accessed by another operation until it completes.
// Expected: buffer-overlap at the second MPI_Irecv (rank 1).
//
// Both receives are matched and completed; which value ends up in elements
// 4 and 5 depends on timing, which this program does not look at.
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, i, a[6], b[6], all[12] = {0};
    MPI_Request r[2];
    MPI_Status st[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    if (rank == 0) {
        for (i = 0; i < 6; i++) {
            a[i] = i;
            b[i] = 6 + i;
        }
        MPI_Send(a, 6, MPI_INT, 1, 0, MPI_COMM_WORLD);
        MPI_Send(b, 6, MPI_INT, 1, 1, MPI_COMM_WORLD);
    } else {
        MPI_Irecv(all, 6, MPI_INT, 0, 0, MPI_COMM_WORLD, &r[0]);
        MPI_Irecv(all + 4, 6, MPI_INT, 0, 1, MPI_COMM_WORLD, &r[1]); // want "buffer-overlap"
        MPI_Waitall(2, r, st);
    }

    MPI_Finalize();
    return 0;
}
