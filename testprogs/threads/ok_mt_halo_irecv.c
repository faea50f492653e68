// ranks: 2
// cflags: -pthread
// runs: 10
//
// ok_mt_halo_irecv.c: the correct twin of bug_mt_type_mismatch_irecv.c.
// A hybrid MPI+pthreads stencil on an integer lattice: the 16 x 32 grid is
// split in rows between the two ranks and in column blocks of 8 between 4
// worker threads per rank (pthread_create, MPI_THREAD_MULTIPLE). Each
// step, every worker posts MPI_Irecv for its block's ghost row from the
// same worker of the other rank, tag = worker number, sends its boundary
// row with MPI_Isend, completes both with MPI_Wait, and applies a 5-point
// stencil to its block between barriers. Both sides describe the row
// segment as MPI_INT.
// Follows MPI-4.1 §3.3.1 (the send's type signature matches the
// receive's) and §11.6.1 (threads of one process may call MPI at once
// under MPI_THREAD_MULTIPLE; the tag keeps each thread's messages apart).
// Every rank checks its rows against a serial computation of the whole
// grid.
// Correct: must produce no findings.
#define _POSIX_C_SOURCE 200809L // pthread_barrier_t
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

enum { THREADS = 4, ROWS = 8, COLS = 32, W = COLS / THREADS, STEPS = 5 };

static int rank;
static int grid[ROWS + 2][COLS], next[ROWS + 2][COLS]; // rows 0 and ROWS+1: ghosts
static int ref[2 * ROWS + 2][COLS], refnext[2 * ROWS + 2][COLS];
static pthread_barrier_t bar;

static int init(int grow, int col) { return (grow * 29 + col * 13) % 97; }

static int stencil(int a[][COLS], int i, int j)
{
    return (a[i][j] * 4 + a[i - 1][j] + a[i + 1][j] + a[i][(j + COLS - 1) % COLS] + a[i][(j + 1) % COLS]) % 1013;
}

static void *worker(void *arg)
{
    int t = (int)(long)arg, lo = t * W, other = 1 - rank;
    // rank 0 owns the top rows: its ghost is below, rank 1's above
    int *ghost = rank == 0 ? &grid[ROWS + 1][lo] : &grid[0][lo];
    int *edge = rank == 0 ? &grid[ROWS][lo] : &grid[1][lo];
    for (int step = 0; step < STEPS; step++) {
        MPI_Request rr, sr;
        MPI_Irecv(ghost, W, MPI_INT, other, t, MPI_COMM_WORLD, &rr);
        MPI_Isend(edge, W, MPI_INT, other, t, MPI_COMM_WORLD, &sr);
        MPI_Wait(&rr, MPI_STATUS_IGNORE);
        MPI_Wait(&sr, MPI_STATUS_IGNORE);
        pthread_barrier_wait(&bar);
        for (int i = 1; i <= ROWS; i++)
            for (int j = lo; j < lo + W; j++)
                next[i][j] = stencil(grid, i, j);
        pthread_barrier_wait(&bar);
        for (int i = 1; i <= ROWS; i++)
            for (int j = lo; j < lo + W; j++)
                grid[i][j] = next[i][j];
        pthread_barrier_wait(&bar);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, size, errors = 0, total = 0;
    pthread_t th[THREADS];

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE || size != 2) {
        fprintf(stderr, "ok_mt_halo_irecv: needs MPI_THREAD_MULTIPLE and 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int i = 1; i <= ROWS; i++)
        for (int j = 0; j < COLS; j++)
            grid[i][j] = init(rank * ROWS + i - 1, j);

    pthread_barrier_init(&bar, NULL, THREADS);
    for (long t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, worker, (void *)t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    pthread_barrier_destroy(&bar);

    // the whole grid, serially: rows 1..2*ROWS, zero ghosts above and below
    for (int i = 1; i <= 2 * ROWS; i++)
        for (int j = 0; j < COLS; j++)
            ref[i][j] = init(i - 1, j);
    for (int step = 0; step < STEPS; step++) {
        for (int i = 1; i <= 2 * ROWS; i++)
            for (int j = 0; j < COLS; j++)
                refnext[i][j] = stencil(ref, i, j);
        for (int i = 1; i <= 2 * ROWS; i++)
            for (int j = 0; j < COLS; j++)
                ref[i][j] = refnext[i][j];
    }
    for (int i = 1; i <= ROWS; i++)
        for (int j = 0; j < COLS; j++)
            if (grid[i][j] != ref[rank * ROWS + i][j] && errors++ == 0)
                fprintf(stderr, "rank %d: cell (%d,%d) is %d, want %d\n", rank, i, j, grid[i][j], ref[rank * ROWS + i][j]);

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_mt_halo_irecv: OK\n");
    MPI_Finalize();
    return total != 0;
}
