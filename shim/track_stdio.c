/*
 * stdio's system calls on watched pages.
 *
 * libc's stdio makes its read(2) and write(2) internally (__write,
 * bound inside libc): no wrapper of write sees them, and on a page the
 * tracker protects they fail with EFAULT, the output is dropped and the
 * stream's error flag set. A stream's buffer is malloc'ed at its first
 * use and lands beside whatever the program allocated before it: a C++
 * program's std::vector receive buffer allocated before its first
 * output shares a page with stdout's buffer, and with a receive pending
 * the program printed nothing. So the public stdio functions that may
 * read or write a stream's file are wrapped (libstdc++'s std::cout goes
 * through fwrite, putc and fflush; its file streams through write(2),
 * track_sys.c): while some range has pages (tr_live), the stream's
 * buffer is held open for the call (track_sys.c's tr_sys_open), and so
 * is the program's memory the call hands over whole (fwrite's, fputs's,
 * fread's: an unbuffered stream, or a block larger than the buffer, goes
 * straight to the kernel). A buffer not allocated yet is allocated first
 * (_IO_doallocbuf, what the call itself would do next), so that it is
 * known. The program's memory a call moved is checked as a system call's
 * is: a pending operation's bytes written out or read into are reported
 * at the call.
 *
 * At exit (without MPI_Finalize, so with ranges still watched) libc
 * flushes every stream after the shim's destructors: the destructor here
 * opens their buffers for good.
 *
 * Not covered (docs/races.md, "System calls"): wide-character stdio,
 * dprintf, printf's %s of a string longer than the stream's buffer (it
 * is written from the string itself), and what libc reads or writes
 * through streams of its own (getpwnam's /etc/passwd).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "shim.h"
#include "track_int.h"

/* with optimisation glibc makes these macros */
#undef fread_unlocked
#undef fwrite_unlocked

/* glibc's libio, exported since 2.2.5: the stream list and the buffer
 * allocation every first read or write of a stream makes */
extern FILE *_IO_list_all;
void _IO_list_lock(void);
void _IO_list_unlock(void);
void _IO_doallocbuf(FILE *f);

/* -D_FORTIFY_SOURCE's variants and libio's refill and flush entry points
 * (the inline getc_unlocked and putc_unlocked call them), declared only
 * under some macros */
int __printf_chk(int flag, const char *fmt, ...);
int __fprintf_chk(FILE *f, int flag, const char *fmt, ...);
int __vprintf_chk(int flag, const char *fmt, va_list ap);
int __vfprintf_chk(FILE *f, int flag, const char *fmt, va_list ap);
size_t __fread_chk(void *p, size_t buflen, size_t size, size_t n, FILE *f);
size_t __fread_unlocked_chk(void *p, size_t buflen, size_t size, size_t n, FILE *f);
char *__fgets_chk(char *s, size_t buflen, int n, FILE *f);
char *__fgets_unlocked_chk(char *s, size_t buflen, int n, FILE *f);
int __isoc99_scanf(const char *fmt, ...);
int __isoc99_fscanf(FILE *f, const char *fmt, ...);
int __isoc99_vscanf(const char *fmt, va_list ap);
int __isoc99_vfscanf(FILE *f, const char *fmt, va_list ap);
ssize_t __getdelim(char **line, size_t *n, int delim, FILE *f);
int __uflow(FILE *f);
int __underflow(FILE *f);
int __overflow(FILE *f, int c);

#define RA ((const void *)__builtin_return_address(0))
#define LOCKED 1 /* the call takes the stream's lock: so does the allocation */
#define ALLOC 2  /* the call reads or writes: allocate the buffer first */
#define IN 4     /* the call reads the stream's file */
#define ONCE 8   /* never made again: fclose frees the stream whatever it returns */

/* redo: a call made on the fast path failed, with EFAULT and the stream's
 * error flag set, and some range has pages now (one came between the
 * check and the call): make it again through the slow path. Input only
 * from a file whose failed read consumed nothing (tr_sys_redo). */
static __attribute__((noinline)) int redo(FILE *f, int how)
{
    if ((how & ONCE) || errno != EFAULT || !tr_sys_any())
        return 0;
    if (f && !ferror_unlocked(f))
        return 0; /* an end of file, and an EFAULT left from before */
    return tr_sys_redo((how & IN) && f ? fileno_unlocked(f) : -1);
}

