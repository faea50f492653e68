/*
 * The way out for a finding: the Go side formats it, writes it to the
 * registry's ring and to the launcher (or standard error); then the break
 * hook, on which debuggers stop, and MPIDBG_ON_ERROR.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "shim.h"
#include "crash.h"

#define FID_NAME(n, s, c) s,
static const char *const fid_names[] = {MPIDBG_FINDINGS(FID_NAME)};
#undef FID_NAME
#define FID_CAT(n, s, c) c,
static const int fid_cats[] = {MPIDBG_FINDINGS(FID_CAT)};
#undef FID_CAT

const char *mpidbg_fid_name(int fid)
{
    return fid >= 0 && fid < MPIDBG_NFID ? fid_names[fid] : "";
}

unsigned mpidbg_disabled;

/* The findings that are off unless asked for (MPIDBG_OPT_IN), 1 while
 * off: set here, cleared by a +id of MPIDBG_CHECKS (mpidbg_checks_init). */
#define OPT_IN_OFF(n) [MPIDBG_F_##n] = 1,
static unsigned char opt_in_off[MPIDBG_NFID] = {MPIDBG_OPT_IN(OPT_IN_OFF)};
#undef OPT_IN_OFF

int mpidbg_enabled(int fid)
{
    return fid >= 0 && fid < MPIDBG_NFID && !(mpidbg_disabled & (1u << fid_cats[fid])) && !opt_in_off[fid];
}

enum { ON_CONTINUE, ON_ABORT, ON_STOP };
static int on_error = ON_CONTINUE;

/* Resumes a rank stopped by MPIDBG_ON_ERROR=stop: a debugger sets it to 1. */
__attribute__((visibility("default"), used)) volatile int mpidbg_resume;

/* mpidbg_checks_init reads MPIDBG_CHECKS into mpidbg_disabled, once: a
 * comma-separated list of categories to turn off, each with a leading
 * '-', and of findings that are off by default to turn on, each with a
 * leading '+', as mpidbg run's --checks takes it (checks.ValidateDisabled, which
 * refuses the same lists). A name that is no category ends the process
 * with the list of valid ones: a check the user meant to turn off must
 * not run, and one the user meant to keep must not vanish, silently. It
 * runs from constructors too, before MPI_Init. */
void mpidbg_checks_init(void)
{
    static int done;
    if (__atomic_exchange_n(&done, 1, __ATOMIC_ACQ_REL))
        return;
    static const char *const cats[MPIDBG_NCAT] = {MPIDBG_CATEGORY_NAMES};
    const char *c = getenv("MPIDBG_CHECKS");
    unsigned off = 0;
    if (c && !*c)
        c = NULL; /* empty: nothing turned off */
    while (c) { /* every item, the empty one after a trailing comma too, as ValidateDisabled reads them */
        const char *end = strchr(c, ',');
        size_t n = end ? (size_t)(end - c) : strlen(c);
        const char *name = c;
        size_t len = n;
        while (len > 0 && (*name == ' ' || *name == '\t'))
            name++, len--;
        while (len > 0 && (name[len - 1] == ' ' || name[len - 1] == '\t'))
            len--;
        int found = -1;
        if (len > 1 && name[0] == '+') { /* a finding that is off by default, turned on */
            int fid = -1;
            for (int i = 0; i < MPIDBG_NFID; i++)
                if (opt_in_off[i] && strlen(fid_names[i]) == len - 1 && strncmp(fid_names[i], name + 1, len - 1) == 0)
                    fid = i;
            if (fid >= 0) {
                opt_in_off[fid] = 0;
                c = end ? end + 1 : NULL;
                continue;
            }
        }
        if (len > 1 && name[0] == '-')
            for (int i = 0; i < MPIDBG_NCAT; i++)
                if (strlen(cats[i]) == len - 1 && strncmp(cats[i], name + 1, len - 1) == 0)
                    found = i;
        if (found < 0) {
            /* one write: every rank says it at once on the same stream */
            char msg[1024];
            int m = snprintf(msg, sizeof msg, "mpidbg: MPIDBG_CHECKS=%s: \"%.*s\" is not -CATEGORY, a category to turn off (categories:",
                             getenv("MPIDBG_CHECKS"), (int)len, name);
            for (int i = 0; i < MPIDBG_NCAT && m > 0 && (size_t)m < sizeof msg; i++)
                m += snprintf(msg + m, sizeof msg - (size_t)m, "%s %s", i ? "," : "", cats[i]);
            if (m > 0 && (size_t)m < sizeof msg)
                m += snprintf(msg + m, sizeof msg - (size_t)m, ")\n");
            if (m > 0)
                (void)!write(2, msg, (size_t)m < sizeof msg ? (size_t)m : sizeof msg - 1);
            _exit(2);
        }
        off |= 1u << found;
        c = end ? end + 1 : NULL;
    }
    mpidbg_disabled = off;
}

