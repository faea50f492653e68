// ranks: 2
//
// bug_read_into_pending_send.c: rank 0 streams records from its input
// file to rank 1. It sends a record with MPI_Isend and, before MPI_Wait,
// reads the next record from the file into the same buffer with read(2):
// the store is the kernel's (the system call writes the buffer), not an
// instruction of the program's.
// Breaks MPI-4.1 §3.7.2: the sender must not modify any part of the send
// buffer after a nonblocking send operation is called, until the send
// completes.
// Expected: send-buffer-write at the read(2) (rank 0), with the MPI_Isend
// as the related location.
//
// The record is large (64 KiB: MPICH sends it by rendezvous), and rank 1
// posts its receive only after a barrier that rank 0 enters after the
// read: the read is certainly before MPI read the buffer. Natively rank 1
// gets the second record in place of the first; it does not check.
#define _DEFAULT_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

enum { N = 16384 };

/* input: a file of two records, gone when closed */
static int input(int *rec)
{
    char name[] = "/tmp/bug_read_into_pending_send_XXXXXX";
    int fd = mkstemp(name);
    if (fd < 0)
        return fd;
    unlink(name);
    for (int r = 0; r < 2; r++) {
        for (int i = 0; i < N; i++)
            rec[i] = r * N + i;
        if (write(fd, rec, N * sizeof *rec) != (ssize_t)(N * sizeof *rec))
            fprintf(stderr, "rank 0: cannot write the input\n");
    }
    lseek(fd, 0, SEEK_SET);
    return fd;
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Request r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int *rec = malloc(N * sizeof *rec);

    if (rank == 0) {
        int fd = input(rec);
        if (read(fd, rec, N * sizeof *rec) != (ssize_t)(N * sizeof *rec))
            fprintf(stderr, "rank 0: short first record\n");
        MPI_Isend(rec, N, MPI_INT, 1, 0, MPI_COMM_WORLD, &r); // related "send-buffer-write"
        ssize_t got = read(fd, rec, N * sizeof *rec); // want "send-buffer-write" "store to the send buffer .* at offset 0, element \[0\]\(INT\), before the send completed"
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        if (got != (ssize_t)(N * sizeof *rec))
            fprintf(stderr, "rank 0: short second record (%ld bytes)\n", (long)got);
        close(fd);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Recv(rec, N, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }

    free(rec);
    MPI_Finalize();
    return 0;
}
