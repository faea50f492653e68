/*
 * OpenMP synchronisation as thread-clock edges (tclock.h).
 *
 * Under MPI_THREAD_MULTIPLE the MPI calls of different threads are
 * ordered only by the program's synchronisation between the threads
 * (MPI-4.1 §3.5). In an OpenMP program most of that synchronisation is
 * libgomp's, which waits in futex(2) and never in a pthread call
 * track_sync.c could see. GCC compiles the constructs into calls of
 * libgomp's GOMP_* entry points through the PLT, so the shim, preloaded,
 * defines them, forwards to the next definition (dlsym(RTLD_NEXT), looked
 * up at the first call) and turns each into edges:
 *
 *   - a parallel region: the outlined function and its data are replaced
 *     with a trampoline and a team record on the wrapper's stack (libgomp
 *     returns only when every thread of the team has left the function).
 *     Fork: each team thread learns the parent's clock before it runs the
 *     function. Join: each merges its clock into the team's when the
 *     function returns, and the parent learns that after the real call;
 *   - a barrier, explicit or the one at the end of a worksharing
 *     construct: every thread of a team passes the team's barriers in the
 *     same order, so a per-thread round count names the round of the
 *     team record's group (arrive before the real call, depart after);
 *   - critical sections, atomic sections, ordered sections and omp locks:
 *     release before the real unlock, acquire after the real lock.
 *
 * Tasks, doacross loops and cancellation are not followed: a program
 * that uses them turns the thread clocks off (mpidbg_tc_give_up), and
 * its threads are ordered by time again. So does a team the wrappers
 * did not see start while the clocks were running (begun before
 * MPI_Init_thread, or spanning it): its barriers would be missing edges.
 *
 * While the clocks are off everything here passes straight through: a
 * load of the current team, the clocks' flag and, for a region, a
 * counter. Nothing allocates.
 *
 * The prototypes are those of GCC 12's libgomp (libgomp_g.h, omp.h), at
 * symbol versions GOMP_1.0 to GOMP_5.0, OMP_3.0 and OMP_4.0; none has
 * changed its arguments since it appeared (GOMP_task's trailing ones,
 * added since, are read only when its flags say so).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <string.h>

#include "shim.h"
#include "tclock.h"

typedef void (*omp_fn)(void *);

/* A team of a parallel region the wrappers saw start while the clocks
 * ran. */
struct team {
    /* GOMP_parallel_reductions reads the first word of the data it is
     * given (the reductions' descriptor): the program's, copied here. */
    void *first;
    omp_fn fn;
    void *data;
    struct mpidbg_tc_vc fork;    /* the parent's clock at the fork */
    struct mpidbg_tc_group join; /* round 0: what the team knew at the end */
    struct mpidbg_tc_group bar;  /* the team's barriers */
};

/* The calling thread's innermost team (NULL: none the wrappers saw) and
 * how many of its barriers the thread passed. */
struct cur {
    struct team *team;
    unsigned round;
};
static __thread struct cur cur __attribute__((tls_model("initial-exec")));

/* Regions passed through without a team record, running now. */
static int unseen;


/* team_here: the calling thread's team record, NULL when there is none:
 * a construct outside any region (libgomp's team of one), or in a team
 * the wrappers did not see start. The latter while the clocks run would
 * miss the team's edges. */
static struct team *team_here(void)
{
    struct team *t = cur.team;
    if (MPIDBG_UNLIKELY(!t) && MPIDBG_UNLIKELY(__atomic_load_n(&unseen, __ATOMIC_RELAXED)) && mpidbg_tc_edges())
        mpidbg_tc_give_up("an OpenMP team that began before the thread clocks");
    return t;
}

