// ranks: 2
//
// bug_write_pending_receive.c: rank 0 posts MPI_Irecv for the next block
// of a field into a heap buffer and, before MPI_Wait, saves that buffer to
// its checkpoint file with write(2), as if the receive had completed. The
// load is the kernel's (the system call reads the buffer), not an
// instruction of the program's.
// Breaks MPI-4.1 §3.7.2: the receiver must not access any part of the
// receive buffer after a nonblocking receive operation is called, until
// the receive completes.
// Expected: recv-buffer-access at the write(2) (rank 0), with the
// MPI_Irecv as the related location.
//
// Rank 1 sends only after a barrier that rank 0 enters after the write, so
// the write is certainly before the data arrived. Natively the checkpoint
// holds the buffer's old contents; the program does not check it.
#define _DEFAULT_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

enum { N = 512 };

/* checkpoint: a file of its own, gone when closed */
static int checkpoint(void)
{
    char name[] = "/tmp/bug_write_pending_receive_XXXXXX";
    int fd = mkstemp(name);
    if (fd >= 0)
        unlink(name);
    return fd;
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Request r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double *field = calloc(N, sizeof *field);

    if (rank == 0) {
        int fd = checkpoint();
        MPI_Irecv(field, N, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, &r); // related "recv-buffer-access"
        ssize_t saved = write(fd, field, N * sizeof *field); // want "recv-buffer-access" "load from the receive buffer .* at offset 0, element \[0\]\(DOUBLE\), before the receive completed"
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        if (saved != (ssize_t)(N * sizeof *field) || field[N - 1] != N - 1)
            fprintf(stderr, "rank 0: saved %ld bytes, last %g\n", (long)saved, field[N - 1]);
        close(fd);
    } else {
        for (int i = 0; i < N; i++)
            field[i] = i;
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Send(field, N, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
    }

    free(field);
    MPI_Finalize();
    return 0;
}
