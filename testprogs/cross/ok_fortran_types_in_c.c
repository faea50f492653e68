// ranks: 3
//
// ok_fortran_types_in_c.c: the twin of bug_fortran_types_in_c.c, a C
// driver that exchanges a Fortran solver's data with the Fortran types on
// both sides (MPI-4.1 §3.3.1: MPI_INTEGER matches MPI_INTEGER):
//   - ranks 1 and 2 send their INTEGER cell counts as MPI_INTEGER and their
//     REAL residuals, rank 1 as MPI_REAL, rank 2 as the type of
//     MPI_Type_create_f90_real(6, MPI_UNDEFINED) (a REAL of
//     SELECTED_REAL_KIND(6)); rank 0 receives them with the same types
//     (§19.1.9: an f90 type matches one made with the same p and r);
//   - rank 1 sends its DOUBLE PRECISION coordinates as one
//     contiguous(3, MPI_DOUBLE_PRECISION), received as 3 MPI_DOUBLE_PRECISION
//     (equal signatures);
//   - rank 2 sends its (value, index) pair as one MPI_2INTEGER, received as
//     2 MPI_INTEGER: MPI_2INTEGER is "as if" MPI_TYPE_CONTIGUOUS(2,
//     MPI_INTEGER) (§6.9.4);
//   - every rank finds the smallest residual and its rank with MPI_MINLOC
//     on MPI_2INTEGER and MPI_2REAL, sums the counts with MPI_SUM on
//     MPI_INTEGER and ands a convergence flag with MPI_LAND on MPI_LOGICAL
//     (§6.9.2).
// Every rank checks the values. Correct: must produce no findings.
#include <mpi.h>
#include <stdio.h>

enum { NCELLS = 4 };

static int errors;
#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            errors++;                                                          \
            fprintf(stderr, __VA_ARGS__);                                      \
        }                                                                      \
    } while (0)

/* Fortran's types under gfortran: INTEGER and LOGICAL a C int, REAL a
 * float, DOUBLE PRECISION a double; .TRUE. is 1 */
typedef int f_integer;
typedef int f_logical;
typedef float f_real;

int main(int argc, char **argv)
{
    int rank, size;
    f_integer counts[NCELLS], total;
    f_real residual[NCELLS];
    double coords[3];
    MPI_Datatype xyz, real6;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Type_contiguous(3, MPI_DOUBLE_PRECISION, &xyz);
    MPI_Type_commit(&xyz);
    MPI_Type_create_f90_real(6, MPI_UNDEFINED, &real6); /* predefined: not freed */

    for (int i = 0; i < NCELLS; i++) {
        counts[i] = 100 * rank + i;
        residual[i] = 1.0f / (float)(rank + 1 + i);
    }
    if (rank == 0) {
        for (int src = 1; src < size; src++) {
            f_integer got[NCELLS];
            f_real res[NCELLS];
            MPI_Recv(got, NCELLS, MPI_INTEGER, src, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(res, NCELLS, src == 1 ? MPI_REAL : real6, src, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int i = 0; i < NCELLS; i++) {
                CHECK(got[i] == 100 * src + i, "rank 0: count %d from rank %d is %d\n", i, src, got[i]);
                CHECK(res[i] == 1.0f / (float)(src + 1 + i), "rank 0: residual %d from rank %d is %g\n", i, src, res[i]);
            }
        }
        MPI_Recv(coords, 3, MPI_DOUBLE_PRECISION, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(coords[0] == 0.5 && coords[1] == 1.5 && coords[2] == 2.5, "rank 0: coordinates %g %g %g\n", coords[0],
              coords[1], coords[2]);
        f_integer pair[2];
        MPI_Recv(pair, 2, MPI_INTEGER, 2, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(pair[0] == 7 && pair[1] == 2, "rank 0: pair %d %d\n", pair[0], pair[1]);
    } else {
        MPI_Send(counts, NCELLS, MPI_INTEGER, 0, 0, MPI_COMM_WORLD);
        MPI_Send(residual, NCELLS, rank == 1 ? MPI_REAL : real6, 0, 1, MPI_COMM_WORLD);
        if (rank == 1) {
            coords[0] = 0.5, coords[1] = 1.5, coords[2] = 2.5;
            MPI_Send(coords, 1, xyz, 0, 2, MPI_COMM_WORLD);
        } else {
            f_integer pair[2] = {7, rank};
            MPI_Send(pair, 1, MPI_2INTEGER, 0, 3, MPI_COMM_WORLD);
        }
    }

    /* the rank with the fewest cells in its last entry, and the smallest
     * residual's rank: MINLOC on the Fortran pair types */
    f_integer ival[2] = {counts[NCELLS - 1], rank}, imin[2];
    MPI_Allreduce(ival, imin, 1, MPI_2INTEGER, MPI_MINLOC, MPI_COMM_WORLD);
    CHECK(imin[0] == NCELLS - 1 && imin[1] == 0, "rank %d: MINLOC on MPI_2INTEGER gives %d at %d\n", rank, imin[0],
          imin[1]);
    f_real rval[2] = {residual[0], (f_real)rank}, rmin[2];
    MPI_Allreduce(rval, rmin, 1, MPI_2REAL, MPI_MINLOC, MPI_COMM_WORLD);
    CHECK(rmin[1] == (f_real)(size - 1), "rank %d: MINLOC on MPI_2REAL gives %g at %g\n", rank, rmin[0], rmin[1]);
    MPI_Allreduce(&counts[0], &total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD);
    CHECK(total == 100 * size * (size - 1) / 2, "rank %d: MPI_SUM on MPI_INTEGER gives %d\n", rank, total);
    f_logical converged = residual[0] < 2.0f, all;
    MPI_Allreduce(&converged, &all, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD);
    CHECK(all, "rank %d: MPI_LAND on MPI_LOGICAL gives .FALSE.\n", rank);

    MPI_Type_free(&xyz);
    MPI_Finalize();
    if (errors)
        return 1;
    if (rank == 0)
        printf("ok_fortran_types_in_c: OK\n");
    return 0;
}
