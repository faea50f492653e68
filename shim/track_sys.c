/*
 * System calls given memory on watched pages.
 *
 * The kernel does not fault on a page the tracker protects: a read(2)
 * into it or a write(2) from it fails with EFAULT, and the program's
 * behaviour changes (its output is lost, its input fails). A heap buffer
 * shares its pages with whatever malloc put beside it: stdio's buffers,
 * strings, a file stream's buffer, the runtime's socket buffers. So the
 * functions of libc that hand user memory to the kernel are wrapped here:
 * while some range has pages (tr_live), the pages under the memory a
 * call names are held open for the call (their steppers count, as for
 * a stepped instruction in track_fault.c, so that no other thread
 * protects them meanwhile) and protected again when it returns. stdio,
 * whose system calls libc makes internally where no wrapper sees them,
 * is track_stdio.c.
 *
 * The bytes a call moved that are watched bytes of a pending operation
 * are the program touching MPI's buffer (a write(2) of a pending receive
 * buffer, a read(2) into a pending send buffer): reported at the call,
 * as a fault there would be; one report per operation, the range stops
 * being watched. A send buffer may be read (MPI-4.1 §3.7.2, since 3.0).
 * The library's own calls (inside a wrapper, or from MPI's code on its
 * threads: Open MPI's TCP transport reads into receive buffers) are MPI
 * moving the data: a receive is marked moved. In log mode (window memory
 * during an epoch) the access is logged as a fault's would be.
 *
 * Cost: with no range on any page, the load of the next definition, one
 * load of tr_live and a branch per call (measured: nothing). Otherwise
 * a page-table lookup per page the call names (a range walk for long
 * spans), and an mprotect pair for each page that was protected; after
 * FALSE_LIMIT of those a page stays open until the next MPI call, as
 * after false hits (docs/races.md, "System calls"). A blocking call
 * holds its pages open for every thread while it waits (docs/races.md).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <limits.h>
#include <unistd.h>

#include "shim.h"
#include "track_int.h"

#define FALSE_LIMIT 32 /* pages opened for calls before a page opens until the next wrapper exit (track_fault.c's) */
#define WALK_PAGES 64  /* a longer span finds its pages through the ranges */
#define SCAN_BYTES 65536 /* bytes of a strided range searched for a byte of its datatype */

void tr_sys_begin(struct tr_sys *s, const void *ra)
{
    s->ra = (uint64_t)(uintptr_t)ra;
    s->lib = mpidbg_depth > 0 ? 1 : -1; /* -1: ask the return address when it matters */
    s->seen = 0;
    s->force = 0;
    s->n = 0;
}

static void open_page(struct tr_sys *s, uint64_t a)
{
    struct tr_page *p = tr_page_find(a);
    if (!p)
        return;
    s->seen = 1;
    for (int i = 0; i < s->n; i++)
        if (s->page[i] == a) {
            if (s->force)
                tr_apply(a, a + TR_PAGE, 1);
            return;
        }
    if (!tr_page_busy(p)) {
        if (s->force) /* nothing watches it: its protection may be stale */
            tr_apply(a, a + TR_PAGE, 1);
        return;
    }
    if (s->n >= TR_SYS_PAGES) {
        /* a call over that many watched pages: the others stay open while their ranges last */
        if (!__atomic_exchange_n(&p->lost, 1, __ATOMIC_RELAXED))
            tr_stat(MPIDBG_TRS_LOST_PAGES);
        tr_apply(a, a + TR_PAGE, s->force);
        tr_unseen(a, a + TR_PAGE);
        return;
    }
    s->page[s->n++] = a;
    __atomic_fetch_add(&p->steppers, 1, __ATOMIC_SEQ_CST);
    int before = __atomic_load_n(&p->cur, __ATOMIC_RELAXED);
    tr_apply(a, a + TR_PAGE, s->force);
    if (before == __atomic_load_n(&p->cur, __ATOMIC_RELAXED))
        return;
    tr_stat(MPIDBG_TRS_SYS_OPENS);
    if (__atomic_add_fetch(&p->hits, 1, __ATOMIC_RELAXED) > FALSE_LIMIT) {
        /* the program keeps handing this page to the kernel (stdio's
         * buffer beside a pending receive): open until the next MPI call */
        tr_stat(MPIDBG_TRS_GIVEUPS);
        __atomic_store_n(&p->hits, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&p->giveup, 1, __ATOMIC_RELAXED);
        tr_queue_open(a, a + TR_PAGE, 0);
    }
}

