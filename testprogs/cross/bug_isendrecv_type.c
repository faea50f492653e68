// ranks: 2
// mpi: 4 (MPI_Isendrecv is MPI-4.0)
//
// bug_isendrecv_type.c: two ranks swap a sample count with MPI_Isendrecv;
// rank 0 keeps it as an int, rank 1 as a float (its statistics code keeps
// counts in single precision), and each describes both its send and its
// receive with its own type.
// Breaks MPI-4.1 §3.3.1: the type signatures of send and receive must
// match; an int read as a float is not a conversion.
// Expected: type-mismatch at each rank's MPI_Isendrecv (each receives
// the other's type), reported when its request completes.
//
// Natively both MPIs copy the four bytes: rank 1 reads a denormal float.
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, mine = 1234, theirs = 0;
    float theirs_f = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Request r;
    if (rank == 0) {
        MPI_Isendrecv(&mine, 1, MPI_INT, 1, 5, &theirs, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &r); // want "type-mismatch" "rank 1 sends MPI_FLOAT\[0\] where rank 0 receives MPI_INT\[0\]"
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        float samples = 99;
        MPI_Isendrecv(&samples, 1, MPI_FLOAT, 0, 5, &theirs_f, 1, MPI_FLOAT, 0, 5, MPI_COMM_WORLD, &r); // want "type-mismatch" "rank 0 sends MPI_INT\[0\] where rank 1 receives MPI_FLOAT\[0\]"
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
