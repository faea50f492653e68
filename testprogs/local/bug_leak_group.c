// ranks: 2
//
// bug_leak_group.c: the group of MPI_COMM_WORLD is fetched to translate a
// rank and never freed.
// Warns about MPI-4.1 §7.3.3: groups returned by MPI_COMM_GROUP are freed
// with MPI_GROUP_FREE.
// Expected: leak-group (warning), reported at MPI_Finalize against the line
// that created the group (the MPI_Comm_group, both ranks).
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Group world;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    MPI_Comm_group(MPI_COMM_WORLD, &world); // want "leak-group"
    MPI_Group_size(world, &size);
    // bug: no MPI_Group_free(&world)

    if (size != 2)
        printf("rank %d: group size %d\n", rank, size);
    MPI_Finalize();
    return 0;
}
