// ranks: 2
//
// ok_coroutine_stacks.c: a rank that runs its exchanges as coroutines
// (ucontext: makecontext and swapcontext, stacks from malloc), the way
// task runtimes do. Each of four tasks posts MPI_Irecv and MPI_Isend on
// arrays in its own frame, yields to the others while MPI_Testall says
// not yet, and checks what it received. An interval timer (SIGALRM every
// 300 µs) counts heartbeats throughout, its handler running on whatever
// stack a task is on. The rank also keeps an alternate signal stack of
// its own, from malloc, right before a heap receive buffer, for a
// SIGUSR1 checkpoint request it raises once per round.
// Follows MPI-4.1 §3.7.2: no pending buffer is touched before MPI_Testall
// says the operations completed.
// Correct: must produce no findings and must not die (a signal's frame
// written to a protected page ends the process: the page below a
// coroutine's stack pointer, or the top of the alternate stack).
#define _GNU_SOURCE
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <ucontext.h>

enum { TASKS = 4, N = 600, ROUNDS = 40, STACK = 64 * 1024 };

static ucontext_t sched_ctx, task_ctx[TASKS];
static int done[TASKS], failures, rank, size;
static volatile sig_atomic_t heartbeats, checkpoints;

static void on_alarm(int sig)
{
    (void)sig;
    heartbeats++;
}

static void on_checkpoint(int sig)
{
    (void)sig;
    checkpoints++;
}

static void task(int id)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int round = 0; round < ROUNDS; round++) {
        double in[N], out[N]; /* on the task's own stack */
        for (int i = 0; i < N; i++)
            out[i] = rank * 1e6 + id * 1e4 + round + i;
        MPI_Request r[2];
        int tag = id * ROUNDS + round;
        MPI_Irecv(in, N, MPI_DOUBLE, left, tag, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(out, N, MPI_DOUBLE, right, tag, MPI_COMM_WORLD, &r[1]);
        int flag = 0;
        MPI_Status st[2];
        while (MPI_Testall(2, r, &flag, st), !flag)
            swapcontext(&task_ctx[id], &sched_ctx);
        if (in[N - 1] != left * 1e6 + id * 1e4 + round + N - 1)
            failures++;
    }
    done[id] = 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    char *block = malloc(STACK + 4096);
    stack_t alt = {.ss_sp = block, .ss_size = STACK, .ss_flags = 0};
    sigaltstack(&alt, NULL);
    struct sigaction sa = {0};
    sa.sa_handler = on_checkpoint;
    sa.sa_flags = SA_ONSTACK;
    sigaction(SIGUSR1, &sa, NULL);
    int *request_count = (int *)(block + STACK); /* the next bytes on the heap */

    signal(SIGALRM, on_alarm);
    struct itimerval it = {{0, 300}, {0, 300}};
    setitimer(ITIMER_REAL, &it, NULL);

    for (int t = 0; t < TASKS; t++) {
        getcontext(&task_ctx[t]);
        task_ctx[t].uc_stack.ss_sp = malloc(STACK);
        task_ctx[t].uc_stack.ss_size = STACK;
        task_ctx[t].uc_link = &sched_ctx;
        makecontext(&task_ctx[t], (void (*)(void))task, 1, t);
    }
    for (int running = TASKS, sweep = 0; running; sweep++) {
        running = 0;
        for (int t = 0; t < TASKS; t++)
            if (!done[t]) {
                swapcontext(&sched_ctx, &task_ctx[t]);
                running += !done[t];
            }
        if (sweep % 50 == 0) {
            /* the checkpoint's request count, through MPI_COMM_SELF */
            MPI_Request r;
            int mine = sweep;
            MPI_Irecv(request_count, 1, MPI_INT, 0, 999, MPI_COMM_SELF, &r);
            raise(SIGUSR1);
            MPI_Send(&mine, 1, MPI_INT, 0, 999, MPI_COMM_SELF);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            if (*request_count != sweep)
                failures++;
        }
    }
    struct itimerval stop = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &stop, NULL);
    int ok = !failures && checkpoints > 0, all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    MPI_Finalize();
    if (!all)
        return 1;
    if (rank == 0)
        printf("ok_coroutine_stacks: OK\n");
    return 0;
}
