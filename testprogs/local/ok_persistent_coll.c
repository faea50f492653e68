// ranks: 3
// mpi: 4 (persistent collectives are MPI-4.0)
//
// ok_persistent_coll.c: MPI-4 persistent collectives: MPI_Allreduce_init
// and MPI_Bcast_init made once, started three times with MPI_Start /
// MPI_Startall and completed with MPI_Wait / MPI_Waitall, then freed with
// MPI_Request_free. Checks every iteration.
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
    int rank, size, total, it, in, out, b[2];
    MPI_Request sum, bc, both[2];
    MPI_Status st[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Allreduce_init(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &sum);
    MPI_Bcast_init(b, 2, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &bc);

    for (it = 1; it <= 3; it++) {
        in = it * rank;
        out = -1;
        MPI_Start(&sum);
        MPI_Wait(&sum, MPI_STATUS_IGNORE);
        CHECK(out == it * size * (size - 1) / 2, "rank %d it %d: allreduce %d\n", rank, it, out);

        b[0] = rank == 0 ? it : -1;
        b[1] = rank == 0 ? -it : -1;
        in = 1;
        both[0] = sum;
        both[1] = bc;
        MPI_Startall(2, both);
        MPI_Waitall(2, both, st);
        CHECK(out == size && b[0] == it && b[1] == -it, "rank %d it %d: startall %d %d %d\n", rank, it, out, b[0], b[1]);
    }

    MPI_Request_free(&sum);
    MPI_Request_free(&bc);

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_persistent_coll: OK\n");
    MPI_Finalize();
    return total != 0;
}
