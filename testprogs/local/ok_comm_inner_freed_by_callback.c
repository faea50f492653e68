// ranks: 3
//
// ok_comm_inner_freed_by_callback.c: a library keeps a private duplicate
// of each communicator it is given, cached as an attribute of that
// communicator (as PETSc's inner communicators and mpi4py's collective
// contexts are), with an MPI_Type_contiguous it sends with. The
// attribute's delete callback frees both when the program frees the outer
// communicator: MPI runs the callback inside MPI_Comm_free, and the
// callback calls MPI_Comm_free and MPI_Type_free itself.
// Follows MPI-4.1 §7.7.2 (a delete callback may free what it cached) and
// §7.4.3. Every value is checked.
// Correct: must produce no findings (no leak of the inner communicators or
// the type: the callbacks free them).
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

struct inner {
    MPI_Comm comm;
    MPI_Datatype pair;
};

static int keyval = MPI_KEYVAL_INVALID;
static int deleted;

static int inner_delete(MPI_Comm comm, int key, void *attr, void *extra)
{
    struct inner *in = attr;
    (void)comm, (void)key, (void)extra;
    MPI_Type_free(&in->pair);
    MPI_Comm_free(&in->comm);
    free(in);
    deleted++;
    return MPI_SUCCESS;
}

// lib_comm returns the library's private communicator for comm, made on
// first use.
static struct inner *lib_comm(MPI_Comm comm)
{
    struct inner *in;
    int found;
    if (keyval == MPI_KEYVAL_INVALID)
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, inner_delete, &keyval, NULL);
    MPI_Comm_get_attr(comm, keyval, &in, &found);
    if (found)
        return in;
    in = malloc(sizeof *in);
    MPI_Comm_dup(comm, &in->comm);
    MPI_Type_contiguous(2, MPI_INT, &in->pair);
    MPI_Type_commit(&in->pair);
    MPI_Comm_set_attr(comm, keyval, in);
    return in;
}

// lib_shift sends a pair to the next rank of comm and returns the pair
// from the previous one.
static void lib_shift(MPI_Comm comm, const int out[2], int in[2])
{
    struct inner *l = lib_comm(comm);
    int rank, size;
    MPI_Comm_rank(l->comm, &rank);
    MPI_Comm_size(l->comm, &size);
    MPI_Sendrecv(out, 1, l->pair, (rank + 1) % size, 0, in, 1, l->pair, (rank + size - 1) % size, 0, l->comm, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    int rank, size, errors = 0, bad = 0;
    MPI_Comm work;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int prev = (rank + size - 1) % size;

    for (int step = 0; step < 3; step++) {
        MPI_Comm_dup(MPI_COMM_WORLD, &work);
        int out[2] = {rank, step}, in[2] = {-1, -1};
        lib_shift(work, out, in);
        lib_shift(work, out, in); // the cached one again
        if (in[0] != prev || in[1] != step)
            errors++;
        MPI_Comm_free(&work); // the callback frees the library's copy
    }
    if (deleted != 3)
        errors++;
    MPI_Allreduce(&errors, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(bad ? "ok_comm_inner_freed_by_callback: %d errors\n" : "ok_comm_inner_freed_by_callback: OK\n", bad);
    MPI_Finalize();
    return bad != 0;
}
