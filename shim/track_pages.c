/*
 * The tracker's pages: a table from page address to what watches it (how
 * many ranges of each mode), its original protection and its state, read
 * by the signal handlers without a lock; the protection every page should
 * have; and the process's memory map, which says which pages may be
 * watched at all (private writable mappings: stack, heap, .data/.bss,
 * anonymous memory) and what their protection was.
 *
 * The table is open addressing over a power-of-two array of slots. A key
 * once written stays until the table is rebuilt (compacted into the other
 * of two arrays, under tr_mu, when half the slots are used), so a reader
 * never sees a probe chain break. A rebuilt-away array is not reused
 * before the next rebuild: until then the handler can still ask it
 * whether a page it does not find was the tracker's (tr_page_was).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "track_int.h"

#define TP_BITS 16
#define TP_CAP (1ul << TP_BITS)

static struct tr_page *tp_arr[2];
static struct tr_page *tp_cur; /* atomic */
static int tp_which;
static uint64_t tp_used;
/* pages that nothing watched any more since the last rebuild (a
 * rebuild can drop only those: with none, a full table stays full) */
static uint64_t tp_idle;
/* atomic: odd while a rebuild writes the array that is not current (the
 * one tr_page_was reads), bumped again when it is done */
static uint64_t tp_seq;

uint64_t tr_pgen;
int tr_live;

int tr_mprotect(uint64_t lo, uint64_t len, int prot)
{
    /* the system call itself: mprotect is the program's, wrapped
     * (track_mprotect.c) */
    int rc = (int)syscall(SYS_mprotect, (void *)(uintptr_t)lo, (size_t)len, prot);
    __atomic_add_fetch(&tr_pgen, 1, __ATOMIC_SEQ_CST);
    return rc;
}

/* Groups of 16 consecutive pages go to 16 consecutive slots (a buffer's
 * pages are walked in order, and stay in a few cache lines); the groups
 * are scattered over the table. When consecutive pages of the whole
 * address space went to consecutive slots, the runs of big buffers in
 * different regions ran into each other in a table near half full, and
 * every look-up walked the clusters: 144 MiB of receives in flight spent
 * seconds adding their pages. */
static inline uint64_t tp_hash(uint64_t page)
{
    uint64_t group = (page >> 16) * 0x9e3779b97f4a7c15ull >> (64 - TP_BITS);
    return ((group << 4) + ((page >> 12) & 15)) & (TP_CAP - 1);
}

int tr_pages_init(void)
{
    for (int i = 0; i < 2; i++) {
        void *p = mmap(NULL, TP_CAP * sizeof(struct tr_page), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED)
            return -1;
        tp_arr[i] = p;
    }
    __atomic_store_n(&tp_cur, tp_arr[0], __ATOMIC_RELEASE);
    return 0;
}

struct tr_page *tr_page_find(uint64_t page)
{
    struct tr_page *t = __atomic_load_n(&tp_cur, __ATOMIC_ACQUIRE);
    if (!t || !page)
        return NULL;
    uint64_t h = tp_hash(page);
    for (uint64_t i = 0; i < TP_CAP; i++) {
        struct tr_page *p = &t[(h + i) & (TP_CAP - 1)];
        uint64_t k = __atomic_load_n(&p->key, __ATOMIC_ACQUIRE);
        if (k == page)
            return p;
        if (!k)
            return NULL;
    }
    return NULL;
}

static int busy(const struct tr_page *p)
{
    return __atomic_load_n(&p->n[1], __ATOMIC_RELAXED) | __atomic_load_n(&p->n[2], __ATOMIC_RELAXED) |
           __atomic_load_n(&p->n[3], __ATOMIC_RELAXED) | __atomic_load_n(&p->steppers, __ATOMIC_RELAXED) |
           __atomic_load_n(&p->giveup, __ATOMIC_RELAXED) | __atomic_load_n(&p->lost, __ATOMIC_RELAXED);
}

