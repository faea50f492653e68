// ranks: 8
//
// ok_coll_split.c: collectives on sub-communicators from MPI_Comm_split,
// on 8 ranks (oversubscribed). Rows {0-3} and {4-7}, columns {0,4},
// {1,5}... At the same point of the program the first row calls
// MPI_Bcast on its communicator while the second calls MPI_Allreduce on
// its own: different collectives, but on different communicators, which
// MPI matches separately (MPI-4.1 §6.1, §7). Then every column reduces
// with its own root, every row gathers, and the world communicator
// broadcasts; a rank with MPI_UNDEFINED colour gets MPI_COMM_NULL and
// calls nothing on it. Every value is checked.
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

int main(int argc, char **argv)
{
    int rank, size, total, row_id, col_id, rrank, rsize, crank, i;
    MPI_Comm row, col, odd;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    row_id = rank / 4;
    col_id = rank % 4;
    MPI_Comm_split(MPI_COMM_WORLD, row_id, rank, &row);
    MPI_Comm_split(MPI_COMM_WORLD, col_id, rank, &col);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2 ? 1 : MPI_UNDEFINED, rank, &odd);
    MPI_Comm_rank(row, &rrank);
    MPI_Comm_size(row, &rsize);
    MPI_Comm_rank(col, &crank);

    int v = -1;
    if (row_id == 0) {
        if (rrank == 0)
            v = 99;
        MPI_Bcast(&v, 1, MPI_INT, 0, row);
        CHECK(v == 99, "rank %d row bcast: %d\n", rank, v);
    } else {
        int one = 1;
        MPI_Allreduce(&one, &v, 1, MPI_INT, MPI_SUM, row);
        CHECK(v == rsize, "rank %d row allreduce: %d\n", rank, v);
    }

    int csum = -1, root = col_id % 2; // the root differs between columns, not within one
    MPI_Reduce(&rank, &csum, 1, MPI_INT, MPI_SUM, root, col);
    if (crank == root)
        CHECK(csum == col_id + (col_id + 4), "rank %d column reduce: %d\n", rank, csum);

    int g[4];
    MPI_Gather(&rank, 1, MPI_INT, g, 1, MPI_INT, rsize - 1, row);
    if (rrank == rsize - 1)
        for (i = 0; i < rsize; i++)
            CHECK(g[i] == 4 * row_id + i, "rank %d row gather [%d] = %d\n", rank, i, g[i]);

    if (odd != MPI_COMM_NULL) {
        int n = 0;
        MPI_Allreduce(&rank, &n, 1, MPI_INT, MPI_MAX, odd);
        CHECK(n == size - 1, "rank %d odd allreduce: %d\n", rank, n);
        MPI_Comm_free(&odd);
    }

    double w = rank == 5 ? 2.5 : 0;
    MPI_Bcast(&w, 1, MPI_DOUBLE, 5, MPI_COMM_WORLD);
    CHECK(w == 2.5, "rank %d world bcast: %g\n", rank, w);

    MPI_Comm_free(&row);
    MPI_Comm_free(&col);
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_coll_split: OK\n");
    MPI_Finalize();
    return total != 0;
}
