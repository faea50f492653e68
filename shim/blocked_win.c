/*
 * One-sided synchronisation in the blocked-call record (blocked.h), so
 * that ranks stuck in MPI_Win_fence, MPI_Win_free, MPI_Win_wait,
 * MPI_Win_complete and the other calls that can block on a window take
 * part in the wait-for graph (checks/deadlock).
 *
 * MPI_Win_fence and MPI_Win_free are collective over the window's group
 * (MPI-4.1 §12.5.1, §12.2.5): each rank numbers them per window, as it
 * numbers a communicator's collectives, and the record says it waits for
 * every member to reach number n with the same call. A window's job-wide
 * id is made from its communicator's (xr_comm.c) and the number of
 * windows made on that communicator so far: MPI_Win_create and its
 * siblings are collective over it, so every member counts alike.
 *
 * Post-start-complete-wait (§12.5.2) is between ranks: MPI_Win_wait
 * waits for each origin of the exposure epoch to complete, and
 * MPI_Win_start and MPI_Win_complete for each target to post. Such a wait
 * names the other rank (MPIDBG_WAIT_SYNC); the graph holds it only while
 * that rank is in a fence or free of the same window, which it cannot
 * leave before this rank arrives: a rank there will not post or complete
 * toward this one until the collective ends. Anywhere else the other
 * rank may have done its part already, and the wait counts as
 * satisfiable.
 *
 * Passive target (lock, unlock, flush) waits for what the graph cannot
 * name: the record says the rank is blocked (MPIDBG_WAIT_OTHER), which
 * is enough for the detector to see the job stopped, and for the report
 * to tie a hang to an error found in that very call.
 *
 * Windows are few: a list searched linearly, kept after MPI_Win_free
 * (the watcher may be describing a record that names one) until the
 * handle is used again.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"

struct xwin {
    uint64_t handle, id;
    uint64_t coll;       /* fences and frees so far */
    int32_t *peers;      /* world ranks of the window's group */
    int32_t npeers;
    int32_t nexpose, naccess;
    int32_t *expose;     /* MPI_Win_post's group, as ranks of the window's group */
    int32_t *access;     /* MPI_Win_start's */
    char name[MPI_MAX_OBJECT_NAME + 16];
};

static struct xwin *wins;
static int nwins, capwins;
/* windows made per communicator (by job-wide id), for the windows' ids */
static struct {
    uint64_t gid, n;
} *made;
static int nmade, capmade;
/* the watcher's thread reads peers and names */
static pthread_mutex_t win_mu = PTHREAD_MUTEX_INITIALIZER;

static struct xwin *find(uint64_t h)
{
    for (int i = 0; i < nwins; i++)
        if (wins[i].handle == h)
            return &wins[i];
    return NULL;
}

/* made_on counts a window made on the communicator with job-wide id gid. */
static uint64_t made_on(uint64_t gid)
{
    for (int i = 0; i < nmade; i++)
        if (made[i].gid == gid)
            return ++made[i].n;
    if (nmade == capmade) {
        int cap = capmade ? 2 * capmade : 8;
        void *p = realloc(made, sizeof *made * (size_t)cap);
        if (!p)
            return 0;
        made = p;
        capmade = cap;
    }
    made[nmade].gid = gid;
    made[nmade].n = 1;
    return made[nmade++].n;
}

/* translate gives the ranks in group `to` of the n members of `from`
 * (MPI_UNDEFINED where none), malloc'd; NULL on failure. */
static int32_t *translate(MPI_Group from, MPI_Group to, int *n)
{
    *n = 0;
    int size = 0;
    if (PMPI_Group_size(from, &size) != MPI_SUCCESS || size <= 0)
        return NULL;
    int *in = malloc(sizeof *in * (size_t)size), *tr = malloc(sizeof *tr * (size_t)size);
    int32_t *out = malloc(sizeof *out * (size_t)size);
    if (in && tr && out) {
        for (int i = 0; i < size; i++)
            in[i] = i;
        if (PMPI_Group_translate_ranks(from, size, in, to, tr) == MPI_SUCCESS) {
            for (int i = 0; i < size; i++)
                out[i] = tr[i];
            *n = size;
        }
    }
    free(in);
    free(tr);
    if (!*n) {
        free(out);
        return NULL;
    }
    return out;
}

void mpidbg_blocked_win_new(MPI_Win w, MPI_Comm comm)
{
    if (!mpidbg_xr_on || w == MPI_WIN_NULL || comm == MPI_COMM_NULL)
        return;
    struct mpidbg_cobj *co = mpidbg_hmap_get(&mpidbg_comms, MPIDBG_H(comm));
    uint64_t gid = co && !co->inter ? co->gid : 0;
    int n = 0;
    int32_t *peers = NULL;
    MPI_Group g, wg;
    if (PMPI_Win_get_group(w, &g) == MPI_SUCCESS) {
        if (PMPI_Comm_group(MPI_COMM_WORLD, &wg) == MPI_SUCCESS) {
            peers = translate(g, wg, &n);
            PMPI_Group_free(&wg);
        }
        PMPI_Group_free(&g);
    }
    pthread_mutex_lock(&win_mu);
    struct xwin *x = find(MPIDBG_H(w));
    if (!x) {
        if (nwins == capwins) {
            int cap = capwins ? 2 * capwins : 8;
            void *p = realloc(wins, sizeof *wins * (size_t)cap);
            if (!p) {
                pthread_mutex_unlock(&win_mu);
                free(peers);
                return;
            }
            wins = p;
            capwins = cap;
        }
        x = &wins[nwins++];
    } else {
        free(x->peers);
        free(x->expose);
        free(x->access);
    }
    memset(x, 0, sizeof *x);
    x->handle = MPIDBG_H(w);
    uint64_t k = gid ? made_on(gid) : 0;
    if (k) /* the top bit keeps it apart from communicator ids */
        x->id = 1ull << 63 | ((gid * 1099511628211ull) ^ k) >> 1;
    x->peers = peers;
    x->npeers = n;
    const char *cn = co && co->rec && co->rec->name[0] ? co->rec->name : NULL;
    if (cn)
        snprintf(x->name, sizeof x->name, "a window of %s", cn);
    else
        snprintf(x->name, sizeof x->name, "a window");
    pthread_mutex_unlock(&win_mu);
}

