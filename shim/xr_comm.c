/*
 * Shadow communicators and job-wide communicator ids.
 *
 * Every communicator the program makes through a wrapped call (and
 * MPI_COMM_WORLD, MPI_COMM_SELF) gets a shadow: a duplicate made in the
 * same collective call, so every member makes it at the same point
 * (MPI_Comm_dup is collective over the new communicator, MPI-4.1 §7.4.2;
 * the shim starts it as MPI_Comm_idup and waits for it at once, yielding
 * the processor, xr_wait.c).
 *
 * A shadow carries none of the program's attributes: duplicating a
 * communicator runs the copy callback of every attribute cached on it,
 * and freeing the duplicate the delete callbacks (§7.7.2), which would
 * show the program communicators it never made (a library counting
 * references in them would count wrong). A communicator that
 * MPI_Comm_dup made holds copies of its parent's attributes, so its
 * shadow is a duplicate of the parent's shadow instead, which holds none;
 * every other constructor makes a communicator without attributes.
 * The shadow carries the descriptions of the program's messages and the
 * collectives' agreement; being a different communicator, it never
 * matches the program's own traffic (§7.1.2). Its error handler is
 * MPI_ERRORS_RETURN: a failure in the shim's own traffic is noted, never
 * fatal.
 *
 * Not shadowed, so not checked across ranks: communicators made by calls
 * the shim does not see (MPI's own, adopted ones) and MPI_Comm_idup's,
 * whose completion differs between ranks (a blocking duplicate there could
 * deadlock a correct program).
 *
 * The job-wide id: MPI_COMM_WORLD is 1; another intracommunicator's is
 * chosen by its rank 0 ((world rank + 1) << 32 | a counter) and
 * broadcast on the shadow. The deadlock detector uses it to tell which
 * ranks wait in the same collective.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"

int mpidbg_xr_on;
int mpidbg_xr_zero;
static uint64_t gid_counter;
/* peers is read by the deadlock watcher's thread, which the writer lock
 * (a no-op below MPI_THREAD_MULTIPLE) does not exclude */
static pthread_mutex_t peers_mu = PTHREAD_MUTEX_INITIALIZER;

static int32_t *peers_of(MPI_Comm c, int inter, int *n)
{
    MPI_Group g, wg;
    *n = 0;
    if ((inter ? PMPI_Comm_remote_group(c, &g) : PMPI_Comm_group(c, &g)) != MPI_SUCCESS)
        return NULL;
    int size = 0;
    PMPI_Group_size(g, &size);
    int32_t *out = malloc(sizeof *out * (size ? size : 1));
    int *in = malloc(sizeof *in * (size ? size : 1)), *wr = malloc(sizeof *wr * (size ? size : 1));
    if (out && in && wr && PMPI_Comm_group(MPI_COMM_WORLD, &wg) == MPI_SUCCESS) {
        for (int i = 0; i < size; i++)
            in[i] = i;
        if (PMPI_Group_translate_ranks(g, size, in, wg, wr) == MPI_SUCCESS) {
            for (int i = 0; i < size; i++)
                out[i] = wr[i] == MPI_UNDEFINED ? -1 : wr[i];
            *n = size;
        }
        PMPI_Group_free(&wg);
    }
    PMPI_Group_free(&g);
    free(in);
    free(wr);
    if (!*n) {
        free(out);
        return NULL;
    }
    return out;
}

/* idup duplicates c, waiting as the shim waits for its own collectives. */
static int idup(MPI_Comm c, MPI_Comm *out)
{
    MPI_Request r;
    int rc = PMPI_Comm_idup(c, out, &r);
    return rc == MPI_SUCCESS ? mpidbg_xr_wait(&r) : rc;
}

/* twin makes a communicator with c's groups and ranks and none of the
 * program's attributes, collective over c: a duplicate of the shadow of
 * parent (c, or the communicator c was duplicated from), which holds
 * none, else a split of c with one colour, which keeps both (§7.4.2,
 * also for an intercommunicator) and copies nothing. */
static int twin(MPI_Comm c, MPI_Comm parent, MPI_Comm *out)
{
    struct mpidbg_cobj *po = mpidbg_hmap_get(&mpidbg_comms, MPIDBG_H(parent));
    if (po && !po->freed && mpidbg_xr_has(po))
        return idup(po->xr, out);
    int rank = 0;
    PMPI_Comm_rank(c, &rank);
    return PMPI_Comm_split(c, 0, rank, out);
}

