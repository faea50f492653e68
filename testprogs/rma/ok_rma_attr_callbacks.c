// ranks: 2
//
// ok_rma_attr_callbacks.c: attribute callbacks run once per duplicate the
// program makes, and no more. A library-style reference-counted context is
// cached on a duplicate of MPI_COMM_WORLD with a copy callback (which
// takes a reference and passes the pointer on) and a delete callback
// (which drops one and frees the context at zero), the way numerical
// libraries keep per-communicator state. The program duplicates that
// communicator with MPI_Comm_dup and MPI_Comm_dup_with_info, creates a
// window on it and puts through a derived datatype that carries an
// attribute of its own (a type keyval with copy and delete callbacks)
// under a passive-target epoch, then frees everything. MPI-4.1 §7.7.2:
// the copy callback runs once per MPI_COMM_DUP or MPI_COMM_DUP_WITH_INFO
// of a communicator that carries the attribute, the delete callback once
// per free. Window creation may copy the attribute too (MPICH and Open
// MPI duplicate the communicator inside it), but what it copies it
// deletes again at MPI_Win_free, so the references come back; nothing
// duplicates the datatype, so its copy callback never runs and its
// delete callback runs once, at MPI_Type_free.
// Correct: must produce no findings.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int errors;
#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            errors++;                                                          \
            fprintf(stderr, __VA_ARGS__);                                      \
        }                                                                      \
    } while (0)

struct context {
    int refs;
    double tolerance;
};

static int comm_copies, comm_deletes, type_copies, type_deletes, contexts_freed;

static int copy_context(MPI_Comm old, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)old, (void)keyval, (void)extra;
    struct context *c = in;
    c->refs++;
    comm_copies++;
    *(void **)out = c;
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_context(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm, (void)keyval, (void)extra;
    struct context *c = value;
    comm_deletes++;
    if (--c->refs == 0) {
        contexts_freed++;
        free(c);
    }
    return MPI_SUCCESS;
}

static int copy_type_note(MPI_Datatype old, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)old, (void)keyval, (void)extra;
    type_copies++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_type_note(MPI_Datatype t, int keyval, void *value, void *extra)
{
    (void)t, (void)keyval, (void)value, (void)extra;
    type_deletes++;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    int rank, size, total = 0, comm_key, type_key;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Comm_create_keyval(copy_context, delete_context, &comm_key, NULL);
    MPI_Type_create_keyval(copy_type_note, delete_type_note, &type_key, NULL);

    MPI_Comm lib;
    MPI_Comm_dup(MPI_COMM_WORLD, &lib);
    struct context *ctx = malloc(sizeof *ctx);
    ctx->refs = 1;
    ctx->tolerance = 1e-8;
    MPI_Comm_set_attr(lib, comm_key, ctx);

    MPI_Comm copy1, copy2;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Comm_dup(lib, &copy1);
    MPI_Comm_dup_with_info(copy1, info, &copy2);
    MPI_Info_free(&info);
    CHECK(comm_copies == 2, "rank %d: %d copy callbacks after two duplicates\n", rank, comm_copies);
    CHECK(ctx->refs == 3, "rank %d: context has %d references after two duplicates\n", rank, ctx->refs);

    /* every third double of a row: a derived type with an attribute */
    MPI_Datatype every_third;
    MPI_Type_vector(4, 1, 3, MPI_DOUBLE, &every_third);
    MPI_Type_commit(&every_third);
    MPI_Type_set_attr(every_third, type_key, ctx);

    double *base;
    MPI_Win win;
    MPI_Win_allocate(12 * sizeof(double), sizeof(double), MPI_INFO_NULL, copy2, &base, &win);
    for (int i = 0; i < 12; i++)
        base[i] = -1;
    MPI_Barrier(copy2);

    double row[12];
    for (int i = 0; i < 12; i++)
        row[i] = 100 * rank + i;
    int peer = (rank + 1) % size;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, peer, 0, win);
    MPI_Put(row, 1, every_third, peer, 0, 1, every_third, win);
    MPI_Win_unlock(peer, win);
    MPI_Barrier(copy2);

    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    int from = (rank + size - 1) % size;
    for (int i = 0; i < 12; i++) {
        double want = i % 3 == 0 ? 100 * from + i : -1;
        CHECK(base[i] == want, "rank %d: window[%d] = %g, want %g\n", rank, i, base[i], want);
    }
    MPI_Win_unlock(rank, win);
    MPI_Win_free(&win);

    CHECK(ctx->refs == 3, "rank %d: context has %d references after the window, 3 before it\n", rank, ctx->refs);
    CHECK(type_copies == 0, "rank %d: %d type copy callbacks; nothing duplicated the type\n", rank, type_copies);
    MPI_Type_free(&every_third);
    CHECK(type_deletes == 1, "rank %d: %d type delete callbacks for one free\n", rank, type_deletes);

    MPI_Comm_free(&copy2);
    MPI_Comm_free(&copy1);
    CHECK(ctx->refs == 1 && contexts_freed == 0, "rank %d: context has %d references after two frees\n", rank, ctx->refs);
    MPI_Comm_free(&lib);
    CHECK(comm_deletes == comm_copies + 1 && contexts_freed == 1,
          "rank %d: %d copies, %d deletes, %d contexts freed at the end\n", rank, comm_copies, comm_deletes,
          contexts_freed);
    MPI_Comm_free_keyval(&comm_key);
    MPI_Type_free_keyval(&type_key);

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_rma_attr_callbacks: OK\n");
    MPI_Finalize();
    return total != 0;
}
