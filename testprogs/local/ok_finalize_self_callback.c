// ranks: 3
//
// ok_finalize_self_callback.c: two libraries clean up at MPI_Finalize the
// way HDF5 and PETSc do: each caches an attribute on MPI_COMM_SELF when
// it is initialised, and the attribute's delete callback, which
// MPI_Finalize runs first (in the reverse order the attributes were set,
// while MPI is still fully usable), frees what the library made: a
// duplicate communicator, derived datatypes, a user operation, a group
// and persistent requests. The second library's callback also sums a
// statistic over its communicator before freeing it, as a profiling
// library's report does.
// Follows MPI-4.1 §11.2.4 (attributes of MPI_COMM_SELF are deleted first
// in MPI_Finalize, in the reverse order they were set) and §7.7.2.
// Correct: must produce no findings (no leak: the callbacks free every
// object before MPI finalizes). The exit status says whether the
// callbacks ran in that order and the last reduction was right.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- library "io": a private communicator and the file types it writes with */

struct io_state {
    MPI_Comm comm;
    MPI_Datatype record, block;
    MPI_Group group;
};

static int io_key = MPI_KEYVAL_INVALID;
static int order; /* which callback ran: 1 stats, then 2 io */

static int io_terminate(MPI_Comm comm, int key, void *attr, void *extra)
{
    struct io_state *s = attr;
    (void)comm, (void)extra;
    if (order != 1)
        printf("io_terminate: ran before stats_terminate (order %d)\n", order);
    order = 2;
    MPI_Type_free(&s->block);
    MPI_Type_free(&s->record);
    MPI_Group_free(&s->group);
    MPI_Comm_free(&s->comm);
    free(s);
    MPI_Comm_free_keyval(&key);
    return MPI_SUCCESS;
}

static struct io_state *io_init(MPI_Comm comm)
{
    struct io_state *s = malloc(sizeof *s);
    MPI_Comm_dup(comm, &s->comm);
    MPI_Comm_group(s->comm, &s->group);
    int lens[2] = {1, 3};
    MPI_Aint disps[2] = {0, sizeof(double)};
    MPI_Datatype types[2] = {MPI_DOUBLE, MPI_INT};
    MPI_Type_create_struct(2, lens, disps, types, &s->record);
    MPI_Type_commit(&s->record);
    MPI_Type_contiguous(4, s->record, &s->block);
    MPI_Type_commit(&s->block);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, io_terminate, &io_key, NULL);
    MPI_Comm_set_attr(MPI_COMM_SELF, io_key, s);
    return s;
}

/* ---- library "stats": a persistent shift to the next rank, reduced once more at the end */

struct stats_state {
    MPI_Comm comm;
    MPI_Op maxabs;
    MPI_Request req[2];
    double local, from_prev;
};

static int stats_key = MPI_KEYVAL_INVALID;
static int stats_ok; /* the last reduction gave what it should */

static void maxabs_fn(void *in, void *inout, int *len, MPI_Datatype *type)
{
    double *a = in, *b = inout;
    (void)type;
    for (int i = 0; i < *len; i++) {
        double x = a[i] < 0 ? -a[i] : a[i], y = b[i] < 0 ? -b[i] : b[i];
        b[i] = x > y ? x : y;
    }
}

static int stats_terminate(MPI_Comm comm, int key, void *attr, void *extra)
{
    struct stats_state *s = attr;
    double all = 0;
    int size;
    (void)comm, (void)extra;
    order = 1;
    MPI_Allreduce(&s->local, &all, 1, MPI_DOUBLE, s->maxabs, s->comm);
    MPI_Comm_size(s->comm, &size);
    stats_ok = all == (double)(size - 1);
    if (!stats_ok)
        printf("stats_terminate: max |x| = %g, want %d\n", all, size - 1);
    MPI_Request_free(&s->req[0]);
    MPI_Request_free(&s->req[1]);
    MPI_Op_free(&s->maxabs);
    MPI_Comm_free(&s->comm);
    free(s);
    MPI_Comm_free_keyval(&key);
    return MPI_SUCCESS;
}

static struct stats_state *stats_init(MPI_Comm comm)
{
    struct stats_state *s = malloc(sizeof *s);
    MPI_Comm_dup(comm, &s->comm);
    int rank, size;
    MPI_Comm_rank(s->comm, &rank);
    MPI_Comm_size(s->comm, &size);
    MPI_Op_create(maxabs_fn, 1, &s->maxabs);
    MPI_Recv_init(&s->from_prev, 1, MPI_DOUBLE, (rank + size - 1) % size, 7, s->comm, &s->req[0]);
    MPI_Send_init(&s->local, 1, MPI_DOUBLE, (rank + 1) % size, 7, s->comm, &s->req[1]);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, stats_terminate, &stats_key, NULL);
    MPI_Comm_set_attr(MPI_COMM_SELF, stats_key, s);
    return s;
}

int main(int argc, char **argv)
{
    int rank, size, errors = 0, bad = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    struct io_state *io = io_init(MPI_COMM_WORLD);
    struct stats_state *st = stats_init(MPI_COMM_WORLD);

    struct {
        double x;
        int id[3];
    } out[4], in[4];
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    for (int step = 0; step < 3; step++) {
        for (int i = 0; i < 4; i++) {
            out[i].x = rank + 0.5 * i;
            out[i].id[0] = rank, out[i].id[1] = step, out[i].id[2] = i;
        }
        MPI_Sendrecv(out, 1, io->block, next, step, in, 1, io->block, prev, step, io->comm, MPI_STATUS_IGNORE);
        for (int i = 0; i < 4; i++)
            if (in[i].x != prev + 0.5 * i || in[i].id[0] != prev || in[i].id[1] != step || in[i].id[2] != i)
                errors++;
        st->local = (rank % 2 ? -1.0 : 1.0) * rank;
        MPI_Status statuses[2];
        MPI_Startall(2, st->req);
        MPI_Waitall(2, st->req, statuses);
        if (st->from_prev != (prev % 2 ? -1.0 : 1.0) * prev)
            errors++;
    }

    MPI_Allreduce(&errors, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(bad ? "ok_finalize_self_callback: %d errors\n" : "ok_finalize_self_callback: OK\n", bad);
    MPI_Finalize(); // both libraries clean up in here
    return bad != 0 || order != 2 || !stats_ok;
}
