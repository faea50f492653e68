// ranks: 4
//
// ok_coll_nonblocking_step.c: the correct twin of
// bug_coll_ibarrier_ibcast.c, bug_coll_iallgather_igather.c and
// bug_coll_iskip.c. A master/worker step in which every rank calls the
// same nonblocking collectives in the same order (MPI-4.1 §6.12): the
// master reads the parameters, then every rank posts MPI_Ibcast and
// computes while it travels; MPI_Iallgather of the particle counts on
// every rank (rank 0 needs only its MPI_Igather, which follows on every
// rank too); MPI_Iallreduce of the boundary flux with every rank taking
// part (those without boundary cells contribute 0); MPI_Ibarrier at the
// end of the step, completed with MPI_Waitall together with the
// reduction. Every value is checked.
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
    int bad, rank, size, i, n, counts[8] = {0}, rootcounts[8] = {0};
    double params[3] = {0, 0, 0}, sum = 0, flux, total = -1;
    MPI_Request r[2];
    MPI_Status st[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (rank == 0) {
        params[0] = 0.25;
        params[1] = 100;
        params[2] = 1e-6;
    }
    MPI_Ibcast(params, 3, MPI_DOUBLE, 0, MPI_COMM_WORLD, &r[0]);
    for (i = 0; i < 64; i++)
        sum += 0.5 * (rank + 0.01 * i);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    CHECK(params[0] == 0.25 && params[1] == 100, "rank %d: params %g %g\n", rank, params[0], params[1]);

    n = 10 + 7 * rank;
    MPI_Iallgather(&n, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD, &r[0]);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    MPI_Igather(&n, 1, MPI_INT, rootcounts, 1, MPI_INT, 0, MPI_COMM_WORLD, &r[0]);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    for (i = 0; i < size; i++) {
        CHECK(counts[i] == 10 + 7 * i, "rank %d: counts[%d] = %d\n", rank, i, counts[i]);
        if (rank == 0)
            CHECK(rootcounts[i] == 10 + 7 * i, "rank 0: rootcounts[%d] = %d\n", i, rootcounts[i]);
    }

    flux = rank == size - 1 ? 0 : 1.0 + rank; // no boundary: contributes nothing
    MPI_Iallreduce(&flux, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r[0]);
    MPI_Ibarrier(MPI_COMM_WORLD, &r[1]);
    MPI_Waitall(2, r, st);
    CHECK(total == (size - 1) * (size - 1 + 1) / 2.0, "rank %d: flux %g\n", rank, total);
    CHECK(sum > 0, "rank %d: sum %g\n", rank, sum);

    MPI_Allreduce(&errors, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && bad == 0)
        printf("ok_coll_nonblocking_step: OK\n");
    MPI_Finalize();
    return bad != 0;
}
