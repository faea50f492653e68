// ranks: 2
//
// bug_commit_twice.c: a time-step loop commits the (loop-invariant) column
// type on every step.
// Warns about MPI-4.1 §5.1.9: committing a committed datatype has no
// effect (legal, but the setup runs more often than intended).
// Expected: commit-twice (warning) at the MPI_Type_commit inside the loop
// (both ranks, from the second step on). The program is otherwise correct.
#include <mpi.h>
#include <stdio.h>

#define N 4

int main(int argc, char **argv)
{
    int rank, step, i, j;
    double u[N][N], halo[N][N];
    MPI_Datatype col;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
            u[i][j] = halo[i][j] = rank;
    MPI_Type_vector(N, 1, N, MPI_DOUBLE, &col);
    for (step = 0; step < 3; step++) {
        MPI_Type_commit(&col); // want "commit-twice"
        MPI_Sendrecv(&u[0][N - 1], 1, col, rank ^ 1, step, &halo[0][0], 1, col, rank ^ 1, step, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (i = 0; i < N; i++)
            u[i][0] += halo[i][0];
    }
    MPI_Type_free(&col);

    if (halo[1][0] != (rank ^ 1))
        printf("rank %d: halo %g\n", rank, halo[1][0]);
    MPI_Finalize();
    return 0;
}
