/*
 * Buffer races (docs/races.md): the buffers of active requests
 * and the access tracker (track.h). requests.c calls in:
 *
 *   mpidbg_req_track_start    an operation started (a nonblocking call
 *                             returned a request, MPI_Start(all) started a
 *                             persistent one; a persistent point-to-point
 *                             receive is about to): one watched range per
 *                             buffer segment, a receive's without access, a
 *                             send's write-protected, for the operations
 *                             the sampling policy picks; small contiguous
 *                             send buffers are also copied (the cheap tier);
 *   mpidbg_req_track_release  stop watching (before MPI_Wait; the batch
 *   mpidbg_req_track_release_all  form before MPI_Waitall, and for what a
 *                             completion call completed when that is more
 *                             than one request);
 *   mpidbg_req_track_end      the operation is complete (or freed, or
 *                             forgotten: cx NULL): stop watching, compare
 *                             the copies (send-buffer-changed).
 *
 * Never under the writer lock: the tracker has its own.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "count.h"
#include "shim.h"


static int ids_push(struct mpidbg_robj *o, int id)
{
    if (!o->tr_ids) {
        o->tr_ids = o->tr_inl;
        o->tr_cap = 4;
    }
    if (o->tr_n == o->tr_cap) {
        int cap = o->tr_cap * 2;
        int32_t *v = malloc(sizeof *v * (size_t)cap);
        if (!v)
            return 0;
        memcpy(v, o->tr_ids, sizeof *v * (size_t)o->tr_n);
        if (o->tr_ids != o->tr_inl)
            free(o->tr_ids);
        o->tr_ids = v;
        o->tr_cap = cap;
    }
    o->tr_ids[o->tr_n++] = id;
    return 1;
}

/* untracked: calls whose buffers the tracker leaves alone, in part. A
 * partitioned operation's buffer is the program's between MPI_Start and
 * MPI_Pready (MPI_Parrived) partition by partition: TR_NONE. A file
 * operation's buffer is ROMIO's or OMPIO's, which may hand it to the
 * kernel or to POSIX AIO threads of their own: a buffer MPI writes into
 * cannot be protected (the system call would fail with EFAULT, another
 * thread's store would be taken for the program's), but one MPI only
 * reads can be write-protected and copied like a send's: TR_READS (the
 * reading itself, by any thread or the kernel, never faults), on the
 * pages it covers wholly only, since an AIO thread may read another
 * file into data beside it. Every operation asks: the answer is kept per
 * call (0 not asked yet; two threads that ask at once write the same
 * value). */
enum { TR_ASK, TR_EVERY, TR_READS, TR_NONE };

static int untracked(int call)
{
    static uint8_t known[MPIDBG_NCALLS];
    if ((unsigned)call >= MPIDBG_NCALLS)
        return TR_EVERY;
    uint8_t k = __atomic_load_n(&known[call], __ATOMIC_RELAXED);
    if (k == TR_ASK) {
        if (call == MPIDBG_CALL_MPI_Psend_init || call == MPIDBG_CALL_MPI_Precv_init)
            k = TR_NONE;
        else if (strncmp(mpidbg_call_name(call), "MPI_File_", 9) == 0)
            k = TR_READS;
        else
            k = TR_EVERY;
        __atomic_store_n(&known[call], k, __ATOMIC_RELAXED);
    }
    return k;
}

/* snap_len: how many bytes of a send segment, from its start, the cheap
 * tier copies: all of them when the segment is contiguous, within limit
 * bytes with those copied before and not written by the same operation
 * (MPI_Isendrecv_replace); else its first part bytes when they fit (a
 * stack buffer's first page, which nothing else watches); else 0. */
static int snap_len(const struct mpidbg_robj *o, const struct mpidbg_seg *s, int total, int limit, int part)
{
    if (s->mode != MPIDBG_RD || !MPIDBG_IS_BUILTIN_TYPE(s->type) || !s->addr)
        return 0;
    int64_t n = s->hi - s->lo;
    if (n > limit - total)
        n = part > 0 && part <= limit - total ? part : 0;
    if (n <= 0)
        return 0;
    for (int i = 0; i < o->nseg; i++)
        if (o->seg[i].mode == MPIDBG_WR && o->seg[i].lo < s->lo + n && s->lo < o->seg[i].hi)
            return 0;
    return (int)n;
}

