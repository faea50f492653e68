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
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* Set to 1 by the debugger once it is attached (shim.h's break hooks are
 * in finding.c; this one is read only here). */
__attribute__((visibility("default"), used)) volatile int mpidbg_debugger_attached;

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

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
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

/* serve starts gdbserver attached to this process, talking on fd: 0 when
 * it was started, else errno. */
static int serve(int fd)
{
    const char *prog = getenv("MPIDBG_GDBSERVER");
    if (!prog || !*prog)
        prog = "gdbserver";
    /* --multi: the debugger attaches once connected (gdb's non-stop
     * connection to a process already attached was seen to fail an
     * assertion of gdb 13); --once: when the connection ends (the adapter
     * gone), detach and exit, rather than wait for another on a standard
     * input that is gone */
    char *argv[] = {(char *)prog, "--once", "--multi", "stdio", NULL};
    char **env = gdbserver_env();
    int ends[2];
    if (!env || pipe2(ends, O_CLOEXEC) < 0) {
        free(env);
        return errno ? errno : ENOMEM;
    }
    pid_t child = fork();
    if (child == 0) {
        pid_t g = fork();
        if (g != 0) {
            int e = errno;
            if (g < 0)
                (void)!write(ends[1], &e, sizeof e);
            _exit(0);
        }
        close(ends[0]);
        int null = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (dup2(fd, 0) < 0 || dup2(fd, 1) < 0 || (null >= 0 && dup2(null, 2) < 0))
            _exit(127);
        /* none of the rank's descriptors: a launcher that waits for the
         * rank's pipes or PMI socket to close must not wait for gdbserver
         * (the pipe back to the rank is kept, closed on exec) */
        for (int d = 3; d < 1024; d++)
            if (d != ends[1])
                close(d);
        /* where to search as execvp would, with env as the environment */
        environ = env;
        execvp(prog, argv);
        int e = errno;
        (void)!write(ends[1], &e, sizeof e);
        _exit(127);
    }
    free(env);
    close(ends[1]);
    int e = child < 0 ? errno : 0;
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

/* remote announces this rank to a debugger on another host and starts
 * its gdbserver: 0 when the rank is to wait for it. */
static int remote(const char *addr, int rank)
{
    const char *token = getenv("MPIDBG_DEBUGGER_TOKEN");
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    int fd = dial(addr);
    if (fd < 0) {
        fprintf(stderr, "mpidbg: rank %d on %s: cannot reach the debugger at %s; running without it\n", rank, host,
                addr);
        return -1;
    }
    char hello[400];
    int n = snprintf(hello, sizeof hello, "%s\n%d %d %s\n", token ? token : "", rank, (int)getpid(), host);
    int e = 0;
    if (n >= (int)sizeof hello || write_all(fd, hello, (size_t)n) < 0 || (e = serve(fd)) != 0) {
        if (e)
            fprintf(stderr, "mpidbg: rank %d on %s: cannot start %s: %s; running without the debugger\n", rank, host,
                    getenv("MPIDBG_GDBSERVER") && *getenv("MPIDBG_GDBSERVER") ? getenv("MPIDBG_GDBSERVER")
                                                                              : "gdbserver",
                    strerror(e));
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
    if (!in_list(getenv("MPIDBG_DEBUGGER_RANKS"), rank))
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
