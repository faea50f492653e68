// ranks: 2
// mpi: 4 (the large-count constructors are MPI-4.0)
//
// ok_large_count_nested.c: a particle code builds its record type with
// the MPI-4 large-count constructor (MPI_Type_contiguous_c, as a library
// that sizes everything in MPI_Count does) and its halo types from that
// with the classic ones (MPI_Type_vector, MPI_Type_create_resized),
// then exchanges halos with them.
// Follows MPI-4.1 §5.1 (the _c constructors make ordinary datatypes,
// usable as old types of any constructor) and §3.3.1 (the signatures
// match). Correct: must produce no findings; MPICH refuses
// MPI_Type_get_envelope on a large-count type, so a tool that asks it
// with the fatal error handler on ends the rank.
#include <mpi.h>
#include <stdio.h>

enum { N = 12 };

int main(int argc, char **argv)
{
    int rank, size, wrong = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Datatype particle, every_third, halo;
    MPI_Type_contiguous_c(4, MPI_DOUBLE, &particle); /* x, y, z, mass */
    MPI_Type_vector(N / 3, 1, 3, particle, &every_third);
    MPI_Type_create_resized(every_third, 0, (MPI_Aint)(N * 4 * sizeof(double)), &halo);
    MPI_Type_commit(&halo);
    double out[N][4], in[N][4] = {{0}};
    for (int i = 0; i < N; i++)
        for (int k = 0; k < 4; k++)
            out[i][k] = rank * 1000 + i * 10 + k;
    int peer = (rank + 1) % size, from = (rank + size - 1) % size;
    MPI_Sendrecv(out, 1, halo, peer, 0, in, 1, halo, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; i < N; i++)
        for (int k = 0; k < 4; k++)
            wrong += in[i][k] != (i % 3 ? 0 : from * 1000 + i * 10 + k);
    MPI_Type_free(&halo);
    MPI_Type_free(&every_third);
    MPI_Type_free(&particle);
    int any;
    MPI_Allreduce(&wrong, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(any ? "ok_large_count_nested: FAILED (%d)\n" : "ok_large_count_nested: OK\n", any);
    MPI_Finalize();
    return any != 0;
}
