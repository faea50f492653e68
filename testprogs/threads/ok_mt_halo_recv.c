// ranks: 2
// cflags: -fopenmp
// runs: 10
//
// ok_mt_halo_recv.c: the correct twin of bug_mt_type_mismatch_recv.c. A
// hybrid MPI+OpenMP stencil on an integer lattice: the 16 x 32 grid is
// split in rows between the two ranks and in column blocks of 8 between
// the 4 threads of each rank (MPI_THREAD_MULTIPLE). Each step, every
// thread swaps its block's boundary row with the same thread of the other
// rank, tag = thread number, with blocking MPI_Send and MPI_Recv (rank 0
// sends first, rank 1 receives first: no reliance on buffering), then
// applies a 5-point stencil to its block. Both sides describe the row
// segment as MPI_INT.
// Follows MPI-4.1 §3.3.1 (the send's type signature matches the
// receive's) and §11.6.1 (threads of one process may call MPI at once
// under MPI_THREAD_MULTIPLE; the tag keeps each thread's messages apart).
// Every rank checks its rows against a serial computation of the whole
// grid.
// Correct: must produce no findings.
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

enum { THREADS = 4, ROWS = 8, COLS = 32, W = COLS / THREADS, STEPS = 5 };

static int grid[ROWS + 2][COLS], next[ROWS + 2][COLS]; // rows 0 and ROWS+1: ghosts
static int ref[2 * ROWS + 2][COLS], refnext[2 * ROWS + 2][COLS];

static int init(int grow, int col) { return (grow * 37 + col * 11) % 101; }

static int stencil(int a[][COLS], int i, int j)
{
    return (a[i][j] * 4 + a[i - 1][j] + a[i + 1][j] + a[i][(j + COLS - 1) % COLS] + a[i][(j + 1) % COLS]) % 1009;
}

int main(int argc, char **argv)
{
    int provided, rank, size, errors = 0, total = 0;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE || size != 2) {
        fprintf(stderr, "ok_mt_halo_recv: needs MPI_THREAD_MULTIPLE and 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int i = 1; i <= ROWS; i++)
        for (int j = 0; j < COLS; j++)
            grid[i][j] = init(rank * ROWS + i - 1, j);

    omp_set_dynamic(0);
#pragma omp parallel num_threads(THREADS)
    {
        int t = omp_get_thread_num(), lo = t * W, other = 1 - rank;
        if (omp_get_num_threads() != THREADS)
            MPI_Abort(MPI_COMM_WORLD, 2);
        for (int step = 0; step < STEPS; step++) {
            if (rank == 0) {
                MPI_Send(&grid[ROWS][lo], W, MPI_INT, other, t, MPI_COMM_WORLD);
                MPI_Recv(&grid[ROWS + 1][lo], W, MPI_INT, other, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(&grid[0][lo], W, MPI_INT, other, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(&grid[1][lo], W, MPI_INT, other, t, MPI_COMM_WORLD);
            }
#pragma omp barrier
            for (int i = 1; i <= ROWS; i++)
                for (int j = lo; j < lo + W; j++)
                    next[i][j] = stencil(grid, i, j);
#pragma omp barrier
            for (int i = 1; i <= ROWS; i++)
                for (int j = lo; j < lo + W; j++)
                    grid[i][j] = next[i][j];
#pragma omp barrier
        }
    }

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
            if (grid[i][j] != ref[rank * ROWS + i][j]) {
                if (errors++ == 0)
                    fprintf(stderr, "rank %d: cell (%d,%d) is %d, want %d\n", rank, i, j, grid[i][j], ref[rank * ROWS + i][j]);
            }

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_mt_halo_recv: OK\n");
    MPI_Finalize();
    return total != 0;
}
