/*
 * Receives completed out of their posting order.
 *
 * A completed receive takes the shadow of its message (xr_p2p.c) by the
 * message's source and tag, and the shadows of one source and tag come
 * in the order of their messages. MPI-4.1 §3.5 gives a message to the
 * first posted of the receives that match it, and §3.7.4 lets the
 * program complete them in any order: a header receive and a payload
 * receive on one source and tag, the payload waited for first, took the
 * header's shadow, and the types looked mismatched.
 *
 * So the receive requests of the rank are listed as they are posted or
 * started (with the thread that posted them: the order of two threads'
 * postings is not MPI's to keep), and before a receive takes its shadow,
 * every receive posted before it by the same thread, on the same
 * communicator, still pending, that matches the message's source and
 * tag, had its own message first:
 * - one that names that source and tag took the message before;
 * - one with a wildcard took one before if its own message has that
 *   source and tag: MPI_Request_get_status tells, once it completed;
 *   before (its data still on the way), or under MPI_THREAD_MULTIPLE,
 *   where another thread may be freeing its handle, it cannot be known,
 *   and neither receive checks its shadow (unsure).
 * Their shadows are taken first and kept for them; each takes its own
 * at its completion. A receive MPI_Cancel took back without a message
 * shows as complete and cancelled, and takes nothing; under
 * MPI_THREAD_MULTIPLE a pending cancelled receive of that source and tag
 * is taken to have had a message, and the shadow taken for it belongs
 * to a later one: the checks of both may then be wrong, or the later
 * one's wait for its shadow may not end.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"

struct posted {
    const struct mpidbg_robj *o;
    uint32_t serial;
    int32_t peer, tag;
    uint64_t post;
    uint64_t comm;
    pthread_t by;
    int32_t unsure;
    struct mpidbg_xr_got *kept; /* its shadow, taken by a later receive */
};

/* Below MPI_THREAD_MULTIPLE the calls come one at a time and need no
 * lock; above, a spin lock (the shim's own pthread_mutex_lock would be
 * its wrapper, which follows the program's locks) */
static int mu;

static void lock(void)
{
    if (!mpidbg_mt)
        return;
    while (__atomic_test_and_set(&mu, __ATOMIC_ACQUIRE))
        sched_yield();
}

static void unlock(void)
{
    if (mpidbg_mt)
        __atomic_clear(&mu, __ATOMIC_RELEASE);
}
static struct posted *list; /* in posting order; [head, n) may be live */
static int head, n, cap;

static int alive(const struct posted *p)
{
    return p->o && p->o->serial == p->serial && p->o->active && p->o->xr_post == p->post;
}

static void forget(struct posted *p)
{
    free(p->kept);
    p->kept = NULL;
    p->o = NULL;
}

/* compact drops the entries of receives that completed or went */
static void compact(void)
{
    int k = 0;
    for (int i = head; i < n; i++) {
        if (list[i].o && !alive(&list[i]))
            forget(&list[i]);
        if (list[i].o)
            list[k++] = list[i];
    }
    head = 0;
    n = k;
}

/* advance moves head past the entries of receives that completed or
 * went: completions in posting order cost O(1) each, and a scan for the
 * earlier receives starts at the first that may be live */
static void advance(void)
{
    while (head < n && (!list[head].o || !alive(&list[head]))) {
        forget(&list[head]);
        head++;
    }
    if (head == n)
        head = n = 0;
}

static int by_message(int call)
{
    return call == MPIDBG_CALL_MPI_Imrecv || call == MPIDBG_CALL_MPI_Imrecv_c || call == MPIDBG_CALL_MPI_Isendrecv ||
           call == MPIDBG_CALL_MPI_Isendrecv_c || call == MPIDBG_CALL_MPI_Isendrecv_replace ||
           call == MPIDBG_CALL_MPI_Isendrecv_replace_c;
}

void mpidbg_xr_posted(const struct mpidbg_robj *o)
{
    if (!mpidbg_xr_on || !o->rec || !mpidbg_xr_is_recv(o) || by_message(o->call) || o->rec->peer == MPI_PROC_NULL)
        return;
    lock();
    if (n == cap)
        compact();
    if (n == cap) {
        int c = cap ? 2 * cap : 64;
        struct posted *v = realloc(list, sizeof *v * (size_t)c);
        if (!v) {
            unlock();
            return;
        }
        list = v;
        cap = c;
    }
    list[n++] = (struct posted){o, o->serial, o->rec->peer, o->rec->tag, o->xr_post, o->rec->comm, pthread_self(), 0, NULL};
    unlock();
}

/* had_first says whether the pending receive p took a message of src
 * and tag before: 1 yes, 0 no, -1 cannot tell. */
static int had_first(const struct posted *p, int src, int tag)
{
    if ((p->peer != src && p->peer != MPI_ANY_SOURCE) || (p->tag != tag && p->tag != MPI_ANY_TAG))
        return 0; /* it does not match the message */
    int exact = p->peer == src && p->tag == tag;
    if (mpidbg_mt)
        return exact ? 1 : -1;
    MPI_Request r = (MPI_Request)p->o->handle;
    MPI_Status st;
    int flag = 0, cancelled = 0;
    if (PMPI_Request_get_status(r, &flag, &st) != MPI_SUCCESS)
        return exact ? 1 : -1;
    if (!flag)
        return exact ? 1 : -1; /* matched (MPI-4.1 §3.5), its data still on the way */
    if (PMPI_Test_cancelled(&st, &cancelled) == MPI_SUCCESS && cancelled)
        return 0;
    return st.MPI_SOURCE == src && st.MPI_TAG == tag;
}

int mpidbg_xr_order(struct mpidbg_cobj *co, MPI_Comm xr, const struct mpidbg_robj *o, uint32_t serial, uint64_t post,
                    int src, int tag, struct mpidbg_xr_got *g)
{
    g->unsure = 0;
    if (!__atomic_load_n(&n, __ATOMIC_RELAXED))
        return 0;
    lock();
    advance();
    int me = -1;
    for (int i = head; i < n && me < 0 && o; i++)
        if (list[i].o == o && list[i].serial == serial && list[i].post == post)
            me = i;
    if (me >= 0 && list[me].kept) {
        memcpy(g, list[me].kept, sizeof *g);
        g->unsure = list[me].unsure;
        forget(&list[me]);
        advance();
        unlock();
        return 1;
    }
    int unsure = me >= 0 && list[me].unsure;
    pthread_t by = me >= 0 ? list[me].by : pthread_self();
    uint64_t comm = co->handle;
    /* the entries before this receive's (all of them for a blocking one) */
    int end = me >= 0 ? me : n;
    for (int i = head; i < end; i++) {
        struct posted *p = &list[i];
        if (!p->o || p->post >= post || p->kept || p->comm != comm || !pthread_equal(p->by, by) || !alive(p))
            continue;
        int first = had_first(p, src, tag);
        if (first < 0) {
            p->unsure = unsure = 1;
        } else if (first) {
            struct mpidbg_xr_got *k = malloc(sizeof *k);
            if (!k) {
                p->unsure = unsure = 1;
                continue;
            }
            mpidbg_xr_pull(co, xr, src, tag, k);
            p->kept = k;
        }
    }
    if (me >= 0)
        forget(&list[me]);
    advance();
    unlock();
    g->unsure = unsure;
    return 0;
}