/* span: the pages of [p, p + n), rounded out, without overflow */
static void span(const void *p, size_t n, uint64_t *lo, uint64_t *hi)
{
    uint64_t a = (uint64_t)(uintptr_t)p, b = a + n;
    if (b < a)
        b = ~0ull;
    *lo = a & TR_PMASK;
    *hi = b > (~0ull & TR_PMASK) ? (~0ull & TR_PMASK) : (b + TR_PAGE - 1) & TR_PMASK;
}

void tr_sys_open(struct tr_sys *s, const void *p, size_t n)
{
    if (!p || !n)
        return;
    int e = errno;
    uint64_t lo, hi;
    span(p, n, &lo, &hi);
    if ((hi - lo) / TR_PAGE <= WALK_PAGES) {
        for (uint64_t a = lo; a < hi; a += TR_PAGE)
            open_page(s, a);
    } else {
        /* a long span (a read(2) of up to a GiB that returns a line): only
         * the pages of the ranges it meets are protected */
        int m = __atomic_load_n(&tr_hwm, __ATOMIC_ACQUIRE);
        for (int i = 0; i < m; i++) {
            struct tr_range *r = &tr_ranges[i];
            if (!__atomic_load_n(&r->counted, __ATOMIC_ACQUIRE))
                continue;
            uint64_t a = r->plo > lo ? r->plo : lo, b = r->phi < hi ? r->phi : hi;
            for (; a < b; a += TR_PAGE)
                open_page(s, a);
        }
    }
    errno = e;
}

size_t tr_sys_open_str(struct tr_sys *s, const char *str)
{
    const char *p = str;
    for (;;) {
        uint64_t end = ((uint64_t)(uintptr_t)p & TR_PMASK) + TR_PAGE;
        size_t left = (size_t)(end - (uint64_t)(uintptr_t)p);
        tr_sys_open(s, p, left);
        const char *z = memchr(p, 0, left);
        if (z)
            return (size_t)(z - str);
        p += left;
    }
}

/* retry_safe: a read from fd that failed with EFAULT consumed nothing,
 * so the call may be made again. A regular file or a pipe keeps its
 * data and offset, and so does a stream socket (TCP's and AF_UNIX's
 * receive copy out before they consume); a datagram socket drops the
 * datagram and a terminal its input, where a retry would block or
 * return the next one. Asked on the failure path only. */
static int retry_safe(int fd)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return 0;
    if (S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISBLK(st.st_mode))
        return 1;
    if (!S_ISSOCK(st.st_mode))
        return 0;
    int type = 0;
    socklen_t len = sizeof type;
    return getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == 0 && type == SOCK_STREAM;
}

int tr_sys_redo(int fd)
{
    if (fd == TR_SYS_ONCE || errno != EFAULT || !tr_sys_any())
        return 0;
    int e = errno;
    int ok = fd < 0 || retry_safe(fd);
    errno = e;
    return ok;
}

int tr_sys_again(struct tr_sys *s, int failed, int fd)
{
    if (!failed || errno != EFAULT || s->force || !s->seen || fd == TR_SYS_ONCE)
        return 0;
    if (fd >= 0) {
        int e = errno;
        int ok = retry_safe(fd);
        errno = e;
        if (!ok)
            return 0; /* the EFAULT, as the kernel gave it */
    }
    s->force = 1;
    return 1;
}

