// ranks: 3
//
// bug_type_mismatch_testany_many.c: rank 0 polls 128 receives of one int
// each with MPI_Testany between bits of work, as a progress loop does;
// the workers send their items as MPI_INT, but worker 2 was changed to
// send its item 40 as a float.
// Breaks MPI-4.1 §3.3.1: the send's type signature (FLOAT) does not
// match the receive's (INT); both are 4 bytes, so nothing fails.
// Expected: type-mismatch at the receive of worker 2's items, with the
// float send as the related site; nothing else.
#include <mpi.h>

enum { N = 128 };

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        int buf[N];
        MPI_Request r[N];
        for (int i = 0; i < N; i++) {
            if (i % 2)
                MPI_Irecv(&buf[i], 1, MPI_INT, 2, i / 2, MPI_COMM_WORLD, &r[i]); // want "type-mismatch" "MPI_FLOAT"
            else
                MPI_Irecv(&buf[i], 1, MPI_INT, 1, i / 2, MPI_COMM_WORLD, &r[i]);
        }
        volatile double work = 0;
        for (int n = 0; n < N;) {
            int idx, flag;
            MPI_Testany(N, r, &idx, &flag, MPI_STATUS_IGNORE);
            if (flag && idx != MPI_UNDEFINED)
                n++;
            else
                for (int w = 0; w < 50; w++)
                    work += w;
        }
    } else if (rank <= 2) {
        for (int i = 0; i < N / 2; i++) {
            int v = rank * 1000 + i;
            float f = (float)v;
            if (rank == 2 && i == 40)
                MPI_Send(&f, 1, MPI_FLOAT, 0, i, MPI_COMM_WORLD); // bug: rank 0 receives an int
            else
                MPI_Send(&v, 1, MPI_INT, 0, i, MPI_COMM_WORLD);
        }
    }
    MPI_Finalize();
    return 0;
}
