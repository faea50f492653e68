// ranks: 3
// mpi: 4 (MPI_Isendrecv is MPI-4.0)
//
// ok_isendrecv_ring.c: a ring shift with the nonblocking send-receives
// of MPI-4.0: each rank passes a row of doubles to its right neighbour
// with MPI_Isendrecv and a counter with MPI_Isendrecv_replace, overlaps
// both with local work, and completes them with MPI_Wait and MPI_Waitall.
// Correct (MPI-4.1 §3.10: the request completes both the send and the
// receive). Every message is received: no lost-message, no hang, whatever
// the status MPI returns for these requests (MPICH 4.0 returns an empty
// one).
#include <mpi.h>
#include <stdio.h>

enum { N = 16, STEPS = 3 };

int main(int argc, char **argv)
{
    int rank, size, errors = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    double row[N], from_left[N];
    long counter = rank;
    for (int i = 0; i < N; i++)
        row[i] = rank * 100 + i;

    for (int step = 0; step < STEPS; step++) {
        MPI_Request req[2];
        MPI_Isendrecv(row, N, MPI_DOUBLE, right, 10 + step, from_left, N, MPI_DOUBLE, left, 10 + step, MPI_COMM_WORLD,
                      &req[0]);
        MPI_Isendrecv_replace(&counter, 1, MPI_LONG, right, 20 + step, left, 20 + step, MPI_COMM_WORLD, &req[1]);
        double local = 0;
        for (int i = 0; i < N; i++)
            local += row[i] * 0.5; /* reading a pending send buffer is allowed */
        (void)local;
        if (step % 2 == 0) {
            MPI_Wait(&req[0], MPI_STATUS_IGNORE);
            MPI_Wait(&req[1], MPI_STATUS_IGNORE);
        } else {
            MPI_Status st[2];
            MPI_Waitall(2, req, st);
        }
        int origin = (rank - step - 1 + STEPS * size) % size; /* whose row and counter arrived */
        for (int i = 0; i < N; i++)
            if (from_left[i] != origin * 100 + i)
                errors++;
        if (counter != origin)
            errors++;
        for (int i = 0; i < N; i++)
            row[i] = from_left[i];
    }
    MPI_Allreduce(MPI_IN_PLACE, &errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    if (errors)
        return 1;
    if (rank == 0)
        printf("ok_isendrecv_ring: OK\n");
    return 0;
}
