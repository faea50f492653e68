// ranks: 2
// cflags: -pthread
//
// ok_signals_blocked.c: a solver that handles its signals the POSIX way.
// After MPI_Init_thread it blocks every signal (sigfillset, then
// pthread_sigmask), and a thread of its own, started with that mask,
// sigwait()s for SIGUSR1 (a checkpoint request, counted) and SIGUSR2
// (stop). A heartbeat handler for SIGALRM, installed with a full
// sa_mask, is let in only inside sigsuspend() between steps. Each step
// posts MPI_Irecv into a heap structure whose other fields (the step
// counter, a checksum) the rank updates while the receive is pending,
// computes with every signal blocked, then waits; a helper thread
// started with pthread_attr_setsigmask_np(full) updates a statistics
// field of the same structure meanwhile.
// Follows MPI-4.1 §3.7.2: no pending buffer is touched before MPI_Wait;
// the fields beside it are the program's own. POSIX: blocking SIGSEGV
// is allowed; what a mask query returns is what was asked for.
// Correct: must produce no findings and must not die (a fault on a page
// beside a pending receive buffer, taken with SIGSEGV blocked, would end
// the process), and the masks the program reads back must still say
// that SIGSEGV is blocked.
#define _GNU_SOURCE
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>

enum { N = 96, STEPS = 60 };

struct step_state {
    double halo[N];      /* the pending receive */
    long step;           /* beside it, the rank's own */
    double checksum;
    volatile long helper_rounds;
};

static volatile sig_atomic_t heartbeats;
static int checkpoints;
static int mask_ok = 1;

static void on_alarm(int sig)
{
    (void)sig;
    heartbeats++;
}

static void *signal_thread(void *arg)
{
    (void)arg;
    sigset_t wait_for;
    sigemptyset(&wait_for);
    sigaddset(&wait_for, SIGUSR1);
    sigaddset(&wait_for, SIGUSR2);
    for (;;) {
        int sig;
        if (sigwait(&wait_for, &sig) != 0)
            return NULL;
        if (sig == SIGUSR2)
            return NULL;
        __atomic_add_fetch(&checkpoints, 1, __ATOMIC_RELEASE);
    }
}

static void *helper(void *arg)
{
    struct step_state *st = arg;
    sigset_t cur;
    pthread_sigmask(SIG_BLOCK, NULL, &cur);
    if (sigismember(&cur, SIGSEGV) != 1 || sigismember(&cur, SIGINT) != 1)
        mask_ok = 0;
    for (int i = 0; i < 2000; i++)
        st->helper_rounds++;
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    sigset_t all, before, cur;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &before);
    pthread_sigmask(SIG_BLOCK, NULL, &cur);
    if (sigismember(&cur, SIGSEGV) != 1 || sigismember(&cur, SIGTRAP) != 1)
        mask_ok = 0;

    struct sigaction sa = {0};
    sa.sa_handler = on_alarm;
    sigfillset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    struct sigaction back;
    sigaction(SIGALRM, NULL, &back);
    if (sigismember(&back.sa_mask, SIGSEGV) != 1)
        mask_ok = 0;
    struct itimerval it = {{0, 300}, {0, 300}};
    setitimer(ITIMER_REAL, &it, NULL);

    pthread_t sigt;
    pthread_create(&sigt, NULL, signal_thread, NULL);

    struct step_state *st = calloc(1, sizeof *st);
    double out[N];
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    sigset_t alarm_only;
    sigfillset(&alarm_only);
    sigdelset(&alarm_only, SIGALRM);
    for (int s = 0; s < STEPS; s++) {
        MPI_Request r;
        MPI_Irecv(st->halo, N, MPI_DOUBLE, left, s, MPI_COMM_WORLD, &r);
        st->step = s;
        pthread_t h;
        int helped = 0;
        if (s % 10 == 0) {
            pthread_attr_t attr;
            pthread_attr_init(&attr);
            pthread_attr_setsigmask_np(&attr, &all);
            helped = pthread_create(&h, &attr, helper, st) == 0;
            pthread_attr_destroy(&attr);
        }
        for (int i = 0; i < N; i++)
            out[i] = rank * 1000.0 + s + i * 0.25;
        for (int i = 0; i < N; i++)
            st->checksum += out[i] * 1e-6;
        MPI_Send(out, N, MPI_DOUBLE, right, s, MPI_COMM_WORLD);
        if (helped)
            pthread_join(h, NULL);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        if (st->halo[1] != left * 1000.0 + s + 0.25)
            MPI_Abort(MPI_COMM_WORLD, 3);
        if (s % 20 == 0) {
            int want = s / 20 + 1;
            pthread_kill(sigt, SIGUSR1);
            while (__atomic_load_n(&checkpoints, __ATOMIC_ACQUIRE) < want)
                sched_yield();
        }
        if (s % 5 == 0) {
            int seen = heartbeats;
            while (heartbeats == seen)
                sigsuspend(&alarm_only);
        }
    }
    struct itimerval stop = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &stop, NULL);
    pthread_kill(sigt, SIGUSR2);
    pthread_join(sigt, NULL);

    sigset_t restored;
    pthread_sigmask(SIG_SETMASK, &before, NULL);
    pthread_sigmask(SIG_BLOCK, NULL, &restored);
    if (sigismember(&restored, SIGSEGV) != sigismember(&before, SIGSEGV) ||
        sigismember(&restored, SIGUSR1) == 1)
        mask_ok = 0;

    int ok = mask_ok && checkpoints == 3 && st->step == STEPS - 1 && st->helper_rounds == 6 * 2000 &&
             heartbeats >= STEPS / 5;
    int all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    free(st);
    MPI_Finalize();
    if (!all_ok) {
        fprintf(stderr, "ok_signals_blocked: rank %d: masks %d, checkpoints %d, heartbeats %d\n", rank, mask_ok,
                checkpoints, (int)heartbeats);
        return 1;
    }
    if (rank == 0)
        printf("ok_signals_blocked: OK\n");
    return 0;
}
