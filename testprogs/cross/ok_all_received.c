// ranks: 4
//
// ok_all_received.c: every message sent is received before MPI_Finalize
// (MPI-4.1 §11.2.2), also when the receiver does not know how many come:
// each worker sends rank-many values to rank 0 and then an end marker
// (tag 2); rank 0 drains each worker in turn with MPI_Recv(source,
// MPI_ANY_TAG) until the marker. A message that was sent synchronously
// (MPI_Issend) and one of length zero are received too, and rank 0 sends
// every worker an acknowledgement it receives. Every value is checked.
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
    int rank, size, total, i, v, n;
    MPI_Status st;
    MPI_Request r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (rank == 0) {
        for (i = 1; i < size; i++) {
            for (n = 0;; n++) {
                MPI_Recv(&v, 1, MPI_INT, i, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
                if (st.MPI_TAG == 2)
                    break;
                CHECK(v == 10 * i + n, "from %d: value %d = %d\n", i, n, v);
            }
            CHECK(n == i, "from %d: %d values\n", i, n);
            MPI_Recv(&v, 1, MPI_INT, i, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(v == -i, "from %d: issend %d\n", i, v);
            MPI_Recv(NULL, 0, MPI_INT, i, 4, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_INT, &n);
            CHECK(n == 0, "from %d: empty message of %d\n", i, n);
            v = 1000 + i;
            MPI_Send(&v, 1, MPI_INT, i, 5, MPI_COMM_WORLD);
        }
    } else {
        for (n = 0; n < rank; n++) {
            v = 10 * rank + n;
            MPI_Send(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
        }
        MPI_Send(&n, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
        v = -rank;
        MPI_Issend(&v, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        MPI_Send(NULL, 0, MPI_INT, 0, 4, MPI_COMM_WORLD);
        MPI_Recv(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(v == 1000 + rank, "rank %d ack %d\n", rank, v);
    }

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_all_received: OK\n");
    MPI_Finalize();
    return total != 0;
}
