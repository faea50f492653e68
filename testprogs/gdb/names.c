/* names.c: MPI's predefined names and null and freed handles, for gdb
 * to show at the line marked "stop here" (cmd/mpidbg/gdbnames_test.go,
 * TestGdbNames), in a live process and in its core file. One rank. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Datatype vec_t, gone, none = MPI_DATATYPE_NULL;
    MPI_Request req = MPI_REQUEST_NULL, done;
    MPI_Comm nocomm = MPI_COMM_NULL;
    MPI_Op noop = MPI_OP_NULL;
    MPI_Win nowin = MPI_WIN_NULL;
    MPI_Group nogroup = MPI_GROUP_NULL;
    double buf[4] = {1.5, 2.5, 3.5, 4.5}, in[4];

    MPI_Init(&argc, &argv);
    MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &vec_t);
    MPI_Type_set_name(vec_t, "vec_t");
    MPI_Type_commit(&vec_t);
    gone = vec_t;
    MPI_Type_free(&vec_t);
    MPI_Irecv(in, 4, MPI_DOUBLE, 0, 1, MPI_COMM_SELF, &done);
    MPI_Send(buf, 4, MPI_DOUBLE, 0, 1, MPI_COMM_SELF);
    MPI_Wait(&done, MPI_STATUS_IGNORE);
    (void)req; // stop here
    printf("names: %g %p %p %p %p %p\n", in[3], (void *)&none, (void *)&nocomm, (void *)&noop, (void *)&nowin, (void *)&nogroup);
    (void)gone;
    MPI_Finalize();
    return 0;
}