/* The operations with copies, so that a later receive into one of their
 * buffers (a buffer-overlap error of its own) does not also count as the
 * program changing it. Each knows its place in the list; a mutex under
 * MPI_THREAD_MULTIPLE only. */
static pthread_mutex_t snap_mu = PTHREAD_MUTEX_INITIALIZER;
static struct mpidbg_robj **snap_list;
static int snap_cnt, snap_cap;
static int64_t snap_lo = INT64_MAX, snap_hi = INT64_MIN; /* bounds of every copied segment since the list was empty */

static void snap_lock(void)
{
    if (mpidbg_mt)
        pthread_mutex_lock(&snap_mu);
}

static void snap_unlock(void)
{
    if (mpidbg_mt)
        pthread_mutex_unlock(&snap_mu);
}

static void snap_register(struct mpidbg_robj *o)
{
    snap_lock();
    if (snap_cnt == snap_cap) {
        int cap = snap_cap ? 2 * snap_cap : 64;
        struct mpidbg_robj **v = realloc(snap_list, sizeof *v * (size_t)cap);
        if (!v) {
            o->snap_bad = 1; /* cannot be told apart: no comparison */
            o->snap_idx = -1;
            snap_unlock();
            return;
        }
        snap_list = v;
        snap_cap = cap;
    }
    o->snap_idx = snap_cnt;
    snap_list[snap_cnt] = o;
    for (int k = 0; k < o->snap_n; k++) {
        const struct mpidbg_seg *s = &o->seg[o->snap_seg[k]];
        if (s->lo < snap_lo)
            __atomic_store_n(&snap_lo, s->lo, __ATOMIC_RELAXED);
        if (s->lo + o->snap_len[k] > snap_hi)
            __atomic_store_n(&snap_hi, s->lo + o->snap_len[k], __ATOMIC_RELAXED);
    }
    __atomic_store_n(&snap_cnt, snap_cnt + 1, __ATOMIC_RELAXED);
    snap_unlock();
}

static void snap_unregister(struct mpidbg_robj *o)
{
    snap_lock();
    int i = o->snap_idx;
    if (i >= 0 && i < snap_cnt && snap_list[i] == o) {
        struct mpidbg_robj *last = snap_list[snap_cnt - 1];
        snap_list[i] = last;
        last->snap_idx = i;
        __atomic_store_n(&snap_cnt, snap_cnt - 1, __ATOMIC_RELAXED);
        if (!snap_cnt) {
            __atomic_store_n(&snap_lo, INT64_MAX, __ATOMIC_RELAXED);
            __atomic_store_n(&snap_hi, INT64_MIN, __ATOMIC_RELAXED);
        }
    }
    o->snap_idx = -1;
    snap_unlock();
}

/* snap_written: an operation that writes [lo, hi) started */
static void snap_written(int64_t lo, int64_t hi)
{
    if (!__atomic_load_n(&snap_cnt, __ATOMIC_RELAXED) || hi <= __atomic_load_n(&snap_lo, __ATOMIC_RELAXED) ||
        lo >= __atomic_load_n(&snap_hi, __ATOMIC_RELAXED))
        return;
    snap_lock();
    for (int i = 0; i < snap_cnt; i++) {
        struct mpidbg_robj *o = snap_list[i];
        for (int k = 0; k < o->snap_n; k++) {
            const struct mpidbg_seg *s = &o->seg[o->snap_seg[k]];
            if (s->lo < hi && lo < s->lo + o->snap_len[k])
                o->snap_bad = 1;
        }
    }
    snap_unlock();
}

/* seg_what: what a watched segment of an operation belongs to, for its
 * report */
