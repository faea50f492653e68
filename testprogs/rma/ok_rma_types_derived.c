// ranks: 2
//
// ok_rma_types_derived.c: one-sided transfers whose origin and target
// datatypes differ but whose type signatures match (MPI-4.1 §12.3.1,
// §3.3.1: the datatypes may differ, their sequences of basic types may
// not). Rank 0 holds a 6 x 6 matrix of doubles in its window, row-major;
// rank 1 keeps a copy of what the matrix should hold and, in fence
// epochs:
// - puts a contiguous column of 6 doubles into column 2, described at
//   the target by a vector datatype (6 blocks of 1, stride 6);
// - gets row 4 into every other element of a local buffer of 12,
//   described at the origin by a vector (6 blocks of 1, stride 2);
// - accumulates 4 doubles (MPI_SUM) into a contiguous(4, MPI_DOUBLE)
//   target datatype, count 1, at row 1, column 3;
// - puts 3 doubles into a target datatype of 4 (a shorter transfer is
//   legal, as a shorter message is) at row 5;
// - copies row 1 with MPI_BYTE on both sides;
// - reads element [0][0] with MPI_Get_accumulate(MPI_NO_OP), whose origin
//   arguments MPI ignores (MPI-4.1 §12.3.4: here an int where the target
//   holds a double), and adds 1 to [0][1] with MPI_Fetch_and_op,
//   which has one datatype;
// then gets the whole matrix and compares it with its copy.
#include <mpi.h>
#include <stdio.h>

enum { N = 6 };

int main(int argc, char **argv)
{
    int rank, ok = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double *a;
    MPI_Win win;
    MPI_Win_allocate(N * N * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &a, &win);
    double m[N * N]; /* rank 1's copy of rank 0's matrix */
    for (int i = 0; i < N * N; i++) {
        a[i] = rank == 0 ? i : -1;
        m[i] = i;
    }
    MPI_Datatype column, every_other, four;
    MPI_Type_vector(N, 1, N, MPI_DOUBLE, &column);
    MPI_Type_commit(&column);
    MPI_Type_vector(N, 1, 2, MPI_DOUBLE, &every_other);
    MPI_Type_commit(&every_other);
    MPI_Type_contiguous(4, MPI_DOUBLE, &four);
    MPI_Type_commit(&four);
    double col[N], row[2 * N] = {0}, add[4] = {0.25, 0.5, 0.75, 1}, three[3] = {7, 8, 9}, bytes[N], all[N * N];
    double old = -1, got = -1, one = 1;
    for (int i = 0; i < N; i++)
        col[i] = 100 + i;
    MPI_Win_fence(0, win);
    if (rank == 1) {
        MPI_Put(col, N, MPI_DOUBLE, 0, 2, 1, column, win);
        for (int i = 0; i < N; i++)
            m[i * N + 2] = col[i];
    }
    MPI_Win_fence(0, win);
    if (rank == 1) {
        MPI_Get(row, 1, every_other, 0, 4 * N, N, MPI_DOUBLE, win);
        MPI_Accumulate(add, 4, MPI_DOUBLE, 0, 1 * N + 3, 1, four, MPI_SUM, win);
        MPI_Put(three, 3, MPI_DOUBLE, 0, 5 * N, 1, four, win);
    }
    MPI_Win_fence(0, win);
    if (rank == 1) {
        for (int i = 0; i < N; i++)
            if (row[2 * i] != m[4 * N + i] || row[2 * i + 1] != 0)
                ok = 0;
        for (int i = 0; i < 4; i++)
            m[1 * N + 3 + i] += add[i];
        for (int i = 0; i < 3; i++)
            m[5 * N + i] = three[i];
        MPI_Get(bytes, N * sizeof(double), MPI_BYTE, 0, 1 * N, N * sizeof(double), MPI_BYTE, win);
        int ignored = 0; /* MPI_NO_OP: MPI ignores the origin's buffer, count and datatype */
        MPI_Get_accumulate(&ignored, 1, MPI_INT, &got, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, MPI_NO_OP, win);
        MPI_Fetch_and_op(&one, &old, MPI_DOUBLE, 0, 1, MPI_SUM, win);
    }
    MPI_Win_fence(0, win);
    if (rank == 1) {
        for (int i = 0; i < N; i++)
            if (bytes[i] != m[1 * N + i])
                ok = 0;
        if (got != m[0] || old != m[1])
            ok = 0;
        m[1] += one;
        MPI_Get(all, N * N, MPI_DOUBLE, 0, 0, N * N, MPI_DOUBLE, win);
    }
    MPI_Win_fence(0, win);
    for (int i = 0; rank == 1 && i < N * N; i++)
        if (all[i] != m[i])
            ok = 0;
    MPI_Type_free(&column);
    MPI_Type_free(&every_other);
    MPI_Type_free(&four);
    MPI_Win_free(&win);
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rank == 0 && ok)
        printf("ok_rma_types_derived: OK\n");
    MPI_Finalize();
    return ok ? 0 : 1;
}