/* open_file holds the stream's buffer open for the call */
static void open_file(struct tr_sys *s, FILE *f, int how)
{
    if (!f)
        return;
    if (!f->_IO_buf_base && (how & ALLOC)) {
        if (how & LOCKED)
            flockfile(f);
        if (!f->_IO_buf_base)
            _IO_doallocbuf(f);
        if (how & LOCKED)
            funlockfile(f);
    }
    if (f->_IO_buf_base && f->_IO_buf_end > f->_IO_buf_base)
        tr_sys_open(s, f->_IO_buf_base, (size_t)(f->_IO_buf_end - f->_IO_buf_base));
}

/* open_all: every stream's buffer (fflush(NULL), exit) */
static void open_all(struct tr_sys *s)
{
    _IO_list_lock();
    for (FILE *f = _IO_list_all; f; f = f->_chain)
        open_file(s, f, 0);
    _IO_list_unlock();
}

static size_t mul(size_t a, size_t b)
{
    size_t m;
    return __builtin_mul_overflow(a, b, &m) ? SIZE_MAX : m;
}

/* WRAP defines a wrapper: the next definition (libc's, looked up when
 * the shim is loaded or at the first call) when no range has pages;
 * else, out of line, the call with the stream's buffer (FP, opened as
 * HOW says) and the memory PRE names held open, then POST with rc set
 * (a thread cancelled in the call closes them on its way out).
 * P(...) passes a list as one argument. */
