// ranks: 3
//
// ok_get_status_poll.c: a small progress engine, as layered libraries
// write them. Each rank sends a block of 1024 doubles and an 8-byte
// header to its right neighbour and receives both from its left one,
// then polls the receives with MPI_Request_get_status, which reports
// completion without freeing the request. It sums a block as soon as
// its receive is reported complete, refills the header's send buffer as
// soon as its send is, and frees all requests with one MPI_Waitall at
// the end.
// Correct: MPI-4.1 §2.4 ("a request is completed by a call to wait,
// which returns, or a test or get status call which returns flag =
// true") and §3.7.6 (MPI_REQUEST_GET_STATUS sets flag = true if the
// operation is complete): once flag is true the buffers are the
// program's again, though the request stays allocated until the
// MPI_Waitall.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { N = 1024 };

int main(int argc, char **argv)
{
    int rank, size, errors = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    double *out = malloc(N * sizeof *out), *in = malloc(N * sizeof *in);
    long header = 1000 + rank, got = -1;
    for (int i = 0; i < N; i++)
        out[i] = rank + i * 0.5;

    MPI_Request req[4];
    MPI_Irecv(in, N, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(&got, 1, MPI_LONG, left, 2, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(out, N, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(&header, 1, MPI_LONG, right, 2, MPI_COMM_WORLD, &req[3]);

    int done[4] = {0, 0, 0, 0}, left_to_do = 4;
    double sum = 0;
    while (left_to_do > 0) {
        for (int k = 0; k < 4; k++) {
            int flag = 0;
            if (done[k])
                continue;
            MPI_Request_get_status(req[k], &flag, MPI_STATUS_IGNORE);
            if (!flag)
                continue;
            done[k] = 1;
            left_to_do--;
            if (k == 0)
                for (int i = 0; i < N; i++)
                    sum += in[i];
            else if (k == 1 && got != 1000 + left)
                errors++;
            else if (k == 2)
                for (int i = 0; i < N; i++)
                    out[i] = -1; /* the block may be reused */
            else if (k == 3)
                header = -1; /* and the header */
        }
    }
    MPI_Status st[4];
    MPI_Waitall(4, req, st);
    double want = 0;
    for (int i = 0; i < N; i++)
        want += left + i * 0.5;
    if (sum != want)
        errors++;
    MPI_Allreduce(MPI_IN_PLACE, &errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    free(out);
    free(in);
    MPI_Finalize();
    if (errors)
        return 1;
    if (rank == 0)
        printf("ok_get_status_poll: OK\n");
    return 0;
}
