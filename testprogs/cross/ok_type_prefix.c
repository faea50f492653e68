// ranks: 3
//
// ok_type_prefix.c: partial receives that are legal. A message may be
// shorter than the receive that takes it, as long as its type signature
// is a prefix of the receive's (MPI-4.1 §3.2.4, §3.3.1): rank 0 receives
//   - 3 ints from rank 1 into a receive of 8 MPI_INT (MPI_Recv);
//   - one {int, double} struct from rank 2 into a receive of one
//     {int, double, int, double} struct (MPI_Irecv);
//   - 2 contiguous(3, INT) from rank 1 into a receive of 10 MPI_INT;
//   - an empty message from rank 2 into a receive of 4 MPI_DOUBLE;
// and checks MPI_Get_count / MPI_Get_elements and the values.
// Correct: must produce no findings.
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>

static int errors;
#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            errors++;                                                          \
            fprintf(stderr, __VA_ARGS__);                                      \
        }                                                                      \
    } while (0)

struct pair {
    int i;
    double d;
};

int main(int argc, char **argv)
{
    int rank, total, n, k;
    MPI_Status st;
    MPI_Datatype pair_t, two_pairs_t, three_t;
    struct pair p[2];
    int bl[2] = {1, 1};
    MPI_Aint disp[2] = {offsetof(struct pair, i), offsetof(struct pair, d)};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    MPI_Type_create_struct(2, bl, disp, types, &pair_t);
    MPI_Type_commit(&pair_t);
    MPI_Type_contiguous(2, pair_t, &two_pairs_t);
    MPI_Type_commit(&two_pairs_t);
    MPI_Type_contiguous(3, MPI_INT, &three_t);
    MPI_Type_commit(&three_t);

    if (rank == 0) {
        int a[10];
        double d[4];
        MPI_Request r;

        MPI_Recv(a, 8, MPI_INT, 1, 0, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_INT, &n);
        CHECK(n == 3 && a[0] == 10 && a[2] == 12, "3 of 8: count %d, a = %d %d\n", n, a[0], a[2]);

        MPI_Irecv(p, 1, two_pairs_t, 2, 1, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, &st);
        MPI_Get_count(&st, two_pairs_t, &n);
        MPI_Get_elements(&st, two_pairs_t, &k);
        CHECK(n == MPI_UNDEFINED && k == 2, "half a struct: count %d elements %d\n", n, k);
        CHECK(p[0].i == 7 && p[0].d == 2.5, "half a struct: %d %g\n", p[0].i, p[0].d);

        MPI_Recv(a, 10, MPI_INT, 1, 2, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_INT, &n);
        CHECK(n == 6 && a[5] == 5, "6 of 10: count %d, a[5] = %d\n", n, a[5]);

        MPI_Recv(d, 4, MPI_DOUBLE, 2, 3, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_DOUBLE, &n);
        CHECK(n == 0, "empty: count %d\n", n);
    } else if (rank == 1) {
        int a[6] = {0, 1, 2, 3, 4, 5};
        int b[3] = {10, 11, 12};
        MPI_Send(b, 3, MPI_INT, 0, 0, MPI_COMM_WORLD);
        MPI_Send(a, 2, three_t, 0, 2, MPI_COMM_WORLD);
    } else if (rank == 2) {
        p[0].i = 7;
        p[0].d = 2.5;
        MPI_Send(p, 1, pair_t, 0, 1, MPI_COMM_WORLD);
        MPI_Send(NULL, 0, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD);
    }

    MPI_Type_free(&three_t);
    MPI_Type_free(&two_pairs_t);
    MPI_Type_free(&pair_t);
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_type_prefix: OK\n");
    MPI_Finalize();
    return total != 0;
}
