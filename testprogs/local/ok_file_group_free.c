// ranks: 3
//
// ok_file_group_free.c: a library routine that appends a trailer to a
// file the caller opened. It checks that the file was opened on the
// caller's communicator (MPI_File_get_group against MPI_Comm_group, with
// MPI_Group_compare), saves the caller's file view, writes the trailer
// from rank 0 with its own view, restores the caller's view, and frees
// both groups and the saved filetype. The caller then reads the file
// back.
// Follows MPI-4.1 §14.2.7: MPI_File_get_group "returns a duplicate of the
// group of the communicator used to open the file", which "the user is
// responsible for freeing"; §7.3.3 (each group handle is freed with its
// own MPI_Group_free) and §14.3 (MPI_File_get_view returns new datatypes
// only for derived ones). Open MPI returns the same reference-counted
// group from both calls. Correct: must produce no findings.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

enum { N = 16 };

static int append_trailer(MPI_File fh, MPI_Comm comm, int value)
{
    MPI_Group fg, cg;
    int same;
    MPI_File_get_group(fh, &fg);
    MPI_Comm_group(comm, &cg);
    MPI_Group_compare(fg, cg, &same);
    MPI_Group_free(&fg);
    MPI_Group_free(&cg);
    if (same != MPI_IDENT)
        return 1;

    MPI_Offset disp, end;
    MPI_Datatype etype, ftype;
    char rep[MPI_MAX_DATAREP_STRING];
    MPI_File_get_view(fh, &disp, &etype, &ftype, rep);
    MPI_File_get_size(fh, &end);
    MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
    int rank;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0)
        MPI_File_write_at(fh, end / (MPI_Offset)sizeof(int), &value, 1, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_set_view(fh, disp, etype, ftype, rep, MPI_INFO_NULL);
    int combiner, ni, na, nd;
    MPI_Type_get_envelope(ftype, &ni, &na, &nd, &combiner);
    if (combiner != MPI_COMBINER_NAMED)
        MPI_Type_free(&ftype);
    MPI_Type_get_envelope(etype, &ni, &na, &nd, &combiner);
    if (combiner != MPI_COMBINER_NAMED)
        MPI_Type_free(&etype);
    return 0;
}

int main(int argc, char **argv)
{
    int rank, size, wrong = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char path[64];
    if (rank == 0)
        snprintf(path, sizeof path, "/tmp/ok_file_group_free.%d", (int)getpid());
    MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);

    /* each rank owns every size-th int: a strided view */
    MPI_Datatype mine;
    MPI_Type_vector(N, 1, size, MPI_INT, &mine);
    MPI_Datatype resized;
    MPI_Type_create_resized(mine, 0, (MPI_Aint)(N * size * sizeof(int)), &resized);
    MPI_Type_commit(&resized);
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh);
    MPI_File_set_view(fh, (MPI_Offset)(rank * sizeof(int)), MPI_INT, resized, "native", MPI_INFO_NULL);
    int data[N];
    for (int i = 0; i < N; i++)
        data[i] = rank + size * i;
    MPI_File_write_all(fh, data, N, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh); /* sync, barrier, sync: every rank's data is visible (MPI-4.1 §14.6.1) */
    wrong += append_trailer(fh, MPI_COMM_WORLD, -7);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);

    /* the caller's view is back: read its own ints again */
    int back[N];
    MPI_File_read_at_all(fh, 0, back, N, MPI_INT, MPI_STATUS_IGNORE);
    for (int i = 0; i < N; i++)
        wrong += back[i] != rank + size * i;
    MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
    int trailer = 0;
    MPI_File_read_at_all(fh, (MPI_Offset)(N * size), &trailer, 1, MPI_INT, MPI_STATUS_IGNORE);
    wrong += trailer != -7;
    MPI_File_close(&fh);
    MPI_Type_free(&resized);
    MPI_Type_free(&mine);

    int any;
    MPI_Allreduce(&wrong, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(any ? "ok_file_group_free: FAILED (%d)\n" : "ok_file_group_free: OK\n", any);
    MPI_Finalize();
    return any != 0;
}
