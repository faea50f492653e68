/*
 * The program of cmd/mpidbg/gdb_test.go: datatypes, handles and pending
 * requests for gdb to show at the line marked "stop here", in a live
 * process and in its core file. One rank (a singleton MPI process is
 * enough).
 */
#include <mpi.h>
#include <stddef.h>

struct particle {
    int id;
    double pos[3];
    char tag[5];
};

int main(int argc, char **argv)
{
    MPI_Datatype t, v, raw;
    MPI_Request reqs[2];
    MPI_Comm comm = MPI_COMM_WORLD;
    MPI_Op op = MPI_SUM;
    MPI_Win win;
    int slots[4] = {0, 0, 0, 0};
    struct particle out[2] = {{1, {1.5, 2.5, 3.5}, "abcd"}, {2, {4.5, 5.5, 6.5}, "efgh"}}, in[2];
    double grid[20];
    int lens[3] = {1, 3, 5};
    MPI_Aint displs[3] = {offsetof(struct particle, id), offsetof(struct particle, pos),
                          offsetof(struct particle, tag)};
    MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};

    MPI_Init(&argc, &argv);
    MPI_Type_create_struct(3, lens, displs, types, &raw);
    MPI_Type_create_resized(raw, 0, sizeof(struct particle), &t);
    MPI_Type_commit(&t);
    MPI_Type_vector(4, 2, 5, MPI_DOUBLE, &v);
    MPI_Type_commit(&v);
    MPI_Win_create(slots, sizeof slots, sizeof slots[0], MPI_INFO_NULL, comm, &win);
    for (int i = 0; i < 20; i++)
        grid[i] = i;
    MPI_Irecv(in, 2, t, 0, 7, comm, &reqs[0]);
    MPI_Isend(out, 2, t, 0, 7, comm, &reqs[1]);
    (void)op; // stop here
    MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
    MPI_Wait(&reqs[1], MPI_STATUS_IGNORE);
    MPI_Win_free(&win);
    MPI_Type_free(&v);
    MPI_Type_free(&t);
    MPI_Type_free(&raw);
    MPI_Finalize();
    return in[1].id == 2 && grid[19] == 19 ? 0 : 1;
}
