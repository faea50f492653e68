// ranks: 2
//
// bug_type_mismatch_backlog.c: a producer streams 3000 particle records
// (two doubles each, as a committed contiguous type) to a consumer with
// MPI_Isend before the consumer has posted any receive, so thousands of
// messages wait at once; one record, in the middle of the stream, is
// sent as four MPI_FLOATs (the same 16 bytes) from a stale code path.
// The consumer then receives the records one by one with the record type.
// Breaks MPI-4.1 §3.3.1: the type signature of the send (FLOAT x4) must
// match the receive's (DOUBLE x2), whatever the sizes.
// Expected: type-mismatch at the consumer's MPI_Recv, once, naming the
// MPI_Isend of the stale path: a backlog longer than what the ranks of a
// host describe to each other in shared memory is still checked.
#include <mpi.h>
#include <stdlib.h>

enum { NREC = 3000, STALE = 2000 };

int main(int argc, char **argv)
{
    int rank;
    MPI_Datatype rec;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_contiguous(2, MPI_DOUBLE, &rec);
    MPI_Type_commit(&rec);

    if (rank == 0) {
        double *out = malloc(sizeof *out * 2 * NREC);
        MPI_Request *req = malloc(sizeof *req * NREC);
        for (int i = 0; i < NREC; i++) {
            out[2 * i] = i;
            out[2 * i + 1] = -i;
            if (i == STALE)
                MPI_Isend(&out[2 * i], 4, MPI_FLOAT, 1, 1, MPI_COMM_WORLD, &req[i]); // bug: four floats, not a record
            else
                MPI_Isend(&out[2 * i], 1, rec, 1, 1, MPI_COMM_WORLD, &req[i]);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < NREC; i++)
            MPI_Wait(&req[i], MPI_STATUS_IGNORE);
        free(out);
        free(req);
    } else if (rank == 1) {
        double in[2], sum = 0;
        MPI_Barrier(MPI_COMM_WORLD); // every record is on its way before the first receive
        for (int i = 0; i < NREC; i++) {
            MPI_Recv(in, 1, rec, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "type-mismatch" "FLOAT"
            sum += in[0];
        }
        if (sum < 0)
            return 1;
    }
    MPI_Type_free(&rec);
    MPI_Finalize();
    return 0;
}
