// ranks: 2
//
// bug_isend_alias_refill.c: rank 0 sends a heap buffer with MPI_Isend and,
// before MPI_Wait, refills it for the next round through another pointer
// to the same memory, in a helper function (another stack frame, another
// name for the buffer: nothing at the MPI_Isend line says it is reused).
// Breaks MPI-4.1 §3.7.2: the sender must not modify any part of the send
// buffer after a nonblocking send operation is called, until the send
// completes.
// Expected: send-buffer-write at the store in refill() (rank 0), with the
// MPI_Isend as the related location.
//
// The message is large (64 KiB: MPICH sends it by rendezvous), and rank 1
// posts its receive only after a barrier that rank 0 enters after the
// store: the store is certainly before MPI read the buffer. Natively the
// receiver gets the refilled values; the program does not check them.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { N = 16384 };

struct state {
    int *next; // the buffer of the next round, the same memory as the send buffer
};

static void refill(struct state *s, int round)
{
    for (int i = 0; i < N; i++)
        s->next[i] = round * N + i; // want "send-buffer-write"
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Request r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int *buf = malloc(N * sizeof *buf);
    struct state s = {buf};

    if (rank == 0) {
        refill(&s, 0);
        MPI_Isend(buf, N, MPI_INT, 1, 0, MPI_COMM_WORLD, &r); // related "send-buffer-write"
        refill(&s, 1); // bug: the send is still pending
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Recv(buf, N, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }

    free(buf);
    MPI_Finalize();
    return 0;
}