int mpidbg_comm_twin(MPI_Comm c, MPI_Comm *out)
{
    return twin(c, c, out);
}

static int cmp_int32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* both_groups is an intercommunicator's members, its local and remote
 * groups' world ranks sorted; NULL when one is unknown or a member is
 * outside MPI_COMM_WORLD. */
static int32_t *both_groups(const int32_t *local, int nlocal, const int32_t *remote, int nremote, int *n)
{
    *n = 0;
    int32_t *all = local && remote ? malloc(sizeof *all * (size_t)(nlocal + nremote)) : NULL;
    if (!all)
        return NULL;
    memcpy(all, local, sizeof *all * (size_t)nlocal);
    memcpy(all + nlocal, remote, sizeof *all * (size_t)nremote);
    qsort(all, (size_t)(nlocal + nremote), sizeof *all, cmp_int32);
    if (all[0] < 0) {
        free(all);
        return NULL;
    }
    *n = nlocal + nremote;
    return all;
}

/* inter_gid is an intercommunicator's job-wide id. Every member of both
 * groups takes part in each intercommunicator made between the two
 * (MPI_Intercomm_create, MPI_Comm_dup, MPI_Comm_split: collective over
 * both, MPI-4.1 §7.6.2), so numbering them per pair of groups numbers
 * them alike everywhere, with no message. That holds while one thread at
 * a time makes a pair's intercommunicators; threads that make two at
 * once can number them differently on different ranks, and the deadlock
 * detector then sees two collectives where there is one (it misses the
 * deadlock rather than reporting a false one). The pair is keyed by the
 * members and by the group that holds the lowest of them; ids have bit
 * 62 set (those made by a rank are below it, windows' have bit 63). 0
 * (not known to the detector) once 512 pairs have intercommunicators. */
static uint64_t inter_gid(const int32_t *members, int n, const int32_t *local, int nlocal, const int32_t *remote,
                          int nremote)
{
    static struct {
        uint64_t key, made;
    } pairs[512];
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    const int32_t *low = remote;
    int nlow = nremote;
    for (int i = 0; i < nlocal; i++)
        if (local[i] == members[0]) {
            low = local;
            nlow = nlocal;
        }
    uint64_t key = MPIDBG_FNV64_BASIS;
    for (int i = 0; i < n; i++)
        key = mpidbg_fnv64(key, (uint32_t)members[i]);
    key = mpidbg_fnv64(key, 0xffffffffu); /* between the two lists */
    for (int i = 0; i < nlow; i++)
        key = mpidbg_fnv64(key, (uint32_t)low[i]);
    key |= 1; /* 0 marks a free entry */
    uint64_t made = 0;
    size_t cap = sizeof pairs / sizeof pairs[0];
    pthread_mutex_lock(&mu);
    for (size_t i = 0; i < cap; i++) {
        size_t k = (key + i) % cap;
        if (pairs[k].key == 0)
            pairs[k].key = key;
        if (pairs[k].key == key) {
            made = ++pairs[k].made;
            break;
        }
    }
    pthread_mutex_unlock(&mu);
    if (!made)
        return 0;
    return 1ull << 62 | (mpidbg_mix64(key ^ mpidbg_mix64(made)) & ((1ull << 62) - 1));
}

/* outside_world says whether a communicator reaches a process outside
 * this MPI_COMM_WORLD (peers as peers_of gives them): one that
 * MPI_Comm_spawn started or one of another job (MPI_Comm_connect,
 * MPI_Comm_join). Such a communicator gets no shadow: the other side
 * may never make the matching one (a spawned process does not see its
 * parent communicator made, MPI_Comm_get_parent only returns it), and
 * its processes are not ranks of the job that the report and the
 * deadlock detector know. Every member decides alike: each sees the
 * other world's members as outside its own (for an intercommunicator,
 * in either group). */
static int outside_world(const int32_t *peers, int n)
{
    for (int i = 0; i < n; i++)
        if (peers[i] < 0)
            return 1;
    return 0;
}

