// ranks: 3
//
// ok_race_free_causal.c: a wildcard receive whose other candidate is
// causally after it. Rank 0 receives with MPI_ANY_SOURCE; at that point
// only rank 1 has sent: rank 2 sends its message only after it has
// received rank 0's go-ahead, which rank 0 sends after that first receive
// completes. So rank 2's message cannot have matched the first receive
// (happens-before, MPI-4.1 §3.5), and the second MPI_ANY_SOURCE receive
// has rank 2's message as its only candidate. Rank 0 checks that the
// sources come in that order.
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
    int rank, total, v = 0, go = 1;
    MPI_Status st;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    if (rank == 0) {
        MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
        CHECK(st.MPI_SOURCE == 1 && v == 10, "first: %d from %d\n", v, st.MPI_SOURCE);
        MPI_Send(&go, 1, MPI_INT, 2, 1, MPI_COMM_WORLD);
        MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
        CHECK(st.MPI_SOURCE == 2 && v == 20, "second: %d from %d\n", v, st.MPI_SOURCE);
    } else if (rank == 1) {
        v = 10;
        MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&go, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        v = 20;
        MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_race_free_causal: OK\n");
    MPI_Finalize();
    return total != 0;
}
