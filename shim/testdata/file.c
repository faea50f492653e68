/* MPI-IO through ROMIO with a derived file type and nonblocking writes:
 * ROMIO's own MPI calls must go straight to PMPI, and the requests of
 * MPI_File_iwrite must be known when the program waits on them. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *path = argc > 1 ? argv[1] : "/tmp/mpidbg-file-test.dat";
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh);
    MPI_Datatype ft;
    MPI_Type_vector(4, 2, 2 * size, MPI_INT, &ft);
    MPI_Type_commit(&ft);
    MPI_File_set_view(fh, (MPI_Offset)rank * 2 * sizeof(int), MPI_INT, ft, "native", MPI_INFO_NULL);
    int buf[8];
    for (int i = 0; i < 8; i++)
        buf[i] = rank * 100 + i;
    MPI_File_write_all(fh, buf, 8, MPI_INT, MPI_STATUS_IGNORE);
    MPI_Request r;
    MPI_File_iwrite_at(fh, 0, buf, 2, MPI_INT, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    int back[8];
    MPI_File_read_at_all(fh, 0, back, 8, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_iread_at(fh, 0, back, 2, MPI_INT, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    MPI_Type_free(&ft);
    MPI_Finalize();
    if (rank == 0)
        printf("file: done\n");
    return 0;
}
