// ranks: 3
//
// ok_coll_comm_idup.c: the correct twin of bug_coll_comm_idup_ibarrier.c.
// Every rank duplicates the world communicator twice with MPI_Comm_idup
// (one for the I/O layer, one for the log) while it reads its
// configuration, joins the
// nonblocking barrier that ends the set-up, and completes all three
// requests with one MPI_Waitall (in another order than it started them:
// MPI-4.1 §6.12 orders the starts, not the completions). Then every rank
// sums over both new communicators. Follows MPI-4.1 §7.4.2 (MPI_COMM_IDUP
// is collective over comm, called by every rank in the same order as the
// other collectives on it); the new communicators are used only after
// their requests complete. Every value is checked.
// Correct: must produce no findings.
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, a = 0, b = 0, errors = 0, bad = 0;
    MPI_Comm io, log;
    MPI_Request req[3];
    MPI_Status st[3];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Comm_idup(MPI_COMM_WORLD, &io, &req[2]);
    MPI_Comm_idup(MPI_COMM_WORLD, &log, &req[1]);
    MPI_Ibarrier(MPI_COMM_WORLD, &req[0]);
    MPI_Waitall(3, req, st);

    MPI_Allreduce(&rank, &a, 1, MPI_INT, MPI_SUM, io);
    MPI_Allreduce(&size, &b, 1, MPI_INT, MPI_MAX, log);
    if (a != size * (size - 1) / 2 || b != size)
        errors++;
    MPI_Comm_free(&log);
    MPI_Comm_free(&io);
    MPI_Allreduce(&errors, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(bad ? "ok_coll_comm_idup: %d errors\n" : "ok_coll_comm_idup: OK\n", bad);
    MPI_Finalize();
    return bad != 0;
}
