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
 * for all the requests it finished, when half the entries are dead. The scan compares bounds only; the
 * exact test (datatype.Overlap, in Go) runs when bounds intersect,
 * outside the lock.
 */
#include <pthread.h>
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

/* flush compacts once half the entries are dead: a program that waits
 * for tens of thousands of pending requests one by one would otherwise
 * move the whole list at every wait */
static void flush(struct plist *L)
{
    if (!L->dead || 2 * L->dead < L->n)
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

/* mpidbg_pending_flush drops removed entries, when they are many; under
 * the lock, after a batch of removals. */
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
            /* a persistent operation started at its MPI_Start, not where it was made */
            hits[nh].other_site = p->ro->start_site ? p->ro->start_site : p->ro->rec->site;
            hits[nh].other_call = p->ro->call;
            hits[nh].name = name;
            nh++;
        }
    }
    return nh;
}

/* The exact test of two derived-type buffers costs a call into Go and a
 * walk of both type maps (1-2 µs for the faces of a 3-D halo exchange,
 * where every face of one array intersects the bounds of every other).
 * Its answer depends only on the two types, the two counts and the
 * distance between the buffers: a loop that exchanges the same faces
 * every iteration asks the same questions, also when it swaps arrays. So
 * the answers are kept in a small direct-mapped cache. A type is named by
 * its handle and its record's serial (a freed handle reused is a new
 * serial), as the Go model's own cache names it; the first shared byte is
 * kept relative to the first buffer. Answers the model cannot give (-1)
 * are not kept. */
/* Direct-mapped, so two questions that hash alike evict each other: a
 * halo exchange asks about 130 distinct ones per iteration (every face
 * against every pending face, two arrays swapped), and with 256 entries
 * Open MPI's pointer handles collided often enough to miss every
 * iteration (halo 32³: 79 µs per iteration against 47 with 4096 entries,
 * native 43; 256 KiB). */
#define OVC_SIZE 4096

struct ovc {
    uint64_t ta, tb;
    uint32_t sa, sb;
    int64_t ca, cb, dist, at;
    int32_t r, valid;
};

static struct ovc ovc[OVC_SIZE];
static pthread_mutex_t ovc_mutex = PTHREAD_MUTEX_INITIALIZER;

static struct ovc *ovc_slot(const struct ovc *k)
{
    uint64_t x = k->ta * 0x9e3779b97f4a7c15u ^ k->tb * 0xc2b2ae3d27d4eb4fu ^ (uint64_t)k->dist * 0x165667b19e3779f9u ^
                 ((uint64_t)k->ca << 32 | (uint32_t)k->cb) ^ ((uint64_t)k->sa << 40 | k->sb);
    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9u;
    x ^= x >> 32;
    return &ovc[x & (OVC_SIZE - 1)];
}

static int ovc_same(const struct ovc *e, const struct ovc *k)
{
    return e->valid && e->ta == k->ta && e->tb == k->tb && e->sa == k->sa && e->sb == k->sb && e->ca == k->ca &&
           e->cb == k->cb && e->dist == k->dist;
}

/* mpidbg_seg_overlap reports whether two segments share a byte and the
 * first one: by arithmetic for predefined types (contiguous data), by the
 * Go model (or the cache of its answers) otherwise. -1: cannot tell (a
 * type the model does not know). */
int mpidbg_seg_overlap(struct mpidbg_seg *a, struct mpidbg_seg *b, uint64_t *at)
{
    if (a->hi <= a->lo || b->hi <= b->lo || a->hi <= b->lo || b->hi <= a->lo)
        return 0;
    if (MPIDBG_IS_BUILTIN_TYPE(a->type) && MPIDBG_IS_BUILTIN_TYPE(b->type)) {
        *at = (uint64_t)(a->lo > b->lo ? a->lo : b->lo);
        return 1;
    }
    struct ovc k = {a->type, b->type, mpidbg_obj_serial(MPIDBG_OBJ_TYPE, a->type), mpidbg_obj_serial(MPIDBG_OBJ_TYPE, b->type), a->count, b->count,
                    (int64_t)(b->addr - a->addr), 0, 0, 1};
    struct ovc *e = ovc_slot(&k);
    int mt = mpidbg_mt;
    if (mt)
        pthread_mutex_lock(&ovc_mutex);
    int hit = ovc_same(e, &k);
    if (hit) {
        k.r = e->r;
        k.at = e->at;
    }
    if (mt)
        pthread_mutex_unlock(&ovc_mutex);
    if (hit) {
        if (k.r == 1)
            *at = a->addr + (uint64_t)k.at;
        return k.r;
    }
    uint64_t x = 0;
    int r = mpidbg_go_overlap(a, b, &x);
    if (r < 0)
        return r;
    k.r = r;
    k.at = r == 1 ? (int64_t)(x - a->addr) : 0;
    if (mt)
        pthread_mutex_lock(&ovc_mutex);
    *e = k;
    if (mt)
        pthread_mutex_unlock(&ovc_mutex);
    if (r == 1)
        *at = x;
    return r;
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
            if (s->hi <= s->lo || mpidbg_seg_untouched(cx, s->mode))
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
        ev.related_kind = MPIDBG_REL_STARTED;
        mpidbg_report(cx, &ev);
        return; /* one conflict per call is enough to act on */
    }
}
