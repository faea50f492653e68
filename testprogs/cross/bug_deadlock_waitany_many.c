// ranks: 3
// native: hangs
//
// bug_deadlock_waitany_many.c: rank 0 collects 100 results from each of
// two workers, completing its 200 receives one at a time with
// MPI_Waitany, and then tells the workers to stop. Worker 2 was changed
// to skip its last result; both workers wait for the stop message.
// Breaks MPI-4.1 §3.5 (progress) with §3.7.5: MPI_Waitany returns once
// one request completes, and the only request left waits for a message
// worker 2 never sends; worker 2 waits for rank 0 (a cycle).
// Expected: deadlock at rank 0's MPI_Waitany, after 199 completions.
//
// Natively MPICH hangs the same way.
#include <mpi.h>

enum { PER = 100 };

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        int buf[2 * PER], stop = 1;
        MPI_Request r[2 * PER];
        for (int i = 0; i < 2 * PER; i++)
            MPI_Irecv(&buf[i], 1, MPI_INT, 1 + i % 2, i / 2, MPI_COMM_WORLD, &r[i]);
        for (int k = 0; k < 2 * PER; k++) {
            int idx;
            MPI_Waitany(2 * PER, r, &idx, MPI_STATUS_IGNORE); // want "deadlock"
        }
        MPI_Send(&stop, 1, MPI_INT, 1, 999, MPI_COMM_WORLD);
        MPI_Send(&stop, 1, MPI_INT, 2, 999, MPI_COMM_WORLD);
    } else if (rank <= 2) {
        int n = rank == 2 ? PER - 1 : PER; // bug: worker 2 skips its last result
        for (int i = 0; i < n; i++) {
            int v = rank * 1000 + i;
            MPI_Send(&v, 1, MPI_INT, 0, i, MPI_COMM_WORLD);
        }
        int stop;
        MPI_Recv(&stop, 1, MPI_INT, 0, 999, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
