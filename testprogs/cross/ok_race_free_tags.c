// ranks: 4
//
// ok_race_free_tags.c: wildcard receives that cannot race. Workers 1-3
// each send two messages to rank 0 concurrently:
//   - a result with tag 100+rank, received with MPI_ANY_SOURCE and that
//     tag (the tag tells the senders apart: one candidate per receive);
//   - a count with tag 1, received with the worker's rank as the source
//     and MPI_ANY_TAG (one source: its messages are not overtaken,
//     MPI-4.1 §3.5); the receives are posted in rank order, so the
//     matched message never depends on timing.
// Every value is checked.
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
    int rank, size, total, i, v;
    MPI_Status st;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (rank == 0) {
        for (i = size - 1; i >= 1; i--) {
            MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 100 + i, MPI_COMM_WORLD, &st);
            CHECK(st.MPI_SOURCE == i && v == 7 * i, "tag %d: %d from %d\n", 100 + i, v, st.MPI_SOURCE);
        }
        for (i = 1; i < size; i++) {
            MPI_Recv(&v, 1, MPI_INT, i, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            CHECK(st.MPI_TAG == 1 && v == i + 1, "from %d: %d tag %d\n", i, v, st.MPI_TAG);
        }
    } else {
        v = 7 * rank;
        MPI_Send(&v, 1, MPI_INT, 0, 100 + rank, MPI_COMM_WORLD);
        v = rank + 1;
        MPI_Send(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
    }

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_race_free_tags: OK\n");
    MPI_Finalize();
    return total != 0;
}