/* first_data: the first byte of r's datatype in [lo, hi) that pages
 * watch; 0 when none (a strided range searched SCAN_BYTES far) */
static int first_data(const struct tr_range *r, uint64_t lo, uint64_t hi, uint64_t *at)
{
    uint64_t x = lo > r->lo ? lo : r->lo, end = hi < r->hi ? hi : r->hi;
    if ((int64_t)x < r->slo)
        x = (uint64_t)r->slo;
    if ((int64_t)end > r->shi)
        end = (uint64_t)r->shi;
    if (x >= end)
        return 0;
    if (r->nblk <= 0) {
        /* contiguous; or a layout checked when reported (track.c's report
         * drops the event when this byte is a gap) */
        *at = x;
        return 1;
    }
    for (uint64_t stop = end - x > SCAN_BYTES ? x + SCAN_BYTES : end; x < stop; x++)
        if (tr_in_data(r, x)) {
            *at = x;
            return 1;
        }
    return 0;
}

void tr_sys_done(struct tr_sys *s, const void *p, size_t n, int store)
{
    if (!s->seen || !p || !n)
        return; /* no page the call named is the tracker's */
    int e = errno;
    uint64_t lo = (uint64_t)(uintptr_t)p, hi = lo + n;
    if (hi < lo)
        hi = ~0ull;
    int m = __atomic_load_n(&tr_hwm, __ATOMIC_ACQUIRE);
    for (int i = 0; i < m; i++) {
        struct tr_range *r = &tr_ranges[i];
        if (__atomic_load_n(&r->state, __ATOMIC_ACQUIRE) != R_ACTIVE || r->hi <= lo || r->lo >= hi)
            continue;
        if (!tr_pin(r))
            continue;
        uint64_t at;
        if (first_data(r, lo, hi, &at)) {
            if (s->lib < 0)
                s->lib = s->ra && tr_pc_is_lib(s->ra);
            if (s->lib) {
                if (store)
                    __atomic_store_n(&r->moved, TR_MOVED, __ATOMIC_RELAXED);
            } else if (r->mode == MPIDBG_TR_LOG) {
                int i = tr_log_slot(r);
                if (i >= 0)
                    tr_log_fill(r, i, at, s->ra - 1, store);
            } else if (r->mode == MPIDBG_TR_ALL || store) {
                tr_program_access(r, s->ra - 1, at, 0, store);
            }
        }
        tr_unpin(r);
    }
    errno = e;
}

void tr_sys_cleanup(void *s)
{
    tr_sys_end(s);
}

void tr_sys_end(struct tr_sys *s)
{
    if (!s->seen)
        return;
    int e = errno;
    tr_stat(MPIDBG_TRS_SYS_CALLS);
    for (int i = 0; i < s->n; i++) {
        struct tr_page *p = tr_page_find(s->page[i]);
        if (!p)
            continue;
        __atomic_fetch_sub(&p->steppers, 1, __ATOMIC_SEQ_CST);
        tr_apply(s->page[i], s->page[i] + TR_PAGE, 0);
    }
    s->n = 0;
    errno = e;
}

/* ---- the wrappers ----
 * Each forwards to the next definition (libc's), looked up when the shim
 * is loaded or at the first call. The fast path, with no range on any
 * page: two loads and a branch, then a tail call; the rest is out of
 * line (NAME_slow). */

/* FAST: a wrapper's body (TR_SYS_FAST); IN as for CALL */
#define FAST(name, IN, ...) TR_SYS_FAST(ssize_t, name, -1, IN, __VA_ARGS__)

/* SLOW_NEXT starts NAME_slow (TR_SYS_SLOW_NEXT) */
#define SLOW_NEXT(name, ...) TR_SYS_SLOW_NEXT(name, -1, __VA_ARGS__)