static struct mpidbg_tr_what seg_what(const struct mpidbg_cx *cx, int call, const struct mpidbg_seg *s, int fid,
                                      int fid_latent, int moved)
{
    struct mpidbg_tr_what w = {
        .fid = fid,
        .fid_latent = fid_latent,
        .call = call,
        .moved = moved,
        .site = cx->site,
        .addr = s->addr,
        .count = s->count,
        .type = s->type,
        .sampled = 1,
    };
    return w;
}

/* A point-to-point receive whose message is there already is filled
 * inside MPI_Irecv itself, and MPI returns an ordinary request for it: a
 * buffer watched only after the call would miss that move, and a later
 * access, right by chance, would count as one before the data came. So
 * the buffer (one segment) is watched from just before the PMPI call
 * (mpidbg_req_track_pre, which the generator puts in MPI_Irecv and
 * MPI_Imrecv): the library's copy faults, which marks the range moved.
 * The request takes the range when it is made (mpidbg_req_track_start);
 * a call that made none gives it back at its wrapper's exit
 * (mpidbg_req_track_pre_end). Not for nonblocking collectives: their
 * start may write part of the receive buffer (this rank's own
 * contribution), which is no arrival of the result. */
void mpidbg_req_track_pre(struct mpidbg_cx *cx)
{
    if (!__atomic_load_n(&mpidbg_track_on, __ATOMIC_RELAXED) || !mpidbg_enabled(MPIDBG_F_RECV_BUFFER_ACCESS) ||
        cx->nside != 1 || cx->sides[0].mode != MPIDBG_WR || mpidbg_seg_untouched(cx, MPIDBG_WR))
        return;
    mpidbg_sides_ready(cx);
    const struct mpidbg_seg *s = &cx->sides[0].seg[0];
    if (cx->sides[0].nseg != 1 || s->hi <= s->lo)
        return; /* nothing to watch */
    if (!mpidbg_track_sample(cx->site)) {
        cx->tr_pre = 2;
        return;
    }
    struct mpidbg_tr_what w =
        seg_what(cx, cx->call, s, MPIDBG_F_RECV_BUFFER_ACCESS, MPIDBG_F_BUFFER_ACCESS_LATENT, 0);
    cx->tr_pre = 1;
    cx->tr_pre_id = mpidbg_track_add(s, MPIDBG_TR_ALL, &w, NULL);
}

/* mpidbg_req_track_pre_end: the wrapper returns; a range no request took
 * (MPI failed, returned no request, or the shim could not record one) is
 * watched no longer. */
void mpidbg_req_track_pre_end(struct mpidbg_cx *cx)
{
    mpidbg_track_remove(cx->tr_pre_id);
    cx->tr_pre = 0;
}

/* mpidbg_req_track_start hands an operation that just started (or, a
 * persistent receive, is about to: requests_start.c) to the tracker (and
 * the cheap tier); moved: it completed when it started. Not under a
 * lock. */