int mpidbg_on_error_abort(void)
{
    return on_error == ON_ABORT;
}

void mpidbg_report_init(void)
{
    const char *e = getenv("MPIDBG_ON_ERROR");
    if (e && strcmp(e, "abort") == 0)
        on_error = ON_ABORT;
    else if (e && strcmp(e, "stop") == 0)
        on_error = ON_STOP;
    mpidbg_checks_init();
}

void mpidbg_ev_init(struct mpidbg_ev *ev, struct mpidbg_cx *cx, int fid, const char *arg)
{
    memset(ev, 0, sizeof *ev);
    ev->fid = fid;
    ev->call = cx ? cx->call : -1;
    ev->site = cx ? cx->site : 0;
    ev->arg = arg;
    ev->index = -1;
    ev->related_call = -1;
    ev->hkind = MPIDBG_HK_NONE;
}

/* mpidbg_break is where debuggers stop on a finding: the finding is in
 * its argument, and in the registry's ring; NULL at a debugged rank's
 * exit (debugger.c). Never inlined, never removed. */
__attribute__((noinline, used, visibility("default"))) void mpidbg_break(const struct mpidbg_finding *f)
{
    __asm__ volatile("" : : "r"(f) : "memory");
}

/* refusal is the error class a call with this finding must get instead
 * of reaching MPI (MPIDBG_REFUSING), 0 when MPI may be called: the
 * handle is not the null handle and the MPI cannot follow it. A freed
 * object whose memory still holds the object is given to MPI, as it
 * would be without mpidbg. The reporter says the handle's kind. */
static int refusal(const struct mpidbg_ev *ev)
{
    /* both MPIs accept a request listed twice in MPI_Startall, start the
     * operation twice and wait for ever on the second */
    if (ev->fid == MPIDBG_F_REQUEST_ACTIVE_START && ev->variant == MPIDBG_V_TWICE)
        return MPI_ERR_REQUEST;
    if (!MPIDBG_DEREFS_HANDLES)
        return 0;
    switch (ev->fid) {
    case MPIDBG_F_TYPE_UNKNOWN:
    case MPIDBG_F_TYPE_FREED:
    case MPIDBG_F_TYPE_DOUBLE_FREE: /* Open MPI's MPI_Type_free would release the freed object again */
    case MPIDBG_F_REQUEST_UNKNOWN:
        break;
    case MPIDBG_F_REQUEST_ACTIVE_START:
        /* Open MPI 4.1 starts an active persistent request again by
         * orphaning the first operation (pml ob1's start): the message
         * then goes to the orphan and the program waits for ever. MPICH
         * returns MPI_ERR_REQUEST; so does the shim, for Open MPI. */
        return MPI_ERR_REQUEST;
    case MPIDBG_F_INVALID_HANDLE:
        if (ev->variant == MPIDBG_V_NULL)
            return 0;
        break;
    case MPIDBG_F_INVALID_WINDOW_MEMORY:
        /* Open MPI 4.1 (osc ucx) registers the NULL base of a non-zero
         * size and dies of it inside MPI_Win_create; MPICH refuses it
         * with MPI_ERR_ARG ("Null pointer in parameter base"), and so
         * does the shim. Sizes and units Open MPI checks itself. */
        return ev->val > 0 && ev->arg && strcmp(ev->arg, "base") == 0 ? MPI_ERR_ARG : 0;
    default:
        return 0;
    }
    int err;
    switch (ev->hkind) {
    case MPIDBG_HK_TYPE:
        err = MPI_ERR_TYPE;
        break;
    case MPIDBG_HK_COMM:
        err = MPI_ERR_COMM;
        break;
    case MPIDBG_HK_GROUP:
        err = MPI_ERR_GROUP;
        break;
    case MPIDBG_HK_OP:
        err = MPI_ERR_OP;
        break;
    case MPIDBG_HK_WIN:
        err = MPI_ERR_WIN;
        break;
    case MPIDBG_HK_REQUEST:
        err = MPI_ERR_REQUEST;
        break;
    default:
        return 0;
    }
    return mpidbg_followable(ev->hkind, ev->handle) ? 0 : err;
}

