// ranks: 2
//
// ok_halo_subarray_2d.c: a periodic 1-D decomposition along the columns of
// a 2-D array: with 2 ranks, the left and the right neighbour are the same
// rank, told apart by the tag. The faces and halos are subarray types
// (MPI_Type_create_subarray, C order); the exchange uses MPI_Irecv and
// MPI_Isend into the same array (the two pending receives write columns 0
// and NY+1, which interleave but never share a byte) and MPI_Waitall.
// Checks the halos and frees everything.
// Correct: must produce no findings.
#include <mpi.h>
#include <stdio.h>

#define NX 3
#define NY 4

static int errors;
#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            errors++;                                                          \
            fprintf(stderr, __VA_ARGS__);                                      \
        }                                                                      \
    } while (0)

static int value(int rank, int i, int j) { return 100 * rank + 10 * i + j; }

static MPI_Datatype column(int j)
{
    int sizes[2] = {NX + 2, NY + 2}, subsizes[2] = {NX, 1}, starts[2] = {1, j};
    MPI_Datatype t;
    MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &t);
    MPI_Type_commit(&t);
    return t;
}

int main(int argc, char **argv)
{
    int rank, size, i, j, left, right, total;
    int dims[1] = {0}, periods[1] = {1};
    int u[NX + 2][NY + 2];
    MPI_Comm ring;
    MPI_Request reqs[4];
    MPI_Status st[4];

    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Dims_create(size, 1, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    MPI_Comm_rank(ring, &rank);
    MPI_Cart_shift(ring, 0, 1, &left, &right);

    for (i = 0; i < NX + 2; i++)
        for (j = 0; j < NY + 2; j++)
            u[i][j] = (i >= 1 && i <= NX && j >= 1 && j <= NY) ? value(rank, i, j) : -1;

    MPI_Datatype send_left = column(1), send_right = column(NY);
    MPI_Datatype halo_left = column(0), halo_right = column(NY + 1);

    MPI_Irecv(u, 1, halo_left, left, 1, ring, &reqs[0]);
    MPI_Irecv(u, 1, halo_right, right, 0, ring, &reqs[1]);
    MPI_Isend(u, 1, send_left, left, 0, ring, &reqs[2]);
    MPI_Isend(u, 1, send_right, right, 1, ring, &reqs[3]);
    MPI_Waitall(4, reqs, st);

    for (i = 1; i <= NX; i++) {
        CHECK(u[i][0] == value(left, i, NY), "rank %d: left halo row %d = %d\n", rank, i, u[i][0]);
        CHECK(u[i][NY + 1] == value(right, i, 1), "rank %d: right halo row %d = %d\n", rank, i, u[i][NY + 1]);
    }
    for (j = 0; j < NY + 2; j++)
        CHECK(u[0][j] == -1 && u[NX + 1][j] == -1, "rank %d: row halo written\n", rank);

    MPI_Type_free(&send_left);
    MPI_Type_free(&send_right);
    MPI_Type_free(&halo_left);
    MPI_Type_free(&halo_right);
    MPI_Comm_free(&ring);

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_halo_subarray_2d: OK\n");
    MPI_Finalize();
    return total != 0;
}
