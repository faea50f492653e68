// ranks: 4
//
// ok_equal_signature.c: sender and receiver describe the data with
// different datatypes whose type signatures are equal, which is what MPI
// matches (MPI-4.1 §3.3.1); the layouts may differ.
//   - Rank 1 sends a column of a 4x5 matrix with MPI_Type_vector; rank 0
//     receives it with MPI_Type_contiguous(4, DOUBLE).
//   - Rank 2 sends a struct {double w; int a; int b;} with a struct
//     datatype; rank 0 receives it into a packed array of 1 DOUBLE and 2
//     INT described by a different struct datatype (other displacements).
//   - Rank 3 sends 6 MPI_INT; rank 0 receives 2 of contiguous(3, INT), and
//     then an indexed type of 6 ints is received as 6 MPI_INT.
// Rank 0 checks every value.
// Correct: must produce no findings.
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

static int errors;
#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            errors++;                                                          \
            fprintf(stderr, __VA_ARGS__);                                      \
        }                                                                      \
    } while (0)

struct wab {
    double w;
    int a, b;
};

int main(int argc, char **argv)
{
    int rank, total, i, j;
    MPI_Datatype col_t, four_t, wab_t, flat_t, three_t, idx_t;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    MPI_Type_vector(4, 1, 5, MPI_DOUBLE, &col_t);
    MPI_Type_contiguous(4, MPI_DOUBLE, &four_t);
    {
        int bl[2] = {1, 2};
        MPI_Aint d[2] = {offsetof(struct wab, w), offsetof(struct wab, a)};
        MPI_Datatype t[2] = {MPI_DOUBLE, MPI_INT};
        MPI_Type_create_struct(2, bl, d, t, &wab_t);
        MPI_Aint d2[2] = {0, sizeof(double)}; // a double then two ints, no gap
        MPI_Type_create_struct(2, bl, d2, t, &flat_t);
    }
    MPI_Type_contiguous(3, MPI_INT, &three_t);
    {
        int bl[3] = {1, 2, 3}, d[3] = {9, 0, 4};
        MPI_Type_indexed(3, bl, d, MPI_INT, &idx_t);
    }
    MPI_Type_commit(&col_t);
    MPI_Type_commit(&four_t);
    MPI_Type_commit(&wab_t);
    MPI_Type_commit(&flat_t);
    MPI_Type_commit(&three_t);
    MPI_Type_commit(&idx_t);

    if (rank == 0) {
        double col[4];
        double flatbuf[2]; // a double then two ints, without padding
        char *flat = (char *)flatbuf;
        double w;
        int ab[2], six[6];

        MPI_Recv(col, 1, four_t, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (i = 0; i < 4; i++)
            CHECK(col[i] == 10 * i + 2, "column[%d] = %g\n", i, col[i]);

        MPI_Recv(flat, 1, flat_t, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        memcpy(&w, flat, sizeof w);
        memcpy(ab, flat + sizeof w, sizeof ab);
        CHECK(w == 0.25 && ab[0] == 5 && ab[1] == 6, "struct: %g %d %d\n", w, ab[0], ab[1]);

        MPI_Recv(six, 2, three_t, 3, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (i = 0; i < 6; i++)
            CHECK(six[i] == i, "six[%d] = %d\n", i, six[i]);
        MPI_Recv(six, 6, MPI_INT, 3, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(six[0] == 9 && six[1] == 0 && six[2] == 1 && six[3] == 4 && six[5] == 6, "indexed: %d %d %d %d %d\n",
              six[0], six[1], six[2], six[3], six[5]);
    } else if (rank == 1) {
        double m[4][5];
        for (i = 0; i < 4; i++)
            for (j = 0; j < 5; j++)
                m[i][j] = 10 * i + j;
        MPI_Send(&m[0][2], 1, col_t, 0, 0, MPI_COMM_WORLD);
    } else if (rank == 2) {
        struct wab s = {0.25, 5, 6};
        MPI_Send(&s, 1, wab_t, 0, 0, MPI_COMM_WORLD);
    } else if (rank == 3) {
        int v[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
        MPI_Send(v, 6, MPI_INT, 0, 0, MPI_COMM_WORLD);
        MPI_Send(v, 1, idx_t, 0, 1, MPI_COMM_WORLD);
    }

    MPI_Type_free(&col_t);
    MPI_Type_free(&four_t);
    MPI_Type_free(&wab_t);
    MPI_Type_free(&flat_t);
    MPI_Type_free(&three_t);
    MPI_Type_free(&idx_t);
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_equal_signature: OK\n");
    MPI_Finalize();
    return total != 0;
}
