// ranks: 2
//
// bug_coroutine_recv_read.c: a task (a ucontext coroutine on a stack
// from malloc) posts MPI_Irecv into an array in its own frame and, while
// it yields to the scheduler, peeks at the array's last element to see
// whether the data came, before MPI_Test said the receive completed.
// Breaks MPI-4.1 §3.7.2: the receive buffer must not be accessed until
// the receive completes.
// Expected: recv-buffer-access at the peek (the first peek of each rank
// comes before the barrier that both ranks pass before they send), on a
// stack that is not the thread's.
#include <mpi.h>
#include <stdlib.h>
#include <ucontext.h>

enum { N = 1024, STACK = 64 * 1024 };

static ucontext_t sched_ctx, task_ctx;
static int finished, rank;
static volatile double seen;

static void task(void)
{
    double in[N];
    MPI_Request r;
    MPI_Irecv(in, N, MPI_DOUBLE, 1 - rank, 0, MPI_COMM_WORLD, &r);
    int flag = 0;
    while (!flag) {
        seen = in[N - 1]; // want "recv-buffer-access" "load from the receive buffer .* before the receive completed"
        swapcontext(&task_ctx, &sched_ctx);
        MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
    }
    finished = 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double out[N];
    for (int i = 0; i < N; i++)
        out[i] = i;
    getcontext(&task_ctx);
    task_ctx.uc_stack.ss_sp = malloc(STACK);
    task_ctx.uc_stack.ss_size = STACK;
    task_ctx.uc_link = &sched_ctx;
    makecontext(&task_ctx, task, 0);
    swapcontext(&sched_ctx, &task_ctx);
    MPI_Barrier(MPI_COMM_WORLD); /* both tasks have peeked once before either rank sends */
    MPI_Send(out, N, MPI_DOUBLE, 1 - rank, 0, MPI_COMM_WORLD);
    while (!finished)
        swapcontext(&sched_ctx, &task_ctx);
    MPI_Finalize();
    return 0;
}
