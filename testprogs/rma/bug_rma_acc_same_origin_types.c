// ranks: 2
//
// bug_rma_acc_same_origin_types.c: rank 0 keeps per-rank statistics in
// its window, a float sum and an int count per rank. Rank 1 adds its
// partial sum with MPI_Accumulate(MPI_SUM, MPI_FLOAT) and then, in the
// same fence epoch, counts its sample with MPI_Accumulate(MPI_SUM,
// MPI_INT), but computes the count's displacement from the wrong field
// and hits the float it has just updated. The two accumulates come from
// one origin, and accumulate_ordering (rar,raw,war,waw by default)
// orders one origin's accumulates "on a per-datatype granularity"
// (MPI-4.1 §12.7.2): an MPI_FLOAT and an MPI_INT update of one location
// are neither ordered nor atomic against each other (§12.7.1, same
// predefined datatype). mpidbg must report rma-conflict at the first
// MPI_Accumulate, with the second as the related place.
#include <mpi.h>
#include <stdlib.h>

struct stats {
    float sum;
    int count;
};

int main(int argc, char **argv)
{
    int rank, size, one = 1;
    float part = 2.5f;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    struct stats *st = calloc((size_t)size, sizeof *st);
    MPI_Win_create(st, size * (MPI_Aint)sizeof *st, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    if (rank == 1) {
        MPI_Aint sum_at = rank * (MPI_Aint)sizeof(struct stats);
        MPI_Aint count_at = sum_at; /* should be sum_at + offsetof(struct stats, count) */
        MPI_Accumulate(&part, 1, MPI_FLOAT, 0, sum_at, 1, MPI_FLOAT, MPI_SUM, win); // want "rma-conflict" "accumulates with different basic datatypes \(MPI_FLOAT and MPI_INT\).*MPI orders one origin's accumulates only when they have the same basic datatype"
        MPI_Accumulate(&one, 1, MPI_INT, 0, count_at, 1, MPI_INT, MPI_SUM, win); // related "rma-conflict"
    }
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    free(st);
    MPI_Finalize();
    return 0;
}
