// ranks: 3
//
// bug_lost_message_send.c: workers 1 and 2 send rank 0 their result (tag
// 1) and then their statistics (tag 2); rank 0 was changed to skip the
// statistics and only receives the results. The statistics messages are
// small, so MPI_Send completes at once, and nobody ever receives them.
// Breaks MPI-4.1 §11.2.2 (and §3.5): before MPI_FINALIZE a process must
// complete all its communication; a message that no receive matches is
// never delivered.
// Expected: lost-message at the MPI_Send of the statistics (ranks 1 and 2
// sent it; rank 0, the destination, reports it at MPI_Finalize).
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, i, res = 0, stats[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (rank == 0) {
        for (i = 1; i < size; i++)
            MPI_Recv(&res, 1, MPI_INT, i, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        // bug: the statistics (tag 2) are never received
    } else {
        res = rank * 3;
        stats[0] = rank;
        stats[1] = 2 * rank;
        MPI_Send(&res, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
        MPI_Send(stats, 2, MPI_INT, 0, 2, MPI_COMM_WORLD); // want "lost-message"
    }
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Finalize();
    return 0;
}
