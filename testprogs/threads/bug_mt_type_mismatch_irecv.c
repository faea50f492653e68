// ranks: 2
// cflags: -pthread
//
// bug_mt_type_mismatch_irecv.c: a hybrid MPI+pthreads stencil on an
// integer lattice (as ok_mt_halo_irecv.c): the grid is split in rows
// between the two ranks and in column blocks between 4 worker threads per
// rank (MPI_THREAD_MULTIPLE). Each step, every worker posts MPI_Irecv for
// its block's ghost row from the same worker of the other rank, tag =
// worker number, sends its boundary row with MPI_Isend and completes both
// with MPI_Wait. Rank 1's worker 2 sends its row from a float copy as
// MPI_FLOAT (the block was moved to the single-precision kernel); rank 0
// receives every block as MPI_INT.
// Breaks MPI-4.1 §3.3.1: the type signature of the send (FLOAT ...) must
// match that of the receive (INT ...).
// Expected: type-mismatch at rank 0's MPI_Irecv, the call that named the
// buffer and datatype, not at the MPI_Wait where the receive completes
// (worker 2's messages, one per step), naming rank 1's MPI_Isend.
#define _POSIX_C_SOURCE 200809L // pthread_barrier_t
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

enum { THREADS = 4, ROWS = 8, COLS = 32, W = COLS / THREADS, STEPS = 3 };

static int rank;
static int grid[ROWS + 2][COLS], next[ROWS + 2][COLS]; // rows 0 and ROWS+1: ghosts
static pthread_barrier_t bar;

static int stencil(int i, int j)
{
    // in long long: a row received wrongly may hold any int
    long long s = 4LL * grid[i][j] + grid[i - 1][j] + grid[i + 1][j] + grid[i][(j + COLS - 1) % COLS] + grid[i][(j + 1) % COLS];
    return (int)(s < 0 ? -s % 1013 : s % 1013);
}

static void *worker(void *arg)
{
    int t = (int)(long)arg, lo = t * W, other = 1 - rank;
    int *ghost = rank == 0 ? &grid[ROWS + 1][lo] : &grid[0][lo];
    int *edge = rank == 0 ? &grid[ROWS][lo] : &grid[1][lo];
    float single[W];
    for (int step = 0; step < STEPS; step++) {
        MPI_Request rr, sr;
        MPI_Irecv(ghost, W, MPI_INT, other, t, MPI_COMM_WORLD, &rr); // want "type-mismatch" "sends MPI_FLOAT\[0\] where rank 0 receives MPI_INT\[0\]"
        if (rank == 1 && t == 2) { // bug: the float kernel's copy goes out as MPI_FLOAT
            for (int j = 0; j < W; j++)
                single[j] = (float)edge[j];
            MPI_Isend(single, W, MPI_FLOAT, other, t, MPI_COMM_WORLD, &sr);
        } else {
            MPI_Isend(edge, W, MPI_INT, other, t, MPI_COMM_WORLD, &sr);
        }
        MPI_Wait(&rr, MPI_STATUS_IGNORE);
        MPI_Wait(&sr, MPI_STATUS_IGNORE);
        pthread_barrier_wait(&bar);
        for (int i = 1; i <= ROWS; i++)
            for (int j = lo; j < lo + W; j++)
                next[i][j] = stencil(i, j);
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
    int provided, size;
    pthread_t th[THREADS];

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE || size != 2) {
        fprintf(stderr, "bug_mt_type_mismatch_irecv: needs MPI_THREAD_MULTIPLE and 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int i = 1; i <= ROWS; i++)
        for (int j = 0; j < COLS; j++)
            grid[i][j] = ((rank * ROWS + i - 1) * 29 + j * 13) % 97;

    pthread_barrier_init(&bar, NULL, THREADS);
    for (long t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, worker, (void *)t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    pthread_barrier_destroy(&bar);

    MPI_Finalize();
    return 0;
}
