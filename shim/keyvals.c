/*
 * MPI_Comm_create_keyval and MPI_Keyval_create, by hand: the program's
 * attribute callbacks run through trampolines, so that a delete callback
 * that fails at MPI_Finalize cannot cost the rank its Finalize work, and
 * so that the time spent in a callback (inside MPI_Comm_dup or
 * MPI_Comm_free) counts as the program's, not as a wait, as for
 * reduction functions (userops.c).
 *
 * Why: that work runs in the delete callback of the shim's own
 * MPI_COMM_SELF attribute, the last one deleted (lifecycle.c). Open MPI
 * stops deleting a communicator's attributes at the first callback that
 * returns an error, so the shim's would never run: the rank would skip
 * the exchange its peers wait in at Finalize (xr_p2p.c), and the job
 * would hang. The trampoline has the work done then, right after the
 * failing callback, the last of the program's that MPI runs, and returns
 * the error as the callback gave it. MPICH goes on to the next attribute:
 * the shim's runs last as usual, and returns what the program's last
 * callback did, so that MPI_Finalize fails as it would without it.
 *
 * Keyvals made from Fortran (MPI_COMM_CREATE_KEYVAL reaches Open MPI's
 * C layer below these names) keep their callbacks as they are.
 */
#include <stdlib.h>

#include "shim.h"

/* a keyval's callbacks as the program gave them; never freed: MPI may
 * call them until the last attribute of the keyval is deleted, after
 * MPI_Comm_free_keyval */
struct kv {
    MPI_Comm_copy_attr_function *copy;
    MPI_Comm_delete_attr_function *del;
    void *extra;
};

static int kv_copy(MPI_Comm old, int key, void *extra, void *in, void *out, int *flag)
{
    const struct kv *k = extra;
    if (!k->copy) { /* MPICH's MPI_COMM_NULL_COPY_FN */
        *flag = 0;
        return MPI_SUCCESS;
    }
    int was = mpidbg_blocked_pause(); /* the program's code, not a wait (userops.c) */
    int rc = k->copy(old, key, k->extra, in, out, flag);
    mpidbg_blocked_resume(was);
    return rc;
}

static int kv_delete(MPI_Comm comm, int key, void *val, void *extra)
{
    const struct kv *k = extra;
    int rc = MPI_SUCCESS, was = mpidbg_blocked_pause(); /* the program's code, not a wait (userops.c) */
    if (k->del)
        rc = k->del(comm, key, val, k->extra); /* NULL: MPICH's MPI_COMM_NULL_DELETE_FN */
    mpidbg_blocked_resume(was);
    if (comm == MPI_COMM_SELF)
        mpidbg_self_callback_done(rc);
    return rc;
}

/* kv_new is the trampolines' state for a keyval the program is making,
 * NULL when the shim is idle or out of memory (the program's callbacks
 * then go to MPI as they are) */
static struct kv *kv_new(MPI_Comm_copy_attr_function *copy, MPI_Comm_delete_attr_function *del, void *extra)
{
    struct kv *k = mpidbg_active ? malloc(sizeof *k) : NULL;
    if (k)
        *k = (struct kv){copy, del, extra};
    return k;
}

/* kv_made passes on what MPI said of a keyval made with trampolines */
static int kv_made(int rc, struct kv *k)
{
    if (rc != MPI_SUCCESS)
        free(k);
    return rc;
}

int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function *copy, MPI_Comm_delete_attr_function *del, int *key,
                           void *extra)
{
    struct kv *k = kv_new(copy, del, extra);
    if (!k)
        return PMPI_Comm_create_keyval(copy, del, key, extra);
    return kv_made(PMPI_Comm_create_keyval(kv_copy, kv_delete, key, k), k);
}

/* MPI_Keyval_create, deprecated since MPI-2.0, takes callbacks of the
 * same shape (Open MPI marks its declaration deprecated) */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
int MPI_Keyval_create(MPI_Copy_function *copy, MPI_Delete_function *del, int *key, void *extra)
{
    struct kv *k = kv_new((MPI_Comm_copy_attr_function *)copy, (MPI_Comm_delete_attr_function *)del, extra);
    if (!k)
        return PMPI_Keyval_create(copy, del, key, extra);
    return kv_made(PMPI_Keyval_create(kv_copy, kv_delete, key, k), k);
}
#pragma GCC diagnostic pop
