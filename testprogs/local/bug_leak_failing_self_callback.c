// ranks: 3
// skip[mpich]: after the failed MPI_Finalize on rank 1 MPICH's process manager kills the job, natively too, at times before another rank has ended
//
// bug_leak_failing_self_callback.c: a logging library flushes its log at
// MPI_Finalize in the delete callback of an MPI_COMM_SELF attribute, and
// the callback returns an error on the rank whose log cannot be written
// (rank 1 here). The program, which checks MPI's return codes itself
// (MPI_ERRORS_RETURN), also leaks the datatype it exchanged with.
// Warns about MPI-4.1 §5.1.9: derived datatypes are freed with
// MPI_TYPE_FREE.
// Expected: leak-type (warning) against the MPI_Type_contiguous, every
// rank, and the job ends: mpidbg does its MPI_Finalize work after the
// program's MPI_COMM_SELF callbacks, and Open MPI stops running them at
// the first one that fails, so on rank 1 the work must not depend on
// MPI reaching mpidbg's own; the other ranks wait for rank 1 in that
// work. MPI_Finalize returns what it returns natively on rank 1: the
// callback's error with MPICH (which keeps the code of the last callback
// it ran), MPI_SUCCESS with Open MPI (which ignores it).
#include <mpi.h>
#include <stdio.h>

static int log_flush(MPI_Comm comm, int key, void *attr, void *extra)
{
    int *writable = attr;
    (void)comm, (void)extra;
    MPI_Comm_free_keyval(&key);
    return *writable ? MPI_SUCCESS : MPI_ERR_OTHER;
}

int main(int argc, char **argv)
{
    int rank, size, key;
    static int writable;
    MPI_Datatype triple;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    writable = rank != 1;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, log_flush, &key, NULL);
    MPI_Comm_set_attr(MPI_COMM_SELF, key, &writable);

    MPI_Type_contiguous(3, MPI_INT, &triple); // want "leak-type"
    MPI_Type_commit(&triple);
    int out[3] = {rank, rank, rank}, in[3] = {-1, -1, -1};
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    MPI_Sendrecv(out, 1, triple, next, 0, in, 1, triple, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (in[0] != prev || in[2] != prev)
        printf("rank %d: got %d %d %d\n", rank, in[0], in[1], in[2]);
    // bug: triple is never freed

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Finalize();
    if (rc != MPI_SUCCESS && rank != 1)
        printf("rank %d: MPI_Finalize returned %d\n", rank, rc);
    return 0;
}
