// ranks: 4
//
// ok_coll_root_agreed.c: the correct twin of bug_coll_gather_root.c and
// bug_coll_reduce_root.c. The rank that read the mesh is found by every
// rank with MPI_Allreduce(MPI_MAXLOC) before it is used as the root, so
// the root argument is the same everywhere (MPI-4.1 §6.1): MPI_Gather of
// the cell counts, MPI_Reduce of the residuals and MPI_Igather with that
// root, then MPI_Reduce at a root every rank computes alike (the last
// rank). Every value is checked.
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
    int bad, rank, size, i, root, ncells, counts[8] = {0}, again[8] = {0};
    double res, total = 0, last = 0;
    struct {
        int have, rank;
    } mine, reader;
    MPI_Request r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    mine.have = rank == 1;
    mine.rank = rank;
    MPI_Allreduce(&mine, &reader, 1, MPI_2INT, MPI_MAXLOC, MPI_COMM_WORLD);
    root = reader.rank;
    CHECK(root == 1, "rank %d: root %d\n", rank, root);

    ncells = 1000 + 10 * rank;
    MPI_Gather(&ncells, 1, MPI_INT, counts, 1, MPI_INT, root, MPI_COMM_WORLD);
    res = 1.0 / (1 + rank);
    MPI_Reduce(&res, &total, 1, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD);
    MPI_Igather(&ncells, 1, MPI_INT, again, 1, MPI_INT, root, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Reduce(&res, &last, 1, MPI_DOUBLE, MPI_MAX, size - 1, MPI_COMM_WORLD);
    if (rank == root) {
        for (i = 0; i < size; i++)
            CHECK(counts[i] == 1000 + 10 * i && again[i] == counts[i], "root: counts[%d] = %d, %d\n", i, counts[i], again[i]);
        CHECK(total > 2.08 && total < 2.09, "root: total %g\n", total);
    }
    if (rank == size - 1)
        CHECK(last == 1.0, "rank %d: max %g\n", rank, last);

    MPI_Allreduce(&errors, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && bad == 0)
        printf("ok_coll_root_agreed: OK\n");
    MPI_Finalize();
    return bad != 0;
}
