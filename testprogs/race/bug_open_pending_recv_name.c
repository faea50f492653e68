// ranks: 2
//
// bug_open_pending_recv_name.c: a task farm. Rank 0 hands rank 1 the
// names of the input files to process, one at a time; rank 1 prefetches
// the next name with MPI_Irecv while it processes the current file. But
// it opens the file with fopen(next) where it meant fopen(current): the
// path is the pending receive buffer, read by the kernel (fopen's open(2)
// copies the name in), not by an instruction of the program's.
// Breaks MPI-4.1 §3.7.2: the receiver must not access any part of the
// receive buffer after a nonblocking receive operation is called, until
// the receive completes.
// Expected: recv-buffer-access at the fopen (rank 1), with the MPI_Irecv
// as the related location.
//
// Rank 0 sends the second name only after a barrier that rank 1 enters
// after the fopen, so the name is certainly read before it arrived.
// Natively rank 1 opens the first file again and counts its lines twice.
#define _DEFAULT_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { NAME = 256 };

/* make_input writes a small input file and returns its name */
static void make_input(char *name, int k)
{
    snprintf(name, NAME, "/tmp/bug_open_pending_recv_name_%d_XXXXXX", k);
    int fd = mkstemp(name);
    if (fd < 0)
        return;
    for (int i = 0; i <= k; i++)
        if (write(fd, "record\n", 7) != 7)
            break;
    close(fd);
}

static int count_lines(FILE *f)
{
    int n = 0, c;
    while ((c = fgetc(f)) != EOF)
        n += c == '\n';
    return n;
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    if (rank == 0) {
        char first[NAME], second[NAME];
        make_input(first, 1);
        make_input(second, 2);
        MPI_Send(first, NAME, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Send(second, NAME, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        unlink(first);
        unlink(second);
    } else if (rank == 1) {
        char *current = malloc(NAME), *next = malloc(NAME);
        MPI_Request r;
        int lines = 0;
        MPI_Recv(current, NAME, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        memcpy(next, current, NAME);
        MPI_Irecv(next, NAME, MPI_CHAR, 0, 0, MPI_COMM_WORLD, &r);
        FILE *f = fopen(next, "r"); // want "recv-buffer-access" "load from the receive buffer .* at offset 0, element \[0\]\(CHAR\), before the receive completed"
        if (f) {
            lines += count_lines(f);
            fclose(f);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        f = fopen(next, "r");
        if (f) {
            lines += count_lines(f);
            fclose(f);
        }
        if (lines < 0)
            MPI_Abort(MPI_COMM_WORLD, 1);
        MPI_Barrier(MPI_COMM_WORLD);
        free(current);
        free(next);
    }
    MPI_Finalize();
    return 0;
}
