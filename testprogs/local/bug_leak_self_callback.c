// ranks: 2
//
// bug_leak_self_callback.c: a library cleans up in the delete callback of
// an MPI_COMM_SELF attribute, which MPI_Finalize runs first, as HDF5 does.
// It builds a row type from an element type and frees the row type there,
// but not the element type it was built from: freeing a derived datatype
// leaves the types it was made of alone.
// Warns about MPI-4.1 §5.1.9: MPI_TYPE_FREE does not affect any other
// datatype, including those built from it or it was built from; each is
// freed with MPI_TYPE_FREE.
// Expected: leak-type (warning) against the MPI_Type_create_resized, both
// ranks; nothing for the communicator and the row type the callback frees.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

struct grid {
    MPI_Comm comm;
    MPI_Datatype elem, row; /* a strided element of 2 doubles; 8 of them */
};

static int terminate(MPI_Comm comm, int key, void *attr, void *extra)
{
    struct grid *g = attr;
    (void)comm, (void)extra;
    MPI_Type_free(&g->row);
    // bug: g->elem is still allocated
    MPI_Comm_free(&g->comm);
    free(g);
    MPI_Comm_free_keyval(&key);
    return MPI_SUCCESS;
}

static struct grid *grid_init(MPI_Comm comm)
{
    struct grid *g = malloc(sizeof *g);
    MPI_Datatype pair;
    int key;
    MPI_Comm_dup(comm, &g->comm);
    MPI_Type_contiguous(2, MPI_DOUBLE, &pair);
    MPI_Type_create_resized(pair, 0, 3 * sizeof(double), &g->elem); // want "leak-type"
    MPI_Type_free(&pair);
    MPI_Type_contiguous(8, g->elem, &g->row);
    MPI_Type_commit(&g->row);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, terminate, &key, NULL);
    MPI_Comm_set_attr(MPI_COMM_SELF, key, g);
    return g;
}

int main(int argc, char **argv)
{
    int rank, errors = 0;
    double out[24], in[24];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    struct grid *g = grid_init(MPI_COMM_WORLD);

    for (int i = 0; i < 24; i++)
        out[i] = rank * 100 + i, in[i] = -1;
    MPI_Sendrecv(out, 1, g->row, rank ^ 1, 0, in, 1, g->row, rank ^ 1, 0, g->comm, MPI_STATUS_IGNORE);
    for (int i = 0; i < 24; i++)
        if (in[i] != (i % 3 == 2 ? -1 : (rank ^ 1) * 100 + i))
            errors++;
    if (errors)
        printf("rank %d: %d wrong elements\n", rank, errors);
    MPI_Finalize();
    return errors != 0;
}
