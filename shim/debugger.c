/*
 * Waiting for a debugger before main (mpidbg dap, docs/dap.md).
 *
 * With MPIDBG_DEBUGGER=DIR in its environment, a rank, while the shim is
 * loaded and before the program's main runs:
 *   1. lets any process of the user trace it (PR_SET_PTRACER: under
 *      Yama's ptrace_scope 1 only ancestors may, and gdb is not one);
 *   2. publishes rank and pid as an empty file DIR/RANK.PID (created
 *      O_EXCL with mode 0600 in the debugger's private directory: a
 *      single atomic step, so the debugger never reads half a name);
 *   3. waits until the debugger, attached, sets mpidbg_debugger_attached,
 *      or until MPIDBG_DEBUGGER_TIMEOUT seconds (default 60) pass, after
 *      which it runs on without one: a debugger that died must not hang
 *      the job.
 * MPIDBG_DEBUGGER_RANKS (every rank listed: "0,2,3") limits this to some ranks; the
 * others run at once.
 *
 * A rank on another host than the debugger's (MPIDBG_DEBUGGER_HOST, the
 * adapter's host name, is not this one's) cannot be attached to from
 * there: it connects to MPIDBG_DEBUGGER_ADDR (HOST:PORT, TCP), sends
 * the job's debugger token (MPIDBG_DEBUGGER_TOKEN, as wire/token.go's
 * first line) and a line "RANK PID HOST", then starts gdbserver
 * (MPIDBG_GDBSERVER, default gdbserver from PATH) attached to itself
 * with the connection as its standard input and output, and waits as
 * above. The adapter hands the connection to its gdb as a remote target
 * (dap/remote.go). gdbserver is started as a grandchild, so that the
 * rank never gets a SIGCHLD or a child to reap from it, without the
 * shim in its environment, and a pipe closed on exec tells the rank
 * whether it could be started. The rank comes from the launcher's environment,
 * since MPI_Init has not run: PMI_RANK (MPICH's Hydra), PMIX_RANK and
 * OMPI_COMM_WORLD_RANK (Open MPI), else -1 (a singleton).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "crash.h"

extern char **environ;

/* Set to 1 by the debugger once it is attached (shim.h's break hooks are
 * in finding.c; this one is read only here). */
__attribute__((visibility("default"), used)) volatile int mpidbg_debugger_attached;

/* The status of the exit a rank stops in, as its parent will see it; -1
 * while it is not exiting. The debugger reads it at the stop. */
__attribute__((visibility("default"), used)) volatile int mpidbg_exit_status = -1;

static pid_t waited_pid; /* the process that waited for the debugger */

/* mpidbg_debugger_exit, from the exit hook (ending.c): the rank stops
 * with its threads alive, and the debugger lets it exit (dap/exit.go
 * says why). A child forked after the wait has no debugger. */
void mpidbg_debugger_exit(int status)
{
    if (!mpidbg_debugger_attached || getpid() != waited_pid)
        return;
    mpidbg_exit_status = status & 0xff;
    mpidbg_break(NULL);
}

static int launcher_rank(void)
{
    static const char *const names[] = {"PMI_RANK", "PMIX_RANK", "OMPI_COMM_WORLD_RANK"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *v = getenv(names[i]);
        char *end;
        if (v && *v) {
            long r = strtol(v, &end, 10);
            if (*end == 0 && r >= 0 && r < INT_MAX)
                return (int)r;
        }
    }
    return -1;
}

/* spawned_by_launcher says the launcher started this process for
 * MPI_Comm_spawn (Hydra's PMI_SPAWNED, Open MPI's OMPI_PARENT_PORT): not
 * one of the job's ranks, whose rank numbers its world's ranks repeat
 * (spawn.c), so the debugger, which waits for the job's, does not wait
 * for it. */
