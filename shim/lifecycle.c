/*
 * MPI_Init, MPI_Init_thread and MPI_Finalize, by hand.
 *
 * Init contract: pre: nothing (the shim is idle before MPI is); post:
 * the registry learns the world, the predefined datatypes and
 * communicators; MPI_TAG_UB is read once; MPIDBG_ON_ERROR and
 * MPIDBG_CHECKS are read; the Go engine starts (its runtime start, about
 * a millisecond, is paid here) and says Hello to the launcher; then the
 * wrappers become active.
 * Finalize contract: pre: operations never completed
 * (request-never-completed) and objects never freed (leak-*) are
 * reported, then Bye, then the wrappers go idle and MPI finalizes.
 *
 * "pre" is as late as MPI allows. MPI_Finalize first deletes the
 * attributes of MPI_COMM_SELF, in the reverse order in which they were
 * set, while MPI is still fully usable (MPI-4.1 §11.2.4); programs and
 * libraries (HDF5, PETSc) free their communicators and datatypes in such
 * delete callbacks, so the census must come after them. The shim sets an
 * attribute of its own at MPI_Init, before the program can set one, and
 * its delete callback, the last to run, does the Finalize work. The
 * program's callbacks reach MPI through the wrappers, still active then.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"
#include "crash.h"
#include "nasty.h"
#include "rma_lifecycle.h"

__thread int mpidbg_depth __attribute__((tls_model("initial-exec")));
int mpidbg_active;
uintptr_t mpidbg_mpi_lo, mpidbg_mpi_len;
int mpidbg_tag_ub = 32767;
int mpidbg_world_rank = -1;

struct find_text {
    uintptr_t pc, lo, hi;
};

static int find_text_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct find_text *f = arg;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (f->pc >= lo && f->pc < hi) {
            f->lo = lo;
            f->hi = hi;
            return 1;
        }
    }
    return 0;
}

struct mpidbg_text mpidbg_text_of(uintptr_t pc)
{
    struct find_text f = {pc, 0, 0};
    dl_iterate_phdr(find_text_cb, &f);
    return (struct mpidbg_text){f.lo, f.hi};
}

/* The MPI library's executable segment: calls coming from there are MPI
 * calling itself (ROMIO, the Fortran-free internals) and go straight to
 * PMPI. */
static void find_mpi_text(void)
{
    struct mpidbg_text t = mpidbg_text_of((uintptr_t)&PMPI_Send);
    if (t.hi > t.lo) {
        mpidbg_mpi_lo = t.lo;
        mpidbg_mpi_len = t.hi - t.lo;
    }
}

static void self_attr(void);

static void start(void)
{
    int provided = MPI_THREAD_MULTIPLE;
    PMPI_Query_thread(&provided);
    mpidbg_mt = provided == MPI_THREAD_MULTIPLE;
    if (mpidbg_mt)
        mpidbg_tc_start();
    mpidbg_blocked_thread(); /* the thread that initialised MPI has its record from now on */
    find_mpi_text();
    mpidbg_python_init(); /* mpi4py initialises MPI as it is imported: its module is loaded by now */
    int *ub = NULL, flag = 0;
    if (PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag) == MPI_SUCCESS && flag && ub)
        mpidbg_tag_ub = *ub;
    PMPI_Comm_rank(MPI_COMM_WORLD, &mpidbg_world_rank);
    mpidbg_report_init();
    mpidbg_nasty_init();
    mpidbg_registry_at_init();
    mpidbg_xr_init();
    mpidbg_objects_init();
    mpidbg_spawn_init();
    mpidbg_go_init();
    mpidbg_crash_init(mpidbg_go_report_fd()); /* after Go's handlers, before the tracker's, which chain to it */
    mpidbg_ending_init();
    mpidbg_track_init(); /* after the crash handlers: the tracker's chain to them */
    self_attr();
    __atomic_store_n(&mpidbg_active, 1, __ATOMIC_RELEASE);
}

int MPI_Init(int *argc, char ***argv)
{
    if (mpidbg_depth || mpidbg_active)
        return PMPI_Init(argc, argv);
    mpidbg_depth++;
    mpidbg_crash_before_init(); /* the program's handlers, before MPI's */
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        start();
    mpidbg_depth--;
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    if (mpidbg_depth || mpidbg_active)
        return PMPI_Init_thread(argc, argv, required, provided);
    mpidbg_depth++;
    mpidbg_crash_before_init(); /* the program's handlers, before MPI's */
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        start();
    mpidbg_depth--;
    return rc;
}

