// ranks: 3
//
// ok_halo_subarray_3d.c: a 3-D array a[z][y][x] decomposed along y over a
// periodic ring of 3 ranks; the y-faces and y-halos are 3-D subarray types
// (NZ x 1 x NX cells, non-contiguous). MPI_Irecv/MPI_Isend/MPI_Waitall,
// then a second exchange in MPI_ORDER_FORTRAN terms (the same array seen
// as a(x,y,z)) to make sure both orders are accepted. Checks the halos and
// frees everything.
// Correct: must produce no findings.
#include <mpi.h>
#include <stdio.h>

#define NX 4
#define NY 2
#define NZ 3

static int errors;
#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            errors++;                                                          \
            fprintf(stderr, __VA_ARGS__);                                      \
        }                                                                      \
    } while (0)

static float a[NZ + 2][NY + 2][NX + 2];

static float value(int rank, int z, int y, int x) { return 1000.0f * rank + 100 * z + 10 * y + x; }

static MPI_Datatype yface(int y, int order)
{
    int sizes[3] = {NZ + 2, NY + 2, NX + 2}, subsizes[3] = {NZ, 1, NX}, starts[3] = {1, y, 1};
    MPI_Datatype t;
    if (order == MPI_ORDER_FORTRAN) { // the same cells, dimensions listed fastest first
        int fs[3] = {NX + 2, NY + 2, NZ + 2}, fsub[3] = {NX, 1, NZ}, fst[3] = {1, y, 1};
        MPI_Type_create_subarray(3, fs, fsub, fst, MPI_ORDER_FORTRAN, MPI_FLOAT, &t);
    } else {
        MPI_Type_create_subarray(3, sizes, subsizes, starts, MPI_ORDER_C, MPI_FLOAT, &t);
    }
    MPI_Type_commit(&t);
    return t;
}

static void exchange(int order, int down, int up)
{
    MPI_Datatype s_down = yface(1, order), s_up = yface(NY, order);
    MPI_Datatype h_down = yface(0, order), h_up = yface(NY + 1, order);
    MPI_Request r[4];
    MPI_Status st[4];

    MPI_Irecv(a, 1, h_down, down, 10, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(a, 1, h_up, up, 11, MPI_COMM_WORLD, &r[1]);
    MPI_Isend(a, 1, s_up, up, 10, MPI_COMM_WORLD, &r[2]);
    MPI_Isend(a, 1, s_down, down, 11, MPI_COMM_WORLD, &r[3]);
    MPI_Waitall(4, r, st);

    MPI_Type_free(&s_down);
    MPI_Type_free(&s_up);
    MPI_Type_free(&h_down);
    MPI_Type_free(&h_up);
}

int main(int argc, char **argv)
{
    int rank, size, x, y, z, total, pass;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int down = (rank + size - 1) % size, up = (rank + 1) % size;

    for (pass = 0; pass < 2; pass++) {
        for (z = 0; z < NZ + 2; z++)
            for (y = 0; y < NY + 2; y++)
                for (x = 0; x < NX + 2; x++)
                    a[z][y][x] = (z >= 1 && z <= NZ && y >= 1 && y <= NY && x >= 1 && x <= NX)
                                     ? value(rank, z, y, x) + pass
                                     : -1;
        exchange(pass == 0 ? MPI_ORDER_C : MPI_ORDER_FORTRAN, down, up);
        for (z = 1; z <= NZ; z++)
            for (x = 1; x <= NX; x++) {
                CHECK(a[z][0][x] == value(down, z, NY, x) + pass, "rank %d pass %d: low halo (%d,%d)\n", rank, pass, z, x);
                CHECK(a[z][NY + 1][x] == value(up, z, 1, x) + pass, "rank %d pass %d: high halo (%d,%d)\n", rank, pass, z, x);
            }
        CHECK(a[0][0][1] == -1 && a[1][0][0] == -1, "rank %d pass %d: outside the face written\n", rank, pass);
    }

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_halo_subarray_3d: OK\n");
    MPI_Finalize();
    return total != 0;
}
