// ranks: 2
//
// ok_spawn_beside_pending.c: a solver that runs commands while its halo
// exchange is in flight. Its run state (one heap block per step) holds
// the halo receive buffer and, beside it, the environment entry it
// exports for its helper commands (putenv: the string stays the
// program's). Between MPI_Irecv and MPI_Wait it creates the step's
// output directory with system(), reads a value back through popen(),
// starts a helper with posix_spawnp, one with fork and execvp and one
// with vfork and execve (as CPython's subprocess does), and checks that
// each of them ran and saw the exported entry.
// Follows MPI-4.1 §3.7.2: the receive buffer is not touched before
// MPI_Wait; the environment entry beside it is the program's own.
// Correct: must produce no findings, and every command must succeed (a
// command whose environment lies on a watched page failed: execve read
// it with EFAULT, or posix_spawn's child died).
#define _GNU_SOURCE
#include <mpi.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

enum { N = 64, STEPS = 12 };

struct run_state {
    double halo[N];    /* the pending receive */
    char pad[512];
    char env_entry[64]; /* SOLVER_STEP=<step>, exported with putenv */
};

static int waited_ok(pid_t pid)
{
    int st;
    return waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/ok_spawn_%d_%d", (int)getpid(), rank);
    int failures = 0;
    struct run_state *prev = NULL;
    for (int s = 0; s < STEPS; s++) {
        struct run_state *st;
        if (posix_memalign((void **)&st, 4096, sizeof *st))
            MPI_Abort(MPI_COMM_WORLD, 2);
        snprintf(st->env_entry, sizeof st->env_entry, "SOLVER_STEP=%d", s);
        putenv(st->env_entry);
        if (prev)
            free(prev); /* its entry is no longer in the environment */
        prev = st;
        MPI_Request r;
        MPI_Irecv(st->halo, N, MPI_DOUBLE, left, s, MPI_COMM_WORLD, &r);

        char cmd[160];
        snprintf(cmd, sizeof cmd, "mkdir -p %s/step$SOLVER_STEP", dir);
        if (system(cmd) != 0)
            failures++;
        FILE *p = popen("echo $SOLVER_STEP", "r");
        int seen = -1;
        if (!p || fscanf(p, "%d", &seen) != 1 || seen != s)
            failures++;
        if (p && pclose(p) != 0)
            failures++;
        char test_arg[96];
        snprintf(test_arg, sizeof test_arg, "%s/step%d", dir, s);
        char *targs[] = {"test", "-d", test_arg, NULL};
        pid_t pid;
        if (posix_spawnp(&pid, "test", NULL, NULL, targs, environ) != 0 || !waited_ok(pid))
            failures++;
        char *sargs[] = {"sh", "-c", "test \"$SOLVER_STEP\" -ge 0", NULL};
        pid = fork();
        if (pid == 0) {
            execvp("sh", sargs);
            _exit(127);
        }
        if (pid < 0 || !waited_ok(pid))
            failures++;
        pid = vfork();
        if (pid == 0) {
            execve("/bin/sh", sargs, environ);
            _exit(127);
        }
        if (pid < 0 || !waited_ok(pid))
            failures++;

        double out[N];
        for (int i = 0; i < N; i++)
            out[i] = rank * 100.0 + s + i;
        MPI_Send(out, N, MPI_DOUBLE, right, s, MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        if (st->halo[N - 1] != left * 100.0 + s + N - 1)
            failures++;
    }
    char rm[96];
    snprintf(rm, sizeof rm, "rm -rf %s", dir);
    if (system(rm) != 0)
        failures++;
    unsetenv("SOLVER_STEP");
    free(prev);
    int total;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    if (total) {
        fprintf(stderr, "ok_spawn_beside_pending: rank %d: %d failures\n", rank, failures);
        return 1;
    }
    if (rank == 0)
        printf("ok_spawn_beside_pending: OK\n");
    return 0;
}
