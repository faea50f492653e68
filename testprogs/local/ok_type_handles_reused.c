// ranks: 2
//
// ok_type_handles_reused.c: datatypes that reach the program without a
// constructor, after it freed others. A solver frees its scratch types
// as it goes; then it asks MPI_Type_create_f90_real for the type of its
// double-precision kind (p=15, r=300) and broadcasts with it, and a
// checkpoint routine reads back the file view with MPI_File_get_view
// and exchanges one record through the returned filetype before it
// frees it. MPI gives such types the handle value of a type freed before
// (Open MPI reuses the object's memory, MPICH the handle's slot).
// Follows MPI-4.1 §19.1.9 (MPI_TYPE_CREATE_F90_REAL returns a predefined
// datatype, never freed), §14.3 (MPI_FILE_GET_VIEW returns new handles
// for derived types, which the user frees) and §5.1.9 (only the freed
// handle itself may not be used). Correct: must produce no findings.
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

enum { ROUNDS = 3 };

static void scratch(void)
{
    MPI_Datatype t[3];
    MPI_Type_contiguous(4, MPI_DOUBLE, &t[0]);
    MPI_Type_vector(3, 1, 2, MPI_INT, &t[1]);
    MPI_Type_contiguous(3, MPI_INT, &t[2]);
    for (int i = 0; i < 3; i++) {
        MPI_Type_commit(&t[i]);
        MPI_Type_free(&t[i]);
    }
}

int main(int argc, char **argv)
{
    int rank, size, wrong = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char path[64];
    snprintf(path, sizeof path, "/tmp/ok_type_handles_reused.%d.%d", (int)getpid(), rank);
    MPI_File fh;
    MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh);
    for (int r = 0; r < ROUNDS; r++) {
        scratch();
        MPI_Datatype r8;
        MPI_Type_create_f90_real(15, 300, &r8);
        double x[2] = {0, 0};
        if (rank == 0)
            x[0] = 1.5 + r, x[1] = 2.5 + r;
        MPI_Bcast(x, 2, r8, 0, MPI_COMM_WORLD);
        wrong += x[0] != 1.5 + r || x[1] != 2.5 + r;

        MPI_Datatype every_other;
        MPI_Type_vector(4, 1, 2, MPI_INT, &every_other);
        MPI_Type_commit(&every_other);
        MPI_File_set_view(fh, 0, MPI_INT, every_other, "native", MPI_INFO_NULL);
        MPI_Type_free(&every_other);
        scratch();
        MPI_Offset disp;
        MPI_Datatype etype, view;
        char rep[MPI_MAX_DATAREP_STRING];
        MPI_File_get_view(fh, &disp, &etype, &view, rep);
        int out[8], in[8] = {0};
        for (int i = 0; i < 8; i++)
            out[i] = 100 * r + i;
        int peer = (rank + 1) % size, from = (rank + size - 1) % size;
        MPI_Sendrecv(out, 1, view, peer, r, in, 1, view, from, r, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < 8; i++)
            wrong += in[i] != (i % 2 ? 0 : 100 * r + i);
        MPI_Type_free(&view);
    }
    MPI_File_close(&fh);
    int any;
    MPI_Allreduce(&wrong, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(any ? "ok_type_handles_reused: FAILED (%d)\n" : "ok_type_handles_reused: OK\n", any);
    MPI_Finalize();
    return any != 0;
}
