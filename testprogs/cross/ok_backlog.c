// ranks: 3
//
// ok_backlog.c: two producers stream 17000 records each (two doubles, a
// committed contiguous type) to a consumer with MPI_Isend before the
// consumer has posted any receive, on two tags (even and odd records),
// and each ends with a count as MPI_LONG on a third tag. The consumer
// takes the counts first, with MPI_ANY_SOURCE and its status, then the
// records of each producer with MPI_ANY_TAG, in the order they were sent
// (MPI-4.1 §3.5: messages of one sender are not overtaken). Every
// signature matches and every message is received: no finding, also when
// the backlog is longer than what the ranks of a host describe to each
// other in shared memory (16384 messages per pair for three ranks).
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { NREC = 17000, TEVEN = 1, TODD = 2, TCOUNT = 3 };

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Datatype rec;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Type_contiguous(2, MPI_DOUBLE, &rec);
    MPI_Type_commit(&rec);
    int ok = 1;

    if (rank > 0) {
        double *out = malloc(sizeof *out * 2 * NREC);
        MPI_Request *req = malloc(sizeof *req * (NREC + 1));
        long n = NREC;
        for (int i = 0; i < NREC; i++) {
            out[2 * i] = rank * 100000 + i;
            out[2 * i + 1] = i;
            MPI_Isend(&out[2 * i], 1, rec, 0, i % 2 ? TODD : TEVEN, MPI_COMM_WORLD, &req[i]);
        }
        MPI_Isend(&n, 1, MPI_LONG, 0, TCOUNT, MPI_COMM_WORLD, &req[NREC]);
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i <= NREC; i++)
            MPI_Wait(&req[i], MPI_STATUS_IGNORE);
        free(out);
        free(req);
    } else {
        long counts[8] = {0};
        MPI_Barrier(MPI_COMM_WORLD);
        for (int k = 1; k < size; k++) {
            long n;
            MPI_Status st;
            MPI_Recv(&n, 1, MPI_LONG, MPI_ANY_SOURCE, TCOUNT, MPI_COMM_WORLD, &st);
            counts[st.MPI_SOURCE] = n;
        }
        for (int src = 1; src < size; src++)
            for (long i = 0; i < counts[src]; i++) {
                double in[2];
                MPI_Status st;
                MPI_Recv(in, 1, rec, src, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
                if (in[0] != src * 100000 + i || st.MPI_TAG != (i % 2 ? TODD : TEVEN))
                    ok = 0;
            }
    }
    MPI_Type_free(&rec);
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rank == 0 && ok)
        printf("ok_backlog: OK\n");
    MPI_Finalize();
    return ok ? 0 : 1;
}