static int spawned_by_launcher(void)
{
    const char *hydra = getenv("PMI_SPAWNED"), *ompi = getenv("OMPI_PARENT_PORT");
    return (hydra && strcmp(hydra, "0") != 0 && *hydra) || (ompi && *ompi);
}

/* in_list says whether rank is in a comma-separated list of ranks such
 * as "0,2,3" (NULL or empty: every rank). The adapter writes every rank
 * (ranklist.Expanded), so that ranges are read in one place, in Go. A
 * malformed item matches nothing. */
static int in_list(const char *list, int rank)
{
    if (!list || !*list)
        return 1;
    for (const char *p = list; *p;) {
        char *end;
        long r = strtol(p, &end, 10);
        if (end == p)
            return 0;
        if (r == rank)
            return 1;
        if (*end != ',')
            return 0;
        p = end + 1;
    }
    return 0;
}

/* dial connects to HOST:PORT ([V6]:PORT too) within a few seconds: a
 * rank must not hang on an adapter that is gone. */
static int dial(const char *addr)
{
    char host[256];
    const char *colon = strrchr(addr, ':');
    if (!colon || colon == addr || (size_t)(colon - addr) >= sizeof host)
        return -1;
    const char *h = addr;
    size_t n = (size_t)(colon - addr);
    if (h[0] == '[' && n >= 2 && h[n - 1] == ']') {
        h++;
        n -= 2;
    }
    memcpy(host, h, n);
    host[n] = 0;
    struct addrinfo hints = {0}, *res = NULL;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(host, colon + 1, &hints, &res) != 0)
        return -1;
    int fd = -1;
    for (struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
        if (fd < 0)
            continue;
        int rc = connect(fd, ai->ai_addr, ai->ai_addrlen);
        if (rc < 0 && errno == EINPROGRESS) {
            struct pollfd p = {fd, POLLOUT, 0};
            int err = 0;
            socklen_t len = sizeof err;
            if (poll(&p, 1, 10000) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err == 0)
                rc = 0;
        }
        if (rc < 0) {
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd >= 0)
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

static int send_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* read_line reads one line of at most n-1 bytes from fd, a byte at a
 * time (what follows is gdb's), within timeout_ms: its length, or -1. */
static int read_line(int fd, char *buf, size_t n, int timeout_ms)
{
    size_t k = 0;
    while (k + 1 < n) {
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, timeout_ms) != 1)
            return -1;
        ssize_t r = read(fd, buf + k, 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        if (buf[k] == '\n') {
            buf[k] = 0;
            return (int)k;
        }
        k++;
    }
    return -1;
}

/* high moves fd above the standard descriptors (a rank may start with
 * some of them closed, and gdbserver's are made from these): the new
 * descriptor, closed on exec, or -1. */
static int high(int fd)
{
    if (fd < 0 || fd > 2)
        return fd;
    int h = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    close(fd);
    return h;
}

/* gdbserver_env is the rank's environment without what would make
 * gdbserver a rank too: the preloaded shim and the handshake's variables. */
static char **gdbserver_env(void)
{
    size_t n = 0;
    while (environ && environ[n])
        n++;
    char **env = calloc(n + 1, sizeof *env);
    if (!env)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0 && strncmp(environ[i], "MPIDBG_", 7) != 0)
            env[k++] = environ[i];
    return env;
}

/* gdbserver_path is prog as execvp would find it on PATH, resolved
 * before fork (the child of a process with threads calls only
 * async-signal-safe functions). */
static int gdbserver_path(const char *prog, char *out, size_t n)
{
    if (strchr(prog, '/'))
        return snprintf(out, n, "%s", prog) < (int)n ? 0 : ENAMETOOLONG;
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *p = path; *p;) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (snprintf(out, n, "%.*s/%s", (int)len, len ? p : ".", prog) < (int)n && access(out, X_OK) == 0)
            return 0;
        if (!end)
            break;
        p = end + 1;
    }
    return ENOENT;
}