static struct tr_page *slot_for(struct tr_page *t, uint64_t page)
{
    uint64_t h = tp_hash(page);
    for (uint64_t i = 0; i < TP_CAP; i++) {
        struct tr_page *p = &t[(h + i) & (TP_CAP - 1)];
        if (p->key == page || !p->key)
            return p;
    }
    return NULL;
}

static void protect(uint64_t lo, uint64_t hi, int prot);

/* rebuild keeps the pages something still watches; the others leave
 * the table, and those whose cur says protected get their original
 * protection back. Not the others: their protection was given back when
 * their last range left, and the memory may have been unmapped since
 * and mapped again as something else (a library's code, where the
 * original protection would take execution away). cur is a hint: a
 * handler racing with a writer can leave a page protected under a cur
 * that says open; a fault on it finds it in the table before the
 * rebuild (tr_page_was) and gives it its protection then. Groups of
 * consecutive pages sit in consecutive slots, so that is about one
 * mprotect per group. Under tr_mu. */
static void rebuild(void)
{
    struct tr_page *old = tp_cur, *nw = tp_arr[tp_which ^ 1];
    __atomic_add_fetch(&tp_seq, 1, __ATOMIC_SEQ_CST); /* odd: nw is no longer the previous table */
    memset(nw, 0, TP_CAP * sizeof *nw);
    uint64_t used = 0, run = 0, end = 0;
    int runprot = -1;
    for (uint64_t i = 0; i < TP_CAP; i++) {
        struct tr_page *p = &old[i];
        if (!p->key)
            continue;
        if (!busy(p)) {
            if (__atomic_load_n(&p->cur, __ATOMIC_RELAXED) == p->orig)
                continue; /* given back when its last range left: the memory may be another mapping's by now */
            if (p->key == end && p->orig == runprot) {
                end += TR_PAGE;
                continue;
            }
            if (runprot >= 0)
                protect(run, end, runprot);
            run = p->key;
            end = run + TR_PAGE;
            runprot = p->orig;
            continue;
        }
        struct tr_page *q = slot_for(nw, p->key);
        *q = *p;
        used++;
    }
    if (runprot >= 0)
        protect(run, end, runprot);
    tp_used = used;
    tp_idle = 0;
    tp_which ^= 1;
    tr_maps_stale(); /* the pages that left showed our protection in the last reading */
    __atomic_store_n(&tp_cur, nw, __ATOMIC_RELEASE);
    __atomic_add_fetch(&tp_seq, 1, __ATOMIC_SEQ_CST); /* even: old is the previous table */
}

int tr_page_was(uint64_t page, int *orig)
{
    uint64_t s = __atomic_load_n(&tp_seq, __ATOMIC_SEQ_CST);
    if (s & 1)
        return -1;
    struct tr_page *cur = __atomic_load_n(&tp_cur, __ATOMIC_ACQUIRE);
    struct tr_page *prev = cur == tp_arr[0] ? tp_arr[1] : tp_arr[0];
    if (!s || !prev || !page)
        return 0; /* never rebuilt: nothing left the table */
    int found = 0;
    uint64_t h = tp_hash(page);
    for (uint64_t i = 0; i < TP_CAP; i++) {
        struct tr_page *p = &prev[(h + i) & (TP_CAP - 1)];
        uint64_t k = __atomic_load_n(&p->key, __ATOMIC_ACQUIRE);
        if (k == page) {
            *orig = __atomic_load_n(&p->orig, __ATOMIC_RELAXED);
            found = 1;
            break;
        }
        if (!k)
            break;
    }
    /* a rebuild that began meanwhile may have cleared what was read */
    if (__atomic_load_n(&tp_seq, __ATOMIC_SEQ_CST) != s)
        return -1;
    return found;
}