/* The shim's MPI_COMM_SELF attribute (MPI_KEYVAL_INVALID if MPI refused
 * it: the work is then done before PMPI_Finalize), and the context of the
 * MPI_Finalize call in progress, which the attribute's delete callback
 * takes over. */
static int self_key = MPI_KEYVAL_INVALID;
static struct mpidbg_cx *finalizing;

/* finalize_work is MPI_Finalize's work, in its order; without mpi (MPI
 * is finalized already) only the part the rank knows alone: the buffer
 * races queued, the leak census, Bye. */
static void finalize_work(struct mpidbg_cx *cx, int mpi)
{
    if (mpi) {
        mpidbg_rma_life_finalize(cx); /* epochs left open on windows never freed */
        mpidbg_nasty_finalize(cx);
    }
    mpidbg_track_fini(); /* buffer races queued so far, then nothing is watched */
    if (mpi)
        mpidbg_xr_finalize(cx);
    mpidbg_leaks(cx);
    mpidbg_ending_fini();
    mpidbg_crash_fini(); /* its copy of the connection closes before the connection */
    mpidbg_go_finalize((int64_t)mpidbg_registry.findings_total);
    mpidbg_registry_at_finalize();
    __atomic_store_n(&mpidbg_active, 0, __ATOMIC_RELEASE);
}

/* finish takes over the context of the MPI_Finalize call in progress */
static void finish(struct mpidbg_cx *cx, int mpi)
{
    finalizing = NULL;
    mpidbg_depth++; /* the calls the work makes are the shim's own */
    finalize_work(cx, mpi);
    mpidbg_leave(cx);
}

void mpidbg_finalize_now(void)
{
    /* nothing when not inside the wrapper's PMPI_Finalize (a layer above
     * the shim called PMPI_Finalize) */
    if (finalizing)
        finish(finalizing, 1);
}

/* What the program's delete callback that MPI ran last on MPI_COMM_SELF
 * returned: the shim's, which runs after it, returns the same, so that
 * MPI_Finalize fails or not as it would without the shim (MPICH 4.0
 * keeps the last callback's code, later MPICH the last failure's). */
static int self_rc = MPI_SUCCESS;

void mpidbg_self_callback_done(int rc)
{
    if (!finalizing)
        return;
    self_rc = rc;
#ifdef OPEN_MPI
    /* Open MPI runs no callback after a failing one: the shim's would
     * never run (keyvals.c) */
    if (rc != MPI_SUCCESS)
        mpidbg_finalize_now();
#endif
}

static int self_deleted(MPI_Comm comm, int key, void *val, void *extra)
{
    (void)comm, (void)key, (void)val, (void)extra;
    mpidbg_finalize_now();
    return self_rc;
}

/* self_attr sets the shim's attribute: from the end of MPI_Init, so that
 * every attribute the program sets is deleted before it. */
static void self_attr(void)
{
    if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_deleted, &self_key, NULL) != MPI_SUCCESS) {
        self_key = MPI_KEYVAL_INVALID;
        return;
    }
    if (PMPI_Comm_set_attr(MPI_COMM_SELF, self_key, NULL) != MPI_SUCCESS) {
        PMPI_Comm_free_keyval(&self_key);
        self_key = MPI_KEYVAL_INVALID;
    }
}

int MPI_Finalize(void)
{
    void *ra = __builtin_return_address(0);
    if (mpidbg_bypass(ra))
        return PMPI_Finalize();
    struct mpidbg_cx cx;
    mpidbg_enter(&cx, MPIDBG_CALL_MPI_Finalize, ra);
    if (self_key == MPI_KEYVAL_INVALID) {
        finalize_work(&cx, 1);
        mpidbg_leave(&cx);
        return PMPI_Finalize();
    }
    finalizing = &cx;
    mpidbg_depth--; /* the program's delete callbacks call MPI through the wrappers */
    int rc = PMPI_Finalize();
    if (finalizing) {
        /* MPI never ran the attribute's callback (a failing callback of
         * a keyval made from Fortran, under Open MPI: keyvals.c): too
         * late for what needs MPI, not for what the rank knows alone */
        finish(&cx, 0);
    }
    return rc;
}
