// ranks: 4
//
// ok_halo_vector_2d.c: a 2x2 non-periodic Cartesian grid (MPI_Cart_create,
// MPI_Cart_shift gives MPI_PROC_NULL at the edges); each rank owns a 4x5
// block of doubles with a one-cell halo and exchanges rows (contiguous
// type) and columns (vector type, stride NY+2) with MPI_Sendrecv. Checks
// every halo cell against the neighbour's interior, and that halos facing
// MPI_PROC_NULL are untouched. Frees the types and the communicator.
// Correct: must produce no findings.
#include <mpi.h>
#include <stdio.h>

#define NX 4
#define NY 5

static int errors;
#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            errors++;                                                          \
            fprintf(stderr, __VA_ARGS__);                                      \
        }                                                                      \
    } while (0)

static double value(int rank, int i, int j) { return 1000.0 * rank + 10 * i + j; }

int main(int argc, char **argv)
{
    int rank, size, i, j, up, down, left, right, total;
    int dims[2] = {0, 0}, periods[2] = {0, 0};
    double u[NX + 2][NY + 2];
    MPI_Comm cart;
    MPI_Datatype row, col;

    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Dims_create(size, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Comm_rank(cart, &rank);
    MPI_Cart_shift(cart, 0, 1, &up, &down);
    MPI_Cart_shift(cart, 1, 1, &left, &right);

    for (i = 0; i < NX + 2; i++)
        for (j = 0; j < NY + 2; j++)
            u[i][j] = (i >= 1 && i <= NX && j >= 1 && j <= NY) ? value(rank, i, j) : -1;

    MPI_Type_contiguous(NY, MPI_DOUBLE, &row);
    MPI_Type_commit(&row);
    MPI_Type_vector(NX, 1, NY + 2, MPI_DOUBLE, &col);
    MPI_Type_commit(&col);

    MPI_Sendrecv(&u[1][1], 1, row, up, 0, &u[NX + 1][1], 1, row, down, 0, cart, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[NX][1], 1, row, down, 1, &u[0][1], 1, row, up, 1, cart, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[1][1], 1, col, left, 2, &u[1][NY + 1], 1, col, right, 2, cart, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[1][NY], 1, col, right, 3, &u[1][0], 1, col, left, 3, cart, MPI_STATUS_IGNORE);

    for (j = 1; j <= NY; j++) {
        CHECK(u[0][j] == (up == MPI_PROC_NULL ? -1 : value(up, NX, j)), "rank %d: top halo %d\n", rank, j);
        CHECK(u[NX + 1][j] == (down == MPI_PROC_NULL ? -1 : value(down, 1, j)), "rank %d: bottom halo %d\n", rank, j);
    }
    for (i = 1; i <= NX; i++) {
        CHECK(u[i][0] == (left == MPI_PROC_NULL ? -1 : value(left, i, NY)), "rank %d: left halo %d\n", rank, i);
        CHECK(u[i][NY + 1] == (right == MPI_PROC_NULL ? -1 : value(right, i, 1)), "rank %d: right halo %d\n", rank, i);
    }
    CHECK(u[0][0] == -1 && u[NX + 1][NY + 1] == -1, "rank %d: corner written\n", rank);

    MPI_Type_free(&row);
    MPI_Type_free(&col);
    MPI_Comm_free(&cart);

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_halo_vector_2d: OK\n");
    MPI_Finalize();
    return total != 0;
}