/* serve starts gdbserver for this process, talking on fd: 0 when it was
 * started, else errno. */
static int serve(int fd, const char *prog)
{
    char exe[PATH_MAX];
    int e = gdbserver_path(prog, exe, sizeof exe);
    if (e)
        return e;
    /* --multi: the debugger attaches once connected (gdb's non-stop
     * connection to a process already attached was seen to fail an
     * assertion of gdb 13); --once: when the connection ends (the adapter
     * gone), detach and exit, rather than wait for another on a standard
     * input that is gone */
    char *argv[] = {exe, "--once", "--multi", "stdio", NULL};
    char **env = gdbserver_env();
    int ends[2] = {-1, -1};
    int null = high(open("/dev/null", O_RDWR | O_CLOEXEC));
    if (!env || null < 0 || pipe2(ends, O_CLOEXEC) < 0 || (ends[0] = high(ends[0])) < 0 ||
        (ends[1] = high(ends[1])) < 0) {
        e = errno ? errno : ENOMEM;
        free(env);
        if (null >= 0)
            close(null);
        for (int i = 0; i < 2; i++)
            if (ends[i] >= 0)
                close(ends[i]);
        return e;
    }
    /* _Fork, not fork: the libraries' fork handlers (MPI's, its
     * transports', which may warn about or refuse a fork after MPI_Init)
     * have nothing to do with a child that only execs, and the child of
     * a process with threads runs only async-signal-safe code */
    pid_t child = _Fork();
    if (child < 0)
        e = errno;
    if (child == 0) {
        /* the intermediate child exits at once: gdbserver is no child of
         * the rank's, which reaps only this one */
        pid_t g = _Fork();
        if (g != 0) {
            int ge = errno;
            if (g < 0)
                (void)!write(ends[1], &ge, sizeof ge);
            _exit(0);
        }
        if (dup2(fd, 0) < 0 || dup2(fd, 1) < 0 || dup2(null, 2) < 0)
            _exit(127);
        /* none of the rank's descriptors: a launcher that waits for the
         * rank's pipes or PMI socket to close must not wait for gdbserver
         * (the pipe back to the rank is kept, closed on exec) */
        for (int d = 3; d < 4096; d++)
            if (d != ends[1])
                close(d);
        /* a write to a connection the adapter dropped fails rather than
         * kills gdbserver, which then detaches (--once); no signal the
         * rank blocked stays blocked in it */
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        signal(SIGPIPE, SIG_IGN);
        execve(exe, argv, env);
        int xe = errno;
        (void)!write(ends[1], &xe, sizeof xe);
        _exit(127);
    }
    free(env);
    close(ends[1]);
    close(null);
    if (child > 0) {
        while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
            ;
        ssize_t r;
        while ((r = read(ends[0], &e, sizeof e)) < 0 && errno == EINTR)
            ;
        if (r != (ssize_t)sizeof e)
            e = 0;
    }
    close(ends[0]);
    return e;
}

/* remote announces this rank to a debugger on another host and, once the
 * debugger has proven it is the session's, starts its gdbserver: 0 when
 * the rank is to wait for it. The token is two halves: the first the
 * rank sends, the second the adapter answers with, so that a process
 * that took the address learns the first half but cannot get a gdbserver
 * (docs/dap.md). */
