// ranks: 2
//
// bug_rma_type_put_float.c: a particle code keeps positions as doubles in
// a window; the mixed-precision update step computes the new positions of
// rank 0's particles in single precision and puts them into rank 1's
// window as 2 x N MPI_FLOATs (the same bytes as N doubles), then reads a
// neighbour count back with MPI_Get into a buffer of 4 ints from a
// target of 6 ints (the table grew to 6 entries).
// Breaks MPI-4.1 §12.3.1: the put moves its data as if sent with the
// origin's datatype and received with the target's, so the signatures
// must match (§3.3.1: FLOAT is not DOUBLE); §12.3.2: the get's data, 6
// ints, must fit in the origin buffer of 4.
// Expected: rma-type-mismatch at the MPI_Put (FLOAT against DOUBLE) and
// at the MPI_Get (room for 4), rank 0. MPICH performs both; Open MPI
// refuses one, and the window's MPI_ERRORS_RETURN lets the run go on.
#include <mpi.h>

enum { N = 8 };

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double *pos;
    MPI_Win win;
    MPI_Win_allocate((MPI_Aint)(N + 8) * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &pos, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN); /* Open MPI refuses the get: the run goes on */
    for (int i = 0; i < N; i++)
        pos[i] = rank + 0.5 * i;
    int *table = (int *)&pos[N];
    for (int i = 0; i < 6; i++)
        table[i] = 10 * rank + i;
    float next[2 * N];
    for (int i = 0; i < 2 * N; i++)
        next[i] = (float)i;
    int counts[6] = {0};
    MPI_Win_fence(0, win);
    if (rank == 0) {
        MPI_Put(next, 2 * N, MPI_FLOAT, 1, 0, N, MPI_DOUBLE, win); // want "rma-type-mismatch" "MPI_FLOAT.* where the target takes MPI_DOUBLE"
        MPI_Get(counts, 4, MPI_INT, 1, N, 6, MPI_INT, win); // want "rma-type-mismatch" "room for 4"
    }
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return counts[0] < 0; /* the table holds no negative count */
}