/* -D_FORTIFY_SOURCE's variants, for buffers of known size (declared by
 * glibc's headers only when fortifying) */
ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen);
ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen);
ssize_t __pread64_chk(int fd, void *buf, size_t n, off64_t off, size_t buflen);
ssize_t __recv_chk(int fd, void *buf, size_t n, size_t buflen, int flags);
ssize_t __recvfrom_chk(int fd, void *buf, size_t n, size_t buflen, int flags, struct sockaddr *from,
                       socklen_t *fromlen);

/* rc: a byte count or -1 */
static size_t moved(ssize_t rc)
{
    return rc > 0 ? (size_t)rc : 0;
}

/* at most n: recv with MSG_TRUNC returns the datagram's length */
static size_t moved_max(ssize_t rc, size_t n)
{
    return moved(rc) < n ? moved(rc) : n;
}

/* a receive's bytes stored: on a stream socket MSG_TRUNC discards what
 * it counts, copying nothing (tcp(7)) */
static size_t moved_recv(int fd, int flags, ssize_t rc, size_t n)
{
    if (flags & MSG_TRUNC) {
        int type = 0, e = errno;
        socklen_t len = sizeof type;
        int stream = getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == 0 && type == SOCK_STREAM;
        errno = e;
        if (stream)
            return 0;
    }
    return moved_max(rc, n);
}

int tr_sys_copy_in(void *out, const void *p, size_t n)
{
    struct iovec here = {out, n}, there = {(void *)p, n};
    int e = errno;
    int ok = p && process_vm_readv(getpid(), &here, 1, &there, 1, 0) == (ssize_t)n;
    errno = e;
    return ok;
}

#define IOV_CHUNK 32

/* the memory of an iovec array: the array itself (the kernel reads it)
 * and its buffers; an array it cannot read is left to the kernel */
static void open_iov(struct tr_sys *s, const struct iovec *iov, size_t cnt)
{
    if (!iov || cnt == 0 || cnt > IOV_MAX)
        return; /* the kernel's EINVAL */
    tr_sys_open(s, iov, cnt * sizeof *iov);
    struct iovec v[IOV_CHUNK];
    for (size_t i = 0; i < cnt; i += IOV_CHUNK) {
        size_t k = cnt - i < IOV_CHUNK ? cnt - i : IOV_CHUNK;
        if (!tr_sys_copy_in(v, iov + i, k * sizeof *v))
            return;
        for (size_t j = 0; j < k; j++)
            tr_sys_open(s, v[j].iov_base, v[j].iov_len);
    }
}

/* the first n bytes the iovec array names, in order, were moved */
static void done_iov(struct tr_sys *s, const struct iovec *iov, size_t cnt, size_t n, int store)
{
    if (!s->seen || !iov || cnt > IOV_MAX)
        return;
    struct iovec v[IOV_CHUNK];
    for (size_t i = 0; i < cnt && n; i += IOV_CHUNK) {
        size_t k = cnt - i < IOV_CHUNK ? cnt - i : IOV_CHUNK;
        if (!tr_sys_copy_in(v, iov + i, k * sizeof *v))
            return;
        for (size_t j = 0; j < k && n; j++) {
            size_t m = v[j].iov_len < n ? v[j].iov_len : n;
            tr_sys_done(s, v[j].iov_base, m, store);
            n -= m;
        }
    }
}

/* a message header (the kernel reads it, and writes its lengths and
 * flags on receipt), its address, control data and iovec array; h gets
 * a copy of the header (msg_iov NULL when it cannot be read) */
static void open_msg(struct tr_sys *s, const struct msghdr *m, struct msghdr *h)
{
    tr_sys_open(s, m, sizeof *m);
    if (!tr_sys_copy_in(h, m, sizeof *h)) {
        memset(h, 0, sizeof *h);
        return;
    }
    tr_sys_open(s, h->msg_name, h->msg_namelen);
    tr_sys_open(s, h->msg_control, h->msg_controllen);
    open_iov(s, h->msg_iov, h->msg_iovlen);
}

