// ranks: 2
//
// bug_irecv_read_after_arrival.c: rank 0 posts MPI_Irecv for a short
// message (8 ints), waits in MPI_Barrier while rank 1 sends it, reads the
// buffer, and only then calls MPI_Wait. The message is small enough for
// every MPI to deliver it eagerly inside the barrier, so the read sees the
// right data: the program works by accident.
// Breaks MPI-4.1 §3.7.2: the receive buffer belongs to MPI until a
// completion call, whenever the data actually arrives.
// Expected: buffer-access-latent at the read (rank 0: the data had
// arrived, but no completion call said so).
#include <mpi.h>
#include <stdio.h>

/* a page of its own: the race tracker leaves a page open while the MPI
 * library touches other data on it, and then cannot see the library's
 * write into box (docs/races.md); with Open MPI that happens to an
 * unaligned box in this program's .bss */
static int box[8] __attribute__((aligned(4096)));

int main(int argc, char **argv)
{
    int rank, got = 0;
    MPI_Request r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    if (rank == 0) {
        MPI_Irecv(box, 8, MPI_INT, 1, 0, MPI_COMM_WORLD, &r);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD); /* rank 1's send has been issued */
        got = box[5];                // want "buffer-access-latent"
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        if (got != 5 && box[5] != 5)
            printf("rank 0: got %d\n", box[5]);
    } else {
        int out[8] = {0, 1, 2, 3, 4, 5, 6, 7};
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Send(out, 8, MPI_INT, 0, 0, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
    }

    MPI_Finalize();
    return 0;
}
