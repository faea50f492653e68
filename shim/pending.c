/*
 * Pending buffers: the buffers of operations in flight (nonblocking and
 * started persistent requests), as segments with the bytes they span. A
 * new operation's buffers are checked against them: a conflict needs one
 * side to write (MPI-4.1 §3.7.2: a receive buffer must not be accessed,
 * and a send buffer not written, until the operation completes; two sends
 * may read the same buffer since MPI-3.0).
 *
 * Two arrays, one for segments MPI writes (receives) and one for segments
 * it reads (sends), each sorted by lower bound: a new send looks only at
 * the first. A query finds the segments below its upper bound by binary
 * search and walks down from there until a segment starts more than the
 * widest segment's span below the query: O(log n) for the usual layout of
 * disjoint buffers, such as a window of receives into consecutive array
 * elements. Removal marks entries dead; a completion call compacts once
 * for all the requests it finished. The scan compares bounds only; the
 * exact test (datatype.Overlap, in Go) runs when bounds intersect,
 * outside the lock.
 */
#include <stdlib.h>
#include <string.h>

#include "shim.h"

struct pend {
    int64_t lo, hi;
    struct mpidbg_robj *ro; /* NULL: removed, compacted away by flush */
    int32_t seg;
    int32_t pad;
};

struct plist {
    struct pend *v;
    int n, cap, dead;
    int64_t maxspan; /* the widest segment since the list was last empty */
};

static struct plist writes, reads;
int mpidbg_npending;

static struct plist *list_of(int mode)
{
    return mode == MPIDBG_WR ? &writes : &reads;
}

