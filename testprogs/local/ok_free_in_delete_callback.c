// ranks: 2
//
// ok_free_in_delete_callback.c: a library keeps its state on a duplicate
// of the user's communicator, as an attribute whose delete callback
// frees what the library made: a window over the duplicate, a persistent
// receive on MPI_COMM_WORLD and a datatype. The user calls the library a
// few times and then frees the duplicate; MPI_Comm_free runs the
// callback on every member (MPI-4.1 §7.7.2), which frees the window
// collectively, the inactive persistent request (§3.9) and the type.
// Every object is freed: no leak, no finding.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

struct lib {
    MPI_Win win;
    int *base;
    MPI_Request req;
    int in;
    MPI_Datatype pair;
};

static int lib_delete(MPI_Comm c, int key, void *val, void *extra)
{
    (void)c;
    (void)key;
    (void)extra;
    struct lib *l = val;
    MPI_Win_free(&l->win);
    MPI_Request_free(&l->req);
    MPI_Type_free(&l->pair);
    free(l->base);
    free(l);
    return MPI_SUCCESS;
}

static struct lib *lib_init(MPI_Comm user, MPI_Comm *mine, int key)
{
    struct lib *l = malloc(sizeof *l);
    int rank;
    MPI_Comm_dup(user, mine);
    MPI_Comm_rank(*mine, &rank);
    l->base = malloc(sizeof *l->base);
    MPI_Win_create(l->base, sizeof(int), sizeof(int), MPI_INFO_NULL, *mine, &l->win);
    *l->base = -1;
    MPI_Recv_init(&l->in, 1, MPI_INT, 1 - rank, 42, MPI_COMM_WORLD, &l->req);
    MPI_Type_contiguous(2, MPI_INT, &l->pair);
    MPI_Type_commit(&l->pair);
    MPI_Comm_set_attr(*mine, key, l);
    return l;
}

/* one step: each rank puts its step number into the other's window and
 * sends it once more as a message the persistent receive takes */
static int lib_step(struct lib *l, MPI_Comm mine, int step)
{
    int rank, v = step, pair[2] = {step, step + 1}, back[2];
    MPI_Status st[2];
    MPI_Comm_rank(mine, &rank);
    MPI_Win_fence(0, l->win);
    MPI_Put(&v, 1, MPI_INT, 1 - rank, 0, 1, MPI_INT, l->win);
    MPI_Win_fence(0, l->win);
    MPI_Start(&l->req);
    MPI_Send(&v, 1, MPI_INT, 1 - rank, 42, MPI_COMM_WORLD);
    MPI_Wait(&l->req, &st[0]);
    MPI_Sendrecv(pair, 1, l->pair, 1 - rank, 7, back, 1, l->pair, 1 - rank, 7, mine, &st[1]);
    return *l->base == step && l->in == step && back[1] == step + 1;
}

int main(int argc, char **argv)
{
    int rank, key, ok = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, lib_delete, &key, NULL);
    MPI_Comm mine;
    struct lib *l = lib_init(MPI_COMM_WORLD, &mine, key);
    for (int step = 0; step < 3; step++)
        ok &= lib_step(l, mine, step);
    MPI_Comm_free(&mine); /* the callback frees the library's objects */
    MPI_Comm_free_keyval(&key);
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0)
        printf(ok ? "ok_free_in_delete_callback: OK\n" : "ok_free_in_delete_callback: WRONG DATA\n");
    MPI_Finalize();
    return ok ? 0 : 1;
}