size_t tr_sys_open_addr(struct tr_sys *s, const void *addr, const void *len)
{
    socklen_t n = 0;
    if (!len)
        return 0;
    tr_sys_open(s, len, sizeof n);
    if (addr && tr_sys_copy_in(&n, len, sizeof n))
        tr_sys_open(s, addr, n);
    return n;
}

/* CALL: the call with the memory OPEN names held open (TR_SYS_CALL).
 * IN: the descriptor a call reads from, whose failure may have consumed
 * input (tr_sys_again asks); -1 for a call a failure leaves no trace of. */
#define CALL(IN, call, OPEN, DONE) TR_SYS_CALL(ssize_t, -1, IN, call, OPEN, DONE)

static void *next_write;
static __attribute__((noinline)) ssize_t write_slow(const void *ra, int fd, const void *buf, size_t n)
{
    SLOW_NEXT(write, fd, buf, n);
    CALL(-1, r(fd, buf, n), tr_sys_open(&s, buf, n), tr_sys_done(&s, buf, moved(rc), 0));
}

ssize_t write(int fd, const void *buf, size_t n)
{
    FAST(write, -1, fd, buf, n);
}

static void *next_read;
static __attribute__((noinline)) ssize_t read_slow(const void *ra, int fd, void *buf, size_t n)
{
    SLOW_NEXT(read, fd, buf, n);
    CALL(fd, r(fd, buf, n), tr_sys_open(&s, buf, n), tr_sys_done(&s, buf, moved(rc), 1));
}

ssize_t read(int fd, void *buf, size_t n)
{
    FAST(read, fd, fd, buf, n);
}

static void *next___read_chk;
static __attribute__((noinline)) ssize_t __read_chk_slow(const void *ra, int fd, void *buf, size_t n, size_t buflen)
{
    SLOW_NEXT(__read_chk, fd, buf, n, buflen);
    CALL(fd, r(fd, buf, n, buflen), tr_sys_open(&s, buf, n), tr_sys_done(&s, buf, moved(rc), 1));
}

ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen)
{
    FAST(__read_chk, fd, fd, buf, n, buflen);
}

static void *next_pwrite;
static __attribute__((noinline)) ssize_t pwrite_slow(const void *ra, int fd, const void *buf, size_t n, off_t off)
{
    SLOW_NEXT(pwrite, fd, buf, n, off);
    CALL(-1, r(fd, buf, n, off), tr_sys_open(&s, buf, n), tr_sys_done(&s, buf, moved(rc), 0));
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
    FAST(pwrite, -1, fd, buf, n, off);
}

static void *next_pwrite64;
static __attribute__((noinline)) ssize_t pwrite64_slow(const void *ra, int fd, const void *buf, size_t n, off64_t off)
{
    SLOW_NEXT(pwrite64, fd, buf, n, off);
    CALL(-1, r(fd, buf, n, off), tr_sys_open(&s, buf, n), tr_sys_done(&s, buf, moved(rc), 0));
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t off)
{
    FAST(pwrite64, -1, fd, buf, n, off);
}

static void *next_pread;
static __attribute__((noinline)) ssize_t pread_slow(const void *ra, int fd, void *buf, size_t n, off_t off)
{
    SLOW_NEXT(pread, fd, buf, n, off);
    CALL(fd, r(fd, buf, n, off), tr_sys_open(&s, buf, n), tr_sys_done(&s, buf, moved(rc), 1));
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
    FAST(pread, fd, fd, buf, n, off);
}

static void *next_pread64;
static __attribute__((noinline)) ssize_t pread64_slow(const void *ra, int fd, void *buf, size_t n, off64_t off)
{
    SLOW_NEXT(pread64, fd, buf, n, off);
    CALL(fd, r(fd, buf, n, off), tr_sys_open(&s, buf, n), tr_sys_done(&s, buf, moved(rc), 1));
}

