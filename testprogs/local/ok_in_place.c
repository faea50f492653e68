// ranks: 3
//
// ok_in_place.c: MPI_IN_PLACE everywhere the standard allows it, with root
// 1: MPI_Allreduce (sendbuf), MPI_Gather and MPI_Reduce at the root
// (sendbuf), MPI_Scatter at the root (recvbuf), MPI_Allgather (sendbuf,
// with sendcount 0 and MPI_DATATYPE_NULL, which are ignored). Non-root
// ranks pass NULL for the arguments that are significant only at the root
// (the gather's and reduce's recvbuf, the scatter's sendbuf), which is
// legal. Checks all results.
// Correct: must produce no findings.
#include <mpi.h>
#include <stdio.h>

#define ROOT 1

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
    int rank, size, i, total;
    double v[3];
    int pair[2], all[2 * 8], mine[2];
    long s[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 8)
        MPI_Abort(MPI_COMM_WORLD, 2);
    int tri = size * (size - 1) / 2; // 0 + 1 + ... + size-1

    // allreduce in place
    for (i = 0; i < 3; i++)
        v[i] = rank + i;
    MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (i = 0; i < 3; i++)
        CHECK(v[i] == tri + size * i, "rank %d: allreduce v[%d] = %g\n", rank, i, v[i]);

    // gather in place at the root: its own pair is already in all[]
    pair[0] = rank;
    pair[1] = 10 * rank;
    if (rank == ROOT) {
        for (i = 0; i < 2 * size; i++)
            all[i] = -1;
        all[2 * ROOT] = ROOT;
        all[2 * ROOT + 1] = 10 * ROOT;
        MPI_Gather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 2, MPI_INT, ROOT, MPI_COMM_WORLD);
        for (i = 0; i < size; i++)
            CHECK(all[2 * i] == i && all[2 * i + 1] == 10 * i, "root: gather slot %d\n", i);
    } else {
        MPI_Gather(pair, 2, MPI_INT, NULL, 2, MPI_INT, ROOT, MPI_COMM_WORLD);
    }

    // reduce in place at the root
    s[0] = rank;
    s[1] = 1;
    if (rank == ROOT) {
        MPI_Reduce(MPI_IN_PLACE, s, 2, MPI_LONG, MPI_SUM, ROOT, MPI_COMM_WORLD);
        CHECK(s[0] == tri && s[1] == size, "root: reduce %ld %ld\n", s[0], s[1]);
    } else {
        MPI_Reduce(s, NULL, 2, MPI_LONG, MPI_SUM, ROOT, MPI_COMM_WORLD);
    }

    // scatter in place at the root: the root keeps its own slot where it is
    if (rank == ROOT) {
        for (i = 0; i < size; i++) {
            all[2 * i] = 100 + i;
            all[2 * i + 1] = 200 + i;
        }
        MPI_Scatter(all, 2, MPI_INT, MPI_IN_PLACE, 2, MPI_INT, ROOT, MPI_COMM_WORLD);
        CHECK(all[2 * ROOT] == 100 + ROOT, "root: scatter moved its own slot\n");
    } else {
        MPI_Scatter(NULL, 2, MPI_INT, mine, 2, MPI_INT, ROOT, MPI_COMM_WORLD);
        CHECK(mine[0] == 100 + rank && mine[1] == 200 + rank, "rank %d: scatter %d %d\n", rank, mine[0], mine[1]);
    }

    // allgather in place: each rank's slot is already filled
    for (i = 0; i < 2 * size; i++)
        all[i] = -1;
    all[2 * rank] = rank;
    all[2 * rank + 1] = -rank;
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 2, MPI_INT, MPI_COMM_WORLD);
    for (i = 0; i < size; i++)
        CHECK(all[2 * i] == i && all[2 * i + 1] == -i, "rank %d: allgather slot %d\n", rank, i);

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_in_place: OK\n");
    MPI_Finalize();
    return total != 0;
}