struct tr_page *tr_page_get(uint64_t page, int orig)
{
    struct tr_page *p = tr_page_find(page);
    if (p)
        return p;
    if (!tr_pages_room(1))
        return NULL; /* that many pages watched at once: no room */
    p = slot_for(tp_cur, page);
    if (!p)
        return NULL;
    memset((char *)p + sizeof p->key, 0, sizeof *p - sizeof p->key);
    p->orig = orig;
    p->cur = orig;
    __atomic_store_n(&p->key, page, __ATOMIC_RELEASE);
    tp_used++;
    return p;
}

int tr_pages_room(uint64_t n)
{
    if (tp_used + n > TP_CAP / 2 && tp_idle)
        rebuild();
    return tp_used + n <= TP_CAP / 2;
}

int tr_page_busy(const struct tr_page *p)
{
    return __atomic_load_n(&p->n[1], __ATOMIC_RELAXED) > 0 || __atomic_load_n(&p->n[2], __ATOMIC_RELAXED) > 0 ||
           __atomic_load_n(&p->n[3], __ATOMIC_RELAXED) > 0;
}

int tr_page_want(const struct tr_page *p)
{
    if (__atomic_load_n(&p->steppers, __ATOMIC_RELAXED) > 0 || __atomic_load_n(&p->giveup, __ATOMIC_RELAXED) ||
        __atomic_load_n(&p->lost, __ATOMIC_RELAXED) || __atomic_load_n(&tr_holders, __ATOMIC_RELAXED) ||
        tr_sync_page(__atomic_load_n(&p->key, __ATOMIC_RELAXED)))
        return p->orig;
    if (__atomic_load_n(&p->n[MPIDBG_TR_ALL], __ATOMIC_RELAXED) > 0 ||
        __atomic_load_n(&p->n[MPIDBG_TR_LOG], __ATOMIC_RELAXED) > 0)
        return PROT_NONE;
    if (__atomic_load_n(&p->n[MPIDBG_TR_STORES], __ATOMIC_RELAXED) > 0)
        return p->orig & ~PROT_WRITE;
    return p->orig;
}

static void protect(uint64_t lo, uint64_t hi, int prot)
{
    int e = errno;
    if (tr_mprotect(lo, hi - lo, prot) != 0 && hi - lo > TR_PAGE)
        /* a hole in the run (memory unmapped while watched): page by page, the mapped ones */
        for (uint64_t a = lo; a < hi; a += TR_PAGE)
            tr_mprotect(a, TR_PAGE, prot);
    errno = e;
    tr_stat(MPIDBG_TRS_MPROTECT);
}

void tr_update(uint64_t lo, uint64_t hi, int mode, int d, int force)
{
    uint64_t run = 0, end = 0;
    int runprot = -1;
    /* a range's pages counted (+1, before they are protected) or let go
     * (-1, once they are not): the wrappers of track_sys.c and
     * track_stdio.c look at pages only while some are */
    if (d > 0 && hi > lo)
        __atomic_add_fetch(&tr_live, d, __ATOMIC_SEQ_CST);
    for (uint64_t a = lo & TR_PMASK; a < hi; a += TR_PAGE) {
        struct tr_page *p = tr_page_find(a);
        int want = -1;
        if (p && d) {
            __atomic_fetch_add(&p->n[mode], d, __ATOMIC_RELAXED);
            if (d < 0 && !tr_page_busy(p)) {
                __atomic_add_fetch(&tp_idle, 1, __ATOMIC_RELAXED);
                /* nothing watches it: a fresh start for the next range */
                __atomic_store_n(&p->lost, 0, __ATOMIC_RELAXED);
                __atomic_store_n(&p->lib, 0, __ATOMIC_RELAXED);
                __atomic_store_n(&p->libfalse, 0, __ATOMIC_RELAXED);
                __atomic_store_n(&p->hits, 0, __ATOMIC_RELAXED);
            }
        }
        if (force < 0)
            continue; /* counts only: the caller sets the protection */
        if (p) {
            want = tr_page_want(p);
            if (!force && want == __atomic_load_n(&p->cur, __ATOMIC_RELAXED))
                want = -1;
            else
                __atomic_store_n(&p->cur, want, __ATOMIC_RELAXED);
        }
        if (want >= 0 && want == runprot && a == end) {
            end += TR_PAGE;
            continue;
        }
        if (runprot >= 0)
            protect(run, end, runprot);
        runprot = want;
        run = a;
        end = a + TR_PAGE;
    }
    if (runprot >= 0)
        protect(run, end, runprot);
    /* with force < 0 the pages keep their protection until the caller
     * applies it: it lets go of tr_live after that (tr_live_drop), or a
     * wrapper's fast path would pass a still-protected page to the kernel */
    if (d < 0 && hi > lo && force >= 0)
        __atomic_add_fetch(&tr_live, d, __ATOMIC_SEQ_CST);
}

