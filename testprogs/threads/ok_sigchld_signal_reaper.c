// ranks: 2
// cflags: -pthread
//
// ok_sigchld_signal_reaper.c: a rank that hands the compression of its
// checkpoints to child processes and reaps them from a SIGCHLD handler
// installed with signal(), as older codes do. The handler keeps a log
// line in a buffer on its own stack. While a step exchanges its halo,
// the main thread blocks SIGCHLD (pthread_sigmask), so a child that exits
// then is signalled to whichever thread of the process does not block
// it: a thread of the MPI library or of the tool.
// Follows POSIX.1-2017 §2.4.1 (a signal generated for the process goes to
// one thread that does not block it), glibc's signal() (BSD semantics:
// the handler stays installed, SA_RESTART) and MPI-4.1 §3.7.2 for the
// nonblocking halo. Correct: must produce no findings and must not
// die; every child must be reaped, and the action read back must be the
// one signal() installed.
#define _GNU_SOURCE
#include <errno.h>
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { N = 512, STEPS = 40 };

static int reaped; /* handlers may run on two threads at once */

/* append writes a decimal number into a log line: snprintf is not
 * async-signal-safe (POSIX.1-2017 §2.4.3) */
static int append(char *line, int n, int size, long v)
{
    char digits[24];
    int k = 0;
    do {
        digits[k++] = (char)('0' + v % 10);
        v /= 10;
    } while (v && k < (int)sizeof digits);
    if (n < size - 1)
        line[n++] = ' ';
    while (k && n < size - 1)
        line[n++] = digits[--k];
    return n;
}

static void on_child(int sig)
{
    int saved = errno;
    char line[12288];
    int n = append(line, 0, (int)sizeof line, sig);
    pid_t pid;
    while ((pid = waitpid(-1, NULL, WNOHANG)) > 0) {
        n = append(line, n, (int)sizeof line, (long)pid);
        __atomic_add_fetch(&reaped, 1, __ATOMIC_RELAXED);
    }
    memset(line + n, ' ', sizeof line - (size_t)n - 1);
    line[sizeof line - 1] = 0;
    errno = saved;
}

/* a child that "compresses" and exits; the parent waits on a pipe
 * for its end, so the SIGCHLD comes while SIGCHLD is blocked here */
static void compress_in_child(void)
{
    int fd[2];
    if (pipe(fd) != 0)
        return;
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        _exit(0);
    }
    close(fd[1]);
    char c;
    while (read(fd[0], &c, 1) > 0)
        ;
    close(fd[0]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    signal(SIGCHLD, on_child);
    struct sigaction back;
    sigaction(SIGCHLD, NULL, &back);
    int action_ok = back.sa_handler == on_child && (back.sa_flags & SA_RESTART) && !(back.sa_flags & SA_ONSTACK);

    sigset_t chld, before;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    static double out[N], in[N];
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int spawned = 0, wrong = 0;
    for (int s = 0; s < STEPS; s++) {
        pthread_sigmask(SIG_BLOCK, &chld, &before);
        for (int i = 0; i < N; i++)
            out[i] = rank * 1000.0 + s + i;
        MPI_Request r[2];
        MPI_Irecv(in, N, MPI_DOUBLE, left, s, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(out, N, MPI_DOUBLE, right, s, MPI_COMM_WORLD, &r[1]);
        compress_in_child();
        spawned++;
        struct timespec pause = {0, 200000};
        nanosleep(&pause, NULL);
        MPI_Status st[2];
        MPI_Waitall(2, r, st);
        for (int i = 0; i < N; i++)
            wrong += in[i] != left * 1000.0 + s + i;
        pthread_sigmask(SIG_SETMASK, &before, NULL);
    }
    for (int tries = 0; __atomic_load_n(&reaped, __ATOMIC_RELAXED) < spawned && tries < 2000; tries++) {
        struct timespec pause = {0, 1000000};
        nanosleep(&pause, NULL);
    }
    int got = __atomic_load_n(&reaped, __ATOMIC_RELAXED);
    int bad = wrong || got != spawned || !action_ok, any;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (rank == 0)
        printf(any ? "ok_sigchld_signal_reaper: FAILED (wrong %d, reaped %d of %d, action %d)\n"
                   : "ok_sigchld_signal_reaper: OK\n",
               wrong, got, spawned, action_ok);
    MPI_Finalize();
    return any;
}
