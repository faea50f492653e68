/* attach.c: a process to attach to (cmd/mpidbg/gdb_test.go,
 * TestGdbAttach): it makes a vector datatype, says "ready" and sleeps
 * until it is killed or a minute has passed. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Datatype column;

    MPI_Init(&argc, &argv);
    MPI_Type_vector(8, 1, 8, MPI_DOUBLE, &column);
    MPI_Type_commit(&column);
    printf("ready\n");
    fflush(stdout);
    for (int i = 0; i < 60; i++)
        sleep(1);
    MPI_Type_free(&column);
    MPI_Finalize();
    return 0;
}
