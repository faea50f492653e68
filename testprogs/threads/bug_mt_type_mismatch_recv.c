// ranks: 2
// cflags: -fopenmp
//
// bug_mt_type_mismatch_recv.c: a hybrid MPI+OpenMP stencil on an integer
// lattice (as ok_mt_halo_recv.c): the grid is split in rows between the
// two ranks and in column blocks between the 4 threads of each rank
// (MPI_THREAD_MULTIPLE). Each step, every thread swaps its block's
// boundary row with the same thread of the other rank, tag = thread
// number, with blocking MPI_Send and MPI_Recv. Rank 1's thread 2 packs
// its row through the single-precision path of the code (a float buffer
// sent as MPI_FLOAT); rank 0 receives every block as MPI_INT.
// Breaks MPI-4.1 §3.3.1: the type signature of the send (FLOAT ...) must
// match that of the receive (INT ...); float and int have the same size,
// so MPI copies the bytes and rank 0 reads floats as ints.
// Expected: type-mismatch at rank 0's MPI_Recv (thread 2's messages, one
// per step), naming rank 1's MPI_Send. The other threads' messages
// match: no finding for them.
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

enum { THREADS = 4, ROWS = 8, COLS = 32, W = COLS / THREADS, STEPS = 3 };

static int grid[ROWS + 2][COLS], next[ROWS + 2][COLS]; // rows 0 and ROWS+1: ghosts

static int stencil(int i, int j)
{
    // in long long: a row received wrongly may hold any int
    long long s = 4LL * grid[i][j] + grid[i - 1][j] + grid[i + 1][j] + grid[i][(j + COLS - 1) % COLS] + grid[i][(j + 1) % COLS];
    return (int)(s < 0 ? -s % 1009 : s % 1009);
}

int main(int argc, char **argv)
{
    int provided, rank, size;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE || size != 2) {
        fprintf(stderr, "bug_mt_type_mismatch_recv: needs MPI_THREAD_MULTIPLE and 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int i = 1; i <= ROWS; i++)
        for (int j = 0; j < COLS; j++)
            grid[i][j] = ((rank * ROWS + i - 1) * 37 + j * 11) % 101;

    omp_set_dynamic(0);
#pragma omp parallel num_threads(THREADS)
    {
        int t = omp_get_thread_num(), lo = t * W, other = 1 - rank;
        float packed[W];
        if (omp_get_num_threads() != THREADS)
            MPI_Abort(MPI_COMM_WORLD, 2);
        for (int step = 0; step < STEPS; step++) {
            if (rank == 0) {
                MPI_Send(&grid[ROWS][lo], W, MPI_INT, other, t, MPI_COMM_WORLD);
                MPI_Recv(&grid[ROWS + 1][lo], W, MPI_INT, other, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "type-mismatch" "sends MPI_FLOAT\[0\] where rank 0 receives MPI_INT\[0\]"
            } else {
                MPI_Recv(&grid[0][lo], W, MPI_INT, other, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                if (t == 2) { // bug: this block goes through the float path
                    for (int j = 0; j < W; j++)
                        packed[j] = (float)grid[1][lo + j];
                    MPI_Send(packed, W, MPI_FLOAT, other, t, MPI_COMM_WORLD);
                } else {
                    MPI_Send(&grid[1][lo], W, MPI_INT, other, t, MPI_COMM_WORLD);
                }
            }
#pragma omp barrier
            for (int i = 1; i <= ROWS; i++)
                for (int j = lo; j < lo + W; j++)
                    next[i][j] = stencil(i, j);
#pragma omp barrier
            for (int i = 1; i <= ROWS; i++)
                for (int j = lo; j < lo + W; j++)
                    grid[i][j] = next[i][j];
#pragma omp barrier
        }
    }

    MPI_Finalize();
    return 0;
}
