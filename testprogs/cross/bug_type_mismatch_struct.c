// ranks: 4
//
// bug_type_mismatch_struct.c: ranks 1-3 send one particle each to rank 0
// with a struct datatype built from their struct {int id; double pos[3];
// int flags;}. Rank 0 was built from an older header whose last field is
// float weight: its struct datatype has the same size and displacements,
// but its last block is MPI_FLOAT.
// Breaks MPI-4.1 §3.3.1: type signatures must match element by element;
// the fifth element is INT on the sender and FLOAT on the receiver.
// Expected: type-mismatch at the MPI_Recv (rank 0), naming the differing
// element on each side (p_type(STRUCT)[2](INT) against
// old_type(STRUCT)[2](FLOAT)).
#include <mpi.h>
#include <stddef.h>

struct particle {
    int id;
    double pos[3];
    int flags;
};

struct old_particle {
    int id;
    double pos[3];
    float weight;
};

int main(int argc, char **argv)
{
    int rank, size, src;
    int bl[3] = {1, 3, 1};
    MPI_Datatype t;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (rank == 0) {
        struct old_particle q;
        MPI_Aint d[3] = {offsetof(struct old_particle, id), offsetof(struct old_particle, pos),
                         offsetof(struct old_particle, weight)};
        MPI_Datatype ty[3] = {MPI_INT, MPI_DOUBLE, MPI_FLOAT};
        MPI_Type_create_struct(3, bl, d, ty, &t);
        MPI_Type_set_name(t, "old_type");
        MPI_Type_commit(&t);
        for (src = 1; src < size; src++)
            MPI_Recv(&q, 1, t, src, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "type-mismatch"
    } else {
        struct particle p = {rank, {0.5 * rank, 1.0, 2.0}, 1};
        MPI_Aint d[3] = {offsetof(struct particle, id), offsetof(struct particle, pos),
                         offsetof(struct particle, flags)};
        MPI_Datatype ty[3] = {MPI_INT, MPI_DOUBLE, MPI_INT};
        MPI_Type_create_struct(3, bl, d, ty, &t);
        MPI_Type_set_name(t, "p_type");
        MPI_Type_commit(&t);
        MPI_Send(&p, 1, t, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Type_free(&t);

    MPI_Finalize();
    return 0;
}
