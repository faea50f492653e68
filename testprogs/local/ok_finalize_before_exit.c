// ranks: 2
//
// ok_finalize_before_exit.c: the correct twin of
// bug_missing_finalize_exit.c: the option check that ends the run early
// calls MPI_Finalize before exit(0), and the normal path returns from main
// after MPI_Finalize, with an atexit handler of the program's own that
// runs after it (MPI-4.1 §11.2.2: a process may go on, and exit, after
// MPI_Finalize). Both paths are taken: rank-dependent options would be a
// bug of their own, so the early path runs in a child process that never
// called MPI_Init (fork before MPI_Init), which is not an MPI process.
// Correct: must produce no findings.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static int rank = -1;

static void goodbye(void)
{
    if (rank == 0)
        printf("ok_finalize_before_exit: OK\n");
}

static long problem_size(const char *arg, int mpi)
{
    long n = arg ? strtol(arg, NULL, 10) : 0;
    if (n <= 0) {
        if (mpi)
            MPI_Finalize();
        exit(0);
    }
    return n;
}

int main(int argc, char **argv)
{
    /* the early path in a process that never initialises MPI */
    pid_t child = fork();
    if (child == 0)
        problem_size(NULL, 0);
    int status = 0;
    if (child > 0)
        waitpid(child, &status, 0);

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    atexit(goodbye);
    long n = problem_size(argc > 1 ? argv[1] : "16", 1);
    long total = 0;
    MPI_Allreduce(&n, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (total != 16L * size || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        printf("ok_finalize_before_exit: wrong total %ld or child status %d\n", total, status);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Finalize();
    return 0;
}
