/*
 * System calls that take the program's memory without moving its data:
 * path names, and structures the kernel reads or fills.
 *
 * On a page the tracker protects the kernel answers EFAULT instead of
 * faulting (track_sys.c). A heap structure or a path name shares its
 * page with whatever malloc put beside it, a pending receive buffer
 * among them: fopen(cfg->outfile) or stat(path, &entry->st) or poll(fds)
 * with cfg, entry or fds allocated next to the receive buffer failed
 * under mpidbg and succeeded natively. So the public libc functions that
 * hand such memory to the kernel are wrapped here as track_sys.c wraps
 * read(2) and write(2): while some range has pages (tr_live), the pages
 * under the memory a call names are held open for the call.
 *
 * A call that failed with EFAULT all the same (another thread protected
 * a page between the opening and the call) is made once more when it
 * fails before it has an effect or undoes it (the path is copied in
 * first; pipe(2) closes the pipe it made). Those that may fail after
 * their effect (mkstemp has replaced its XXXXXX, getsockopt's SO_ERROR
 * is cleared) and those that wait (a second poll would wait its time-out
 * again) are not made again (ONCE): the EFAULT is returned, as natively
 * for a page that went away. accept(2), waitpid(2) and sigtimedwait(2),
 * whose failure loses a connection, a child's status or a signal, are
 * not wrapped.
 *
 * What the kernel reads of a pending receive buffer (a path received by
 * an MPI_Irecv opened before MPI_Wait) or writes into a pending buffer
 * (stat(2) into it) is reported at the call, as track_sys.c does.
 *
 * A path is looked at only on the tracker's pages (mapped and the
 * program's) and on a page just before one: a path the program got
 * wrong stays the kernel's EFAULT to give, never a fault in the wrapper.
 */
#define _GNU_SOURCE
#undef _FORTIFY_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/sysinfo.h>
#include <sys/time.h>
#include <sys/times.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

#include "shim.h"
#include "track_int.h"

/* the names of older programs' stat calls (before glibc 2.33), and
 * -D_FORTIFY_SOURCE's variants, declared only under some macros */
int __xstat(int ver, const char *path, struct stat *st);
int __xstat64(int ver, const char *path, struct stat64 *st);
int __lxstat(int ver, const char *path, struct stat *st);
int __lxstat64(int ver, const char *path, struct stat64 *st);
int __fxstat(int ver, int fd, struct stat *st);
int __fxstat64(int ver, int fd, struct stat64 *st);
int __fxstatat(int ver, int dirfd, const char *path, struct stat *st, int flags);
int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *st, int flags);
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);
int __poll_chk(struct pollfd *fds, nfds_t n, int timeout, size_t fdslen);
int __ppoll_chk(struct pollfd *fds, nfds_t n, const struct timespec *t, const sigset_t *mask, size_t fdslen);
char *__getcwd_chk(char *buf, size_t n, size_t buflen);
ssize_t __readlink_chk(const char *path, char *buf, size_t n, size_t buflen);
ssize_t __readlinkat_chk(int dirfd, const char *path, char *buf, size_t n, size_t buflen);

/* open_path opens the tracker's pages under a path name and returns its
 * length with the terminating byte, 0 when it ends on no page of the
 * tracker's (nothing was opened). A name is at most PATH_MAX bytes long:
 * the kernel reads no further. */
static size_t open_path(struct tr_sys *s, const char *path)
{
    if (!path)
        return 0;
    uint64_t a = (uint64_t)(uintptr_t)path;
    size_t len = 0, seen = 0;
    while (len < PATH_MAX) {
        uint64_t end = (a & TR_PMASK) + TR_PAGE;
        size_t left = (size_t)(end - a);
        const char *z;
        if (tr_page_find(a & TR_PMASK)) {
            tr_sys_open(s, (const void *)(uintptr_t)a, left);
            seen = 1;
            z = memchr((const void *)(uintptr_t)a, 0, left);
        } else if (tr_page_find(end)) {
            /* the name may go on into the tracker's next page: read in
             * small pieces (a signal handler's stack may be small) */
            char tmp[256];
            z = NULL;
            for (size_t off = 0; off < left && !z; off += sizeof tmp) {
                size_t k = left - off < sizeof tmp ? left - off : sizeof tmp;
                if (!tr_sys_copy_in(tmp, (const void *)(uintptr_t)(a + off), k))
                    return seen ? len : 0;
                const char *q = memchr(tmp, 0, k);
                if (q)
                    z = (const char *)(uintptr_t)(a + off) + (q - tmp);
            }
        } else {
            return seen ? len : 0; /* neither this page nor the next is watched */
        }
        if (z)
            return len + (size_t)(z - (const char *)(uintptr_t)a) + 1;
        len += left;
        a = end;
    }
    return seen ? len : 0;
}

