/*
 * POSIX asynchronous I/O, and the watched pages.
 *
 * glibc carries out aio_read, aio_write, aio_fsync and lio_listio on
 * threads of its own that run with every signal blocked: they read the
 * request's control block and glibc's request list from the heap, read
 * or write the buffer, and write the result into the control block. A
 * fault there on a page beside a pending receive buffer ends the process
 * (a control block in the same structure as a halo, a write buffer that
 * shares its last page with one). MPI-IO's nonblocking calls come here
 * too: ROMIO (MPICH) and Open MPI's posix component submit their
 * requests with aio_write and aio_read.
 *
 * So every watched page is held open (mpidbg_track_hold) from a
 * request's submission until the program takes its result with
 * aio_return, the call POSIX asks for once per request (POSIX.1-2017
 * aio_return: "may be called exactly once"); lio_listio with LIO_WAIT
 * for the call only. A request whose result is never taken keeps the
 * pages open for good, and so does one that does not fit the table of
 * requests in flight. The tracker sees no access while any is held.
 */
#define _GNU_SOURCE
#include <aio.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>

#include "shim.h"
#include "track.h"

#define INFLIGHT 1024 /* a power of two */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static const void *inflight[INFLIGHT]; /* the control blocks held for, open addressing */

static size_t slot(const void *cb)
{
    return (size_t)(mpidbg_mix64((uint64_t)(uintptr_t)cb) & (INFLIGHT - 1));
}

/* submitted: cb's request went to glibc, and the pages are held for it
 * (one hold per control block: a block submitted again before its
 * aio_return stays held once) */
static void submitted(const void *cb)
{
    pthread_mutex_lock(&mu);
    size_t h = slot(cb);
    int known = 0, stored = 0;
    for (size_t i = 0; i < INFLIGHT && !known && !stored; i++) {
        const void **s = &inflight[(h + i) & (INFLIGHT - 1)];
        if (*s == cb)
            known = 1;
        else if (!*s)
            *s = cb, stored = 1;
    }
    pthread_mutex_unlock(&mu);
    if (!known)
        mpidbg_track_hold(1); /* not stored: held for good */
}

/* returned: the program took cb's result */
static void returned(const void *cb)
{
    pthread_mutex_lock(&mu);
    size_t h = slot(cb), i;
    int found = 0;
    for (i = 0; i < INFLIGHT && inflight[(h + i) & (INFLIGHT - 1)]; i++)
        if (inflight[(h + i) & (INFLIGHT - 1)] == cb) {
            found = 1;
            break;
        }
    if (found) {
        /* delete from the probe sequence: move later entries back */
        size_t at = (h + i) & (INFLIGHT - 1);
        inflight[at] = NULL;
        for (size_t j = (at + 1) & (INFLIGHT - 1); inflight[j]; j = (j + 1) & (INFLIGHT - 1)) {
            const void *k = inflight[j];
            size_t home = slot(k);
            /* k stays when its home lies cyclically in (at, j] */
            if (at <= j ? (home > at && home <= j) : (home > at || home <= j))
                continue;
            inflight[at] = k;
            inflight[j] = NULL;
            at = j;
        }
    }
    pthread_mutex_unlock(&mu);
    if (found)
        mpidbg_track_hold(-1);
}

/* queued: the submission's answer; a request not queued has no result
 * to take, and its hold ends */
static int queued(const void *cb, int rc)
{
    if (rc != 0 && cb) {
        int e = errno;
        returned(cb);
        errno = e;
    }
    return rc;
}

typedef int (*submit_fn)(void *);

static int submit(void **cache, const char *name, void *cb)
{
    submit_fn real = (submit_fn)mpidbg_next_symbol(cache, name);
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    if (cb)
        submitted(cb);
    return queued(cb, real(cb));
}

int aio_read(struct aiocb *cb)
{
    static void *cache;
    return submit(&cache, "aio_read", cb);
}

int aio_write(struct aiocb *cb)
{
    static void *cache;
    return submit(&cache, "aio_write", cb);
}

int aio_read64(struct aiocb64 *cb)
{
    static void *cache;
    return submit(&cache, "aio_read64", cb);
}

int aio_write64(struct aiocb64 *cb)
{
    static void *cache;
    return submit(&cache, "aio_write64", cb);
}

typedef int (*fsync_fn)(int, void *);

static int fsync_submit(void **cache, const char *name, int op, void *cb)
{
    fsync_fn real = (fsync_fn)mpidbg_next_symbol(cache, name);
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    if (cb)
        submitted(cb);
    return queued(cb, real(op, cb));
}

int aio_fsync(int op, struct aiocb *cb)
{
    static void *cache;
    return fsync_submit(&cache, "aio_fsync", op, cb);
}

int aio_fsync64(int op, struct aiocb64 *cb)
{
    static void *cache;
    return fsync_submit(&cache, "aio_fsync64", op, cb);
}

typedef int (*lio_fn)(int, void *const *, int, struct sigevent *);

/* list: lio_listio. With LIO_WAIT every request is done when it returns
 * (or failed), so the hold ends with the call; with LIO_NOWAIT each
 * request is held for until its aio_return. EAGAIN or EINVAL: none was
 * queued; EIO: some were, and those stay held (which ones failed to
 * queue, aio_error cannot tell from those already done). */
static int list(void **cache, const char *name, int mode, void *const *cbs, int n, struct sigevent *sev)
{
    lio_fn real = (lio_fn)mpidbg_next_symbol(cache, name);
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    if (mode == LIO_WAIT) {
        mpidbg_track_hold(1);
        int rc = real(mode, cbs, n, sev);
        int e = errno;
        mpidbg_track_hold(-1);
        errno = e;
        return rc;
    }
    for (int i = 0; cbs && i < n; i++)
        if (cbs[i])
            submitted(cbs[i]);
    int rc = real(mode, cbs, n, sev);
    int e = errno;
    if (rc != 0 && e != EIO)
        for (int i = 0; cbs && i < n; i++)
            if (cbs[i])
                returned(cbs[i]);
    errno = e;
    return rc;
}

int lio_listio(int mode, struct aiocb *const list_[], int n, struct sigevent *sev)
{
    static void *cache;
    return list(&cache, "lio_listio", mode, (void *const *)list_, n, sev);
}

int lio_listio64(int mode, struct aiocb64 *const list_[], int n, struct sigevent *sev)
{
    static void *cache;
    return list(&cache, "lio_listio64", mode, (void *const *)list_, n, sev);
}

static int error32(const void *cb)
{
    return aio_error((const struct aiocb *)cb);
}

static int error64(const void *cb)
{
    return aio_error64((const struct aiocb64 *)cb);
}

typedef ssize_t (*return_fn)(void *);

static ssize_t take(void **cache, const char *name, void *cb, int (*error_of)(const void *))
{
    return_fn real = (return_fn)mpidbg_next_symbol(cache, name);
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    int done = cb && error_of(cb) != EINPROGRESS;
    ssize_t rc = real(cb);
    if (done) {
        int e = errno;
        returned(cb);
        errno = e;
    }
    return rc;
}

ssize_t aio_return(struct aiocb *cb)
{
    static void *cache;
    return take(&cache, "aio_return", cb, error32);
}

ssize_t aio_return64(struct aiocb64 *cb)
{
    static void *cache;
    return take(&cache, "aio_return64", cb, error64);
}
