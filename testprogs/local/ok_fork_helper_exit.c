// ranks: 2
//
// ok_fork_helper_exit.c: each rank, after MPI_Init, forks a helper that
// writes the rank's run description to a file and ends with exit(0); the
// rank waits for it, reads the file back and goes on with MPI. The child
// is not an MPI process (it never calls MPI: MPI-4.1 §11.2.2 is about the
// process that initialised MPI, which finalizes), so its exit() is no
// missing MPI_Finalize, and it must not be reported under the parent's
// rank.
// Correct: must produce no findings.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int write_description(const char *path, int rank, int size)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return 1;
    fprintf(f, "rank %d of %d\n", rank, size);
    return fclose(f) != 0;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    char path[64];
    snprintf(path, sizeof path, "/tmp/ok_fork_helper_exit.%d.%d", (int)getpid(), rank);
    fflush(stdout);
    pid_t p = fork();
    if (p == 0) /* the helper: no MPI in it */
        exit(write_description(path, rank, size));
    int status = 1;
    waitpid(p, &status, 0);

    char line[64] = "";
    FILE *f = fopen(path, "r");
    if (f) {
        if (!fgets(line, sizeof line, f))
            line[0] = 0;
        fclose(f);
    }
    unlink(path);
    int good = WIFEXITED(status) && WEXITSTATUS(status) == 0 && strncmp(line, "rank ", 5) == 0, all = 0;
    MPI_Allreduce(&good, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rank == 0 && all)
        printf("ok_fork_helper_exit: OK\n");
    MPI_Finalize();
    return all ? 0 : 1;
}
