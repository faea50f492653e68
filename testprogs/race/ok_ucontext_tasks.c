// ranks: 2
//
// ok_ucontext_tasks.c: a rank that runs its work as user-level tasks
// (ucontext coroutines, as task runtimes built on makecontext do). Each
// task is one heap record: its saved context first, then its receive
// and send buffers. A task posts MPI_Irecv and MPI_Isend for its block,
// and while MPI_Testall says they are not done it yields to the
// scheduler with swapcontext; a task that finishes returns through
// uc_link. The scheduler resumes the tasks round-robin with swapcontext
// and, once, restarts a finished task's record with getcontext and
// makecontext for a second phase. Every switch's return value is
// checked.
// Follows MPI-4.1 §3.7.3: a receive buffer is read only after the test
// that completes it returns flag = true; the context beside it is the
// program's own.
// Correct: must produce no findings, and no switch may fail (the kernel
// reads and writes a context's signal mask itself: on a watched page it
// answered EFAULT and the task ran on in the wrong place).
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

enum { TASKS = 3, N = 600, ROUNDS = 8, STACK = 256 * 1024 };

struct task {
    ucontext_t ctx; /* beside the buffers */
    double in[N], out[N];
    int id, phase, done, errors;
};

static ucontext_t scheduler;
static struct task *task[TASKS];
static int rank, failed_switches;

static void run(int id)
{
    struct task *t = task[id];
    int peer = 1 - rank, tag = t->phase * TASKS + id;
    for (int r = 0; r < ROUNDS; r++) {
        for (int i = 0; i < N; i++)
            t->out[i] = rank * 1e5 + tag * 1e3 + r * 10 + i % 7;
        MPI_Request q[2];
        MPI_Status st[2];
        MPI_Irecv(t->in, N, MPI_DOUBLE, peer, tag, MPI_COMM_WORLD, &q[0]);
        MPI_Isend(t->out, N, MPI_DOUBLE, peer, tag, MPI_COMM_WORLD, &q[1]);
        for (int flag = 0;;) {
            MPI_Testall(2, q, &flag, st);
            if (flag)
                break;
            if (swapcontext(&t->ctx, &scheduler) != 0)
                failed_switches++;
        }
        if (t->in[3] != peer * 1e5 + tag * 1e3 + r * 10 + 3)
            t->errors++;
    }
    t->done = 1;
}

static int start(struct task *t, int phase)
{
    t->phase = phase;
    t->done = 0;
    if (getcontext(&t->ctx) != 0)
        return -1;
    t->ctx.uc_stack.ss_sp = malloc(STACK);
    t->ctx.uc_stack.ss_size = STACK;
    t->ctx.uc_link = &scheduler;
    makecontext(&t->ctx, (void (*)(void))run, 1, t->id);
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int errors = 0;
    for (int i = 0; i < TASKS; i++) {
        task[i] = calloc(1, sizeof *task[i]);
        task[i]->id = i;
        errors += start(task[i], 0) != 0;
    }
    int restarted = 0;
    for (int live = TASKS; live > 0;) {
        live = 0;
        for (int i = 0; i < TASKS; i++) {
            if (task[i]->done && i == 0 && !restarted) {
                restarted = 1;
                free(task[i]->ctx.uc_stack.ss_sp);
                errors += start(task[i], 1) != 0;
            }
            if (task[i]->done)
                continue;
            if (swapcontext(&scheduler, &task[i]->ctx) != 0)
                failed_switches++;
            live += !task[i]->done;
        }
        live += !restarted;
    }
    errors += failed_switches;
    for (int i = 0; i < TASKS; i++)
        errors += task[i]->errors;
    int all;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf("ok_ucontext_tasks: OK\n");
    for (int i = 0; i < TASKS; i++) {
        free(task[i]->ctx.uc_stack.ss_sp);
        free(task[i]);
    }
    MPI_Finalize();
    return all != 0;
}