void mpidbg_req_track_start(struct mpidbg_cx *cx, struct mpidbg_robj *o, int moved)
{
    o->tr_n = 0;
    o->snap_n = 0;
    o->snap_bad = 0;
    o->snap_moved = moved;
    if (!__atomic_load_n(&mpidbg_track_on, __ATOMIC_RELAXED) || !o->nseg)
        return;
    int which = untracked(o->call);
    if (which == TR_NONE)
        return;
    for (int i = 0; i < o->nseg; i++)
        if (o->seg[i].mode == MPIDBG_WR)
            snap_written(o->seg[i].lo, o->seg[i].hi);
    int rma = o->rec->kind == MPIDBG_REQ_RMA;
    int fid_w = rma ? MPIDBG_F_RMA_ORIGIN_RACE : MPIDBG_F_RECV_BUFFER_ACCESS;
    int fid_r = rma ? MPIDBG_F_RMA_ORIGIN_RACE : MPIDBG_F_SEND_BUFFER_WRITE;
    if (!mpidbg_enabled(fid_w) && !mpidbg_enabled(fid_r))
        return;
    o->tr_site = cx->site;
    int watch = cx->tr_pre ? cx->tr_pre == 1 : mpidbg_track_sample(cx->site);
    int total = 0;
    uint8_t *snap = NULL;
    int snapi[4], snapn[4], nsnap = 0;
    for (int i = 0; i < o->nseg; i++) {
        struct mpidbg_seg *s = &o->seg[i];
        if (s->hi <= s->lo || (which == TR_READS && s->mode == MPIDBG_WR))
            continue;
        int id = 0, part = 0;
        if (watch && cx->tr_pre == 1 && s->mode == MPIDBG_WR) {
            /* the receive's one segment, watched since before the call */
            id = cx->tr_pre_id;
            cx->tr_pre_id = 0;
            if (id > 0 && moved)
                mpidbg_track_moved(id);
        } else if (watch) {
            struct mpidbg_tr_what w = seg_what(cx, o->call, s, s->mode == MPIDBG_WR ? fid_w : fid_r,
                                               rma ? -1 : MPIDBG_F_BUFFER_ACCESS_LATENT, moved);
            w.own_pages = which == TR_READS;
            id = mpidbg_track_add(s, s->mode == MPIDBG_WR ? MPIDBG_TR_ALL : MPIDBG_TR_STORES, &w, &part);
        }
        if (id > 0 && !ids_push(o, id))
            mpidbg_track_remove(id);
        /* up to a page of what nothing else watches: a stack buffer's
         * first page, a file write's buffer smaller than a page */
        int limit = part > 0 || which == TR_READS ? MPIDBG_TR_SNAP_PAGE : MPIDBG_TR_SNAP_MAX;
        int n = rma || nsnap == 4 ? 0 : snap_len(o, s, total, limit, part);
        if (n > 0) {
            snapi[nsnap] = i;
            snapn[nsnap++] = n;
            total += n;
        }
    }
    if (!nsnap || !mpidbg_enabled(moved ? MPIDBG_F_BUFFER_ACCESS_LATENT : MPIDBG_F_SEND_BUFFER_CHANGED))
        return;
    snap = total <= (int)sizeof o->snap_inl ? o->snap_inl : malloc((size_t)total);
    if (!snap)
        return;
    int off = 0;
    for (int k = 0; k < nsnap; k++) {
        struct mpidbg_seg *s = &o->seg[snapi[k]];
        memcpy(snap + off, (const void *)(uintptr_t)s->lo, (size_t)snapn[k]);
        off += snapn[k];
        o->snap_seg[k] = snapi[k];
        o->snap_len[k] = snapn[k];
    }
    o->snap = snap;
    o->snap_n = nsnap;
    snap_register(o);
    (void)mpidbg_count(&mpidbg_track_stats[MPIDBG_TRS_SNAPSHOTS]); /* a statistic: a lost count is harmless */
}

/* reported: a copied send whose store the tracker reported where it
 * happened is not reported again at completion (n: its ranges) */
static void reported(struct mpidbg_robj *o, int n)
{
    if (__atomic_load_n(&o->snap_n, __ATOMIC_ACQUIRE))
        for (int i = 0; i < n; i++)
            if (mpidbg_track_reported(o->tr_ids[i]))
                o->snap_bad = 1;
}

/* claim takes the request's watched ranges for the caller: their count,
 * 0 when another thread took them (under MPI_THREAD_MULTIPLE a flush or
 * MPI_Request_get_status of one thread and the completion call of
 * another may end the same request's ranges at the same time). */
static int claim(struct mpidbg_robj *o)
{
    return __atomic_exchange_n(&o->tr_n, 0, __ATOMIC_ACQ_REL);
}

/* mpidbg_req_track_release stops watching an operation's buffers. */
void mpidbg_req_track_release(struct mpidbg_robj *o)
{
    int n = claim(o);
    if (!n)
        return;
    reported(o, n);
    if (n == 1)
        mpidbg_track_remove(o->tr_ids[0]);
    else
        mpidbg_track_remove_n(o->tr_ids, n);
}