ssize_t pread64(int fd, void *buf, size_t n, off64_t off)
{
    FAST(pread64, fd, fd, buf, n, off);
}

static void *next___pread_chk;
static __attribute__((noinline)) ssize_t __pread_chk_slow(const void *ra, int fd, void *buf, size_t n, off_t off,
                                                          size_t buflen)
{
    SLOW_NEXT(__pread_chk, fd, buf, n, off, buflen);
    CALL(fd, r(fd, buf, n, off, buflen), tr_sys_open(&s, buf, n), tr_sys_done(&s, buf, moved(rc), 1));
}

ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen)
{
    FAST(__pread_chk, fd, fd, buf, n, off, buflen);
}

static void *next___pread64_chk;
static __attribute__((noinline)) ssize_t __pread64_chk_slow(const void *ra, int fd, void *buf, size_t n, off64_t off,
                                                            size_t buflen)
{
    SLOW_NEXT(__pread64_chk, fd, buf, n, off, buflen);
    CALL(fd, r(fd, buf, n, off, buflen), tr_sys_open(&s, buf, n), tr_sys_done(&s, buf, moved(rc), 1));
}

ssize_t __pread64_chk(int fd, void *buf, size_t n, off64_t off, size_t buflen)
{
    FAST(__pread64_chk, fd, fd, buf, n, off, buflen);
}

static void *next_writev;
static __attribute__((noinline)) ssize_t writev_slow(const void *ra, int fd, const struct iovec *iov, int cnt)
{
    SLOW_NEXT(writev, fd, iov, cnt);
    CALL(-1, r(fd, iov, cnt), open_iov(&s, iov, cnt), done_iov(&s, iov, cnt, moved(rc), 0));
}

ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
    FAST(writev, -1, fd, iov, cnt);
}

static void *next_readv;
static __attribute__((noinline)) ssize_t readv_slow(const void *ra, int fd, const struct iovec *iov, int cnt)
{
    SLOW_NEXT(readv, fd, iov, cnt);
    CALL(fd, r(fd, iov, cnt), open_iov(&s, iov, cnt), done_iov(&s, iov, cnt, moved(rc), 1));
}

ssize_t readv(int fd, const struct iovec *iov, int cnt)
{
    FAST(readv, fd, fd, iov, cnt);
}

static void *next_pwritev;
static __attribute__((noinline)) ssize_t pwritev_slow(const void *ra, int fd, const struct iovec *iov, int cnt,
                                                      off_t off)
{
    SLOW_NEXT(pwritev, fd, iov, cnt, off);
    CALL(-1, r(fd, iov, cnt, off), open_iov(&s, iov, cnt), done_iov(&s, iov, cnt, moved(rc), 0));
}

ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off)
{
    FAST(pwritev, -1, fd, iov, cnt, off);
}

static void *next_pwritev64;
static __attribute__((noinline)) ssize_t pwritev64_slow(const void *ra, int fd, const struct iovec *iov, int cnt,
                                                        off64_t off)
{
    SLOW_NEXT(pwritev64, fd, iov, cnt, off);
    CALL(-1, r(fd, iov, cnt, off), open_iov(&s, iov, cnt), done_iov(&s, iov, cnt, moved(rc), 0));
}

ssize_t pwritev64(int fd, const struct iovec *iov, int cnt, off64_t off)
{
    FAST(pwritev64, -1, fd, iov, cnt, off);
}

static void *next_preadv;
static __attribute__((noinline)) ssize_t preadv_slow(const void *ra, int fd, const struct iovec *iov, int cnt,
                                                     off_t off)
{
    SLOW_NEXT(preadv, fd, iov, cnt, off);
    CALL(fd, r(fd, iov, cnt, off), open_iov(&s, iov, cnt), done_iov(&s, iov, cnt, moved(rc), 1));
}

ssize_t preadv(int fd, const struct iovec *iov, int cnt, off_t off)
{
    FAST(preadv, fd, fd, iov, cnt, off);
}

