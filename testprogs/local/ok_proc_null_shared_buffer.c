// ranks: 2
//
// ok_proc_null_shared_buffer.c: an end of a non-periodic halo exchange,
// where the missing neighbour is MPI_PROC_NULL and the program posts the
// send and the receive for that side on the same column (as codes that
// reuse one column buffer for both directions at the boundary do).
// Communication with MPI_PROC_NULL neither reads nor writes the buffer
// (MPI-4.1 §3.11), so the two pending operations cannot conflict, while
// the same pair aimed at a real rank would be a buffer-overlap error.
// (MPI_Sendrecv is another matter: §3.10 requires its two buffers to be
// disjoint whatever the peers, so it is not exercised here.)
// Correct: must produce no findings.
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank;
    double column[4] = {1, 2, 3, 4};
    MPI_Request r[2];
    MPI_Status st[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Isend(column, 4, MPI_DOUBLE, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(column, 4, MPI_DOUBLE, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[1]);
    MPI_Waitall(2, r, st);
    int ok = column[0] == 1 && column[1] == 2 && column[3] == 4;
    if (rank == 0)
        printf("%s\n", ok ? "ok_proc_null_shared_buffer: OK" : "ok_proc_null_shared_buffer: a MPI_PROC_NULL receive changed the buffer");
    MPI_Finalize();
    return ok ? 0 : 1;
}
