/*
 * A rank that MPI's error handler is about to end.
 *
 * When a check reported an error in a call and the call goes on into MPI
 * (--on-error continue, a stop the debugger resumed, a call the shim
 * refuses by raising the error itself), and the error handler MPI calls
 * for an error there ends the job (MPI_ERRORS_ARE_FATAL, and MPI-4's
 * MPI_ERRORS_ABORT: MPI-4.1 §9.3), the rank tells mpidbg first. Neither
 * MPI reliably lets the rank say it afterwards: MPICH's fatal path asks
 * its process manager to abort, which may kill the rank before the exit
 * hook runs, and Open MPI's ends the process without an exit the shim's
 * hook sees. Without this word the report could only say that the rank
 * ended without one. When the call returns after all (MPI accepted what
 * the check did not), the rank says so at the call's end, and its word no
 * longer counts.
 *
 * Only calls in which an error was reported pay any of this: the handler
 * is looked up then, never on the way of a correct call.
 */
#include <stdio.h>

#include "shim.h"
#include "crash.h"

/* The thread's last error finding and the call it was reported in (its
 * site and call id: a finding the cross-rank checks make after MPI
 * returned is reported with a context of its own, which names the call
 * but is not the call's). A copy: the findings ring is shared by the
 * threads and reused. */
static __thread struct {
    int set;
    uint64_t site;
    int32_t call;
    char id[48], name[40];
} last __attribute__((tls_model("initial-exec")));

void mpidbg_fatal_found(struct mpidbg_cx *cx, const struct mpidbg_finding *f)
{
    last.set = 1;
    last.site = cx->site;
    last.call = cx->call;
    snprintf(last.id, sizeof last.id, "%s", f->id);
    snprintf(last.name, sizeof last.name, "%s", f->call);
    if (cx->fatal_said == 0)
        cx->fatal_said = FATAL_ERROR_HERE;
}

/* fatal_name is the name of a predefined handler that ends the job, NULL
 * for any other (MPI_ERRORS_RETURN, a handler of the program's). */
static const char *fatal_name(MPI_Errhandler eh)
{
    if (eh == MPI_ERRORS_ARE_FATAL)
        return "MPI_ERRORS_ARE_FATAL";
#ifdef MPI_ERRORS_ABORT
    if (eh == MPI_ERRORS_ABORT)
        return "MPI_ERRORS_ABORT";
#endif
    return NULL;
}

static int mpi_up(void)
{
    int init = 0, fin = 0;
    return PMPI_Initialized(&init) == MPI_SUCCESS && init && PMPI_Finalized(&fin) == MPI_SUCCESS && !fin;
}

static int last_is(const struct mpidbg_cx *cx)
{
    return last.set && last.site == cx->site && last.call == cx->call;
}

void mpidbg_fatal_handler(struct mpidbg_cx *cx, MPI_Errhandler eh)
{
    const char *name = fatal_name(eh);
    if (!name || !last_is(cx) || (cx->nfound && cx->fatal_said == FATAL_SAID))
        return;
    if (!cx->nfound)
        cx->nfound = 1; /* a finding made with a context of its own: mpidbg_leave looks at both */
    cx->fatal_said = FATAL_SAID;
    last.set = 0;
    mpidbg_go_fatal(last.id, last.name, name, cx->site, 0);
    mpidbg_go_report_drain();
}

/* mpidbg_fatal_forget: the call's own handler ran, or MPI returned: what
 * the thread reported in it is not to be matched by a later call. */
void mpidbg_fatal_forget(void)
{
    last.set = 0;
}

/* may_say: an error was reported in this very call and MPI may be asked
 * for a handler */
static int may_say(const struct mpidbg_cx *cx)
{
    return cx->nfound && cx->fatal_said == FATAL_ERROR_HERE && last_is(cx) && mpi_up();
}

/* say_handler tells mpidbg when eh ends the job, and gives it back;
 * say_comm does so for c's handler. */
static void say_handler(struct mpidbg_cx *cx, MPI_Errhandler eh)
{
    mpidbg_fatal_handler(cx, eh);
    PMPI_Errhandler_free(&eh);
}

static void say_comm(struct mpidbg_cx *cx, MPI_Comm c)
{
    MPI_Errhandler eh;
    if (PMPI_Comm_get_errhandler(c, &eh) == MPI_SUCCESS)
        say_handler(cx, eh);
}

void mpidbg_fatal_ahead(struct mpidbg_cx *cx)
{
    if (!may_say(cx))
        return;
    /* the window's handler for a call on a valid window, else the one
     * mpidbg_cx_comm names */
    MPI_Errhandler eh;
    if (!cx->wo)
        say_comm(cx, mpidbg_cx_comm(cx));
    else if (PMPI_Win_get_errhandler((MPI_Win)(uintptr_t)cx->wo->handle, &eh) == MPI_SUCCESS)
        say_handler(cx, eh);
}

void mpidbg_fatal_raising(struct mpidbg_cx *cx, MPI_Comm c)
{
    if (may_say(cx))
        say_comm(cx, c);
}

void mpidbg_fatal_left(struct mpidbg_cx *cx)
{
    cx->fatal_said = 0;
    mpidbg_go_fatal("", "", "", cx->site, 1);
}