/* mpidbg_req_track_end: the operation is complete (or freed, or
 * forgotten: cx NULL).
 * Its buffers are no longer watched, and the cheap tier compares its
 * copies: a difference is a store while the send was pending. */
void mpidbg_req_track_end(struct mpidbg_cx *cx, struct mpidbg_robj *o)
{
    if (__atomic_load_n(&o->tr_n, __ATOMIC_ACQUIRE))
        mpidbg_req_track_release(o);
    int nsnap = __atomic_exchange_n(&o->snap_n, 0, __ATOMIC_ACQ_REL); /* the copies are the claimer's */
    if (!nsnap)
        return;
    snap_unregister(o);
    int off = 0, found = 0;
    for (int k = 0; k < nsnap && cx && !found && !o->snap_bad; k++) {
        int si = o->snap_seg[k];
        if (si >= o->nseg)
            break;
        struct mpidbg_seg *s = &o->seg[si];
        int64_t n = o->snap_len[k];
        const uint8_t *now = (const uint8_t *)(uintptr_t)s->lo;
        if (memcmp(now, o->snap + off, (size_t)n) != 0) {
            int64_t j = 0;
            while (j < n && now[j] == o->snap[off + j])
                j++;
            /* a send that completed when it started had given MPI its
             * data then: the change is latent, as the same store is when
             * page protection sees it */
            struct mpidbg_ev ev;
            mpidbg_ev_init(&ev, cx, o->snap_moved ? MPIDBG_F_BUFFER_ACCESS_LATENT : MPIDBG_F_SEND_BUFFER_CHANGED, "buf");
            ev.variant = MPIDBG_V_CHANGED;
            ev.addr = s->addr;
            ev.count = s->count;
            ev.handle = s->type;
            ev.at = (uint64_t)s->lo + (uint64_t)j;
            ev.related_site = o->start_site ? o->start_site : o->rec->site; /* a persistent one's MPI_Start */
            ev.related_call = o->call;
            ev.related_kind = MPIDBG_REL_STARTED;
            mpidbg_track_found(o->tr_site);
            mpidbg_report(cx, &ev);
            found = 1;
        }
        off += (int)n;
    }
    if (o->snap != o->snap_inl)
        free(o->snap);
    o->snap = NULL;
}

/* watched: the request a completion call took, when it is still that one
 * and some of its buffers are watched */
static struct mpidbg_robj *watched(const struct mpidbg_reqref *r)
{
    struct mpidbg_robj *o = r->o;
    return o && o->serial == r->serial && __atomic_load_n(&o->tr_n, __ATOMIC_ACQUIRE) ? o : NULL;
}

/* mpidbg_req_track_release_all stops watching the buffers of n requests
 * in one batch (one mprotect per run of pages, not one per buffer): before
 * MPI_Waitall, and for the requests a completion call completed. */
void mpidbg_req_track_release_all(const struct mpidbg_reqref *c, int n)
{
    int stack[64], total = 0, k = 0;
    for (int i = 0; c && i < n; i++) {
        struct mpidbg_robj *o = watched(&c[i]);
        if (o)
            total += __atomic_load_n(&o->tr_n, __ATOMIC_ACQUIRE);
    }
    if (!total)
        return;
    int *ids = total <= 64 ? stack : malloc(sizeof *ids * (size_t)total);
    for (int i = 0; i < n; i++) {
        struct mpidbg_robj *o = watched(&c[i]);
        if (!o)
            continue;
        if (!ids) {
            mpidbg_req_track_release(o); /* no room for the batch: one by one */
            continue;
        }
        int m = claim(o);
        if (!m)
            continue; /* another thread's */
        reported(o, m);
        if (k + m > total) {
            /* started again meanwhile, with more ranges than counted: on its own */
            mpidbg_track_remove_n(o->tr_ids, m);
            continue;
        }
        memcpy(ids + k, o->tr_ids, sizeof *ids * (size_t)m);
        k += m;
    }
    if (k)
        mpidbg_track_remove_n(ids, k);
    if (ids != stack)
        free(ids);
}
