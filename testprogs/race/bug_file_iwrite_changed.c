// ranks: 2
//
// bug_file_iwrite_changed.c: a time-stepping code writes a checkpoint of
// its field with MPI_File_iwrite_at_all to overlap the I/O with the next
// step, then advances the field in place before MPI_Wait: the checkpoint
// may hold values of the next step, or a mix.
// Breaks MPI-4.1 §14.4.1 (Synchronism): it is erroneous to access the
// local buffer of a nonblocking data access operation between the
// initiation and the completion of the operation.
// Expected: send-buffer-write at the first store of the step (both
// ranks), the MPI_File_iwrite_at_all as the related location. The field
// is on the heap, which mpidbg write-protects while MPI may still read
// it. The file is made in the working directory and deleted at the end.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { N = 4096 };

static void step(double *u, int n)
{
    for (int i = 0; i < n; i++)
        u[i] = 0.5 * u[i] + 1.0; // want "send-buffer-write"
}

int main(int argc, char **argv)
{
    int rank;
    MPI_File fh;
    MPI_Request r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double *u = malloc(N * sizeof *u);
    for (int i = 0; i < N; i++)
        u[i] = rank * N + i;

    MPI_File_open(MPI_COMM_WORLD, "bug_file_iwrite_changed.chk", MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_DELETE_ON_CLOSE,
                  MPI_INFO_NULL, &fh);
    MPI_File_iwrite_at_all(fh, (MPI_Offset)rank * N * sizeof *u, u, N, MPI_DOUBLE, &r); // related "send-buffer-write"
    step(u, N); // bug: the checkpoint's buffer, before the wait
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);

    free(u);
    MPI_Finalize();
    return 0;
}