#define P(...) __VA_ARGS__
#define WRAP(ret, name, fail, params, args, fp, how, PRE, POST)                                     \
    static void *next_##name;                                                                       \
    static __attribute__((noinline)) ret name##_slow(const void *ra, params)                         \
    {                                                                                               \
        TR_SYS_SLOW_NEXT(name, fail, args);                                                         \
        struct tr_sys s;                                                                            \
        ret rc;                                                                                     \
        tr_sys_begin(&s, ra);                                                                       \
        pthread_cleanup_push(tr_sys_cleanup, &s);                                                   \
        open_file(&s, fp, how);                                                                     \
        PRE;                                                                                        \
        rc = r(args);                                                                               \
        POST;                                                                                       \
        pthread_cleanup_pop(1);                                                                     \
        return rc;                                                                                  \
    }                                                                                               \
    ret name(params)                                                                                \
    {                                                                                               \
        __typeof__(name) *r = (__typeof__(name) *)__atomic_load_n(&next_##name, __ATOMIC_ACQUIRE); \
        if (MPIDBG_LIKELY(r != NULL) && !tr_sys_any()) {                                            \
            ret rc = r(args);                                                                       \
            if (MPIDBG_LIKELY(rc != fail) || !redo(fp, how))                                        \
                return rc;                                                                          \
        }                                                                                           \
        return name##_slow(RA, args);                                                               \
    }


/* ---- output: the stream's buffer ---- */
WRAP(int, fputc, EOF, P(int c, FILE *f), P(c, f), f, LOCKED | ALLOC, , )
WRAP(int, putc, EOF, P(int c, FILE *f), P(c, f), f, LOCKED | ALLOC, , )
WRAP(int, putchar, EOF, P(int c), P(c), stdout, LOCKED | ALLOC, , )
WRAP(int, fputc_unlocked, EOF, P(int c, FILE *f), P(c, f), f, ALLOC, , )
WRAP(int, putc_unlocked, EOF, P(int c, FILE *f), P(c, f), f, ALLOC, , )
WRAP(int, putchar_unlocked, EOF, P(int c), P(c), stdout, ALLOC, , )
WRAP(int, __overflow, EOF, P(FILE *f, int c), P(f, c), f, ALLOC, , )
/* fflush_unlocked(NULL), as fflush(NULL), flushes every stream */
WRAP(int, fflush_unlocked, EOF, P(FILE *f), P(f), f, 0, if (!f) open_all(&s), )
WRAP(int, fclose, EOF, P(FILE *f), P(f), f, ONCE, , )

/* ---- output: the program's string or block too ---- */
WRAP(int, fputs, EOF, P(const char *str, FILE *f), P(str, f), f, LOCKED | ALLOC,
     size_t len = tr_sys_open_str(&s, str), if (rc >= 0) tr_sys_done(&s, str, len, 0))
WRAP(int, fputs_unlocked, EOF, P(const char *str, FILE *f), P(str, f), f, ALLOC,
     size_t len = tr_sys_open_str(&s, str), if (rc >= 0) tr_sys_done(&s, str, len, 0))
WRAP(int, puts, EOF, P(const char *str), P(str), stdout, LOCKED | ALLOC,
     size_t len = tr_sys_open_str(&s, str), if (rc >= 0) tr_sys_done(&s, str, len, 0))
WRAP(size_t, fwrite, 0, P(const void *p, size_t size, size_t n, FILE *f), P(p, size, n, f), f, LOCKED | ALLOC,
     tr_sys_open(&s, p, mul(size, n)), tr_sys_done(&s, p, mul(size, rc), 0))
WRAP(size_t, fwrite_unlocked, 0, P(const void *p, size_t size, size_t n, FILE *f), P(p, size, n, f), f, ALLOC,
     tr_sys_open(&s, p, mul(size, n)), tr_sys_done(&s, p, mul(size, rc), 0))

/* ---- input: the stream's buffer, and the program's block or line ---- */
WRAP(int, fgetc, EOF, P(FILE *f), P(f), f, LOCKED | ALLOC | IN, , )
WRAP(int, getc, EOF, P(FILE *f), P(f), f, LOCKED | ALLOC | IN, , )
WRAP(int, fgetc_unlocked, EOF, P(FILE *f), P(f), f, ALLOC | IN, , )
WRAP(int, getc_unlocked, EOF, P(FILE *f), P(f), f, ALLOC | IN, , )
WRAP(int, __uflow, EOF, P(FILE *f), P(f), f, ALLOC | IN, , )
WRAP(int, __underflow, EOF, P(FILE *f), P(f), f, ALLOC | IN, , )
WRAP(ssize_t, getline, -1, P(char **line, size_t *n, FILE *f), P(line, n, f), f, LOCKED | ALLOC | IN, , )
WRAP(ssize_t, getdelim, -1, P(char **line, size_t *n, int delim, FILE *f), P(line, n, delim, f), f,
     LOCKED | ALLOC | IN, , )
WRAP(ssize_t, __getdelim, -1, P(char **line, size_t *n, int delim, FILE *f), P(line, n, delim, f), f,
     LOCKED | ALLOC | IN, , )
WRAP(size_t, fread, 0, P(void *p, size_t size, size_t n, FILE *f), P(p, size, n, f), f, LOCKED | ALLOC | IN,
     tr_sys_open(&s, p, mul(size, n)), tr_sys_done(&s, p, mul(size, rc), 1))
WRAP(size_t, fread_unlocked, 0, P(void *p, size_t size, size_t n, FILE *f), P(p, size, n, f), f, ALLOC | IN,
     tr_sys_open(&s, p, mul(size, n)), tr_sys_done(&s, p, mul(size, rc), 1))
WRAP(size_t, __fread_chk, 0, P(void *p, size_t buflen, size_t size, size_t n, FILE *f),
     P(p, buflen, size, n, f), f, LOCKED | ALLOC | IN, tr_sys_open(&s, p, mul(size, n)),
     tr_sys_done(&s, p, mul(size, rc), 1))
WRAP(size_t, __fread_unlocked_chk, 0, P(void *p, size_t buflen, size_t size, size_t n, FILE *f),
     P(p, buflen, size, n, f), f, ALLOC | IN, tr_sys_open(&s, p, mul(size, n)), tr_sys_done(&s, p, mul(size, rc), 1))
WRAP(char *, fgets, NULL, P(char *str, int n, FILE *f), P(str, n, f), f, LOCKED | ALLOC | IN,
     tr_sys_open(&s, str, n > 0 ? (size_t)n : 0), if (rc) tr_sys_done(&s, str, strlen(str) + 1, 1))
WRAP(char *, fgets_unlocked, NULL, P(char *str, int n, FILE *f), P(str, n, f), f, ALLOC | IN,
     tr_sys_open(&s, str, n > 0 ? (size_t)n : 0), if (rc) tr_sys_done(&s, str, strlen(str) + 1, 1))
WRAP(char *, __fgets_chk, NULL, P(char *str, size_t buflen, int n, FILE *f), P(str, buflen, n, f), f,
     LOCKED | ALLOC | IN, tr_sys_open(&s, str, n > 0 ? (size_t)n : 0),
     if (rc) tr_sys_done(&s, str, strlen(str) + 1, 1))
WRAP(char *, __fgets_unlocked_chk, NULL, P(char *str, size_t buflen, int n, FILE *f), P(str, buflen, n, f), f,
     ALLOC | IN, tr_sys_open(&s, str, n > 0 ? (size_t)n : 0), if (rc) tr_sys_done(&s, str, strlen(str) + 1, 1))

/* ---- positioning: a seek flushes what the buffer holds ---- */
WRAP(int, fseek, -1, P(FILE *f, long off, int whence), P(f, off, whence), f, LOCKED | ALLOC, , )
WRAP(int, fseeko, -1, P(FILE *f, off_t off, int whence), P(f, off, whence), f, LOCKED | ALLOC, , )
WRAP(int, fseeko64, -1, P(FILE *f, off64_t off, int whence), P(f, off, whence), f, LOCKED | ALLOC, , )
WRAP(int, fsetpos, -1, P(FILE *f, const fpos_t *pos), P(f, pos), f, LOCKED | ALLOC, , )
WRAP(int, fsetpos64, -1, P(FILE *f, const fpos64_t *pos), P(f, pos), f, LOCKED | ALLOC, , )

/* ---- the rest, whose parameters WRAP cannot pass ---- */

/* fflush(NULL) flushes every stream */
static void *next_fflush;
static __attribute__((noinline)) int fflush_slow(const void *ra, FILE *f)
{
    __typeof__(fflush) *r = (__typeof__(fflush) *)mpidbg_next_symbol(&next_fflush, "fflush");
    if (!r) {
        errno = ENOSYS;
        return EOF;
    }
    if (!tr_sys_any())
        return r(f);
    struct tr_sys s;
    int rc;
    tr_sys_begin(&s, ra);
    pthread_cleanup_push(tr_sys_cleanup, &s);
    if (f)
        open_file(&s, f, 0);
    else
        open_all(&s);
    rc = r(f);
    pthread_cleanup_pop(1);
    return rc;
}

int fflush(FILE *f)
{
    __typeof__(fflush) *r = (__typeof__(fflush) *)__atomic_load_n(&next_fflush, __ATOMIC_ACQUIRE);
    if (MPIDBG_LIKELY(r != NULL) && !tr_sys_any()) {
        int rc = r(f);
        if (MPIDBG_LIKELY(rc != EOF) || !redo(f, 0))
            return rc;
    }
    return fflush_slow(RA, f);
}

static void *next_rewind;
void rewind(FILE *f)
{
    __typeof__(rewind) *r = (__typeof__(rewind) *)mpidbg_next_symbol(&next_rewind, "rewind");
    if (!r)
        return;
    if (!tr_sys_any()) {
        r(f);
        return;
    }
    struct tr_sys s;
    tr_sys_begin(&s, RA);
    pthread_cleanup_push(tr_sys_cleanup, &s);
    open_file(&s, f, LOCKED | ALLOC);
    r(f);
    pthread_cleanup_pop(1);
}

/* getchar() is getc(stdin), getchar_unlocked() getc_unlocked(stdin) */
int getchar(void)
{
    __typeof__(getc) *r = (__typeof__(getc) *)__atomic_load_n(&next_getc, __ATOMIC_ACQUIRE);
    if (MPIDBG_LIKELY(r != NULL) && !tr_sys_any()) {
        int rc = r(stdin);
        if (MPIDBG_LIKELY(rc != EOF) || !redo(stdin, IN))
            return rc;
    }
    return getc_slow(RA, stdin);
}

int getchar_unlocked(void)
{
    __typeof__(getc_unlocked) *r = (__typeof__(getc_unlocked) *)__atomic_load_n(&next_getc_unlocked, __ATOMIC_ACQUIRE);
    if (MPIDBG_LIKELY(r != NULL) && !tr_sys_any()) {
        int rc = r(stdin);
        if (MPIDBG_LIKELY(rc != EOF) || !redo(stdin, IN))
            return rc;
    }
    return getc_unlocked_slow(RA, stdin);
}

/* The formatted calls: each variadic one is its v-form, as in glibc
 * (printf is vfprintf(stdout), __printf_chk is __vfprintf_chk(stdout),
 * __isoc99_scanf is __isoc99_vfscanf(stdin)). */
#define VFORM(ret, name, fail, params, args, fp, how)                                               \
    static void *next_##name;                                                                       \
    static __attribute__((noinline)) ret name##_slow(const void *ra, params)                         \
    {                                                                                               \
        __typeof__(name) *r = (__typeof__(name) *)mpidbg_next_symbol(&next_##name, #name);         \
        if (!r)                                                                                     \
            return fail;                                                                            \
        if (!tr_sys_any())                                                                          \
            return r(args);                                                                         \
        struct tr_sys s;                                                                            \
        ret rc;                                                                                     \
        tr_sys_begin(&s, ra);                                                                       \
        pthread_cleanup_push(tr_sys_cleanup, &s);                                                   \
        open_file(&s, fp, how);                                                                     \
        rc = r(args);                                                                               \
        pthread_cleanup_pop(1);                                                                     \
        return rc;                                                                                  \
    }                                                                                               \
    static inline ret name##_from(const void *ra, params)                                           \
    {                                                                                               \
        __typeof__(name) *r = (__typeof__(name) *)__atomic_load_n(&next_##name, __ATOMIC_ACQUIRE); \
        if (MPIDBG_LIKELY(r != NULL) && !tr_sys_any()) {                                            \
            ret rc = r(args);                                                                       \
            if (MPIDBG_LIKELY(rc >= 0) || !redo(fp, how))                                           \
                return rc;                                                                          \
        }                                                                                           \
        return name##_slow(ra, args);                                                               \
    }                                                                                               \
    ret name(params)                                                                                \
    {                                                                                               \
        return name##_from(RA, args);                                                               \
    }

VFORM(int, vfprintf, -1, P(FILE *f, const char *fmt, va_list ap), P(f, fmt, ap), f, LOCKED | ALLOC)
VFORM(int, __vfprintf_chk, -1, P(FILE *f, int flag, const char *fmt, va_list ap), P(f, flag, fmt, ap), f,
      LOCKED | ALLOC)
VFORM(int, __isoc99_vfscanf, EOF, P(FILE *f, const char *fmt, va_list ap), P(f, fmt, ap), f, LOCKED | ALLOC | IN)

int vprintf(const char *fmt, va_list ap)
{
    return vfprintf_from(RA, stdout, fmt, ap);
}

int __vprintf_chk(int flag, const char *fmt, va_list ap)
{
    return __vfprintf_chk_from(RA, stdout, flag, fmt, ap);
}

int __isoc99_vscanf(const char *fmt, va_list ap)
{
    return __isoc99_vfscanf_from(RA, stdin, fmt, ap);
}

#define VARIADIC(call, last)                                                                        \
    va_list ap;                                                                                     \
    va_start(ap, last);                                                                             \
    int rc = call;                                                                                  \
    va_end(ap);                                                                                     \
    return rc

int printf(const char *fmt, ...)
{
    VARIADIC(vfprintf_from(RA, stdout, fmt, ap), fmt);
}

int fprintf(FILE *f, const char *fmt, ...)
{
    VARIADIC(vfprintf_from(RA, f, fmt, ap), fmt);
}

int __printf_chk(int flag, const char *fmt, ...)
{
    VARIADIC(__vfprintf_chk_from(RA, stdout, flag, fmt, ap), fmt);
}

int __fprintf_chk(FILE *f, int flag, const char *fmt, ...)
{
    VARIADIC(__vfprintf_chk_from(RA, f, flag, fmt, ap), fmt);
}

int __isoc99_scanf(const char *fmt, ...)
{
    VARIADIC(__isoc99_vfscanf_from(RA, stdin, fmt, ap), fmt);
}

int __isoc99_fscanf(FILE *f, const char *fmt, ...)
{
    VARIADIC(__isoc99_vfscanf_from(RA, f, fmt, ap), fmt);
}

/* glibc's headers turn scanf into __isoc99_scanf (C99's rules for %a
 * and %[); the old names stay for programs built before them or with
 * -std=gnu89, and are defined under their assembler names */
#define OLD(name) __asm__(#name)
int old_vfscanf(FILE *f, const char *fmt, va_list ap) OLD(vfscanf);
int old_vscanf(const char *fmt, va_list ap) OLD(vscanf);
int old_scanf(const char *fmt, ...) OLD(scanf);
int old_fscanf(FILE *f, const char *fmt, ...) OLD(fscanf);

static void *next_old_vfscanf;
static __attribute__((noinline)) int old_vfscanf_slow(const void *ra, FILE *f, const char *fmt, va_list ap)
{
    __typeof__(old_vfscanf) *r = (__typeof__(old_vfscanf) *)mpidbg_next_symbol(&next_old_vfscanf, "vfscanf");
    if (!r)
        return EOF;
    if (!tr_sys_any())
        return r(f, fmt, ap);
    struct tr_sys s;
    int rc;
    tr_sys_begin(&s, ra);
    pthread_cleanup_push(tr_sys_cleanup, &s);
    open_file(&s, f, LOCKED | ALLOC);
    rc = r(f, fmt, ap);
    pthread_cleanup_pop(1);
    return rc;
}

static inline int old_vfscanf_from(const void *ra, FILE *f, const char *fmt, va_list ap)
{
    __typeof__(old_vfscanf) *r = (__typeof__(old_vfscanf) *)__atomic_load_n(&next_old_vfscanf, __ATOMIC_ACQUIRE);
    if (MPIDBG_LIKELY(r != NULL) && !tr_sys_any()) {
        int rc = r(f, fmt, ap);
        if (MPIDBG_LIKELY(rc != EOF) || !redo(f, IN))
            return rc;
    }
    return old_vfscanf_slow(ra, f, fmt, ap);
}

int old_vfscanf(FILE *f, const char *fmt, va_list ap)
{
    return old_vfscanf_from(RA, f, fmt, ap);
}

int old_vscanf(const char *fmt, va_list ap)
{
    return old_vfscanf_from(RA, stdin, fmt, ap);
}

int old_scanf(const char *fmt, ...)
{
    VARIADIC(old_vfscanf_from(RA, stdin, fmt, ap), fmt);
}

int old_fscanf(FILE *f, const char *fmt, ...)
{
    VARIADIC(old_vfscanf_from(RA, f, fmt, ap), fmt);
}

/* exit() (and a return from main) flushes every stream after the shim's
 * destructors have run: a program that ends without MPI_Finalize, with
 * receives still pending, keeps its output */
__attribute__((destructor)) static void streams_at_exit(void)
{
    static struct tr_sys s; /* never ended: the buffers stay open */
    if (!tr_sys_any())
        return;
    tr_sys_begin(&s, NULL);
    s.lib = 1;
    open_all(&s);
}

/* Looked up when the shim is loaded, so that the fast paths find them. */
__attribute__((constructor)) static void resolve(void)
{
    static const struct {
        void **cache;
        const char *name;
    } fns[] = {
#define F(name) {&next_##name, #name}
        F(fputc), F(putc), F(putchar), F(fputc_unlocked), F(putc_unlocked), F(putchar_unlocked), F(__overflow),
        F(fflush_unlocked), F(fclose), F(fputs), F(fputs_unlocked), F(puts), F(fwrite), F(fwrite_unlocked),
        F(fgetc), F(getc), F(fgetc_unlocked), F(getc_unlocked), F(__uflow), F(__underflow), F(getline),
        F(getdelim), F(__getdelim), F(fread), F(fread_unlocked), F(__fread_chk), F(__fread_unlocked_chk),
        F(fgets), F(fgets_unlocked), F(__fgets_chk), F(__fgets_unlocked_chk), F(fseek), F(fseeko), F(fseeko64),
        F(fsetpos), F(fsetpos64), F(fflush), F(rewind), F(vfprintf), F(__vfprintf_chk), F(__isoc99_vfscanf),
#undef F
        {&next_old_vfscanf, "vfscanf"},
    };
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
        mpidbg_next_symbol(fns[i].cache, fns[i].name);
}
