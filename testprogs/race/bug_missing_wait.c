// ranks: 2
//
// bug_missing_wait.c: rank 0 posts MPI_Irecv for a block of results and
// never completes it (no MPI_Wait, MPI_Test or MPI_Request_free). It
// waits instead for rank 1's "done" message, sent after the block, and
// then reads the buffer as if it were its own.
// Breaks MPI-4.1 §3.7.2 and §3.7.3 (the buffer belongs to MPI until a
// completion call, whenever the data actually arrives) and §11.2.2 (all
// pending communication must be completed before MPI_FINALIZE).
// Expected: buffer-access-latent at the read (rank 0: MPI had filled the
// buffer, but no completion call said so), and request-never-completed,
// reported at MPI_Finalize against the MPI_Irecv line.
//
// The barrier puts the MPI_Irecv before rank 1's sends, so the data
// arrives inside an MPI call of rank 0 that the tracker sees (not inside
// the MPI_Irecv itself). Both MPIs take the two messages from one rank in
// the order they were sent, so MPI has written the block when the MPI_Recv
// of "done" returns, and the read sees the right data: the program works
// by accident. The buffer has a page of its own: the tracker cannot see
// MPI write a receive buffer on a page it leaves open for MPI's other
// data there (docs/races.md).
#include <mpi.h>
#include <stdio.h>

static double inbox[512] __attribute__((aligned(4096)));

int main(int argc, char **argv)
{
    int rank, done = 0;
    double got = 0;
    MPI_Request r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    if (rank == 0) {
        MPI_Irecv(inbox, 512, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, &r); // want "request-never-completed"
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Recv(&done, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        got = inbox[511]; // want "buffer-access-latent"
        if (got != 511.0)
            printf("rank 0: got %g\n", got);
    } else {
        double out[512];
        for (int i = 0; i < 512; i++)
            out[i] = i;
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Send(out, 512, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
        done = 1;
        MPI_Send(&done, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
    }

    MPI_Finalize();
    return 0;
}
