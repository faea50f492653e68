// ranks: 2
//
// ok_halo_vector_3d.c: a 3-D array a[z][y][x] decomposed along x (the
// fastest index) over a non-periodic line of ranks; an x-face is a vector
// (one z-plane: NY cells with stride NX+2) repeated NZ times with
// MPI_Type_create_hvector (stride in bytes: one z-plane). Only the outer
// type is committed (inner types need no commit). MPI_Sendrecv with
// MPI_PROC_NULL at the ends; checks the halos; frees both types.
// Correct: must produce no findings.
#include <mpi.h>
#include <stdio.h>

#define NX 3
#define NY 4
#define NZ 2

static int errors;
#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            errors++;                                                          \
            fprintf(stderr, __VA_ARGS__);                                      \
        }                                                                      \
    } while (0)

static double a[NZ + 2][NY + 2][NX + 2];

static double value(int rank, int z, int y, int x) { return 1000.0 * rank + 100 * z + 10 * y + x; }

static int interior(int z, int y, int x)
{
    return z >= 1 && z <= NZ && y >= 1 && y <= NY && x >= 1 && x <= NX;
}

int main(int argc, char **argv)
{
    int rank, size, x, y, z, total;
    MPI_Datatype plane, face;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;

    for (z = 0; z < NZ + 2; z++)
        for (y = 0; y < NY + 2; y++)
            for (x = 0; x < NX + 2; x++)
                a[z][y][x] = interior(z, y, x) ? value(rank, z, y, x) : -1;

    MPI_Type_vector(NY, 1, NX + 2, MPI_DOUBLE, &plane);
    MPI_Type_create_hvector(NZ, 1, (MPI_Aint)sizeof a[0], plane, &face);
    MPI_Type_commit(&face);

    MPI_Sendrecv(&a[1][1][NX], 1, face, right, 0, &a[1][1][0], 1, face, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&a[1][1][1], 1, face, left, 1, &a[1][1][NX + 1], 1, face, right, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

    for (z = 1; z <= NZ; z++)
        for (y = 1; y <= NY; y++) {
            double wl = left == MPI_PROC_NULL ? -1 : value(left, z, y, NX);
            double wr = right == MPI_PROC_NULL ? -1 : value(right, z, y, 1);
            CHECK(a[z][y][0] == wl, "rank %d: left halo (%d,%d) = %g\n", rank, z, y, a[z][y][0]);
            CHECK(a[z][y][NX + 1] == wr, "rank %d: right halo (%d,%d) = %g\n", rank, z, y, a[z][y][NX + 1]);
        }
    CHECK(a[0][1][0] == -1 && a[1][0][0] == -1, "rank %d: outside the face written\n", rank);

    MPI_Type_free(&plane);
    MPI_Type_free(&face);

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_halo_vector_3d: OK\n");
    MPI_Finalize();
    return total != 0;
}
