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
 * others run at once. The rank comes from the launcher's environment,
 * since MPI_Init has not run: PMI_RANK (MPICH's Hydra), PMIX_RANK and
 * OMPI_COMM_WORLD_RANK (Open MPI), else -1 (a singleton).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

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
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%d.%d", dir, rank, (int)getpid()) >= (int)sizeof path)
        return;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        fprintf(stderr, "mpidbg: rank %d: cannot tell the debugger its pid (%s: %s); running without it\n", rank,
                path, strerror(errno));
        return;
    }
    close(fd);
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
    unlink(path);
}
