// ranks: 2
//
// ok_persistent.c: persistent point-to-point: each rank makes a send and a
// receive request once (MPI_Send_init / MPI_Recv_init, one of them with a
// vector type), runs four iterations of MPI_Startall / MPI_Waitall,
// checking the data each time, then frees both requests (inactive) and
// the type.
// Correct: must produce no findings.
#include <mpi.h>
#include <stdio.h>

#define N 6
#define STEPS 4

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
    int rank, step, i, total;
    int out[2 * N], in[N];
    MPI_Request reqs[2];
    MPI_Status st[2];
    MPI_Datatype evens;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = rank ^ 1;

    MPI_Type_vector(N, 1, 2, MPI_INT, &evens);
    MPI_Type_commit(&evens);
    MPI_Send_init(out, 1, evens, peer, 7, MPI_COMM_WORLD, &reqs[0]);
    MPI_Recv_init(in, N, MPI_INT, peer, 7, MPI_COMM_WORLD, &reqs[1]);

    for (step = 0; step < STEPS; step++) {
        for (i = 0; i < 2 * N; i++)
            out[i] = 1000 * rank + 100 * step + i;
        MPI_Startall(2, reqs);
        MPI_Waitall(2, reqs, st);
        for (i = 0; i < N; i++)
            CHECK(in[i] == 1000 * peer + 100 * step + 2 * i, "rank %d step %d: in[%d] = %d\n", rank, step, i, in[i]);
    }

    MPI_Request_free(&reqs[0]);
    MPI_Request_free(&reqs[1]);
    MPI_Type_free(&evens);

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_persistent: OK\n");
    MPI_Finalize();
    return total != 0;
}
