// ranks: 3
//
// ok_file_nonblocking.c: a time-stepping code overlaps its checkpoints
// with computation as MPI-IO allows. Each step copies the field into one
// of two staging buffers (on the heap), starts MPI_File_iwrite_at_all
// from it and advances the field meanwhile; a staging buffer is reused
// only after the write started from it two steps before completed. Rank 0
// writes a header from a struct on its stack with MPI_File_iwrite_at and
// waits for it before the function returns. At the end every rank reads
// its last checkpoint back with MPI_File_iread_at_all into the heap and
// its first row with MPI_File_iread_at into an array on its stack, and
// looks at either only after MPI_Wait; rank 0 reads the header back too.
// Last, each rank reads one checkpoint back while it writes a final copy,
// both pending at once, into and from the two halves of one allocation:
// a read-ahead beside a write-behind on the same pages, which the
// library's I/O threads fill while the program waits.
// Follows MPI-4.1 §14.4.1 (a nonblocking data access's buffer is the
// program's again once the operation completes) and §14.4.2 (explicit
// offsets). Every value read back is checked. The file is made in the
// working directory and deleted when closed.
// Correct: must produce no findings.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 2048, ROW = 48, AHEAD = 1024, STEPS = 4 };

struct header {
    int magic, ranks, n, steps;
    double t;
};

static void step(double *u, int n)
{
    for (int i = 0; i < n; i++)
        u[i] = 0.5 * u[i] + 1.0;
}

static void write_header(MPI_File fh, int size)
{
    struct header h = {0x6d706964, size, N, STEPS, 0.25 * STEPS};
    MPI_Request r;
    MPI_File_iwrite_at(fh, 0, &h, (int)sizeof h, MPI_BYTE, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
}

static MPI_Offset slot(int rank, int s)
{
    return (MPI_Offset)sizeof(struct header) + ((MPI_Offset)(s % 2) * 3 + rank) * N * (MPI_Offset)sizeof(double);
}

int main(int argc, char **argv)
{
    int rank, size, errors = 0, bad = 0;
    MPI_File fh;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double *u = malloc(N * sizeof *u), *staging[2] = {malloc(N * sizeof(double)), malloc(N * sizeof(double))};
    double *expect = malloc(N * sizeof *expect);
    for (int i = 0; i < N; i++)
        u[i] = rank * N + i;

    MPI_File_open(MPI_COMM_WORLD, "ok_file_nonblocking.chk", MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                  MPI_INFO_NULL, &fh);
    if (rank == 0)
        write_header(fh, size);

    MPI_Request pending[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    for (int s = 0; s < STEPS; s++) {
        double *out = staging[s % 2];
        MPI_Wait(&pending[s % 2], MPI_STATUS_IGNORE); // the write from this buffer two steps ago
        memcpy(out, u, N * sizeof *u);
        MPI_File_iwrite_at_all(fh, slot(rank, s), out, N, MPI_DOUBLE, &pending[s % 2]);
        if (s == STEPS - 1)
            memcpy(expect, u, N * sizeof *u);
        step(u, N);
    }
    MPI_Status statuses[2];
    MPI_Waitall(2, pending, statuses);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);

    double *back = malloc(N * sizeof *back), row[ROW];
    MPI_Request r;
    MPI_File_iread_at_all(fh, slot(rank, STEPS - 1), back, N, MPI_DOUBLE, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    for (int i = 0; i < N; i++)
        if (back[i] != expect[i])
            errors++;
    MPI_File_iread_at(fh, slot(rank, STEPS - 1), row, ROW, MPI_DOUBLE, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    for (int i = 0; i < ROW; i++)
        if (row[i] != expect[i])
            errors++;
    double *both = malloc(2 * AHEAD * sizeof *both), *ahead = both + AHEAD;
    for (int i = 0; i < AHEAD; i++)
        both[i] = -u[i];
    MPI_Request rw[2];
    MPI_Status rws[2];
    MPI_File_iread_at(fh, slot(rank, STEPS - 1), ahead, AHEAD, MPI_DOUBLE, &rw[0]);
    MPI_File_iwrite_at(fh, slot(rank, STEPS), both, AHEAD, MPI_DOUBLE, &rw[1]);
    MPI_Waitall(2, rw, rws);
    for (int i = 0; i < AHEAD; i++)
        if (ahead[i] != expect[i])
            errors++;
    free(both);
    if (rank == 0) {
        struct header h;
        MPI_File_iread_at(fh, 0, &h, (int)sizeof h, MPI_BYTE, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        if (h.magic != 0x6d706964 || h.ranks != size || h.n != N || h.steps != STEPS)
            errors++;
    }
    MPI_File_close(&fh);

    MPI_Allreduce(&errors, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(bad ? "ok_file_nonblocking: %d errors\n" : "ok_file_nonblocking: OK\n", bad);
    free(u), free(staging[0]), free(staging[1]), free(expect), free(back);
    MPI_Finalize();
    return bad != 0;
}