static int remote(const char *addr, int rank)
{
    char host[256] = "", token[160] = "";
    gethostname(host, sizeof host - 1);
    const char *t = getenv("MPIDBG_DEBUGGER_TOKEN");
    const char *colon = t ? strchr(t, ':') : NULL;
    if (!colon || snprintf(token, sizeof token, "%s", t) >= (int)sizeof token) {
        fprintf(stderr, "mpidbg: rank %d on %s: no debugger token in the environment; running without the debugger\n",
                rank, host);
        return -1;
    }
    unsetenv("MPIDBG_DEBUGGER_TOKEN"); /* the program's own children are no ranks */
    token[colon - t] = 0;
    const char *answer = token + (colon - t) + 1;
    const char *prog = getenv("MPIDBG_GDBSERVER");
    if (!prog || !*prog)
        prog = "gdbserver";
    int fd = high(dial(addr));
    if (fd < 0) {
        fprintf(stderr, "mpidbg: rank %d on %s: cannot reach the debugger at %s; running without it\n", rank, host,
                addr);
        return -1;
    }
    char hello[400], reply[200];
    int n = snprintf(hello, sizeof hello, "%s\n%d %d %s\n", token, rank, (int)getpid(), host);
    const char *why = NULL;
    int e = 0;
    if (n >= (int)sizeof hello || send_all(fd, hello, (size_t)n) < 0)
        why = "cannot send it this rank's hello";
    else if (read_line(fd, reply, sizeof reply, 15000) < 0)
        why = "no answer from it";
    else if (strncmp(reply, "refused", 7) == 0)
        why = reply;
    else if (strcmp(reply, answer) != 0)
        why = "it did not answer with the session's key (not mpidbg's adapter?)";
    else if ((e = serve(fd, prog)) != 0)
        why = strerror(e);
    if (why) {
        if (e)
            fprintf(stderr, "mpidbg: rank %d on %s: cannot start %s: %s; running without the debugger\n", rank, host,
                    prog, why);
        else
            fprintf(stderr, "mpidbg: rank %d on %s: the debugger at %s: %s; running without it\n", rank, host, addr,
                    why);
        close(fd);
        return -1;
    }
    close(fd); /* gdbserver holds it */
    return 0;
}

/* elsewhere says whether the debugger runs on another host than this */
static int elsewhere(void)
{
    const char *theirs = getenv("MPIDBG_DEBUGGER_HOST");
    char mine[256] = "";
    if (!theirs || !*theirs || gethostname(mine, sizeof mine - 1) < 0)
        return 0;
    return strcmp(theirs, mine) != 0;
}

__attribute__((constructor)) static void debugger_wait(void)
{
    const char *dir = getenv("MPIDBG_DEBUGGER");
    if (!dir || !*dir)
        return;
    int rank = launcher_rank();
    if (spawned_by_launcher() || !in_list(getenv("MPIDBG_DEBUGGER_RANKS"), rank))
        return;
    long timeout = 60;
    const char *t = getenv("MPIDBG_DEBUGGER_TIMEOUT");
    if (t && *t)
        timeout = strtol(t, NULL, 10);
    prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    char path[PATH_MAX] = "";
    const char *addr = getenv("MPIDBG_DEBUGGER_ADDR");
    if (elsewhere()) {
        if (!addr || !*addr) {
            fprintf(stderr,
                    "mpidbg: rank %d: the debugger runs on %s, another host, and gave no address to reach it "
                    "(\"listen\" in the launch configuration); running without it\n",
                    rank, getenv("MPIDBG_DEBUGGER_HOST"));
            return;
        }
        if (remote(addr, rank) < 0)
            return;
    } else {
        if (snprintf(path, sizeof path, "%s/%d.%d", dir, rank, (int)getpid()) >= (int)sizeof path)
            return;
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0) {
            fprintf(stderr, "mpidbg: rank %d: cannot tell the debugger its pid (%s: %s); running without it\n", rank,
                    path, strerror(errno));
            return;
        }
        close(fd);
    }
    struct timespec ts = {0, 5 * 1000 * 1000}, start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    waited_pid = getpid();
    while (!mpidbg_debugger_attached) {
        nanosleep(&ts, NULL);
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (timeout > 0 && now.tv_sec - start.tv_sec >= timeout) {
            fprintf(stderr, "mpidbg: rank %d: no debugger attached within %ld s; running without it\n", rank,
                    timeout);
            break;
        }
    }
    if (path[0])
        unlink(path);
}
