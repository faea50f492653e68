// ranks: 3
//
// ok_proc_null.c: a non-periodic line of ranks whose missing neighbours are
// MPI_PROC_NULL: MPI_Send/MPI_Recv, MPI_Isend/MPI_Irecv/MPI_Waitall and
// MPI_Sendrecv all name MPI_PROC_NULL at the ends. A receive from
// MPI_PROC_NULL completes at once with source MPI_PROC_NULL, tag
// MPI_ANY_TAG and count 0, and leaves the buffer alone: checked.
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
    int rank, size, total, n, mine, from_left = -7, from_right = -7;
    MPI_Status st, sts[4];
    MPI_Request r[4];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    mine = rank + 1;

    // blocking shift to the right, in two phases (even ranks send first)
    if (rank % 2 == 0) {
        MPI_Send(&mine, 1, MPI_INT, right, 0, MPI_COMM_WORLD);
        MPI_Recv(&from_left, 1, MPI_INT, left, 0, MPI_COMM_WORLD, &st);
    } else {
        MPI_Recv(&from_left, 1, MPI_INT, left, 0, MPI_COMM_WORLD, &st);
        MPI_Send(&mine, 1, MPI_INT, right, 0, MPI_COMM_WORLD);
    }
    if (left == MPI_PROC_NULL) {
        MPI_Get_count(&st, MPI_INT, &n);
        CHECK(from_left == -7 && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && n == 0,
              "rank %d: receive from MPI_PROC_NULL\n", rank);
    } else {
        CHECK(from_left == left + 1, "rank %d: from left %d\n", rank, from_left);
    }

    // nonblocking exchange with both neighbours
    from_left = from_right = -7;
    MPI_Irecv(&from_left, 1, MPI_INT, left, 1, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(&from_right, 1, MPI_INT, right, 1, MPI_COMM_WORLD, &r[1]);
    MPI_Isend(&mine, 1, MPI_INT, left, 1, MPI_COMM_WORLD, &r[2]);
    MPI_Isend(&mine, 1, MPI_INT, right, 1, MPI_COMM_WORLD, &r[3]);
    MPI_Waitall(4, r, sts);
    CHECK(from_left == (left == MPI_PROC_NULL ? -7 : left + 1), "rank %d: nonblocking left %d\n", rank, from_left);
    CHECK(from_right == (right == MPI_PROC_NULL ? -7 : right + 1), "rank %d: nonblocking right %d\n", rank, from_right);

    // sendrecv shift to the left
    from_right = -7;
    MPI_Sendrecv(&mine, 1, MPI_INT, left, 2, &from_right, 1, MPI_INT, right, 2, MPI_COMM_WORLD, &st);
    CHECK(from_right == (right == MPI_PROC_NULL ? -7 : right + 1), "rank %d: sendrecv %d\n", rank, from_right);

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_proc_null: OK\n");
    MPI_Finalize();
    return total != 0;
}
