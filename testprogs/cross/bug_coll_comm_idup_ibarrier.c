// ranks: 3
// native: hangs
//
// bug_coll_comm_idup_ibarrier.c: an I/O layer duplicates the world
// communicator with MPI_Comm_idup to overlap that with reading its
// configuration, and every rank then joins a nonblocking barrier that
// marks the end of the set-up. The last rank writes no output and takes a
// shortcut: it skips the duplicate and goes straight to the barrier.
// Breaks MPI-4.1 §7.4.2 (MPI_COMM_IDUP is collective over the group of
// comm) and §6.12 (nonblocking collectives are matched in the order they
// are called on a communicator): rank 2's MPI_Ibarrier meets the others'
// MPI_Comm_idup.
// Expected: collective-mismatch at rank 0's MPI_Comm_idup, with rank 2's
// MPI_Ibarrier as a related line, and deadlock at rank 0's MPI_Waitall
// (the lowest rank of the deadlock; the job then ends).
//
// Natively MPICH and Open MPI hang or fail inside the duplication.
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, writers = 0;
    MPI_Comm io = MPI_COMM_NULL;
    MPI_Request req[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Status st[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int writes = rank != size - 1;
    if (writes) // bug: every rank must call the duplication
        MPI_Comm_idup(MPI_COMM_WORLD, &io, &req[0]); // want "collective-mismatch"
    writers = writes; // stands for reading the configuration meanwhile
    MPI_Ibarrier(MPI_COMM_WORLD, &req[1]); // related "collective-mismatch"
    MPI_Waitall(2, req, st); // want "deadlock"
    if (io != MPI_COMM_NULL)
        MPI_Comm_free(&io);
    if (rank == 0)
        printf("%d writers\n", writers);
    MPI_Finalize();
    return 0;
}
