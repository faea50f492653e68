// ranks: 2
// cflags: -pthread
//
// ok_process_signals_sigwait.c: a solver that takes its signals as the
// process (kill -USR1 <pid>, Slurm's scancel --signal, an interval
// timer). Before MPI_Init the main thread blocks SIGUSR1, SIGUSR2 and
// SIGALRM, so every thread started later (the MPI library's included)
// blocks them too, and a thread of its own sigwait()s for them:
// SIGUSR1 asks for a checkpoint, SIGALRM (setitimer, every 500 µs) is a
// heartbeat, SIGUSR2 stops the thread. Each step exchanges a halo with
// nonblocking calls, then sends SIGUSR1 to its own process and waits
// until the signal thread has counted it. Every tenth step starts a
// child that exits at once; a SIGCHLD handler, installed without
// SA_ONSTACK, reaps it.
// Follows POSIX.1-2017 §2.4.1: a signal sent to the process goes to one
// thread that does not block it, and sigwait() takes it if every thread
// blocks it; MPI-4.1 §11.6 (a blocking call blocks only its thread).
// Correct: must produce no findings, and each checkpoint request must
// reach the signal thread. A thread of the tool that leaves these
// signals unblocked takes them instead, and the rank hangs or dies.
#define _GNU_SOURCE
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

enum { N = 256, STEPS = 120 };

static int checkpoints, heartbeats;
static volatile sig_atomic_t reaped;

static void *signal_thread(void *arg)
{
    const sigset_t *set = arg;
    for (;;) {
        int sig;
        if (sigwait(set, &sig) != 0)
            return NULL;
        if (sig == SIGUSR2)
            return NULL;
        if (sig == SIGUSR1)
            __atomic_add_fetch(&checkpoints, 1, __ATOMIC_RELEASE);
        else if (sig == SIGALRM)
            __atomic_add_fetch(&heartbeats, 1, __ATOMIC_RELAXED);
    }
}

static void on_child(int sig)
{
    (void)sig;
    while (waitpid(-1, NULL, WNOHANG) > 0)
        reaped++;
}

int main(int argc, char **argv)
{
    static sigset_t handled;
    sigemptyset(&handled);
    sigaddset(&handled, SIGUSR1);
    sigaddset(&handled, SIGUSR2);
    sigaddset(&handled, SIGALRM);
    pthread_sigmask(SIG_BLOCK, &handled, NULL);

    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    struct sigaction sa = {0};
    sa.sa_handler = on_child;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGCHLD, &sa, NULL);
    struct sigaction back;
    sigaction(SIGCHLD, NULL, &back);
    int flags_ok = back.sa_handler == on_child && !(back.sa_flags & SA_ONSTACK);

    pthread_t sigt;
    pthread_create(&sigt, NULL, signal_thread, &handled);
    struct itimerval it = {{0, 500}, {0, 500}};
    setitimer(ITIMER_REAL, &it, NULL);

    double *in = calloc(N, sizeof *in), *out = malloc(N * sizeof *out);
    int right = (rank + 1) % size, left = (rank + size - 1) % size, children = 0;
    for (int s = 0; s < STEPS; s++) {
        MPI_Request r[2];
        MPI_Status st[2];
        MPI_Irecv(in, N, MPI_DOUBLE, left, s, MPI_COMM_WORLD, &r[0]);
        for (int i = 0; i < N; i++)
            out[i] = rank * 1000.0 + s + i * 0.5;
        MPI_Isend(out, N, MPI_DOUBLE, right, s, MPI_COMM_WORLD, &r[1]);
        if (s % 10 == 0) {
            pid_t p = fork();
            if (p == 0)
                _exit(0);
            children += p > 0;
        }
        MPI_Waitall(2, r, st);
        if (in[2] != left * 1000.0 + s + 1.0)
            MPI_Abort(MPI_COMM_WORLD, 3);
        kill(getpid(), SIGUSR1);
        while (__atomic_load_n(&checkpoints, __ATOMIC_ACQUIRE) <= s)
            sched_yield();
    }
    struct itimerval stop = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &stop, NULL);
    kill(getpid(), SIGUSR2);
    pthread_join(sigt, NULL);
    while (reaped < children)
        usleep(1000);

    int ok = flags_ok && checkpoints == STEPS, all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0 && all)
        printf("ok_process_signals_sigwait: OK\n");
    free(in);
    free(out);
    MPI_Finalize();
    return all ? 0 : 1;
}