#define REAL(name)                                                              \
    static __typeof__(name) *real_##name;                                       \
    __typeof__(name) *r = __atomic_load_n(&real_##name, __ATOMIC_ACQUIRE);      \
    if (MPIDBG_UNLIKELY(!r)) {                                                  \
        r = (__typeof__(name) *)dlsym(RTLD_NEXT, #name);                        \
        __atomic_store_n(&real_##name, r, __ATOMIC_RELEASE);                    \
    }

/* ---- parallel regions ---- */

static void trampoline(void *p)
{
    struct team *t = p;
    struct cur saved = cur;
    mpidbg_tc_learn(&t->fork);
    cur.team = t;
    cur.round = 0;
    t->fn(t->data);
    mpidbg_tc_arrive(&t->join, 0);
    cur = saved;
}

/* A region in the making: the team record when it has one, what to
 * restore when it passes through. */
struct region {
    struct team *t;
    struct cur saved;
    int was_on;
};

static void team_init(struct team *t, omp_fn fn, void *data)
{
    t->fn = fn;
    t->data = data;
    memset(&t->join, 0, sizeof t->join);
    memset(&t->bar, 0, sizeof t->bar);
    mpidbg_tc_snapshot(&t->fork);
}

/* pass_begin: the region runs without a record. Its threads have no
 * team here, the calling one included for the region's length (else its
 * barriers would count against the enclosing team's rounds). */
static void pass_begin(struct region *g)
{
    g->t = NULL;
    g->saved = cur;
    g->was_on = mpidbg_tc_running();
    cur.team = NULL;
    __atomic_fetch_add(&unseen, 1, __ATOMIC_RELAXED);
}

static void pass_end(struct region *g)
{
    __atomic_fetch_sub(&unseen, 1, __ATOMIC_RELAXED);
    cur = g->saved;
    /* the clocks started inside it: the team's join was never seen */
    if (!g->was_on && mpidbg_tc_running())
        mpidbg_tc_give_up("an OpenMP region spanned the start of the thread clocks");
}

/* region_begin: 1 when the region gets t as its record (then call the
 * real function with trampoline and t), 0 when it passes through. */
static int region_begin(struct region *g, struct team *t, omp_fn fn, void *data)
{
    if (MPIDBG_LIKELY(!mpidbg_tc_edges())) {
        pass_begin(g);
        return 0;
    }
    g->t = t;
    team_init(t, fn, data);
    return 1;
}

static void region_end(struct region *g)
{
    if (!g->t) {
        pass_end(g);
        return;
    }
    mpidbg_tc_depart(&g->t->join, 0);
}

/* A parallel region's entry point, plain or combined with a worksharing
 * loop or sections construct (its function then runs the construct).
 * With a team record, fn and data become the trampoline and the record
 * before args passes them on. */
#define PARALLEL(name, params, args)                                            \
    void name params                                                            \
    {                                                                           \
        REAL(name);                                                             \
        if (!r)                                                                 \
            return;                                                             \
        struct region g;                                                        \
        struct team t;                                                          \
        if (region_begin(&g, &t, fn, data)) {                                   \
            fn = trampoline;                                                    \
            data = &t;                                                          \
        }                                                                       \
        r args;                                                                 \
        region_end(&g);                                                         \
    }

void GOMP_parallel(omp_fn, void *, unsigned, unsigned);
void GOMP_parallel_sections(omp_fn, void *, unsigned, unsigned, unsigned);
void GOMP_parallel_loop_static(omp_fn, void *, unsigned, long, long, long, long, unsigned);
void GOMP_parallel_loop_dynamic(omp_fn, void *, unsigned, long, long, long, long, unsigned);
void GOMP_parallel_loop_guided(omp_fn, void *, unsigned, long, long, long, long, unsigned);
void GOMP_parallel_loop_runtime(omp_fn, void *, unsigned, long, long, long, unsigned);
void GOMP_parallel_loop_nonmonotonic_dynamic(omp_fn, void *, unsigned, long, long, long, long, unsigned);
void GOMP_parallel_loop_nonmonotonic_guided(omp_fn, void *, unsigned, long, long, long, long, unsigned);
void GOMP_parallel_loop_nonmonotonic_runtime(omp_fn, void *, unsigned, long, long, long, unsigned);
void GOMP_parallel_loop_maybe_nonmonotonic_runtime(omp_fn, void *, unsigned, long, long, long, unsigned);
unsigned GOMP_parallel_reductions(omp_fn, void *, unsigned, unsigned);

PARALLEL(GOMP_parallel, (omp_fn fn, void *data, unsigned n, unsigned flags), (fn, data, n, flags))
PARALLEL(GOMP_parallel_sections, (omp_fn fn, void *data, unsigned n, unsigned count, unsigned flags),
         (fn, data, n, count, flags))
PARALLEL(GOMP_parallel_loop_static,
         (omp_fn fn, void *data, unsigned n, long start, long end, long incr, long chunk, unsigned flags),
         (fn, data, n, start, end, incr, chunk, flags))
PARALLEL(GOMP_parallel_loop_dynamic,
         (omp_fn fn, void *data, unsigned n, long start, long end, long incr, long chunk, unsigned flags),
         (fn, data, n, start, end, incr, chunk, flags))
PARALLEL(GOMP_parallel_loop_guided,
         (omp_fn fn, void *data, unsigned n, long start, long end, long incr, long chunk, unsigned flags),
         (fn, data, n, start, end, incr, chunk, flags))
PARALLEL(GOMP_parallel_loop_runtime, (omp_fn fn, void *data, unsigned n, long start, long end, long incr, unsigned flags),
         (fn, data, n, start, end, incr, flags))
PARALLEL(GOMP_parallel_loop_nonmonotonic_dynamic,
         (omp_fn fn, void *data, unsigned n, long start, long end, long incr, long chunk, unsigned flags),
         (fn, data, n, start, end, incr, chunk, flags))
PARALLEL(GOMP_parallel_loop_nonmonotonic_guided,
         (omp_fn fn, void *data, unsigned n, long start, long end, long incr, long chunk, unsigned flags),
         (fn, data, n, start, end, incr, chunk, flags))
PARALLEL(GOMP_parallel_loop_nonmonotonic_runtime,
         (omp_fn fn, void *data, unsigned n, long start, long end, long incr, unsigned flags),
         (fn, data, n, start, end, incr, flags))
PARALLEL(GOMP_parallel_loop_maybe_nonmonotonic_runtime,
         (omp_fn fn, void *data, unsigned n, long start, long end, long incr, unsigned flags),
         (fn, data, n, start, end, incr, flags))

/* The region of a parallel construct with a task-modified reduction:
 * libgomp reads the reductions' descriptor through the data's first
 * word before the team starts. */
unsigned GOMP_parallel_reductions(omp_fn fn, void *data, unsigned n, unsigned flags)
{
    REAL(GOMP_parallel_reductions);
    if (!r)
        return 1;
    struct region g;
    struct team t;
    if (region_begin(&g, &t, fn, data)) {
        t.first = *(void **)data;
        fn = trampoline;
        data = &t;
    }
    unsigned got = r(fn, data, n, flags);
    region_end(&g);
    return got;
}

/* ---- the old pair: GOMP_parallel_start ... GOMP_parallel_end ----
 * Before GCC 4.9 a region was a start call, the parent's own call of the
 * function, and GOMP_parallel_end; the combined forms had _start
 * variants. The record must outlive the start wrapper: it comes from a
 * small pool, and the calling thread keeps, per nesting level, what
 * GOMP_parallel_end restores. */
#define POOL 16
#define OLD_LEVELS 8

static struct team pool[POOL];
static int pool_busy[POOL];

static struct team *pool_get(void)
{
    for (int i = 0; i < POOL; i++)
        if (!__atomic_load_n(&pool_busy[i], __ATOMIC_RELAXED) && !__atomic_exchange_n(&pool_busy[i], 1, __ATOMIC_ACQUIRE))
            return &pool[i];
    mpidbg_tc_give_up("too many old-style OpenMP regions at once");
    return NULL;
}

static void pool_put(struct team *t)
{
    __atomic_store_n(&pool_busy[t - pool], 0, __ATOMIC_RELEASE);
}

static __thread struct {
    unsigned depth;
    struct region g[OLD_LEVELS];
} old __attribute__((tls_model("initial-exec")));

/* old_begin: the team record to start the region with (then pass
 * trampoline and it), NULL to pass it through. */
static struct team *old_begin(omp_fn fn, void *data)
{
    unsigned d = old.depth++;
    if (d >= OLD_LEVELS) {
        mpidbg_tc_give_up("old-style OpenMP regions nested too deep");
        return NULL;
    }
    struct region *g = &old.g[d];
    struct team *t = mpidbg_tc_edges() ? pool_get() : NULL;
    if (!t) {
        pass_begin(g);
        return NULL;
    }
    g->t = t;
    g->saved = cur;
    team_init(t, fn, data);
    return t;
}

/* old_started: the real start call returned; the parent runs the
 * function itself next, as a member of the team. */
static void old_started(struct team *t)
{
    if (!t)
        return;
    cur.team = t;
    cur.round = 0;
}

#define PARALLEL_START(name, params, args)                                      \
    void name params                                                            \
    {                                                                           \
        REAL(name);                                                             \
        if (!r)                                                                 \
            return;                                                             \
        struct team *t = old_begin(fn, data);                                   \
        if (t) {                                                                \
            fn = trampoline;                                                    \
            data = t;                                                           \
        }                                                                       \
        r args;                                                                 \
        old_started(t);                                                         \
    }

void GOMP_parallel_start(omp_fn, void *, unsigned);
void GOMP_parallel_sections_start(omp_fn, void *, unsigned, unsigned);
void GOMP_parallel_loop_static_start(omp_fn, void *, unsigned, long, long, long, long);
void GOMP_parallel_loop_dynamic_start(omp_fn, void *, unsigned, long, long, long, long);
void GOMP_parallel_loop_guided_start(omp_fn, void *, unsigned, long, long, long, long);
void GOMP_parallel_loop_runtime_start(omp_fn, void *, unsigned, long, long, long);
void GOMP_parallel_end(void);

PARALLEL_START(GOMP_parallel_start, (omp_fn fn, void *data, unsigned n), (fn, data, n))
PARALLEL_START(GOMP_parallel_sections_start, (omp_fn fn, void *data, unsigned n, unsigned count),
               (fn, data, n, count))
PARALLEL_START(GOMP_parallel_loop_static_start,
               (omp_fn fn, void *data, unsigned n, long start, long end, long incr, long chunk),
               (fn, data, n, start, end, incr, chunk))
PARALLEL_START(GOMP_parallel_loop_dynamic_start,
               (omp_fn fn, void *data, unsigned n, long start, long end, long incr, long chunk),
               (fn, data, n, start, end, incr, chunk))
PARALLEL_START(GOMP_parallel_loop_guided_start,
               (omp_fn fn, void *data, unsigned n, long start, long end, long incr, long chunk),
               (fn, data, n, start, end, incr, chunk))
PARALLEL_START(GOMP_parallel_loop_runtime_start, (omp_fn fn, void *data, unsigned n, long start, long end, long incr),
               (fn, data, n, start, end, incr))

/* GOMP_parallel_end waits for the team (GOMP_parallel calls libgomp's
 * own alias, not this). */
void GOMP_parallel_end(void)
{
    REAL(GOMP_parallel_end);
    if (!r)
        return;
    if (!old.depth) { /* a start the wrappers never saw */
        r();
        return;
    }
    unsigned d = --old.depth;
    r();
    if (d >= OLD_LEVELS)
        return;
    struct region *g = &old.g[d];
    if (!g->t) {
        pass_end(g);
        return;
    }
    mpidbg_tc_depart(&g->t->join, 0);
    cur = g->saved;
    pool_put(g->t);
}

/* ---- barriers ---- */

static unsigned arrive(struct team *t)
{
    unsigned k = cur.round++;
    mpidbg_tc_arrive(&t->bar, k);
    return k;
}

/* cancelled: a cancellable barrier came back cancelled; the threads of
 * the team may now skip different barriers. */
static bool cancelled(bool c)
{
    if (MPIDBG_UNLIKELY(c))
        mpidbg_tc_give_up("OpenMP cancellation");
    return c;
}

#define BARRIER(name)                                                           \
    void name(void)                                                             \
    {                                                                           \
        REAL(name);                                                             \
        if (!r)                                                                 \
            return;                                                             \
        struct team *t = team_here();                                           \
        if (MPIDBG_LIKELY(!t)) {                                                \
            r();                                                                \
            return;                                                             \
        }                                                                       \
        unsigned k = arrive(t);                                                 \
        r();                                                                    \
        mpidbg_tc_depart(&t->bar, k);                                           \
    }

#define BARRIER_CANCEL(name)                                                    \
    bool name(void)                                                             \
    {                                                                           \
        REAL(name);                                                             \
        if (!r)                                                                 \
            return false;                                                       \
        struct team *t = team_here();                                           \
        if (MPIDBG_LIKELY(!t))                                                  \
            return cancelled(r());                                              \
        unsigned k = arrive(t);                                                 \
        bool c = r();                                                           \
        mpidbg_tc_depart(&t->bar, k);                                           \
        return cancelled(c);                                                    \
    }

void GOMP_barrier(void);
bool GOMP_barrier_cancel(void);
void GOMP_loop_end(void);
bool GOMP_loop_end_cancel(void);
void GOMP_sections_end(void);
bool GOMP_sections_end_cancel(void);

BARRIER(GOMP_barrier)
BARRIER(GOMP_loop_end)
BARRIER(GOMP_sections_end)
BARRIER_CANCEL(GOMP_barrier_cancel)
BARRIER_CANCEL(GOMP_loop_end_cancel)
BARRIER_CANCEL(GOMP_sections_end_cancel)

/* single with copyprivate: the thread that runs the block gets NULL from
 * GOMP_single_copy_start and passes the team barrier in
 * GOMP_single_copy_end, after publishing its data; the others pass it
 * inside GOMP_single_copy_start, then read the data. Which one a thread
 * is shows only when the start returns, so every thread arrives before
 * it: the runner's early arrival only adds part of what it will add
 * again in the end call of the same round. */
void *GOMP_single_copy_start(void);
void GOMP_single_copy_end(void *);

void *GOMP_single_copy_start(void)
{
    REAL(GOMP_single_copy_start);
    if (!r)
        return NULL;
    struct team *t = team_here();
    if (MPIDBG_LIKELY(!t))
        return r();
    unsigned k = cur.round;
    mpidbg_tc_arrive(&t->bar, k);
    void *data = r();
    if (data) {
        mpidbg_tc_depart(&t->bar, k);
        cur.round++;
    }
    return data;
}

void GOMP_single_copy_end(void *data)
{
    REAL(GOMP_single_copy_end);
    if (!r)
        return;
    struct team *t = team_here();
    if (MPIDBG_LIKELY(!t)) {
        r(data);
        return;
    }
    unsigned k = arrive(t);
    r(data);
    mpidbg_tc_depart(&t->bar, k);
}

/* The end of a worksharing construct with a task-modified reduction:
 * the team barrier comes after the reductions are unregistered, unless
 * the construct was cancelled. */
void GOMP_workshare_task_reduction_unregister(bool);

void GOMP_workshare_task_reduction_unregister(bool was_cancelled)
{
    REAL(GOMP_workshare_task_reduction_unregister);
    if (!r)
        return;
    struct team *t = team_here();
    if (MPIDBG_LIKELY(!t) || was_cancelled) {
        r(was_cancelled);
        return;
    }
    unsigned k = arrive(t);
    r(was_cancelled);
    mpidbg_tc_depart(&t->bar, k);
}

/* ---- mutual exclusion ---- */

/* The objects whose clocks the unnamed critical sections and the atomic
 * sections share (libgomp has one lock for each). */
static char critical_obj, atomic_obj;


#define LOCK0(name, obj)                                                        \
    void name(void)                                                             \
    {                                                                           \
        REAL(name);                                                             \
        if (!r)                                                                 \
            return;                                                             \
        r();                                                                    \
        mpidbg_tc_sync_acquire(obj);                                            \
    }

#define UNLOCK0(name, obj)                                                      \
    void name(void)                                                             \
    {                                                                           \
        REAL(name);                                                             \
        if (!r)                                                                 \
            return;                                                             \
        mpidbg_tc_sync_release(obj);                                            \
        r();                                                                    \
    }

void GOMP_critical_start(void);
void GOMP_critical_end(void);
void GOMP_atomic_start(void);
void GOMP_atomic_end(void);

LOCK0(GOMP_critical_start, &critical_obj)
UNLOCK0(GOMP_critical_end, &critical_obj)
LOCK0(GOMP_atomic_start, &atomic_obj)
UNLOCK0(GOMP_atomic_end, &atomic_obj)

/* A named critical section's lock is the pointer-sized variable GCC
 * emits for the name: its address names it. */
void GOMP_critical_name_start(void **);
void GOMP_critical_name_end(void **);

void GOMP_critical_name_start(void **name)
{
    REAL(GOMP_critical_name_start);
    if (!r)
        return;
    r(name);
    mpidbg_tc_sync_acquire(name);
}

void GOMP_critical_name_end(void **name)
{
    REAL(GOMP_critical_name_end);
    if (!r)
        return;
    mpidbg_tc_sync_release(name);
    r(name);
}

/* Ordered sections run one after the other in iteration order, within
 * one team: the team record names them. */
void GOMP_ordered_start(void);
void GOMP_ordered_end(void);

void GOMP_ordered_start(void)
{
    REAL(GOMP_ordered_start);
    if (!r)
        return;
    r();
    struct team *t = team_here();
    if (t)
        mpidbg_tc_sync_acquire(t);
}

void GOMP_ordered_end(void)
{
    REAL(GOMP_ordered_end);
    if (!r)
        return;
    struct team *t = team_here();
    if (t)
        mpidbg_tc_sync_release(t);
    r();
}

/* The omp lock routines (omp.h; omp_lock_t and omp_nest_lock_t are only
 * pointed to here). A nested lock releases at every unset, and acquires
 * at every set: only the outermost ones matter, the others add
 * nothing. The definitions here are unversioned and forward to the
 * default versions (OMP_3.0): a program linked against a libgomp older
 * than GCC 4.4 (OMP_1.0 nested locks, another layout) would be given
 * the newer routines. */
void omp_set_lock(void *);
void omp_unset_lock(void *);
int omp_test_lock(void *);
void omp_set_nest_lock(void *);
void omp_unset_nest_lock(void *);
int omp_test_nest_lock(void *);

#define OMP_SET(name)                                                           \
    void name(void *lock)                                                       \
    {                                                                           \
        REAL(name);                                                             \
        if (!r)                                                                 \
            return;                                                             \
        r(lock);                                                                \
        mpidbg_tc_sync_acquire(lock);                                           \
    }

#define OMP_UNSET(name)                                                         \
    void name(void *lock)                                                       \
    {                                                                           \
        REAL(name);                                                             \
        if (!r)                                                                 \
            return;                                                             \
        mpidbg_tc_sync_release(lock);                                           \
        r(lock);                                                                \
    }

/* omp_test_lock returns 1 when it took the lock, omp_test_nest_lock the
 * new nesting count: 0 when it did not. */
#define OMP_TEST(name)                                                          \
    int name(void *lock)                                                        \
    {                                                                           \
        REAL(name);                                                             \
        if (!r)                                                                 \
            return 0;                                                           \
        int got = r(lock);                                                      \
        if (got)                                                                \
            mpidbg_tc_sync_acquire(lock);                                       \
        return got;                                                             \
    }

OMP_SET(omp_set_lock)
OMP_UNSET(omp_unset_lock)
OMP_TEST(omp_test_lock)
OMP_SET(omp_set_nest_lock)
OMP_UNSET(omp_unset_nest_lock)
OMP_TEST(omp_test_nest_lock)

/* ---- what the clocks do not follow ---- */

/* A task may run on any thread of the team, at any later scheduling
 * point; what orders it (taskwait, taskgroup, dependences, the barriers
 * that run it) is not modelled. */
void GOMP_task(omp_fn, void *, void (*)(void *, void *), long, long, bool, unsigned, void **, int, void *);
void GOMP_taskloop(omp_fn, void *, void (*)(void *, void *), long, long, unsigned, unsigned long, int, long, long, long);
void GOMP_taskloop_ull(omp_fn, void *, void (*)(void *, void *), long, long, unsigned, unsigned long, int,
                       unsigned long long, unsigned long long, unsigned long long);

void GOMP_task(omp_fn fn, void *data, void (*cpyfn)(void *, void *), long arg_size, long arg_align, bool if_clause,
               unsigned flags, void **depend, int priority, void *detach)
{
    REAL(GOMP_task);
    if (!r)
        return;
    mpidbg_tc_give_up("OpenMP tasks");
    r(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend, priority, detach);
}

void GOMP_taskloop(omp_fn fn, void *data, void (*cpyfn)(void *, void *), long arg_size, long arg_align,
                   unsigned flags, unsigned long num_tasks, int priority, long start, long end, long step)
{
    REAL(GOMP_taskloop);
    if (!r)
        return;
    mpidbg_tc_give_up("OpenMP tasks");
    r(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, priority, start, end, step);
}

void GOMP_taskloop_ull(omp_fn fn, void *data, void (*cpyfn)(void *, void *), long arg_size, long arg_align,
                       unsigned flags, unsigned long num_tasks, int priority, unsigned long long start,
                       unsigned long long end, unsigned long long step)
{
    REAL(GOMP_taskloop_ull);
    if (!r)
        return;
    mpidbg_tc_give_up("OpenMP tasks");
    r(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, priority, start, end, step);
}

/* A doacross loop orders iterations through posts and waits on
 * iteration vectors; every wait is for something posted, so giving up
 * at the first post comes before any wait it ends. */
void GOMP_doacross_post(long *);
void GOMP_doacross_ull_post(unsigned long long *);

void GOMP_doacross_post(long *counts)
{
    REAL(GOMP_doacross_post);
    if (!r)
        return;
    mpidbg_tc_give_up("OpenMP doacross loops");
    r(counts);
}

void GOMP_doacross_ull_post(unsigned long long *counts)
{
    REAL(GOMP_doacross_ull_post);
    if (!r)
        return;
    mpidbg_tc_give_up("OpenMP doacross loops");
    r(counts);
}

/* A cancelled region or worksharing construct sends its threads past
 * barriers the others wait in. GOMP_cancel returns true when
 * cancellation is enabled (OMP_CANCELLATION), whether or not it
 * cancelled: only then does the thread clocks' bookkeeping break, and
 * the canceller gives up before the others can see it. */
bool GOMP_cancel(int, bool);
int omp_get_cancellation(void);

static int cancellation_enabled(void)
{
    REAL(omp_get_cancellation);
    return !r || r();
}

bool GOMP_cancel(int which, bool do_cancel)
{
    REAL(GOMP_cancel);
    if (!r)
        return false;
    if (do_cancel && mpidbg_tc_running() && cancellation_enabled())
        mpidbg_tc_give_up("OpenMP cancellation");
    return cancelled(r(which, do_cancel));
}
