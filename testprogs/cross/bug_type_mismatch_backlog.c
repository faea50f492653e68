// ranks: 2
//
// bug_type_mismatch_backlog.c: a producer streams 70000 particle records
// (two doubles each, as a committed contiguous type) to a consumer with
// MPI_Isend before the consumer has posted any receive, so tens of
// thousands of messages wait at once; one record early in the stream is
// sent as four MPI_FLOATs (the same 16 bytes) from a stale code path, and
// one near its end as two MPI_LONG_LONGs from another.
// The consumer then receives the records one by one with the record type.
// Breaks MPI-4.1 §3.3.1: the type signature of each send (FLOAT x4,
// LONG_LONG x2) must match the receive's (DOUBLE x2), whatever the sizes.
// Expected: type-mismatch at the consumer's MPI_Recv, once for each stale
// MPI_Isend, naming it: the later one lies beyond what two ranks of a
// host describe to each other in shared memory (65536 messages), and is
// still checked.
#include <mpi.h>
#include <stdlib.h>

enum { NREC = 70000, STALE = 2000, LATE = 68000 };

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
            else if (i == LATE)
                MPI_Isend(&out[2 * i], 2, MPI_LONG_LONG, 1, 1, MPI_COMM_WORLD, &req[i]); // bug: two integers, not a record
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
            MPI_Recv(in, 1, rec, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "type-mismatch" "FLOAT" "type-mismatch" "LONG_LONG"
            sum += in[0];
        }
        if (sum < 0)
            return 1;
    }
    MPI_Type_free(&rec);
    MPI_Finalize();
    return 0;
}
