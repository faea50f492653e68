/*
 * The demo of `make demo`: a 2-D Jacobi grid split into column strips, one
 * strip per rank, exchanging ghost columns with its neighbours through a
 * vector datatype. It runs to the end and prints a checksum, as buggy MPI
 * programs usually do, but it carries four mistakes that mpidbg reports:
 *
 *  1. The right ghost column is received into column N instead of N+1,
 *     which the pending send of column N still reads (buffer-overlap).
 *  2. The rows of the edge summary are gathered with a type resized to one
 *     double, so two rows overlap in the receive buffer (recv-type-overlap).
 *  3. The type for the corner values is never committed (type-not-committed).
 *  4. The column type is never freed (leak-type, a warning).
 *
 * Build and run: make demo, or
 *   mpicc.mpich -g -o halo examples/halo.c && bin/mpidbg run -n 4 ./halo
 */
#include <mpi.h>
#include <stdio.h>

#define N 8 /* interior columns and rows per rank */

static double u[N][N + 2]; /* rows of N interior columns plus two ghosts */

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    /* report errors instead of aborting, so every rank reaches the end */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;

    for (int i = 0; i < N; i++)
        for (int j = 0; j < N + 2; j++)
            u[i][j] = rank * 100 + i + j / 10.0;

    /* one column of the strip: N doubles, a row apart */
    MPI_Datatype column;
    MPI_Type_vector(N, 1, N + 2, MPI_DOUBLE, &column);
    MPI_Type_set_name(column, "column");
    MPI_Type_commit(&column);

    MPI_Request req[4];
    MPI_Isend(&u[0][1], 1, column, left, 0, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(&u[0][N], 1, column, right, 1, MPI_COMM_WORLD, &req[1]);
    MPI_Irecv(&u[0][0], 1, column, left, 1, MPI_COMM_WORLD, &req[2]);
    MPI_Irecv(&u[0][N], 1, column, right, 0, MPI_COMM_WORLD, &req[3]); /* bug 1: should be &u[0][N + 1] */
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);

    /* rank 0 collects the first two rows of every strip */
    MPI_Datatype row, row_packed;
    MPI_Type_contiguous(N, MPI_DOUBLE, &row);
    MPI_Type_create_resized(row, 0, sizeof(double), &row_packed); /* bug 2: extent should be N doubles */
    MPI_Type_set_name(row_packed, "row_packed");
    MPI_Type_commit(&row_packed);
    static double edges[64][N];
    if (rank == 0) {
        for (int src = 1; src < size; src++)
            MPI_Recv(edges[2 * src], 2, row_packed, src, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        double mine[2][N];
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < N; j++)
                mine[i][j] = u[i][j + 1];
        MPI_Send(mine, 2 * N, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD);
    }

    /* the four corner values of each strip, gathered at rank 0 */
    MPI_Datatype corners;
    int lens[2] = {1, 1};
    int disps[2] = {1, N};
    MPI_Type_indexed(2, lens, disps, MPI_DOUBLE, &corners); /* bug 3: never committed */
    double all[4 * 64];
    MPI_Gather(&u[0][0], 1, corners, all, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);

    double sum = 0;
    for (int i = 0; i < N; i++)
        for (int j = 1; j <= N; j++)
            sum += u[i][j];
    double total;
    MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("checksum %.1f\n", total);

    MPI_Type_free(&row);
    MPI_Type_free(&row_packed);
    MPI_Type_free(&corners);
    /* bug 4: column is never freed */
    MPI_Finalize();
    return 0;
}
