// ranks: 2
//
// bug_missing_wait.c: rank 0 posts MPI_Irecv and never completes it (no
// MPI_Wait, MPI_Test or MPI_Request_free); the message arrives while rank
// 0 is in MPI_Barrier, and rank 0 then reads the buffer as if it were its
// own.
// Breaks MPI-4.1 §3.7.2 and §3.7.3 (the buffer belongs to MPI until a
// completion call, whenever the data actually arrives) and §11.2.2 (all
// pending communication must be completed before MPI_FINALIZE).
// Expected: buffer-access-latent at the read (rank 0: MPI had filled the
// buffer, but no completion call said so), and request-never-completed,
// reported at MPI_Finalize against the MPI_Irecv line.
//
// Rank 1 sends before the barrier, and MPI delivers in order, so with
// MPICH the data is in the buffer when the barrier returns on rank 0 and
// the read sees the message. Open MPI moves a message this size (4 KiB,
// its eager limit) only inside a call that may complete the receive: it
// has not arrived at the read, which is then recv-buffer-access (the read
// sees stale data; both are the same mistake).
#include <mpi.h>
#include <stdio.h>

static double inbox[512];

int main(int argc, char **argv)
{
    int rank;
    double got = 0;
    MPI_Request r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    if (rank == 0) {
        MPI_Irecv(inbox, 512, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, &r); // want "request-never-completed"
        MPI_Barrier(MPI_COMM_WORLD);
        got = inbox[511]; // want[mpich] "buffer-access-latent" want[openmpi] "recv-buffer-access"
        if (got != 511.0)
            printf("rank 0: got %g\n", got);
    } else {
        double out[512];
        for (int i = 0; i < 512; i++)
            out[i] = i;
        MPI_Send(out, 512, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
    }

    MPI_Finalize();
    return 0;
}