void tr_live_drop(int n)
{
    if (n > 0)
        __atomic_sub_fetch(&tr_live, n, __ATOMIC_SEQ_CST);
}

void tr_apply(uint64_t lo, uint64_t hi, int force)
{
    tr_update(lo, hi, 0, 0, force);
}

static void reprotect(struct tr_page *p, int prot)
{
    p->orig = prot;
    tr_apply(p->key, p->key + TR_PAGE, 1);
}

void tr_reprotected(uint64_t lo, uint64_t hi, int prot)
{
    tr_maps_stale();
    prot &= PROT_READ | PROT_WRITE | PROT_EXEC;
    lo &= TR_PMASK;
    struct tr_page *t = tp_cur;
    if (t && (hi - lo) / TR_PAGE > TP_CAP) {
        /* a big range (a reserve made accessible): the table is smaller */
        for (uint64_t i = 0; i < TP_CAP; i++)
            if (t[i].key >= lo && t[i].key < hi)
                reprotect(&t[i], prot);
        return;
    }
    for (uint64_t a = lo; a < hi; a += TR_PAGE) {
        struct tr_page *p = tr_page_find(a);
        if (p)
            reprotect(p, prot);
    }
}

void tr_apply_all(void)
{
    struct tr_page *t = tp_cur;
    for (uint64_t i = 0; t && i < TP_CAP; i++)
        if (t[i].key)
            tr_apply(t[i].key, t[i].key + TR_PAGE, 0);
}

void tr_let_go_all(void)
{
    struct tr_page *t = tp_cur;
    for (uint64_t i = 0; t && i < TP_CAP; i++)
        if (t[i].key && (busy(&t[i]) || t[i].cur != t[i].orig))
            tr_mprotect(t[i].key, TR_PAGE, t[i].orig);
}

/* ---- the memory map ---- */

struct vma {
    uint64_t lo, hi;
    int prot;
    int ok;    /* writable: 1 private, 2 shared */
    int anon;  /* no file: 1; the main thread's stack: 2 */
    int stack; /* a thread's stack, by its look (tr_stack_like) */
};

static struct vma *maps;
static int nmaps, capmaps;

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

static const char *hex(const char *s, uint64_t *v)
{
    *v = 0;
    int d;
    while ((d = hexval(*s)) >= 0) {
        *v = *v << 4 | (uint64_t)d;
        s++;
    }
    return s;
}

/* anon_or_stack reads the rest of a maps line after the permissions
 * (offset, device, inode, path): 1 anonymous, 2 the main thread's
 * stack, 0 a file or another special mapping */
static int anon_or_stack(const char *s, const char *end)
{
    int field = 0;
    uint64_t inode = 1;
    while (s < end && field < 3) {
        while (s < end && *s == ' ')
            s++;
        const char *f = s;
        while (s < end && *s != ' ')
            s++;
        if (++field == 3) {
            inode = 0;
            for (; f < s; f++)
                inode = inode * 10 + (uint64_t)(*f - '0');
        }
    }
    while (s < end && *s == ' ')
        s++;
    if (s == end)
        return inode == 0;
    return end - s >= 6 && memcmp(s, "[stack", 6) == 0 ? 2 : 0;
}

/* reload reads /proc/self/maps. Pages the tracker protects show their
 * current protection there, not their original one: those are in the
 * page table, which tr_orig asks first. */
