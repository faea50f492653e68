/*
 * POSIX asynchronous I/O, and the watched pages.
 *
 * glibc carries out aio_read, aio_write, aio_fsync and lio_listio on
 * threads of its own that run with every signal blocked: they read the
 * request's control block, pass the buffer to read(2) or write(2), and
 * write the result into the control block. A fault there on a page
 * beside a pending receive buffer ends the process (a control block in
 * the same structure as a halo), and the kernel answers EFAULT for a
 * buffer whose first or last page is shared with one (the write comes
 * back short). MPI-IO's nonblocking calls come here too: ROMIO (MPICH)
 * and Open MPI's posix component submit their requests with aio_write
 * and aio_read.
 *
 * So at a submission the control block's pages and the buffer's first
 * and last pages join the never-protected set (mpidbg_track_sync_object,
 * as a synchronisation object's). The buffer's other pages hold only the
 * buffer: they are protected only while an operation pending on them
 * (an MPI_File_iwrite's own, say) asks for it, which still sees the
 * program's stores there. What is left: glibc's own records of the
 * requests, on the heap, read by its threads with every signal blocked.
 */
#define _GNU_SOURCE
#include <aio.h>
#include <errno.h>
#include <stdint.h>

#include "shim.h"
#include "track.h"

/* seen: cb's request (opcode: LIO_READ, LIO_WRITE, LIO_NOP) goes to
 * glibc's threads now */
static void seen(const struct aiocb *cb, int opcode)
{
    int e = errno;
    mpidbg_track_sync_object(cb, sizeof *cb);
    if (opcode != LIO_NOP && cb->aio_buf && cb->aio_nbytes) {
        const char *b = (const char *)cb->aio_buf;
        mpidbg_track_sync_object(b, 1);
        mpidbg_track_sync_object(b + cb->aio_nbytes - 1, 1);
    }
    errno = e;
}

/* On x86-64 struct aiocb64 is struct aiocb (64-bit offsets already). */
_Static_assert(sizeof(struct aiocb64) == sizeof(struct aiocb), "aiocb64 differs from aiocb");

typedef int (*submit_fn)(void *);

static int submit(void **cache, const char *name, struct aiocb *cb, int opcode)
{
    submit_fn real = (submit_fn)mpidbg_next_symbol(cache, name);
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    if (cb && mpidbg_track_on)
        seen(cb, opcode); /* aio_read and aio_write ignore aio_lio_opcode */
    return real(cb);
}

int aio_read(struct aiocb *cb)
{
    static void *cache;
    return submit(&cache, "aio_read", cb, LIO_READ);
}

int aio_write(struct aiocb *cb)
{
    static void *cache;
    return submit(&cache, "aio_write", cb, LIO_WRITE);
}

int aio_read64(struct aiocb64 *cb)
{
    static void *cache;
    return submit(&cache, "aio_read64", (struct aiocb *)cb, LIO_READ);
}

int aio_write64(struct aiocb64 *cb)
{
    static void *cache;
    return submit(&cache, "aio_write64", (struct aiocb *)cb, LIO_WRITE);
}

typedef int (*fsync_fn)(int, void *);

static int fsync_submit(void **cache, const char *name, int op, struct aiocb *cb)
{
    fsync_fn real = (fsync_fn)mpidbg_next_symbol(cache, name);
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    if (cb && mpidbg_track_on) {
        int e = errno;
        mpidbg_track_sync_object(cb, sizeof *cb); /* no buffer */
        errno = e;
    }
    return real(op, cb);
}

int aio_fsync(int op, struct aiocb *cb)
{
    static void *cache;
    return fsync_submit(&cache, "aio_fsync", op, cb);
}

int aio_fsync64(int op, struct aiocb64 *cb)
{
    static void *cache;
    return fsync_submit(&cache, "aio_fsync64", op, (struct aiocb *)cb);
}

typedef int (*lio_fn)(int, void *const *, int, struct sigevent *);

static int list(void **cache, const char *name, int mode, struct aiocb *const *cbs, int n, struct sigevent *sev)
{
    lio_fn real = (lio_fn)mpidbg_next_symbol(cache, name);
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    for (int i = 0; cbs && mpidbg_track_on && i < n; i++)
        if (cbs[i])
            seen(cbs[i], cbs[i]->aio_lio_opcode);
    return real(mode, (void *const *)cbs, n, sev);
}

int lio_listio(int mode, struct aiocb *const list_[], int n, struct sigevent *sev)
{
    static void *cache;
    return list(&cache, "lio_listio", mode, list_, n, sev);
}

int lio_listio64(int mode, struct aiocb64 *const list_[], int n, struct sigevent *sev)
{
    static void *cache;
    return list(&cache, "lio_listio64", mode, (struct aiocb *const *)list_, n, sev);
}
