/*
 * MPI_Op_create, by hand: the program's reduction functions run through
 * trampolines, so that the time MPI spends in them counts as the
 * program's, not as a wait.
 *
 * Why: a rank inside MPI_Reduce (or the MPI_Wait of an MPI_Ireduce) that
 * combines the others' contributions with a user-defined operation runs
 * the program's code there (MPI-4.1 §6.9.5), for as long as that code
 * takes, while the ranks whose part was sent have left the collective
 * and wait in the next call. Its blocked-call record said "waits in
 * MPI_Reduce", the wait-for graph closed a cycle, and after the deadlock
 * timeout a correct job was ended. And the signal that takes a blocked
 * thread's stack (blocked.c) interrupted the program's poll(2) or
 * sleep(3) inside the function with EINTR. The trampoline takes the
 * record out of the graph for the function's duration
 * (mpidbg_blocked_pause) and puts it back with a new sequence number, as
 * a call that made progress.
 *
 * MPI_User_function has no argument for the program's own state, so
 * each trampoline is a function of its own with a slot: NTRAMP of them,
 * a slot per distinct function (a loop that creates and frees the same
 * operation reuses its slot). An operation made when every slot is
 * taken, or made from Fortran (whose bindings reach MPI below this
 * name), keeps its function as it is. Slots are never given back: MPI
 * may call a freed operation's function until the operations using it
 * complete (§6.9.5).
 */
#include "shim.h"

#define NTRAMP 64

static MPI_User_function *fns[NTRAMP];
static pthread_mutex_t fns_mu = PTHREAD_MUTEX_INITIALIZER;

static inline void run(int i, void *in, void *inout, int *len, MPI_Datatype *type)
{
    int was = mpidbg_blocked_pause();
    fns[i](in, inout, len, type);
    mpidbg_blocked_resume(was);
}

#define T(i, j)                                                                                     \
    static void tramp_##i##_##j(void *in, void *inout, int *len, MPI_Datatype *type)                \
    {                                                                                               \
        run(8 * i + j, in, inout, len, type);                                                       \
    }
#define T8(i) T(i, 0) T(i, 1) T(i, 2) T(i, 3) T(i, 4) T(i, 5) T(i, 6) T(i, 7)
T8(0) T8(1) T8(2) T8(3) T8(4) T8(5) T8(6) T8(7)
#undef T
#define T(i, j) tramp_##i##_##j,
static MPI_User_function *const tramps[NTRAMP] = {T8(0) T8(1) T8(2) T8(3) T8(4) T8(5) T8(6) T8(7)};
#undef T
#undef T8

/* trampoline returns the trampoline of fn, fn itself when none is free */
static MPI_User_function *trampoline(MPI_User_function *fn)
{
    if (!fn)
        return fn; /* MPI's to refuse */
    MPI_User_function *t = fn;
    pthread_mutex_lock(&fns_mu);
    for (int i = 0; i < NTRAMP; i++) {
        if (fns[i] == fn || !fns[i]) {
            fns[i] = fn;
            t = tramps[i];
            break;
        }
    }
    pthread_mutex_unlock(&fns_mu);
    return t;
}

int MPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    void *ra = __builtin_return_address(0);
    if (mpidbg_bypass(ra))
        return PMPI_Op_create(user_fn, commute, op);
    struct mpidbg_cx cx;
    mpidbg_enter(&cx, MPIDBG_CALL_MPI_Op_create, ra);
    if (MPIDBG_REFUSING(&cx))
        return mpidbg_refused(&cx);
    int rc = PMPI_Op_create(trampoline(user_fn), commute, op);
    if (rc == MPI_SUCCESS)
        mpidbg_op_new(&cx, *op, 0, (void *)user_fn, commute); /* the program's function, as gdb shows it */
    mpidbg_leave(&cx);
    return rc;
}