static void *next_preadv64;
static __attribute__((noinline)) ssize_t preadv64_slow(const void *ra, int fd, const struct iovec *iov, int cnt,
                                                       off64_t off)
{
    SLOW_NEXT(preadv64, fd, iov, cnt, off);
    CALL(fd, r(fd, iov, cnt, off), open_iov(&s, iov, cnt), done_iov(&s, iov, cnt, moved(rc), 1));
}

ssize_t preadv64(int fd, const struct iovec *iov, int cnt, off64_t off)
{
    FAST(preadv64, fd, fd, iov, cnt, off);
}

static void *next_send;
static __attribute__((noinline)) ssize_t send_slow(const void *ra, int fd, const void *buf, size_t n, int flags)
{
    SLOW_NEXT(send, fd, buf, n, flags);
    CALL(-1, r(fd, buf, n, flags), tr_sys_open(&s, buf, n), tr_sys_done(&s, buf, moved(rc), 0));
}

ssize_t send(int fd, const void *buf, size_t n, int flags)
{
    FAST(send, -1, fd, buf, n, flags);
}

static void *next_recv;
static __attribute__((noinline)) ssize_t recv_slow(const void *ra, int fd, void *buf, size_t n, int flags)
{
    SLOW_NEXT(recv, fd, buf, n, flags);
    CALL(fd, r(fd, buf, n, flags), tr_sys_open(&s, buf, n), tr_sys_done(&s, buf, moved_recv(fd, flags, rc, n), 1));
}

ssize_t recv(int fd, void *buf, size_t n, int flags)
{
    FAST(recv, fd, fd, buf, n, flags);
}

static void *next___recv_chk;
static __attribute__((noinline)) ssize_t __recv_chk_slow(const void *ra, int fd, void *buf, size_t n, size_t buflen,
                                                         int flags)
{
    SLOW_NEXT(__recv_chk, fd, buf, n, buflen, flags);
    CALL(fd, r(fd, buf, n, buflen, flags), tr_sys_open(&s, buf, n),
         tr_sys_done(&s, buf, moved_recv(fd, flags, rc, n), 1));
}

ssize_t __recv_chk(int fd, void *buf, size_t n, size_t buflen, int flags)
{
    FAST(__recv_chk, fd, fd, buf, n, buflen, flags);
}

static void *next_sendto;
static __attribute__((noinline)) ssize_t sendto_slow(const void *ra, int fd, const void *buf, size_t n, int flags,
                                                     const struct sockaddr *to, socklen_t tolen)
{
    SLOW_NEXT(sendto, fd, buf, n, flags, to, tolen);
    CALL(-1, r(fd, buf, n, flags, to, tolen), (tr_sys_open(&s, buf, n), tr_sys_open(&s, to, tolen)),
         tr_sys_done(&s, buf, moved(rc), 0));
}

ssize_t sendto(int fd, const void *buf, size_t n, int flags, const struct sockaddr *to, socklen_t tolen)
{
    FAST(sendto, -1, fd, buf, n, flags, to, tolen);
}

static void *next_recvfrom;
static __attribute__((noinline)) ssize_t recvfrom_slow(const void *ra, int fd, void *buf, size_t n, int flags,
                                                       struct sockaddr *from, socklen_t *fromlen)
{
    SLOW_NEXT(recvfrom, fd, buf, n, flags, from, fromlen);
    CALL(fd, r(fd, buf, n, flags, from, fromlen), (tr_sys_open(&s, buf, n), tr_sys_open_addr(&s, from, fromlen)),
         tr_sys_done(&s, buf, moved_recv(fd, flags, rc, n), 1));
}

ssize_t recvfrom(int fd, void *buf, size_t n, int flags, struct sockaddr *from, socklen_t *fromlen)
{
    FAST(recvfrom, fd, fd, buf, n, flags, from, fromlen);
}