int mpidbg_going_on(struct mpidbg_cx *cx)
{
    if (cx->refuse)
        return 0;
    mpidbg_fatal_ahead(cx);
    return 1;
}

int mpidbg_refused(struct mpidbg_cx *cx)
{
    int err = cx->refuse;
    MPI_Comm c = mpidbg_cx_comm(cx);
    mpidbg_fatal_raising(cx, c);
    int rc = PMPI_Comm_call_errhandler(c, err);
    mpidbg_fatal_forget();
    mpidbg_leave(cx);
    return rc == MPI_SUCCESS ? err : rc;
}

void mpidbg_report(struct mpidbg_cx *cx, struct mpidbg_ev *ev)
{
    /* before the enabled test: a call is refused even when its check
     * is turned off, since MPI would crash on it */
    if (cx && !cx->refuse)
        cx->refuse = refusal(ev);
    if (!mpidbg_enabled(ev->fid))
        return;
    if (cx && cx->nfound++ == 0)
        cx->fatal_said = 0;
    struct mpidbg_finding *f = mpidbg_go_report(ev);
    if (!f)
        return;
    if (cx && f->severity == 0)
        mpidbg_fatal_found(cx, f);
    mpidbg_break(f);
    if (f->severity != 0 || on_error == ON_CONTINUE)
        return;
    if (on_error == ON_ABORT) {
        mpidbg_go_report_drain();
        PMPI_Abort(MPI_COMM_WORLD, 1);
        return;
    }
    /* stop: let any process of ours attach, say how, wait until resumed */
    prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    fprintf(stderr, "mpidbg: rank %d stopped at %s: attach with gdb -p %d\n", mpidbg_world_rank, f->call,
            (int)getpid());
    fflush(stderr);
    struct timespec ts = {0, 100 * 1000 * 1000};
    while (!mpidbg_resume)
        nanosleep(&ts, NULL);
    mpidbg_resume = 0;
}

/* mpidbg_site_info names the module a code address is in and its offset
 * in the module's own addresses (what its DWARF uses): pc minus the load
 * bias, which is pc - base for position-independent modules and pc
 * itself for a fixed-address executable. */
int mpidbg_site_info(uint64_t pc, char *module, int len, uint64_t *offset)
{
    Dl_info info;
    struct link_map *lm = NULL;
    if (len <= 0 || !dladdr1((void *)(uintptr_t)pc, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm)
        return -1;
    module[0] = 0;
    if (lm->l_name && lm->l_name[0]) {
        if (!realpath(lm->l_name, module)) {
            strncpy(module, lm->l_name, len - 1);
            module[len - 1] = 0;
        }
    } else {
        ssize_t n = readlink("/proc/self/exe", module, len - 1);
        module[n > 0 ? n : 0] = 0;
    }
    *offset = pc - lm->l_addr;
    return 0;
}

/* mpidbg_call_name is the MPI function of a call id. */
const char *mpidbg_call_name(int call)
{
    return call >= 0 && call < MPIDBG_NCALLS ? mpidbg_call_names[call] : "";
}
