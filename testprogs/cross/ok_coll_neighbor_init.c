// ranks: 4
// mpi: 4 (persistent collectives are MPI-4.0)
//
// ok_coll_neighbor_init.c: persistent neighbourhood collectives (MPI-4.1
// §8.6 and §6.13) made once and started every step: a ring's
// MPI_Neighbor_alltoall_init of one int each way, and
// MPI_Neighbor_allgatherv_init where rank r sends r+1 doubles to both
// neighbours. Every value is checked.
// Correct: must produce no findings.
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, errors = 0, step;
    MPI_Comm ring;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    int nbrs[2] = {left, right}, w[2] = {1, 1};
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, nbrs, w, 2, nbrs, w, MPI_INFO_NULL, 0, &ring);

    int out[2], in[2];
    double mine[8], theirs[16];
    int counts[2] = {left + 1, right + 1}, displs[2] = {0, 8};
    MPI_Request r[2];
    MPI_Status st[2];
    MPI_Neighbor_alltoall_init(out, 1, MPI_INT, in, 1, MPI_INT, ring, MPI_INFO_NULL, &r[0]);
    MPI_Neighbor_allgatherv_init(mine, rank + 1, MPI_DOUBLE, theirs, counts, displs, MPI_DOUBLE, ring, MPI_INFO_NULL, &r[1]);
    for (step = 0; step < 3; step++) {
        out[0] = 10 * rank + step;
        out[1] = 10 * rank + step + 1;
        for (int i = 0; i < rank + 1; i++)
            mine[i] = rank + step / 10.0;
        MPI_Startall(2, r);
        MPI_Waitall(2, r, st);
        if (in[0] != 10 * left + step + 1 || in[1] != 10 * right + step || theirs[0] != left + step / 10.0) {
            fprintf(stderr, "rank %d step %d: %d %d %g\n", rank, step, in[0], in[1], theirs[0]);
            errors++;
        }
    }
    MPI_Request_free(&r[0]);
    MPI_Request_free(&r[1]);
    MPI_Comm_free(&ring);
    int all = 0;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf("ok_coll_neighbor_init: OK\n");
    MPI_Finalize();
    return all != 0;
}