static void *next___recvfrom_chk;
static __attribute__((noinline)) ssize_t __recvfrom_chk_slow(const void *ra, int fd, void *buf, size_t n, size_t buflen,
                                                             int flags, struct sockaddr *from, socklen_t *fromlen)
{
    SLOW_NEXT(__recvfrom_chk, fd, buf, n, buflen, flags, from, fromlen);
    CALL(fd, r(fd, buf, n, buflen, flags, from, fromlen), (tr_sys_open(&s, buf, n), tr_sys_open_addr(&s, from, fromlen)),
         tr_sys_done(&s, buf, moved_recv(fd, flags, rc, n), 1));
}

ssize_t __recvfrom_chk(int fd, void *buf, size_t n, size_t buflen, int flags, struct sockaddr *from, socklen_t *fromlen)
{
    FAST(__recvfrom_chk, fd, fd, buf, n, buflen, flags, from, fromlen);
}

static void *next_sendmsg;
static __attribute__((noinline)) ssize_t sendmsg_slow(const void *ra, int fd, const struct msghdr *m, int flags)
{
    SLOW_NEXT(sendmsg, fd, m, flags);
    if (!m)
        return r(fd, m, flags); /* the kernel's EFAULT */
    struct msghdr h;
    CALL(-1, r(fd, m, flags), open_msg(&s, m, &h), done_iov(&s, h.msg_iov, h.msg_iovlen, moved(rc), 0));
}

ssize_t sendmsg(int fd, const struct msghdr *m, int flags)
{
    FAST(sendmsg, -1, fd, m, flags);
}

static void *next_recvmsg;
static __attribute__((noinline)) ssize_t recvmsg_slow(const void *ra, int fd, struct msghdr *m, int flags)
{
    SLOW_NEXT(recvmsg, fd, m, flags);
    if (!m)
        return r(fd, m, flags); /* the kernel's EFAULT */
    struct msghdr h;
    CALL(fd, r(fd, m, flags), open_msg(&s, m, &h),
         done_iov(&s, h.msg_iov, h.msg_iovlen, moved_recv(fd, flags, rc, SIZE_MAX), 1));
}

ssize_t recvmsg(int fd, struct msghdr *m, int flags)
{
    FAST(recvmsg, fd, fd, m, flags);
}

/* Looked up when the shim is loaded, so that the fast path finds them. */
__attribute__((constructor)) static void resolve(void)
{
    mpidbg_next_symbol(&next_write, "write");
    mpidbg_next_symbol(&next_read, "read");
    mpidbg_next_symbol(&next___read_chk, "__read_chk");
    mpidbg_next_symbol(&next_pwrite, "pwrite");
    mpidbg_next_symbol(&next_pwrite64, "pwrite64");
    mpidbg_next_symbol(&next_pread, "pread");
    mpidbg_next_symbol(&next_pread64, "pread64");
    mpidbg_next_symbol(&next___pread_chk, "__pread_chk");
    mpidbg_next_symbol(&next___pread64_chk, "__pread64_chk");
    mpidbg_next_symbol(&next_writev, "writev");
    mpidbg_next_symbol(&next_readv, "readv");
    mpidbg_next_symbol(&next_pwritev, "pwritev");
    mpidbg_next_symbol(&next_pwritev64, "pwritev64");
    mpidbg_next_symbol(&next_preadv, "preadv");
    mpidbg_next_symbol(&next_preadv64, "preadv64");
    mpidbg_next_symbol(&next_send, "send");
    mpidbg_next_symbol(&next_recv, "recv");
    mpidbg_next_symbol(&next___recv_chk, "__recv_chk");
    mpidbg_next_symbol(&next_sendto, "sendto");
    mpidbg_next_symbol(&next_recvfrom, "recvfrom");
    mpidbg_next_symbol(&next___recvfrom_chk, "__recvfrom_chk");
    mpidbg_next_symbol(&next_sendmsg, "sendmsg");
    mpidbg_next_symbol(&next_recvmsg, "recvmsg");
}
