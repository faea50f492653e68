// ranks: 2
//
// ok_type_contents.c: decoding a datatype with MPI_Type_get_envelope /
// MPI_Type_get_contents. The inner vector type that get_contents returns
// is a new handle the caller must free (MPI-4.1 §5.1.13: "the returned
// datatypes are new datatype objects, and the user is responsible for
// freeing these datatypes with MPI_TYPE_FREE"), even though MPICH gives it
// the same handle value as the original vector. The original vector and the
// outer type are used afterwards and freed too; an inner predefined type
// returned by get_contents is not freed (MPI_DOUBLE).
// Correct: must produce no findings (in particular no type-freed or
// type-double-free: the program frees two references, each once).
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
    int rank, i, total, ni, na, nd, combiner, ints[4];
    MPI_Aint addrs[4];
    MPI_Datatype vec, outer, inner[2];
    double out[12], in[12];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = rank ^ 1;

    MPI_Type_vector(3, 1, 2, MPI_DOUBLE, &vec);
    MPI_Type_contiguous(2, vec, &outer);
    MPI_Type_commit(&outer);

    MPI_Type_get_envelope(outer, &ni, &na, &nd, &combiner);
    CHECK(combiner == MPI_COMBINER_CONTIGUOUS && ni == 1 && nd == 1, "rank %d: outer envelope\n", rank);
    // the counts the envelope gave, not the arrays' sizes: larger ones are
    // legal, but Open MPI 4.1.4 then crashes in MPI_Type_get_contents
    MPI_Type_get_contents(outer, ni, na, nd, ints, addrs, inner);
    CHECK(ints[0] == 2, "rank %d: outer count %d\n", rank, ints[0]);
    MPI_Type_get_envelope(inner[0], &ni, &na, &nd, &combiner);
    CHECK(combiner == MPI_COMBINER_VECTOR, "rank %d: inner combiner %d\n", rank, combiner);
    MPI_Type_get_contents(inner[0], ni, na, nd, ints, addrs, &inner[1]);
    CHECK(ints[0] == 3 && ints[1] == 1 && ints[2] == 2 && inner[1] == MPI_DOUBLE, "rank %d: inner contents\n", rank);
    MPI_Type_free(&inner[0]); // our reference from get_contents; inner[1] is predefined

    MPI_Type_commit(&vec); // the original handle is still ours
    for (i = 0; i < 12; i++) {
        out[i] = 100 * rank + i;
        in[i] = -1;
    }
    MPI_Sendrecv(out, 1, outer, peer, 0, in, 1, outer, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(out + 1, 1, vec, peer, 1, in + 1, 1, vec, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    // vec spans 5 doubles, so outer covers elements 0 2 4 and 5 7 9; vec from 1 covers 1 3 5
    for (i = 0; i < 12; i++) {
        int covered = i <= 5 || i == 7 || i == 9;
        double want = covered ? 100 * peer + i : -1;
        CHECK(in[i] == want, "rank %d: in[%d] = %g, want %g\n", rank, i, in[i], want);
    }

    MPI_Type_free(&outer);
    MPI_Type_free(&vec);

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_type_contents: OK\n");
    MPI_Finalize();
    return total != 0;
}