/* SLOW defines NAME_slow, resolved when the shim is loaded (the crash
 * handler calls poll and nanosleep, where dlsym must not run): the call
 * as TR_SYS_CALL makes it, PRE opening the memory and POST reporting
 * what was moved; n1 and n2 carry lengths from PRE to POST. P(...) passes
 * a list as one argument. */
#define P(...) __VA_ARGS__
#define SLOW(ret, name, fail, in, params, args, PRE, POST)                                              \
    static void *next_##name;                                                                       \
    __attribute__((constructor)) static void resolve_##name(void)                                   \
    {                                                                                               \
        mpidbg_next_symbol(&next_##name, #name);                                                    \
    }                                                                                               \
    static __attribute__((noinline)) ret name##_slow(const void *ra, params)                        \
    {                                                                                               \
        TR_SYS_SLOW_NEXT(name, fail, args);                                                         \
        size_t n1 = 0, n2 = 0;                                                                      \
        (void)n1;                                                                                   \
        (void)n2;                                                                                   \
        TR_SYS_CALL(ret, fail, in, r(args), PRE, POST);                                             \
    }

#define WRAP_IN(ret, name, fail, in, params, args, PRE, POST)                                       \
    SLOW(ret, name, fail, in, P(params), P(args), P(PRE), P(POST))                                  \
    ret name(params)                                                                                \
    {                                                                                               \
        TR_SYS_FAST(ret, name, fail, in, args);                                                     \
    }
/* WRAP: a call made once more after an EFAULT the tracker may have
 * caused; ONCE: one never made again (TR_SYS_ONCE) */
#define WRAP(ret, name, fail, params, args, PRE, POST) WRAP_IN(ret, name, fail, -1, P(params), P(args), P(PRE), P(POST))
#define ONCE(ret, name, fail, params, args, PRE, POST)                                              \
    WRAP_IN(ret, name, fail, TR_SYS_ONCE, P(params), P(args), P(PRE), P(POST))

/* the usual shapes: a path; a path and a structure the call fills; a
 * structure it fills; one it reads */
#define PATH(name, params, args, path)                                                              \
    WRAP(int, name, -1, P(params), P(args), n1 = open_path(&s, path), tr_sys_done(&s, path, n1, 0))
#define PATH2(name, params, args, path, path2)                                                      \
    WRAP(int, name, -1, P(params), P(args), (n1 = open_path(&s, path), n2 = open_path(&s, path2)),  \
         (tr_sys_done(&s, path, n1, 0), tr_sys_done(&s, path2, n2, 0)))
#define PATH_OUT(name, params, args, path, out)                                                     \
    WRAP(int, name, -1, P(params), P(args), (n1 = open_path(&s, path), tr_sys_open(&s, out, sizeof *(out))), \
         (tr_sys_done(&s, path, n1, 0), tr_sys_done(&s, out, ok ? sizeof *(out) : 0, 1)))
#define OUT(ret, name, params, args, out, len)                                                      \
    WRAP(ret, name, (ret)-1, P(params), P(args), tr_sys_open(&s, out, len),                        \
         tr_sys_done(&s, out, ok ? (size_t)(len) : 0, 1))
#define IN(name, params, args, in, len)                                                             \
    WRAP(int, name, -1, P(params), P(args), tr_sys_open(&s, in, len), tr_sys_done(&s, in, len, 0))

/* USABLE: a mask the call sets while it waits, without SIGSEGV and
 * SIGTRAP (track_sigmask.c); its copy lives as long as the wrapper's
 * block does */
#define USABLE(mask) mpidbg_sig_usable(mask, &(sigset_t){{0}})

static size_t opt(const void *p, size_t n)
{
    return p ? n : 0;
}

/* the bytes of an fd_set the kernel reads and writes for select's n: as
 * many longs as n bits take, whatever sizeof(fd_set) is (a program may
 * allocate larger sets for descriptors above FD_SETSIZE) */
static size_t fdset_bytes(int n)
{
    return n > 0 ? ((size_t)n + 63) / 64 * 8 : 0;
}

/* ---- path names ---- */

/* open(2) and its kin take a mode only when they create */
#define MODE(flags)                                                                                 \
    mode_t mode = 0;                                                                                \
    if (__OPEN_NEEDS_MODE(flags)) {                                                                 \
        va_list ap;                                                                                 \
        va_start(ap, flags);                                                                        \
        mode = va_arg(ap, mode_t);                                                                  \
        va_end(ap);                                                                                 \
    }

SLOW(int, open, -1, -1, P(const char *path, int flags, mode_t mode), P(path, flags, mode), n1 = open_path(&s, path),
     tr_sys_done(&s, path, n1, 0))
int open(const char *path, int flags, ...)
{
    MODE(flags);
    TR_SYS_FAST(int, open, -1, -1, path, flags, mode);
}
SLOW(int, open64, -1, -1, P(const char *path, int flags, mode_t mode), P(path, flags, mode), n1 = open_path(&s, path),
     tr_sys_done(&s, path, n1, 0))
int open64(const char *path, int flags, ...)
{
    MODE(flags);
    TR_SYS_FAST(int, open64, -1, -1, path, flags, mode);
}
SLOW(int, openat, -1, -1, P(int dirfd, const char *path, int flags, mode_t mode), P(dirfd, path, flags, mode),
     n1 = open_path(&s, path), tr_sys_done(&s, path, n1, 0))
int openat(int dirfd, const char *path, int flags, ...)
{
    MODE(flags);
    TR_SYS_FAST(int, openat, -1, -1, dirfd, path, flags, mode);
}
SLOW(int, openat64, -1, -1, P(int dirfd, const char *path, int flags, mode_t mode), P(dirfd, path, flags, mode),
     n1 = open_path(&s, path), tr_sys_done(&s, path, n1, 0))
int openat64(int dirfd, const char *path, int flags, ...)
{
    MODE(flags);
    TR_SYS_FAST(int, openat64, -1, -1, dirfd, path, flags, mode);
}
PATH(__open_2, P(const char *path, int flags), P(path, flags), path)
PATH(__open64_2, P(const char *path, int flags), P(path, flags), path)
PATH(__openat_2, P(int dirfd, const char *path, int flags), P(dirfd, path, flags), path)
PATH(__openat64_2, P(int dirfd, const char *path, int flags), P(dirfd, path, flags), path)
PATH(creat, P(const char *path, mode_t mode), P(path, mode), path)
PATH(creat64, P(const char *path, mode_t mode), P(path, mode), path)
PATH(access, P(const char *path, int how), P(path, how), path)
PATH(faccessat, P(int dirfd, const char *path, int how, int flags), P(dirfd, path, how, flags), path)
PATH(euidaccess, P(const char *path, int how), P(path, how), path)
PATH(mkdir, P(const char *path, mode_t mode), P(path, mode), path)
PATH(mkdirat, P(int dirfd, const char *path, mode_t mode), P(dirfd, path, mode), path)
PATH(rmdir, P(const char *path), P(path), path)
PATH(unlink, P(const char *path), P(path), path)
PATH(unlinkat, P(int dirfd, const char *path, int flags), P(dirfd, path, flags), path)
PATH(remove, P(const char *path), P(path), path)
PATH(chdir, P(const char *path), P(path), path)
PATH(chmod, P(const char *path, mode_t mode), P(path, mode), path)
PATH(fchmodat, P(int dirfd, const char *path, mode_t mode, int flags), P(dirfd, path, mode, flags), path)
PATH(chown, P(const char *path, uid_t u, gid_t g), P(path, u, g), path)
PATH(lchown, P(const char *path, uid_t u, gid_t g), P(path, u, g), path)
PATH(truncate, P(const char *path, off_t n), P(path, n), path)
PATH(truncate64, P(const char *path, off64_t n), P(path, n), path)
PATH(mkfifo, P(const char *path, mode_t mode), P(path, mode), path)
PATH(mknod, P(const char *path, mode_t mode, dev_t dev), P(path, mode, dev), path)
ONCE(int, mkstemp, -1, P(char *tmpl), P(tmpl), n1 = open_path(&s, tmpl), tr_sys_done(&s, tmpl, n1, 0))
ONCE(int, mkostemp, -1, P(char *tmpl, int flags), P(tmpl, flags), n1 = open_path(&s, tmpl), tr_sys_done(&s, tmpl, n1, 0))
PATH2(rename, P(const char *from, const char *to), P(from, to), from, to)
PATH2(renameat, P(int fromfd, const char *from, int tofd, const char *to), P(fromfd, from, tofd, to), from, to)
PATH2(link, P(const char *from, const char *to), P(from, to), from, to)
PATH2(symlink, P(const char *from, const char *to), P(from, to), from, to)
WRAP(int, utimensat, -1, P(int dirfd, const char *path, const struct timespec t[2], int flags),
     P(dirfd, path, t, flags), (n1 = open_path(&s, path), tr_sys_open(&s, t, opt(t, 2 * sizeof *t))),
     tr_sys_done(&s, path, n1, 0))
WRAP(int, utimes, -1, P(const char *path, const struct timeval t[2]), P(path, t),
     (n1 = open_path(&s, path), tr_sys_open(&s, t, opt(t, 2 * sizeof *t))), tr_sys_done(&s, path, n1, 0))
WRAP(int, utime, -1, P(const char *path, const struct utimbuf *t), P(path, t),
     (n1 = open_path(&s, path), tr_sys_open(&s, t, opt(t, sizeof *t))), tr_sys_done(&s, path, n1, 0))
WRAP(ssize_t, readlink, -1, P(const char *path, char *buf, size_t n), P(path, buf, n),
     (n1 = open_path(&s, path), tr_sys_open(&s, buf, n)),
     (tr_sys_done(&s, path, n1, 0), tr_sys_done(&s, buf, ok ? (size_t)rc : 0, 1)))
WRAP(ssize_t, __readlink_chk, -1, P(const char *path, char *buf, size_t n, size_t buflen), P(path, buf, n, buflen),
     (n1 = open_path(&s, path), tr_sys_open(&s, buf, n)),
     (tr_sys_done(&s, path, n1, 0), tr_sys_done(&s, buf, ok ? (size_t)rc : 0, 1)))
WRAP(ssize_t, readlinkat, -1, P(int dirfd, const char *path, char *buf, size_t n), P(dirfd, path, buf, n),
     (n1 = open_path(&s, path), tr_sys_open(&s, buf, n)),
     (tr_sys_done(&s, path, n1, 0), tr_sys_done(&s, buf, ok ? (size_t)rc : 0, 1)))
WRAP(ssize_t, __readlinkat_chk, -1, P(int dirfd, const char *path, char *buf, size_t n, size_t buflen),
     P(dirfd, path, buf, n, buflen), (n1 = open_path(&s, path), tr_sys_open(&s, buf, n)),
     (tr_sys_done(&s, path, n1, 0), tr_sys_done(&s, buf, ok ? (size_t)rc : 0, 1)))
WRAP(FILE *, fopen, NULL, P(const char *path, const char *mode), P(path, mode),
     (n1 = open_path(&s, path), n2 = open_path(&s, mode)), tr_sys_done(&s, path, n1, 0))
WRAP(FILE *, fopen64, NULL, P(const char *path, const char *mode), P(path, mode),
     (n1 = open_path(&s, path), n2 = open_path(&s, mode)), tr_sys_done(&s, path, n1, 0))
ONCE(FILE *, freopen, NULL, P(const char *path, const char *mode, FILE *f), P(path, mode, f),
     (n1 = open_path(&s, path), n2 = open_path(&s, mode)), tr_sys_done(&s, path, n1, 0))
ONCE(FILE *, freopen64, NULL, P(const char *path, const char *mode, FILE *f), P(path, mode, f),
     (n1 = open_path(&s, path), n2 = open_path(&s, mode)), tr_sys_done(&s, path, n1, 0))
WRAP(DIR *, opendir, NULL, P(const char *path), P(path), n1 = open_path(&s, path), tr_sys_done(&s, path, n1, 0))
ONCE(char *, mkdtemp, NULL, P(char *tmpl), P(tmpl), n1 = open_path(&s, tmpl), tr_sys_done(&s, tmpl, n1, 0))
WRAP(char *, getcwd, NULL, P(char *buf, size_t n), P(buf, n), tr_sys_open(&s, buf, n),
     tr_sys_done(&s, buf, ok && buf ? strlen(buf) + 1 : 0, 1))
WRAP(char *, __getcwd_chk, NULL, P(char *buf, size_t n, size_t buflen), P(buf, n, buflen), tr_sys_open(&s, buf, n),
     tr_sys_done(&s, buf, ok && buf ? strlen(buf) + 1 : 0, 1))

/* ---- file status ---- */
PATH_OUT(stat, P(const char *path, struct stat *st), P(path, st), path, st)
PATH_OUT(stat64, P(const char *path, struct stat64 *st), P(path, st), path, st)
PATH_OUT(lstat, P(const char *path, struct stat *st), P(path, st), path, st)
PATH_OUT(lstat64, P(const char *path, struct stat64 *st), P(path, st), path, st)
PATH_OUT(fstatat, P(int dirfd, const char *path, struct stat *st, int flags), P(dirfd, path, st, flags), path, st)
PATH_OUT(fstatat64, P(int dirfd, const char *path, struct stat64 *st, int flags), P(dirfd, path, st, flags), path,
         st)
PATH_OUT(statx, P(int dirfd, const char *path, int flags, unsigned mask, struct statx *st),
         P(dirfd, path, flags, mask, st), path, st)
PATH_OUT(__xstat, P(int ver, const char *path, struct stat *st), P(ver, path, st), path, st)
PATH_OUT(__xstat64, P(int ver, const char *path, struct stat64 *st), P(ver, path, st), path, st)
PATH_OUT(__lxstat, P(int ver, const char *path, struct stat *st), P(ver, path, st), path, st)
PATH_OUT(__lxstat64, P(int ver, const char *path, struct stat64 *st), P(ver, path, st), path, st)
PATH_OUT(__fxstatat, P(int ver, int dirfd, const char *path, struct stat *st, int flags),
         P(ver, dirfd, path, st, flags), path, st)
PATH_OUT(__fxstatat64, P(int ver, int dirfd, const char *path, struct stat64 *st, int flags),
         P(ver, dirfd, path, st, flags), path, st)
PATH_OUT(statfs, P(const char *path, struct statfs *st), P(path, st), path, st)
PATH_OUT(statfs64, P(const char *path, struct statfs64 *st), P(path, st), path, st)
PATH_OUT(statvfs, P(const char *path, struct statvfs *st), P(path, st), path, st)
PATH_OUT(statvfs64, P(const char *path, struct statvfs64 *st), P(path, st), path, st)
OUT(int, fstat, P(int fd, struct stat *st), P(fd, st), st, sizeof *st)
OUT(int, fstat64, P(int fd, struct stat64 *st), P(fd, st), st, sizeof *st)
OUT(int, __fxstat, P(int ver, int fd, struct stat *st), P(ver, fd, st), st, sizeof *st)
OUT(int, __fxstat64, P(int ver, int fd, struct stat64 *st), P(ver, fd, st), st, sizeof *st)
OUT(int, fstatfs, P(int fd, struct statfs *st), P(fd, st), st, sizeof *st)
OUT(int, fstatfs64, P(int fd, struct statfs64 *st), P(fd, st), st, sizeof *st)
OUT(int, fstatvfs, P(int fd, struct statvfs *st), P(fd, st), st, sizeof *st)
OUT(int, fstatvfs64, P(int fd, struct statvfs64 *st), P(fd, st), st, sizeof *st)

/* ---- waiting: what the call reads and what it fills ---- */
ONCE(int, nanosleep, -1, P(const struct timespec *t, struct timespec *rem), P(t, rem),
     (tr_sys_open(&s, t, sizeof *t), tr_sys_open(&s, rem, opt(rem, sizeof *rem))), tr_sys_done(&s, t, sizeof *t, 0))
ONCE(int, poll, -1, P(struct pollfd *fds, nfds_t n, int timeout), P(fds, n, timeout),
     tr_sys_open(&s, fds, n * sizeof *fds), tr_sys_done(&s, fds, ok ? n * sizeof *fds : 0, 1))
ONCE(int, __poll_chk, -1, P(struct pollfd *fds, nfds_t n, int timeout, size_t fdslen), P(fds, n, timeout, fdslen),
     tr_sys_open(&s, fds, n * sizeof *fds), tr_sys_done(&s, fds, ok ? n * sizeof *fds : 0, 1))
ONCE(int, ppoll, -1, P(struct pollfd *fds, nfds_t n, const struct timespec *t, const sigset_t *mask),
     P(fds, n, t, USABLE(mask)),
     (tr_sys_open(&s, fds, n * sizeof *fds), tr_sys_open(&s, t, opt(t, sizeof *t)),
      tr_sys_open(&s, mask, opt(mask, sizeof *mask))),
     tr_sys_done(&s, fds, ok ? n * sizeof *fds : 0, 1))
ONCE(int, __ppoll_chk, -1,
     P(struct pollfd *fds, nfds_t n, const struct timespec *t, const sigset_t *mask, size_t fdslen),
     P(fds, n, t, USABLE(mask), fdslen),
     (tr_sys_open(&s, fds, n * sizeof *fds), tr_sys_open(&s, t, opt(t, sizeof *t)),
      tr_sys_open(&s, mask, opt(mask, sizeof *mask))),
     tr_sys_done(&s, fds, ok ? n * sizeof *fds : 0, 1))
ONCE(int, select, -1, P(int n, fd_set *rd, fd_set *wr, fd_set *ex, struct timeval *t), P(n, rd, wr, ex, t),
     (tr_sys_open(&s, rd, opt(rd, fdset_bytes(n))), tr_sys_open(&s, wr, opt(wr, fdset_bytes(n))),
      tr_sys_open(&s, ex, opt(ex, fdset_bytes(n))), tr_sys_open(&s, t, opt(t, sizeof *t))),
     (tr_sys_done(&s, rd, ok ? opt(rd, fdset_bytes(n)) : 0, 1), tr_sys_done(&s, wr, ok ? opt(wr, fdset_bytes(n)) : 0, 1),
      tr_sys_done(&s, ex, ok ? opt(ex, fdset_bytes(n)) : 0, 1)))
ONCE(int, pselect, -1,
     P(int n, fd_set *rd, fd_set *wr, fd_set *ex, const struct timespec *t, const sigset_t *mask),
     P(n, rd, wr, ex, t, USABLE(mask)),
     (tr_sys_open(&s, rd, opt(rd, fdset_bytes(n))), tr_sys_open(&s, wr, opt(wr, fdset_bytes(n))),
      tr_sys_open(&s, ex, opt(ex, fdset_bytes(n))), tr_sys_open(&s, t, opt(t, sizeof *t)),
      tr_sys_open(&s, mask, opt(mask, sizeof *mask))),
     (tr_sys_done(&s, rd, ok ? opt(rd, fdset_bytes(n)) : 0, 1), tr_sys_done(&s, wr, ok ? opt(wr, fdset_bytes(n)) : 0, 1),
      tr_sys_done(&s, ex, ok ? opt(ex, fdset_bytes(n)) : 0, 1)))
ONCE(int, epoll_wait, -1, P(int ep, struct epoll_event *ev, int max, int timeout), P(ep, ev, max, timeout),
     tr_sys_open(&s, ev, max > 0 ? (size_t)max * sizeof *ev : 0),
     tr_sys_done(&s, ev, ok ? (size_t)rc * sizeof *ev : 0, 1))
ONCE(int, epoll_pwait, -1, P(int ep, struct epoll_event *ev, int max, int timeout, const sigset_t *mask),
     P(ep, ev, max, timeout, USABLE(mask)),
     (tr_sys_open(&s, ev, max > 0 ? (size_t)max * sizeof *ev : 0), tr_sys_open(&s, mask, opt(mask, sizeof *mask))),
     tr_sys_done(&s, ev, ok ? (size_t)rc * sizeof *ev : 0, 1))
IN(epoll_ctl, P(int ep, int op, int fd, struct epoll_event *ev), P(ep, op, fd, ev), ev, opt(ev, sizeof *ev))

/* clock_nanosleep returns its error instead of setting errno */
static void *next_clock_nanosleep;
__attribute__((constructor)) static void resolve_clock_nanosleep(void)
{
    mpidbg_next_symbol(&next_clock_nanosleep, "clock_nanosleep");
}
static __attribute__((noinline)) int clock_nanosleep_slow(const void *ra, clockid_t c, int flags,
                                                          const struct timespec *t, struct timespec *rem)
{
    __typeof__(clock_nanosleep) *r =
        (__typeof__(clock_nanosleep) *)mpidbg_next_symbol(&next_clock_nanosleep, "clock_nanosleep");
    if (!r)
        return ENOSYS;
    if (!tr_sys_any())
        return r(c, flags, t, rem);
    struct tr_sys s;
    int rc, e = errno;
    tr_sys_begin(&s, ra);
    pthread_cleanup_push(tr_sys_cleanup, &s);
    do {
        tr_sys_open(&s, t, sizeof *t);
        tr_sys_open(&s, rem, opt(rem, sizeof *rem));
        rc = r(c, flags, t, rem);
        errno = rc;
    } while (tr_sys_again(&s, rc != 0, TR_SYS_ONCE));
    errno = e;
    pthread_cleanup_pop(1);
    return rc;
}

int clock_nanosleep(clockid_t c, int flags, const struct timespec *t, struct timespec *rem)
{
    __typeof__(clock_nanosleep) *r =
        (__typeof__(clock_nanosleep) *)__atomic_load_n(&next_clock_nanosleep, __ATOMIC_ACQUIRE);
    if (MPIDBG_LIKELY(r != NULL) && !tr_sys_any())
        return r(c, flags, t, rem); /* not made again: it would sleep again */
    return clock_nanosleep_slow(__builtin_return_address(0), c, flags, t, rem);
}

/* ---- sockets and pipes: descriptors, addresses, options ---- */
OUT(int, pipe, P(int fds[2]), P(fds), fds, 2 * sizeof(int))
OUT(int, pipe2, P(int fds[2], int flags), P(fds, flags), fds, 2 * sizeof(int))
OUT(int, socketpair, P(int d, int t, int p, int fds[2]), P(d, t, p, fds), fds, 2 * sizeof(int))
IN(bind, P(int fd, const struct sockaddr *a, socklen_t n), P(fd, a, n), a, n)
IN(connect, P(int fd, const struct sockaddr *a, socklen_t n), P(fd, a, n), a, n)
IN(setsockopt, P(int fd, int level, int name, const void *v, socklen_t n), P(fd, level, name, v, n), v, n)

ONCE(int, getsockopt, -1, P(int fd, int level, int name, void *v, socklen_t *n), P(fd, level, name, v, n),
     n1 = tr_sys_open_addr(&s, v, n), tr_sys_done(&s, v, ok ? n1 : 0, 1))
WRAP(int, getsockname, -1, P(int fd, struct sockaddr *a, socklen_t *n), P(fd, a, n), n1 = tr_sys_open_addr(&s, a, n),
     tr_sys_done(&s, a, ok ? n1 : 0, 1))
WRAP(int, getpeername, -1, P(int fd, struct sockaddr *a, socklen_t *n), P(fd, a, n), n1 = tr_sys_open_addr(&s, a, n),
     tr_sys_done(&s, a, ok ? n1 : 0, 1))

/* ---- the process and the system ---- */
OUT(ssize_t, getrandom, P(void *buf, size_t n, unsigned flags), P(buf, n, flags), buf, n)
OUT(int, uname, P(struct utsname *u), P(u), u, sizeof *u)
OUT(int, sysinfo, P(struct sysinfo *i), P(i), i, sizeof *i)
OUT(clock_t, times, P(struct tms *t), P(t), t, opt(t, sizeof *t))
OUT(int, getrusage, P(__rusage_who_t who, struct rusage *u), P(who, u), u, sizeof *u)
OUT(int, getrlimit, P(__rlimit_resource_t what, struct rlimit *l), P(what, l), l, sizeof *l)
IN(setrlimit, P(__rlimit_resource_t what, const struct rlimit *l), P(what, l), l, sizeof *l)
ONCE(int, prlimit, -1, P(pid_t pid, __rlimit_resource_t what, const struct rlimit *l, struct rlimit *old),
     P(pid, what, l, old),
     (tr_sys_open(&s, l, opt(l, sizeof *l)), tr_sys_open(&s, old, opt(old, sizeof *old))),
     tr_sys_done(&s, old, ok ? opt(old, sizeof *old) : 0, 1))
OUT(int, sigpending, P(sigset_t *set), P(set), set, sizeof *set)