static int reload(void)
{
    tr_stat(MPIDBG_TRS_MAPS);
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (!buf) {
            close(fd);
            return -1;
        }
        if (n == cap) {
            char *b = realloc(buf, cap * 2);
            if (!b) {
                free(buf);
                close(fd);
                return -1;
            }
            buf = b;
            cap *= 2;
        }
        ssize_t k = read(fd, buf + n, cap - n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        n += (size_t)k;
    }
    close(fd);
    nmaps = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && buf[j] != '\n')
            j++;
        const char *s = buf + i;
        uint64_t lo, hi;
        s = hex(s, &lo);
        if (*s == '-' && s + 1 < buf + j) {
            s = hex(s + 1, &hi);
            if (*s == ' ' && s + 5 <= buf + j) {
                if (nmaps == capmaps) {
                    int c = capmaps ? 2 * capmaps : 256;
                    struct vma *m = realloc(maps, sizeof *m * c);
                    if (!m)
                        break;
                    maps = m;
                    capmaps = c;
                }
                struct vma *v = &maps[nmaps++];
                v->lo = lo;
                v->hi = hi;
                v->prot = (s[1] == 'r' ? PROT_READ : 0) | (s[2] == 'w' ? PROT_WRITE : 0) | (s[3] == 'x' ? PROT_EXEC : 0);
                v->ok = s[2] != 'w' ? 0 : s[4] == 'p' ? 1 : s[4] == 's' ? 2 : 0;
                v->anon = anon_or_stack(s + 5, buf + j);
                v->stack = 0;
            }
        }
        i = j + 1;
    }
    free(buf);
    /* A thread's stack, as glibc maps it: an anonymous private writable
     * mapping right above its guard, an anonymous one without access. A
     * malloc arena has its reserve above it instead. A guard the tracker
     * made itself (a page it protects) does not count. */
    for (int i = 0; i < nmaps; i++) {
        struct vma *v = &maps[i], *g = i > 0 ? &maps[i - 1] : NULL;
        v->stack = v->anon == 2 ||
                   (v->anon == 1 && v->ok == 1 && g && g->hi == v->lo && g->anon == 1 && g->prot == 0 &&
                    !tr_page_find(g->lo) && !tr_page_find(g->hi - TR_PAGE));
    }
    return 0;
}

static struct vma *vma_of(uint64_t a)
{
    int lo = 0, hi = nmaps;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (maps[mid].hi <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < nmaps && maps[lo].lo <= a ? &maps[lo] : NULL;
}

int tr_orig(uint64_t page, uint64_t *until, int shared_ok)
{
    *until = page + TR_PAGE;
    struct tr_page *p = tr_page_find(page);
    /* a page nothing watches that the program made unwritable itself
     * (track_mprotect.c) may have been unmapped and mapped again since:
     * the map says what it is now */
    if (p && (tr_page_busy(p) || (p->orig & PROT_WRITE)))
        return p->orig;
    struct vma *v = vma_of(page);
    if (!v) {
        if (reload() != 0)
            return -1;
        v = vma_of(page);
    }
    if (!v || !v->ok || (v->ok == 2 && !shared_ok) || !(v->prot & PROT_READ))
        return -1;
    if (p) {
        p->orig = v->prot;
        return v->prot;
    }
    *until = v->hi;
    return v->prot;
}

int tr_stack_like(uint64_t a)
{
    struct vma *v = vma_of(a);
    if (!v) {
        if (reload() != 0 || !(v = vma_of(a)))
            return 0;
    }
    return v->stack;
}

void tr_maps_stale(void)
{
    nmaps = 0;
}

int tr_shared(uint64_t lo, uint64_t hi)
{
    for (uint64_t a = lo; a < hi;) {
        struct vma *v = vma_of(a);
        if (!v) {
            if (reload() != 0 || !(v = vma_of(a)))
                return 0;
        }
        if (v->ok != 2)
            return 0;
        a = v->hi;
    }
    return 1;
}
