// ranks: 2
//
// bug_commit_predefined.c: a helper builds a vector type and commits both
// the old type ("to be safe") and the new one.
// Warns about MPI-4.1 §5.1.9: predefined datatypes are committed already
// (legal, but it usually means the wrong variable is committed).
// Expected: commit-predefined (warning) at the first MPI_Type_commit
// (both ranks). The program is otherwise correct.
#include <mpi.h>
#include <stdio.h>

static MPI_Datatype make_strided(MPI_Datatype base, int n, int stride)
{
    MPI_Datatype t;
    MPI_Type_commit(&base); // want "commit-predefined"
    MPI_Type_vector(n, 1, stride, base, &t);
    MPI_Type_commit(&t);
    return t;
}

int main(int argc, char **argv)
{
    int rank, i, out[6], in[6] = {0};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    for (i = 0; i < 6; i++)
        out[i] = 100 * rank + i;
    MPI_Datatype evens = make_strided(MPI_INT, 3, 2);
    MPI_Sendrecv(out, 1, evens, rank ^ 1, 0, in, 1, evens, rank ^ 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Type_free(&evens);

    if (in[2] != 100 * (rank ^ 1) + 2)
        printf("rank %d: in[2] = %d\n", rank, in[2]);
    MPI_Finalize();
    return 0;
}
