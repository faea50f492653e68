/*
 * One request array, call after call: MPI_Waitany and MPI_Testany.
 *
 * A program that completes thousands of requests one at a time calls
 * these with the same array again and again (a collector's receives, a
 * progress loop's MPI_Testany). MPI scans the array, a few nanoseconds a
 * request; the wrapper looked every request up, a hash probe and two or
 * three cache misses each, and an array of 20000 cost ten to twenty
 * times native. So the last array the any calls were given is kept with
 * its lookups and what the cross-rank checks derive from them (which
 * requests the blocked-call record lists, the receives' communicator),
 * and a call with the same array compares the handles (sequential, no
 * lookup) and looks up only those that differ.
 *
 * The kept lookups stay right while no request in the array is made
 * again (its handle reused), started or completed by another call: each
 * of those marks the cache stale (mpidbg_req_changed), and the next call
 * rebuilds it. A request the cached call itself completes is taken out
 * of the cache first. Below MPI_THREAD_MULTIPLE only: another thread
 * could change a request between the comparison and its use. Arrays of
 * fewer than ANY_MIN requests, arrays whose receives are on more than
 * one communicator (their error handlers are swapped in order) and
 * arrays holding a nonblocking collective (its agreement is finished in
 * the call) take the plain path.
 */
#include <stdlib.h>
#include <string.h>

#include "requests.h"

#define ANY_MIN 64

uint32_t mpidbg_any_id;
int mpidbg_any_stale;

static struct mpidbg_anycache cache;
static int cap;
/* the last array that could not be kept: not tried again until one of
 * its requests changed (each of those it reached is marked) */
static const MPI_Request *rejected;
static int rejected_n;

/* wait_of is what an entry waits for (mpidbg_wait_kind), 0 nothing */
static int wait_of(const struct mpidbg_reqref *r)
{
    return r->o && r->o->rec && r->o->active ? mpidbg_wait_kind(r->o) : 0;
}

/* recv_of: the entry is an active receive that takes a shadow */
static int recv_of(const struct mpidbg_reqref *r)
{
    const struct mpidbg_robj *o = r->o;
    return o && o->rec && o->active && mpidbg_xr_is_recv(o) && o->xr != MPI_COMM_NULL && o->xr != (MPI_Comm)0;
}

/* put makes entry i of the cache r, handle h; 0 when the array cannot
 * be cached any more */
static int put(int i, MPI_Request h, const struct mpidbg_reqref *r)
{
    if (cache.h[i] != h || cache.c[i].o != r->o || cache.c[i].serial != r->serial)
        cache.version++; /* another set of requests: a poll of them is another episode */
    if (cache.kind[i])
        cache.nwaits--;
    if (cache.recv[i])
        cache.nrecv--;
    cache.h[i] = h;
    cache.c[i] = *r;
    cache.kind[i] = (uint8_t)wait_of(r);
    cache.recv[i] = (uint8_t)recv_of(r);
    /* a handle that is not a request the program holds is looked at
     * again at every call, as the plain path does */
    cache.recheck[i] = h != MPI_REQUEST_NULL && !MPIDBG_IS_BUILTIN_REQ(h) && !r->o;
    cache.nwaits += cache.kind[i] != 0;
    cache.nrecv += cache.recv[i];
    if (cache.kind[i] && i < cache.first)
        cache.first = i;
    struct mpidbg_robj *o = r->o;
    if (!o)
        return 1;
    o->any_id = cache.id;
    if (o->xc)
        return 0;
    if (cache.recv[i]) {
        if (!cache.comm)
            cache.comm = o->rec->comm;
        else if (cache.comm != o->rec->comm)
            return 0;
    }
    return 1;
}

struct mpidbg_anycache *mpidbg_any_refs(struct mpidbg_cx *cx, int count, const MPI_Request arr[])
{
    if (mpidbg_mt || !cache.arr || cache.arr != arr || cache.n != count || mpidbg_any_stale)
        return NULL;
    for (int i = 0; i < count; i++) {
        if (arr[i] == cache.h[i] && !cache.recheck[i])
            continue;
        struct mpidbg_reqref r;
        mpidbg_req_ref(cx, arr[i], "array_of_requests", i, &r);
        if (!put(i, arr[i], &r)) {
            cache.arr = NULL;
            return NULL; /* the plain path looks at the array again */
        }
    }
    return &cache;
}

struct mpidbg_anycache *mpidbg_any_keep(int count, const MPI_Request arr[], const struct mpidbg_reqref *c)
{
    cache.arr = NULL;
    if (mpidbg_mt || count < ANY_MIN || !arr || !c || (arr == rejected && count == rejected_n && !mpidbg_any_stale))
        return NULL;
    if (count > cap) {
        int n = count > 2 * cap ? count : 2 * cap;
        void *h = realloc(cache.h, sizeof *cache.h * (size_t)n);
        if (h)
            cache.h = h;
        void *cc = realloc(cache.c, sizeof *cache.c * (size_t)n);
        if (cc)
            cache.c = cc;
        void *f = realloc(cache.kind, 3 * (size_t)n);
        if (f)
            cache.kind = f;
        if (!h || !cc || !f)
            return NULL;
        cap = n;
    }
    cache.recv = cache.kind + cap;
    cache.recheck = cache.kind + 2 * cap;
    memset(cache.kind, 0, 3 * (size_t)cap);
    cache.id = ++mpidbg_any_id ? mpidbg_any_id : ++mpidbg_any_id; /* 0 is no cache */
    cache.n = count;
    cache.first = count;
    cache.nwaits = cache.nrecv = 0;
    cache.comm = 0;
    cache.version++;
    mpidbg_any_stale = 0;
    rejected = NULL;
    for (int i = 0; i < count; i++) {
        cache.h[i] = arr[i];
        cache.c[i] = c[i];
        if (!put(i, arr[i], &c[i])) {
            rejected = arr;
            rejected_n = count;
            return NULL;
        }
    }
    cache.arr = arr;
    return &cache;
}

void mpidbg_any_completed(struct mpidbg_cx *cx, struct mpidbg_anycache *a, int i, const MPI_Request arr[])
{
    struct mpidbg_robj *o = a->c[i].o;
    if (o)
        o->any_id = 0; /* this completion does not make the cache stale */
    mpidbg_req_completed(cx, &a->c[i], 1, 0);
    struct mpidbg_reqref r;
    mpidbg_req_ref(cx, arr[i], "array_of_requests", i, &r); /* MPI_REQUEST_NULL, or the persistent request, inactive */
    if (!put(i, arr[i], &r))
        cache.arr = NULL;
}

int mpidbg_any_first(struct mpidbg_anycache *a)
{
    while (a->first < a->n && !a->kind[a->first])
        a->first++;
    return a->first;
}
