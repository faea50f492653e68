// ranks: 3
//
// bug_invalid_dims.c: a 2 x 2 process grid is laid over a job of 3
// ranks: the dimensions were written for 4 processes instead of being
// computed with MPI_Dims_create. Erroneous by MPI-4.1 §8.5.1: a Cartesian
// grid larger than the group of comm_old is erroneous. Every rank passes
// the same grid, so with MPI_ERRORS_RETURN the call fails everywhere and
// the program computes a grid that fits.
// Expected: invalid-dims at the MPI_Cart_create (every rank).
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int size, dims[2] = {2, 2}, periods[2] = {0, 0};
    MPI_Comm grid = MPI_COMM_NULL;

    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid); // want "invalid-dims" "the grid has 4 processes but the communicator only 3"
    if (rc != MPI_SUCCESS) {
        dims[0] = dims[1] = 0;
        MPI_Dims_create(size, 2, dims);
        MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
    }
    if (grid != MPI_COMM_NULL) {
        int coords[2];
        int me;
        MPI_Comm_rank(grid, &me);
        MPI_Cart_coords(grid, me, 2, coords);
        if (coords[0] * dims[1] + coords[1] != me)
            printf("rank %d: coords %d,%d\n", me, coords[0], coords[1]);
        MPI_Comm_free(&grid);
    }
    MPI_Finalize();
    return 0;
}
