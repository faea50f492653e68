// ranks: 2
//
// ok_type_dup.c: MPI_Type_dup of a committed vector type and of MPI_INT.
// A duplicate has the committed state of its original (MPI-4.1 §5.1.10:
// "newtype ... has the same committed state as the old oldtype"), so both
// duplicates are used without MPI_Type_commit (and committing them again
// would only draw a commit-twice warning). MPI_Type_set_name /
// MPI_Type_get_name on the duplicate; every derived type is freed, the
// duplicate of MPI_INT included (it is a new, derived handle).
// Correct: must produce no findings.
#include <mpi.h>
#include <stdio.h>
#include <string.h>

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
    int rank, i, total, len, out[8], in[8];
    char name[MPI_MAX_OBJECT_NAME];
    MPI_Datatype evens, evens_dup, int_dup;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = rank ^ 1;

    MPI_Type_vector(4, 1, 2, MPI_INT, &evens);
    MPI_Type_commit(&evens);
    MPI_Type_dup(evens, &evens_dup);
    MPI_Type_set_name(evens_dup, "evens");
    MPI_Type_get_name(evens_dup, name, &len);
    CHECK(strcmp(name, "evens") == 0 && len == 5, "rank %d: name %s\n", rank, name);
    MPI_Type_dup(MPI_INT, &int_dup);

    for (i = 0; i < 8; i++) {
        out[i] = 10 * rank + i;
        in[i] = -1;
    }
    MPI_Sendrecv(out, 1, evens_dup, peer, 0, in, 4, int_dup, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (i = 0; i < 4; i++)
        CHECK(in[i] == 10 * peer + 2 * i, "rank %d: in[%d] = %d\n", rank, i, in[i]);

    MPI_Type_free(&evens); // the duplicate stays valid
    MPI_Sendrecv(out + 1, 1, evens_dup, peer, 1, in, 1, evens_dup, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(in[2] == 10 * peer + 3, "rank %d: after freeing the original, in[2] = %d\n", rank, in[2]);

    MPI_Type_free(&evens_dup);
    MPI_Type_free(&int_dup);

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_type_dup: OK\n");
    MPI_Finalize();
    return total != 0;
}
