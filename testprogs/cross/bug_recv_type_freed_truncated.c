// ranks: 2
//
// bug_recv_type_freed_truncated.c: rank 1 receives a record of 12 ints
// into a receive of one record_t, a contiguous type of 8 ints (the record
// grew to 12), and frees record_t right after posting the receive; before
// it waits it builds a type of 16 ints, which MPI may give the freed
// handle.
// Breaks MPI-4.1 §3.2.4: a message longer than the receive buffer is an
// overflow error; the receive's type is the one it was posted with
// (§5.1.9: freeing it does not change the pending receive).
// Expected: message-truncated at the MPI_Irecv (rank 1), with room for 8.
// MPI_ERRORS_RETURN lets the native run go on past MPI_ERR_TRUNCATE.
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, rec[16] = {0};
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        for (int i = 0; i < 12; i++)
            rec[i] = i;
        MPI_Request s;
        MPI_Isend(rec, 12, MPI_INT, 1, 0, MPI_COMM_WORLD, &s);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Wait(&s, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        MPI_Barrier(MPI_COMM_WORLD); /* the record is on its way, most likely here */
        MPI_Datatype record_t, wide_t;
        MPI_Type_contiguous(8, MPI_INT, &record_t);
        MPI_Type_commit(&record_t);
        MPI_Request r;
        MPI_Irecv(rec, 1, record_t, 0, 0, MPI_COMM_WORLD, &r); // want "message-truncated" "room for 8"
        MPI_Type_free(&record_t);
        MPI_Type_contiguous(16, MPI_INT, &wide_t);
        MPI_Type_commit(&wide_t);
        MPI_Status st;
        MPI_Wait(&r, &st);
        MPI_Type_free(&wide_t);
    }
    MPI_Finalize();
    return 0;
}
