// ranks: 2
//
// ok_finalize_atexit.c: a library's setup registers its cleanup with
// atexit before the program initialises MPI, and the cleanup calls
// MPI_Finalize when the program exits (main returns). MPI_Finalize is
// called exactly once, before the process ends (MPI-4.1 §11.2.2), from an
// exit handler: correct.
// Correct: must produce no findings.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int lib_rank = -1;

static void lib_cleanup(void)
{
    int fin = 0;
    MPI_Finalized(&fin);
    if (!fin)
        MPI_Finalize();
}

/* lib_setup is what a library's init does: its cleanup first, then MPI */
static void lib_setup(int *argc, char ***argv)
{
    atexit(lib_cleanup);
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &lib_rank);
}

int main(int argc, char **argv)
{
    lib_setup(&argc, &argv);
    int v = lib_rank + 1, sum = 0, size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (lib_rank == 0 && sum == size * (size + 1) / 2)
        printf("ok_finalize_atexit: OK\n");
    return sum == size * (size + 1) / 2 ? 0 : 1;
}