void mpidbg_xr_comm_new(struct mpidbg_cobj *co, MPI_Comm c, MPI_Comm from)
{
    if (!co || !mpidbg_xr_on || c == MPI_COMM_NULL)
        return;
    MPI_Comm xr = MPI_COMM_NULL;
    MPI_Request r;
    int n = 0, nm = 0, nlocal = 0;
    int32_t *peers = peers_of(c, co->inter, &n), *members = NULL;
    /* both groups of an intercommunicator: a member whose own group holds
     * a process of the other world decides as the others do */
    int32_t *local = co->inter ? peers_of(c, 0, &nlocal) : NULL;
    if ((peers && outside_world(peers, n)) || (local && outside_world(local, nlocal))) {
        free(peers);
        free(local);
        return;
    }
    /* a communicator no duplicate made holds no attributes */
    if ((from == MPI_COMM_NULL ? idup(c, &xr) : twin(c, from, &xr)) != MPI_SUCCESS) {
        free(peers);
        free(local);
        return;
    }
    PMPI_Comm_set_errhandler(xr, MPI_ERRORS_RETURN);
    uint64_t gid = 0;
    if (co->inter) {
        members = both_groups(local, nlocal, peers, n, &nm);
        if (members)
            gid = inter_gid(members, nm, local, nlocal, peers, n);
        free(local);
    } else if (c == MPI_COMM_WORLD) {
        gid = 1;
    } else {
        if (co->rank == 0)
            gid = (uint64_t)(mpidbg_world_rank + 1) << 32 | (__atomic_add_fetch(&gid_counter, 1, __ATOMIC_RELAXED) & 0xffffffffu);
        if (PMPI_Ibcast(&gid, 1, MPI_UINT64_T, 0, xr, &r) == MPI_SUCCESS)
            mpidbg_xr_wait(&r);
    }
    mpidbg_wlock();
    pthread_mutex_lock(&peers_mu);
    int32_t *old = co->peers, *old_members = co->members;
    co->xr = xr;
    co->gid = gid;
    co->coll_seq = 0;
    co->peers = peers;
    co->npeers = n;
    co->members = members;
    co->nmembers = nm;
    pthread_mutex_unlock(&peers_mu);
    mpidbg_wunlock();
    free(old);
    free(old_members);
    mpidbg_xc_comm_new(co);
}

/* A communicator may be freed while receives on it are pending (MPI-4.1
 * §7.4.3: they complete normally); their shadows then arrive on its
 * shadow, which is kept until MPI_Finalize in that case. */
struct uses {
    MPI_Comm xr;
    int n;
};

static void count_uses(void *val, void *arg)
{
    struct mpidbg_robj *o = val;
    struct uses *u = arg;
    if (o && o->live && o->active && o->xr == u->xr)
        u->n++;
}

void mpidbg_xr_comm_freed(struct mpidbg_cobj *co)
{
    if (!co || !mpidbg_xr_has(co))
        return;
    MPI_Comm xr = co->xr;
    mpidbg_wlock();
    co->xr = MPI_COMM_NULL;
    mpidbg_wunlock();
    mpidbg_xcn_free(co);
    struct uses u = {xr, 0};
    mpidbg_hmap_each(&mpidbg_requests, count_uses, &u);
    if (!u.n)
        PMPI_Comm_free(&xr);
}

/* mpidbg_xr_comm is c's object when the cross-rank checks can use it: the
 * wrapper's communicator check found it already (cx->co) unless c is not
 * the call's communicator argument (MPI_Mrecv's, from the probe). */
struct mpidbg_cobj *mpidbg_xr_comm(struct mpidbg_cx *cx, MPI_Comm c)
{
    if (!mpidbg_xr_on || c == MPI_COMM_NULL)
        return NULL;
    struct mpidbg_cobj *co = cx->co && cx->co->handle == MPIDBG_H(c) ? cx->co : mpidbg_hmap_get(&mpidbg_comms, MPIDBG_H(c));
    if (!co || co->freed || !mpidbg_xr_has(co))
        return NULL;
    return co;
}

int32_t mpidbg_xr_world_of(struct mpidbg_cobj *co, int peer)
{
    if (!co || peer < 0 || peer >= co->npeers || !co->peers)
        return -1;
    return co->peers[peer];
}

