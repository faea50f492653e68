// ranks: 2
// native: hangs
//
// bug_startall_twice.c: a ring exchange with persistent requests kept in
// an array for MPI_Startall, and a copy-and-paste slip when the array is
// filled: its last entry is the left receive again instead of the right
// send. Each rank receives from both neighbours and sends to both.
// Breaks MPI-4.1 §3.9: MPI_Startall starts every request of the array as
// if by MPI_Start on each in turn, and it is erroneous to start a request
// that is already active.
// Expected: request-active-start at the MPI_Startall (both ranks), the
// repeated entry and the first one named.
//
// Natively both MPIs accept the call, post the left receive twice and
// never start the right send: the ring waits for ever. Under mpidbg the
// shim rejects the call (MPI_ERR_REQUEST, which MPI_ERRORS_RETURN hands
// back to the program) before any request starts.
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size;
    double from_left = -1, from_right = -1, mine;
    MPI_Request reqs[4];
    MPI_Status st[4];

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;

    mine = 100.0 + rank;
    MPI_Request recv_left, recv_right, send_left, send_right;
    MPI_Recv_init(&from_left, 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &recv_left);
    MPI_Recv_init(&from_right, 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &recv_right);
    MPI_Send_init(&mine, 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &send_left);
    MPI_Send_init(&mine, 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &send_right);
    reqs[0] = recv_left;
    reqs[1] = recv_right;
    reqs[2] = send_left;
    reqs[3] = recv_left; /* meant: send_right */

    int rc = MPI_Startall(4, reqs); // want "request-active-start" "array_of_requests\[3\] is array_of_requests\[0\] again"
    if (rc == MPI_SUCCESS)
        MPI_Waitall(4, reqs, st);
    else
        printf("rank %d: MPI_Startall failed\n", rank);

    MPI_Request_free(&recv_left);
    MPI_Request_free(&recv_right);
    MPI_Request_free(&send_left);
    MPI_Request_free(&send_right);
    MPI_Finalize();
    return 0;
}
