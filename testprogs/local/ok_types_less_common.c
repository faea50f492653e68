// ranks: 2
//
// ok_types_less_common.c: a field exchanger sends one array of each
// kind of value it stores, named by the predefined datatype a C++ or
// Fortran part of the code would use for it: the C++ types (MPI_CXX_BOOL
// and the three MPI_CXX_*_COMPLEX), which C code may use too, and the
// library's own Fortran extras where it has them (Open MPI's
// MPI_LOGICAL1, MPI_LOGICAL4, MPI_2COMPLEX, MPI_2DOUBLE_COMPLEX).
// Rank 0 sends, rank 1 receives with the same type and checks every
// byte.
// Correct: these are predefined datatypes (MPI-4.1 §3.2.2 and Table
// 3.3; the optional ones where mpi.h defines them), valid in every call
// without a constructor. Expected: no findings; the calls reach MPI as
// the program made them.
#include <mpi.h>
#include <stdio.h>
#include <string.h>

enum { N = 6 };

int main(int argc, char **argv)
{
    static const struct {
        MPI_Datatype t;
        const char *name;
    } types[] = {
        {MPI_CXX_BOOL, "MPI_CXX_BOOL"},
        {MPI_CXX_FLOAT_COMPLEX, "MPI_CXX_FLOAT_COMPLEX"},
        {MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX"},
        {MPI_CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX"},
#ifdef OPEN_MPI
        {MPI_LOGICAL1, "MPI_LOGICAL1"},
        {MPI_LOGICAL4, "MPI_LOGICAL4"},
        {MPI_2COMPLEX, "MPI_2COMPLEX"},
        {MPI_2DOUBLE_COMPLEX, "MPI_2DOUBLE_COMPLEX"},
#endif
    };
    int rank, errors = 0, total = 0;
    unsigned char out[N * 64], in[N * 64];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
        int size;
        MPI_Type_size(types[k].t, &size);
        for (int i = 0; i < N * size; i++) /* a bool holds 0 or 1 */
            out[i] = types[k].t == MPI_CXX_BOOL ? (unsigned char)(i % 2) : (unsigned char)(k * 31 + i);
        if (rank == 0) {
            MPI_Send(out, N, types[k].t, 1, (int)k, MPI_COMM_WORLD);
        } else if (rank == 1) {
            memset(in, 0, sizeof in);
            MPI_Recv(in, N, types[k].t, 0, (int)k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (memcmp(in, out, (size_t)(N * size)) != 0) {
                printf("%s: received other bytes\n", types[k].name);
                errors++;
            }
        }
    }
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_types_less_common: OK\n");
    MPI_Finalize();
    return total != 0;
}
