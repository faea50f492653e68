// ranks: 3
//
// ok_user_op.c: user-defined reductions: a commutative element-wise
// absolute maximum on MPI_DOUBLE and a non-commutative 2x2 matrix product
// on a contiguous type of 4 doubles, used in MPI_Allreduce and MPI_Reduce;
// both operations and the type are freed.
// Correct: must produce no findings.
#include <mpi.h>
#include <stdio.h>

static int errors;
#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            errors++;                                                          \
            fprintf(stderr, __VA_ARGS__);                                      \
        }                                                                      \
    } while (0)

static void absmax(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    double *a = in, *b = inout;
    int i;
    (void)dt;
    for (i = 0; i < *len; i++) {
        double x = a[i] < 0 ? -a[i] : a[i], y = b[i] < 0 ? -b[i] : b[i];
        b[i] = x > y ? x : y;
    }
}

// inout = in * inout for 2x2 matrices (row-major); MPI passes in as the
// lower-ranked operand for a non-commutative operation.
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    double *a = in, *b = inout;
    int k;
    (void)dt;
    for (k = 0; k < *len; k++, a += 4, b += 4) {
        double c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
                       a[2] * b[1] + a[3] * b[3]};
        b[0] = c[0];
        b[1] = c[1];
        b[2] = c[2];
        b[3] = c[3];
    }
}

int main(int argc, char **argv)
{
    int rank, size, total, i;
    double v[2], m[2] = {0, 0}, mat[4], prod[4];
    MPI_Op op_absmax, op_matmul;
    MPI_Datatype mat2;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Op_create(absmax, 1, &op_absmax);
    v[0] = rank % 2 ? -(double)rank : rank;
    v[1] = -1.0;
    MPI_Allreduce(v, m, 2, MPI_DOUBLE, op_absmax, MPI_COMM_WORLD);
    CHECK(m[0] == size - 1 && m[1] == 1.0, "rank %d: absmax %g %g\n", rank, m[0], m[1]);

    // rank r contributes the shear [[1, r], [0, 1]]; the ordered product is [[1, sum r], [0, 1]]
    MPI_Type_contiguous(4, MPI_DOUBLE, &mat2);
    MPI_Type_commit(&mat2);
    MPI_Op_create(matmul, 0, &op_matmul);
    mat[0] = 1;
    mat[1] = rank;
    mat[2] = 0;
    mat[3] = 1;
    for (i = 0; i < 4; i++)
        prod[i] = -1;
    MPI_Reduce(mat, prod, 1, mat2, op_matmul, 0, MPI_COMM_WORLD);
    if (rank == 0)
        CHECK(prod[0] == 1 && prod[1] == size * (size - 1) / 2 && prod[2] == 0 && prod[3] == 1,
              "matmul [%g %g; %g %g]\n", prod[0], prod[1], prod[2], prod[3]);

    MPI_Op_free(&op_absmax);
    MPI_Op_free(&op_matmul);
    MPI_Type_free(&mat2);

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_user_op: OK\n");
    MPI_Finalize();
    return total != 0;
}
