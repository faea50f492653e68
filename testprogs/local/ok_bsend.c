// ranks: 2
//
// ok_bsend.c: buffered sends: a buffer sized with MPI_Pack_size +
// MPI_BSEND_OVERHEAD is attached with MPI_Buffer_attach, rank 0 sends
// three messages with MPI_Bsend and one with MPI_Ibsend (completed with
// MPI_Wait), reusing its send variable at once (legal: the data was
// copied), and detaches the buffer at the end. Rank 1 checks them.
// Correct: must produce no findings.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

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
    int rank, total, i, v, sz, dsize;
    void *detached;
    MPI_Request r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    if (rank == 0) {
        MPI_Pack_size(1, MPI_INT, MPI_COMM_WORLD, &sz);
        int bsize = 4 * (sz + MPI_BSEND_OVERHEAD);
        char *buf = malloc(bsize);
        MPI_Buffer_attach(buf, bsize);
        for (i = 0; i < 3; i++) {
            v = 100 + i;
            MPI_Bsend(&v, 1, MPI_INT, 1, i, MPI_COMM_WORLD);
        }
        v = 103;
        MPI_Ibsend(&v, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        v = -1;
        MPI_Buffer_detach(&detached, &dsize);
        CHECK(detached == buf && dsize == bsize, "rank 0: detached %p/%d\n", detached, dsize);
        free(buf);
    } else if (rank == 1) {
        for (i = 0; i < 4; i++) {
            MPI_Recv(&v, 1, MPI_INT, 0, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(v == 100 + i, "rank 1: message %d = %d\n", i, v);
        }
    }

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_bsend: OK\n");
    MPI_Finalize();
    return total != 0;
}
