/*
 * MPI_Abort, by hand, and a rank that exits without MPI_Finalize.
 *
 * MPI_Abort: before PMPI_Abort, the rank tells mpidbg its error code, the
 * communicator and where the program called it (MPI libraries end the
 * job without saying which rank asked, or where).
 *
 * Exit: MPI-4.1 §11.2.2 says a process that initialised the World Model
 * must finalize it exactly once during its lifetime. An exit hook
 * (on_exit, which also gives the status) reports missing-finalize when
 * the process exits after MPI_Init without MPI_Finalize: with the call of
 * exit() as the site, or none when main returned. The hook is registered
 * by a constructor, before main: exit handlers run in reverse order of
 * registration, so it runs after the program's own (atexit handlers and
 * C++ static destructors, which may call MPI_Finalize themselves). It
 * acts only in the process that called MPI_Init: a child forked after it
 * inherits the hook, and must not speak for the rank (nor call into Go,
 * whose threads it does not have). Not after MPI_Abort (MPI libraries
 * exit from inside it) nor after a fatal signal (a handler that exits).
 * When exit's caller is the MPI library itself (MPICH's fatal-error
 * path, MPI_ERRORS_ARE_FATAL) the rank says MPI ended it, without a
 * finding: the program did not leave MPI_Finalize out. _exit() and a kill
 * run no hooks: those ranks are reported as dead by the launcher's
 * account. In a rank a debugger attached to, the hook ends in a stop
 * for it (mpidbg_debugger_exit).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shim.h"
#include "crash.h"
#include "objects.h"

int mpidbg_aborting;
static int finalized, hooked, armed;
static pid_t init_pid; /* the process that called MPI_Init */

static void comm_words(MPI_Comm comm, char *out, int n)
{
    out[0] = 0;
    if (comm == MPI_COMM_WORLD)
        snprintf(out, n, "MPI_COMM_WORLD");
    else if (comm == MPI_COMM_SELF)
        snprintf(out, n, "MPI_COMM_SELF");
    else if (comm == MPI_COMM_NULL)
        snprintf(out, n, "MPI_COMM_NULL");
    else {
        struct mpidbg_cobj *co = mpidbg_hmap_get(&mpidbg_comms, MPIDBG_H(comm));
        if (co && co->rec && co->rec->name[0])
            snprintf(out, n, "%s", co->rec->name);
        else if (co)
            snprintf(out, n, "a communicator");
        else
            snprintf(out, n, "an unknown communicator");
    }
}

int MPI_Abort(MPI_Comm comm, int errorcode)
{
    void *ra = __builtin_return_address(0);
    /* not mpidbg_bypass: a callback that MPI runs inside another call (a
     * reduction operation, an attribute's delete callback, an error
     * handler) aborts the job as the program's own call does, and the
     * report must say so */
    if (!mpidbg_active || (uintptr_t)ra - mpidbg_mpi_lo < mpidbg_mpi_len)
        return PMPI_Abort(comm, errorcode);
    struct mpidbg_cx cx;
    mpidbg_enter(&cx, MPIDBG_CALL_MPI_Abort, ra);
    __atomic_store_n(&mpidbg_aborting, 1, __ATOMIC_RELEASE);
    char name[MPI_MAX_OBJECT_NAME + 32];
    comm_words(comm, name, sizeof name);
    mpidbg_go_abort(errorcode, name, cx.site);
    mpidbg_go_report_drain();
    mpidbg_leave(&cx);
    return PMPI_Abort(comm, errorcode);
}

/* How exit() was reached (outcome.go's exitHow). */
enum { EXIT_CALL, EXIT_RETURNED, EXIT_UNKNOWN, EXIT_MPI };

/* exit_site finds the call of exit() in the hook's stack: *site is its
 * return address for EXIT_CALL; EXIT_RETURNED when exit's caller is the
 * C library's start code (main returned), EXIT_MPI when it is the MPI
 * library, EXIT_UNKNOWN when the stack does not say. */
static int exit_site(uint64_t *site)
{
    *site = 0;
    void *bt[32];
    int n = backtrace(bt, 32);
    Dl_info exit_info, fi;
    void *exit_fn = dlsym(RTLD_DEFAULT, "exit");
    if (!exit_fn || !dladdr(exit_fn, &exit_info))
        return EXIT_UNKNOWN;
    for (int i = 1; i + 1 < n; i++) {
        if (!dladdr((char *)bt[i] - 1, &fi) || fi.dli_saddr != exit_fn)
            continue;
        void *caller = bt[i + 1];
        if ((uintptr_t)caller - 1 - mpidbg_mpi_lo < mpidbg_mpi_len)
            return EXIT_MPI;
        if (dladdr((char *)caller - 1, &fi) && fi.dli_fbase == exit_info.dli_fbase)
            return EXIT_RETURNED; /* __libc_start_call_main */
        /* past a language runtime's own stop (Fortran's STOP, ERROR STOP) */
        for (int j = i + 1; j < n && dladdr((char *)bt[j] - 1, &fi) && fi.dli_fname && strstr(fi.dli_fname, "libgfortran"); j++)
            caller = j + 1 < n ? bt[j + 1] : caller;
        *site = (uint64_t)(uintptr_t)mpidbg_binding_caller(caller);
        return *site ? EXIT_CALL : EXIT_UNKNOWN;
    }
    return EXIT_UNKNOWN;
}

static void exit_checks(int status)
{
    if (!__atomic_load_n(&armed, __ATOMIC_ACQUIRE) || getpid() != init_pid)
        return; /* before MPI_Init, or a forked child */
    if (finalized || __atomic_load_n(&mpidbg_aborting, __ATOMIC_ACQUIRE) || __atomic_load_n(&mpidbg_crashed, __ATOMIC_ACQUIRE))
        return;
    /* --on-error abort: the shim called PMPI_Abort after a finding, and
     * the MPI library exits from inside it */
    if (mpidbg_on_error_abort() && mpidbg_registry.findings_total > 0)
        return;
    uint64_t site;
    int how = exit_site(&site);
    mpidbg_go_exit(status, site, how);
    if (how == EXIT_MPI || !mpidbg_enabled(MPIDBG_F_MISSING_FINALIZE))
        return;
    struct mpidbg_ev ev;
    mpidbg_ev_init(&ev, NULL, MPIDBG_F_MISSING_FINALIZE, how == EXIT_CALL ? "exit" : "return");
    ev.site = site;
    ev.val = status;
    /* not mpidbg_report: --on-error abort must not call MPI_Abort from
     * inside exit() */
    struct mpidbg_finding *f = mpidbg_go_report(&ev);
    if (f)
        mpidbg_break(f);
}

static void on_exit_hook(int status, void *arg)
{
    (void)arg;
    exit_checks(status);
    mpidbg_debugger_exit(status); /* last: a finding above stops first */
}

__attribute__((constructor)) static void ending_hook(void)
{
    if (on_exit(on_exit_hook, NULL) == 0)
        hooked = 1;
}

void mpidbg_ending_init(void)
{
    init_pid = getpid();
    if (!hooked && on_exit(on_exit_hook, NULL) == 0)
        hooked = 1;
    __atomic_store_n(&armed, 1, __ATOMIC_RELEASE);
}

void mpidbg_ending_fini(void)
{
    finalized = 1;
}