/* group_of records MPI_Win_post's group (access 0) or MPI_Win_start's
 * (1) on window h, as ranks of the window's group. */
static void group_of(MPI_Win w, MPI_Group g, uint64_t h, int access)
{
    MPI_Group wg;
    int k = 0;
    int32_t *r = NULL;
    if (g != MPI_GROUP_NULL && PMPI_Win_get_group(w, &wg) == MPI_SUCCESS) {
        r = translate(g, wg, &k);
        PMPI_Group_free(&wg);
    }
    pthread_mutex_lock(&win_mu);
    struct xwin *x = find(h);
    if (x) {
        int32_t **out = access ? &x->access : &x->expose;
        free(*out);
        *out = r;
        *(access ? &x->naccess : &x->nexpose) = k;
        r = NULL;
    }
    pthread_mutex_unlock(&win_mu);
    free(r);
}

/* is_blocking: the synchronisation calls that can wait for other ranks. */
static int is_blocking(int call)
{
    switch (call) {
    case MPIDBG_CALL_MPI_Win_fence:
    case MPIDBG_CALL_MPI_Win_free:
    case MPIDBG_CALL_MPI_Win_start:
    case MPIDBG_CALL_MPI_Win_complete:
    case MPIDBG_CALL_MPI_Win_wait:
    case MPIDBG_CALL_MPI_Win_lock:
    case MPIDBG_CALL_MPI_Win_lock_all:
    case MPIDBG_CALL_MPI_Win_unlock:
    case MPIDBG_CALL_MPI_Win_unlock_all:
    case MPIDBG_CALL_MPI_Win_flush:
    case MPIDBG_CALL_MPI_Win_flush_all:
    case MPIDBG_CALL_MPI_Win_flush_local:
    case MPIDBG_CALL_MPI_Win_flush_local_all:
        return 1;
    }
    return 0;
}

void mpidbg_blocked_sync(struct mpidbg_cx *cx, struct mpidbg_rma_sync *s)
{
    if (!mpidbg_xr_on || s->win == MPI_WIN_NULL)
        return;
    uint64_t h = MPIDBG_H(s->win);
    pthread_mutex_lock(&win_mu);
    int known = find(h) != NULL;
    pthread_mutex_unlock(&win_mu);
    if (!known)
        return;
    if (s->call == MPIDBG_CALL_MPI_Win_post)
        group_of(s->win, s->group, h, 0);
    else if (s->call == MPIDBG_CALL_MPI_Win_start)
        group_of(s->win, s->group, h, 1);
    if (!is_blocking(s->call))
        return;
    /* under the lock: another thread may make a window (and move the
     * list) meanwhile; nothing in here calls MPI */
    pthread_mutex_lock(&win_mu);
    struct xwin *x = find(h);
    if (!x) {
        pthread_mutex_unlock(&win_mu);
        return;
    }
    mpidbg_blocked_begin(cx, MPIDBG_WAIT_AND);
    switch (s->call) {
    case MPIDBG_CALL_MPI_Win_fence:
    case MPIDBG_CALL_MPI_Win_free:
        mpidbg_blocked_wait_win(MPIDBG_WAIT_COLL, -1, x->handle, x->id, ++x->coll, cx->call);
        break;
    case MPIDBG_CALL_MPI_Win_wait:
        for (int i = 0; i < x->nexpose; i++)
            if (x->expose[i] >= 0)
                mpidbg_blocked_wait_win(MPIDBG_WAIT_SYNC, x->expose[i], x->handle, x->id, 0, cx->call);
        break;
    case MPIDBG_CALL_MPI_Win_start:
    case MPIDBG_CALL_MPI_Win_complete:
        for (int i = 0; i < x->naccess; i++)
            if (x->access[i] >= 0)
                mpidbg_blocked_wait_win(MPIDBG_WAIT_SYNC, x->access[i], x->handle, x->id, 0, cx->call);
        break;
    default:
        mpidbg_blocked_wait_win(MPIDBG_WAIT_OTHER, -1, x->handle, x->id, 0, cx->call);
    }
    mpidbg_blocked_publish();
    pthread_mutex_unlock(&win_mu);
    cx->xr_blocked = 1;
}

void mpidbg_blocked_sync_end(struct mpidbg_cx *cx)
{
    if (cx->xr_blocked)
        mpidbg_blocked_end();
    cx->xr_blocked = 0;
}

/* For the Go side: a window's world ranks (size, or -1) and name. */
int mpidbg_win_world_ranks(uint64_t h, int32_t *out, int32_t max)
{
    int n = -1;
    pthread_mutex_lock(&win_mu);
    struct xwin *x = find(h);
    if (x && x->peers) {
        n = x->npeers;
        memcpy(out, x->peers, sizeof *out * (size_t)(n < max ? n : max));
    }
    pthread_mutex_unlock(&win_mu);
    return n;
}

void mpidbg_win_name(uint64_t h, char *out, int n)
{
    pthread_mutex_lock(&win_mu);
    struct xwin *x = find(h);
    snprintf(out, (size_t)n, "%s", x ? x->name : "");
    pthread_mutex_unlock(&win_mu);
}