/* MPI_Mprobe and MPI_Improbe hand out a message handle; MPI_Mrecv and
 * MPI_Imrecv name no communicator, so the shim remembers whose it was,
 * and the shadow the probe claimed with it (xr_p2p.c), for every message
 * probed and not yet received, however many (MPI-4.1 §3.8.2 sets no
 * bound). The map's entries are never removed: one per handle MPI has
 * handed out, reused when MPI reuses the handle (MPICH takes message
 * handles from its request pool: as many entries as the most requests
 * and messages the program held at once). */
struct msg_rec {
    MPI_Comm c;
    int32_t rwin; /* the probe's receive window (xr_threads.c) */
    int32_t live;
    struct mpidbg_xr_got *kept; /* the message's shadow, NULL when its receive takes it */
};
static struct mpidbg_hmap msgs;

void mpidbg_xr_message(MPI_Message m, MPI_Comm c, int32_t rwin, struct mpidbg_xr_got *kept)
{
    if (m == MPI_MESSAGE_NULL || m == MPI_MESSAGE_NO_PROC) {
        mpidbg_xrw_end(rwin, -1, 0);
        mpidbg_xr_kept_free(kept);
        return;
    }
    mpidbg_wlock();
    struct msg_rec *r = mpidbg_hmap_get(&msgs, MPIDBG_H(m));
    if (!r && (r = malloc(sizeof *r)) != NULL) {
        r->live = 0;
        r->kept = NULL;
        mpidbg_hmap_put(&msgs, MPIDBG_H(m), r);
        if (mpidbg_hmap_get(&msgs, MPIDBG_H(m)) != r) {
            free(r); /* no memory for the map: the receive goes unchecked */
            r = NULL;
        }
    }
    int32_t old = r && r->live ? r->rwin : 0;
    struct mpidbg_xr_got *gone = r ? r->kept : kept;
    if (r) {
        r->c = c;
        r->rwin = rwin;
        r->live = 1;
        r->kept = kept;
    }
    mpidbg_wunlock();
    mpidbg_xr_kept_free(gone);
    mpidbg_xrw_end(old, -1, 0);
    if (!r)
        mpidbg_xrw_end(rwin, -1, 0);
}

MPI_Comm mpidbg_xr_message_comm(MPI_Message m, int32_t *rwin, struct mpidbg_xr_got **kept)
{
    MPI_Comm c = MPI_COMM_NULL;
    *rwin = 0;
    *kept = NULL;
    mpidbg_wlock();
    struct msg_rec *r = mpidbg_hmap_get(&msgs, MPIDBG_H(m));
    if (r && r->live) {
        c = r->c;
        *rwin = r->rwin;
        *kept = r->kept;
        r->kept = NULL;
        r->live = 0;
    }
    mpidbg_wunlock();
    return c;
}

struct held {
    void (*fn)(void *arg, MPI_Comm c, const struct mpidbg_xr_got *g);
    void *arg;
};

static void each_held(void *val, void *arg)
{
    struct msg_rec *r = val;
    struct held *h = arg;
    if (r && r->live && r->kept)
        h->fn(h->arg, r->c, r->kept);
}

void mpidbg_xr_messages_held(void (*fn)(void *arg, MPI_Comm c, const struct mpidbg_xr_got *g), void *arg)
{
    struct held h = {fn, arg};
    mpidbg_hmap_each(&msgs, each_held, &h);
}

/* mpidbg_comm_world_ranks copies the world ranks of a communicator's
 * peers (the remote group of an intercommunicator) for the Go side; with
 * all, of the members of its collectives (both groups of an
 * intercommunicator). */
int mpidbg_comm_world_ranks(uint64_t comm, int32_t *out, int32_t max, int32_t all)
{
    int n = -1;
    pthread_mutex_lock(&peers_mu);
    struct mpidbg_cobj *co = mpidbg_hmap_get(&mpidbg_comms, comm);
    int members = co && all && co->inter;
    const int32_t *from = !co ? NULL : members ? co->members : co->peers;
    if (from) {
        n = members ? co->nmembers : co->npeers;
        memcpy(out, from, sizeof *out * (size_t)(n < max ? n : max));
    }
    pthread_mutex_unlock(&peers_mu);
    return n;
}
