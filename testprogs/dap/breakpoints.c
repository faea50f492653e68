/* breakpoints.c: every rank passes the line marked BREAK once, with an
 * MPI_Datatype, an MPI_Request and an MPI_Comm in scope, for the DAP
 * tests (dap/adapter_test.go, extensions/vscode/test): a breakpoint there
 * stops each rank, and the variables decode. Correct: mpidbg finds
 * nothing. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, sum = 0;
    double grid[4][6];
    MPI_Datatype column;
    MPI_Request req;
    MPI_Comm comm = MPI_COMM_WORLD;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 6; j++)
            grid[i][j] = rank * 100 + i * 10 + j;
    MPI_Type_vector(4, 1, 6, MPI_DOUBLE, &column);
    MPI_Type_commit(&column);
    MPI_Iallreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, comm, &req);
    sum += 0; // BREAK
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    printf("rank %d of %d: sum of ranks %d, grid[3][0] %g\n", rank, size, sum, grid[3][0]);
    MPI_Type_free(&column);
    MPI_Finalize();
    return 0;
}
