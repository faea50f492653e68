// ranks: 2
//
// bug_leak_op.c: a user-defined reduction (absolute maximum) is created,
// used, and never freed.
// Warns about MPI-4.1 §6.9.5: user operations are freed with MPI_OP_FREE.
// Expected: leak-op (warning), reported at MPI_Finalize against the line
// that created the operation (the MPI_Op_create, both ranks).
#include <mpi.h>
#include <stdio.h>

static void absmax(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    double *a = in, *b = inout;
    int i;
    (void)dt;
    for (i = 0; i < *len; i++) {
        double x = a[i] < 0 ? -a[i] : a[i], y = b[i] < 0 ? -b[i] : b[i];
        b[i] = x > y ? x : y;
    }
}

int main(int argc, char **argv)
{
    int rank;
    double v, m = 0;
    MPI_Op op;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    v = rank == 0 ? -5.0 : 3.0;
    MPI_Op_create(absmax, 1, &op); // want "leak-op"
    MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, op, MPI_COMM_WORLD);
    // bug: no MPI_Op_free(&op)

    if (m != 5.0)
        printf("rank %d: absmax %g\n", rank, m);
    MPI_Finalize();
    return 0;
}
