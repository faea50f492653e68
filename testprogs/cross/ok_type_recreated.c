// ranks: 2
//
// ok_type_recreated.c: an adaptive exchange that builds its datatype
// anew every step and frees it after the step, as codes whose
// decomposition changes do: even steps send a column of ints as a vector
// type, odd steps a block of doubles as a contiguous type. MPI hands the
// new type the handle of the one just freed; the receiver receives the
// same data as plain MPI_INT or MPI_DOUBLE elements. Every signature
// matches (MPI-4.1 §3.3.1): a description kept for the freed type must
// not be taken for the new one.
#include <mpi.h>
#include <stdio.h>

enum { STEPS = 40, N = 8 };

int main(int argc, char **argv)
{
    int rank, ok = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int grid[N][N];
    double blk[N];
    for (int step = 0; step < STEPS; step++) {
        MPI_Datatype t;
        int rows = 2 + step % 5;
        if (step % 2 == 0)
            MPI_Type_vector(rows, 1, N, MPI_INT, &t);
        else
            MPI_Type_contiguous(rows, MPI_DOUBLE, &t);
        MPI_Type_commit(&t);
        if (rank == 0) {
            for (int i = 0; i < N; i++) {
                blk[i] = step + i;
                for (int j = 0; j < N; j++)
                    grid[i][j] = step * 100 + i;
            }
            MPI_Send(step % 2 == 0 ? (void *)&grid[0][3] : (void *)blk, 1, t, 1, step, MPI_COMM_WORLD);
        } else if (rank == 1) {
            if (step % 2 == 0) {
                int col[N];
                MPI_Recv(col, rows, MPI_INT, 0, step, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                ok = ok && col[rows - 1] == step * 100 + rows - 1;
            } else {
                double in[N];
                MPI_Recv(in, rows, MPI_DOUBLE, 0, step, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                ok = ok && in[rows - 1] == step + rows - 1;
            }
        }
        MPI_Type_free(&t);
    }
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rank == 0 && ok)
        printf("ok_type_recreated: OK\n");
    MPI_Finalize();
    return ok ? 0 : 1;
}
