// ranks: 2
//
// ok_zero_size_type.c: data that is empty although the count is not zero,
// or buffers that would overlap if the data were not empty, all legal:
// a zero-length contiguous type sent with count 5 from and into NULL, a
// vector with block length 0, and an MPI_Sendrecv whose send part is empty
// (count 0) at the very address it receives into, or whose receive part
// is empty at the address it sends from.
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
    int rank, total, n, v[4] = {1, 2, 3, 4};
    MPI_Datatype nothing, gaps;
    MPI_Status st;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = rank ^ 1;

    MPI_Type_contiguous(0, MPI_INT, &nothing);
    MPI_Type_commit(&nothing);
    MPI_Sendrecv(NULL, 5, nothing, peer, 0, NULL, 5, nothing, peer, 0, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == 0, "rank %d: zero-size type count %d\n", rank, n);

    MPI_Type_vector(3, 0, 2, MPI_INT, &gaps);
    MPI_Type_commit(&gaps);
    MPI_Sendrecv(v, 2, gaps, peer, 1, v, 2, gaps, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

    CHECK(v[0] == 1 && v[3] == 4, "rank %d: empty types changed data\n", rank);

    // rank 0 sends nothing from v and receives 4 ints into v; rank 1 sends
    // 4 ints from w and receives nothing into w
    int w[4] = {5, 6, 7, 8};
    if (rank == 0) {
        MPI_Sendrecv(v, 0, MPI_INT, 1, 2, v, 4, MPI_INT, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(v[0] == 5 && v[3] == 8, "rank 0: received %d..%d\n", v[0], v[3]);
    } else if (rank == 1) {
        MPI_Sendrecv(w, 4, MPI_INT, 0, 3, w, 0, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(w[0] == 5 && w[3] == 8, "rank 1: empty receive changed data\n");
    }

    MPI_Type_free(&nothing);
    MPI_Type_free(&gaps);

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_zero_size_type: OK\n");
    MPI_Finalize();
    return total != 0;
}
