// ranks: 3
//
// bug_type_mismatch_mprobe.c: rank 0 takes messages of unknown length.
// From rank 2 with MPI_Probe + MPI_Get_count + MPI_Recv (correct: rank 2
// sends MPI_INT); from rank 1 with MPI_Mprobe + MPI_Get_count + MPI_Mrecv
// as MPI_INT, but rank 1 sends MPI_FLOAT.
// Breaks MPI-4.1 §3.3.1: the send's type signature (FLOAT...) must match
// the receive's (INT...). MPI_Get_count on the probe's status counts in
// the datatype it is given, so it hides the mismatch.
// Expected: type-mismatch at the MPI_Mrecv (rank 0), the call that names
// the receive's buffer and datatype; nothing at the MPI_Recv.
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, n, i;
    MPI_Status st;
    MPI_Message msg;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    if (rank == 0) {
        MPI_Probe(2, 0, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_INT, &n);
        int *a = malloc((n + 1) * sizeof *a);
        MPI_Recv(a, n, MPI_INT, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        free(a);

        MPI_Mprobe(1, 0, MPI_COMM_WORLD, &msg, &st);
        MPI_Get_count(&st, MPI_INT, &n);
        int *b = malloc((n + 1) * sizeof *b);
        MPI_Mrecv(b, n, MPI_INT, &msg, MPI_STATUS_IGNORE); // want "type-mismatch"
        free(b);
    } else if (rank == 1) {
        float f[3];
        for (i = 0; i < 3; i++)
            f[i] = 0.5f * i;
        MPI_Send(f, 3, MPI_FLOAT, 0, 0, MPI_COMM_WORLD); // bug: rank 0 takes ints
    } else {
        int v[4] = {1, 2, 3, 4};
        MPI_Send(v, 4, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }

    MPI_Finalize();
    return 0;
}