/* first index whose lo is >= x (strict: > x) */
static int bound(const struct plist *L, int64_t x, int strict)
{
    int lo = 0, hi = L->n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (L->v[mid].lo < x || (strict && L->v[mid].lo == x))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void mpidbg_pending_add(struct mpidbg_robj *ro)
{
    for (int i = 0; i < ro->nseg; i++) {
        struct mpidbg_seg *s = &ro->seg[i];
        if (s->hi <= s->lo)
            continue;
        struct plist *L = list_of(s->mode);
        if (L->n == L->cap) {
            int cap = L->cap ? 2 * L->cap : 64;
            struct pend *v = realloc(L->v, sizeof *v * cap);
            if (!v)
                return;
            L->v = v;
            L->cap = cap;
        }
        int k = L->n && L->v[L->n - 1].lo <= s->lo ? L->n : bound(L, s->lo, 1);
        if (k < L->n)
            memmove(&L->v[k + 1], &L->v[k], sizeof *L->v * (L->n - k));
        L->v[k] = (struct pend){s->lo, s->hi, ro, i, 0};
        L->n++;
        if (s->hi - s->lo > L->maxspan)
            L->maxspan = s->hi - s->lo;
        /* writers hold the lock: a plain atomic store, no locked add */
        __atomic_store_n(&mpidbg_npending, mpidbg_npending + 1, __ATOMIC_RELAXED);
    }
}

void mpidbg_pending_remove(struct mpidbg_robj *ro)
{
    for (int i = 0; i < ro->nseg; i++) {
        struct mpidbg_seg *s = &ro->seg[i];
        if (s->hi <= s->lo)
            continue;
        struct plist *L = list_of(s->mode);
        for (int k = bound(L, s->lo, 0); k < L->n && L->v[k].lo == s->lo; k++)
            if (L->v[k].ro == ro && L->v[k].seg == i) {
                L->v[k].ro = NULL;
                L->dead++;
                __atomic_store_n(&mpidbg_npending, mpidbg_npending - 1, __ATOMIC_RELAXED);
                break;
            }
    }
}

static void flush(struct plist *L)
{
    if (!L->dead)
        return;
    int j = 0;
    for (int k = 0; k < L->n; k++)
        if (L->v[k].ro)
            L->v[j++] = L->v[k];
    L->n = j;
    L->dead = 0;
    if (!L->n)
        L->maxspan = 0;
}

/* mpidbg_pending_flush drops removed entries; under the lock, after a
 * batch of removals. */
void mpidbg_pending_flush(void)
{
    flush(&writes);
    flush(&reads);
}

/* A candidate conflict, copied out of the lock. */
struct hit {
    struct mpidbg_seg mine, other;
    uint64_t other_site;
    int32_t other_call;
    const char *name;
};

#define MAX_HITS 8

static int scan(struct plist *L, const struct mpidbg_seg *s, const char *name, struct hit *hits, int nh)
{
    for (int k = bound(L, s->hi, 0) - 1; k >= 0 && nh < MAX_HITS; k--) {
        const struct pend *p = &L->v[k];
        if (p->lo + L->maxspan <= s->lo)
            break; /* this one and all below end before s starts */
        if (p->ro && p->hi > s->lo) {
            hits[nh].mine = *s;
            hits[nh].other = p->ro->seg[p->seg];
            hits[nh].other_site = p->ro->rec->site;
            hits[nh].other_call = p->ro->call;
            hits[nh].name = name;
            nh++;
        }
    }
    return nh;
}

/* exact reports whether two segments share a byte and the first one: by
 * arithmetic for predefined types (contiguous data), by the Go model
 * otherwise. -1: cannot tell (a type the model does not know). */
int mpidbg_seg_overlap(struct mpidbg_seg *a, struct mpidbg_seg *b, uint64_t *at)
{
    if (a->hi <= a->lo || b->hi <= b->lo || a->hi <= b->lo || b->hi <= a->lo)
        return 0;
    if (MPIDBG_IS_BUILTIN_TYPE(a->type) && MPIDBG_IS_BUILTIN_TYPE(b->type)) {
        *at = (uint64_t)(a->lo > b->lo ? a->lo : b->lo);
        return 1;
    }
    return mpidbg_go_overlap(a, b, at);
}

void mpidbg_pending_check(struct mpidbg_cx *cx)
{
    if (MPIDBG_LIKELY(__atomic_load_n(&mpidbg_npending, __ATOMIC_RELAXED) == 0) || !mpidbg_enabled(MPIDBG_F_BUFFER_OVERLAP))
        return;
    struct hit hits[MAX_HITS];
    int nh = 0;
    mpidbg_wlock();
    for (int i = 0; i < cx->nside; i++) {
        struct mpidbg_side *sd = &cx->sides[i];
        if (sd->hi <= sd->lo)
            continue;
        for (int j = 0; j < sd->nseg; j++) {
            struct mpidbg_seg *s = &sd->seg[j];
            if (s->hi <= s->lo)
                continue;
            nh = scan(&writes, s, sd->name, hits, nh);
            if (s->mode == MPIDBG_WR)
                nh = scan(&reads, s, sd->name, hits, nh);
        }
    }
    mpidbg_wunlock();
    for (int i = 0; i < nh; i++) {
        uint64_t at = 0;
        if (mpidbg_seg_overlap(&hits[i].mine, &hits[i].other, &at) != 1)
            continue;
        struct mpidbg_ev ev;
        mpidbg_ev_init(&ev, cx, MPIDBG_F_BUFFER_OVERLAP, hits[i].name);
        ev.variant = hits[i].mine.mode != MPIDBG_WR   ? MPIDBG_V_READS
                     : hits[i].other.mode == MPIDBG_WR ? MPIDBG_V_BOTH_WRITE
                                                      : MPIDBG_V_WRITES;
        ev.addr = hits[i].mine.addr;
        ev.count = hits[i].mine.count;
        ev.handle = hits[i].mine.type;
        ev.addr2 = hits[i].other.addr;
        ev.count2 = hits[i].other.count;
        ev.handle2 = hits[i].other.type;
        ev.at = at;
        ev.related_site = hits[i].other_site;
        ev.related_call = hits[i].other_call;
        ev.related_kind = 2;
        mpidbg_report(cx, &ev);
        return; /* one conflict per call is enough to act on */
    }
}
