// ranks: 2
//
// ok_bottom.c: MPI_BOTTOM with absolute addresses. A struct type over three
// separate variables (a global int, a heap array of doubles, a stack char
// array) is built from MPI_Get_address results, so its displacements are
// absolute, and sent from / received into MPI_BOTTOM. Then an hindexed
// type over two heap arrays is used on both sides of an MPI_Sendrecv with
// MPI_BOTTOM as both buffers (the send and receive types cover different,
// disjoint arrays), and in an MPI_Bcast. Checks all values; frees the
// types.
// Correct: must produce no findings.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errors;
#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            errors++;                                                          \
            fprintf(stderr, __VA_ARGS__);                                      \
        }                                                                      \
    } while (0)

static int count;

static MPI_Datatype pair_type(double *a, int na, double *b, int nb)
{
    int bl[2] = {na, nb};
    MPI_Aint d[2];
    MPI_Datatype t;
    MPI_Get_address(a, &d[0]);
    MPI_Get_address(b, &d[1]);
    MPI_Type_create_hindexed(2, bl, d, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    return t;
}

int main(int argc, char **argv)
{
    int rank, i, total;
    char name[8];
    double *vals = malloc(4 * sizeof *vals);
    double *sa = malloc(3 * sizeof *sa), *sb = malloc(2 * sizeof *sb);
    double *ra = malloc(3 * sizeof *ra), *rb = malloc(2 * sizeof *rb);
    int bl[3] = {1, 4, 8};
    MPI_Aint d[3];
    MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR}, rec;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = rank ^ 1;

    MPI_Get_address(&count, &d[0]);
    MPI_Get_address(vals, &d[1]);
    MPI_Get_address(name, &d[2]);
    MPI_Type_create_struct(3, bl, d, types, &rec);
    MPI_Type_commit(&rec);

    if (rank == 0) {
        count = 42;
        for (i = 0; i < 4; i++)
            vals[i] = 0.5 * i;
        strcpy(name, "bottom");
        MPI_Send(MPI_BOTTOM, 1, rec, 1, 0, MPI_COMM_WORLD);
    } else {
        count = 0;
        memset(vals, 0, 4 * sizeof *vals);
        memset(name, 0, sizeof name);
        MPI_Recv(MPI_BOTTOM, 1, rec, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(count == 42 && vals[3] == 1.5 && strcmp(name, "bottom") == 0, "rank 1: struct at MPI_BOTTOM\n");
    }

    for (i = 0; i < 3; i++) {
        sa[i] = 10 * rank + i;
        ra[i] = -1;
    }
    for (i = 0; i < 2; i++) {
        sb[i] = 100 * rank + i;
        rb[i] = -1;
    }
    MPI_Datatype st = pair_type(sa, 3, sb, 2), rt = pair_type(ra, 3, rb, 2);
    MPI_Sendrecv(MPI_BOTTOM, 1, st, peer, 1, MPI_BOTTOM, 1, rt, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(ra[2] == 10 * peer + 2 && rb[1] == 100 * peer + 1, "rank %d: hindexed sendrecv\n", rank);

    MPI_Bcast(MPI_BOTTOM, 1, st, 1, MPI_COMM_WORLD);
    CHECK(sa[0] == 10 && sb[1] == 101, "rank %d: hindexed bcast\n", rank);

    MPI_Type_free(&st);
    MPI_Type_free(&rt);
    MPI_Type_free(&rec);
    free(vals);
    free(sa);
    free(sb);
    free(ra);
    free(rb);

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_bottom: OK\n");
    MPI_Finalize();
    return total != 0;
}
