// ranks: 2
//
// ok_overlap_disjoint.c: buffers that share a memory range but not a byte,
// or that are only read, all legal:
//  - two pending receives into interleaved columns of one matrix (vector
//    types whose bounding ranges overlap but whose bytes do not);
//  - two pending sends from the same bytes (both only read);
//  - a pending send and a pending receive in disjoint halves of one array;
//  - MPI_Sendrecv with disjoint halves of one array, and MPI_Sendrecv_replace;
//  - a receive with a negative-stride vector (no overlap) and with count 3
//    of a resized type whose extent equals its span.
// Checks the data.
// Correct: must produce no findings.
#include <mpi.h>
#include <stdio.h>

#define R 4
#define C 4

static int errors;
#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            errors++;                                                          \
            fprintf(stderr, __VA_ARGS__);                                      \
        }                                                                      \
    } while (0)

int main(int argc, char **argv)
{
    int rank, i, j, total, m[R][C], col0[R], col2[R], arr[8], twice[R];
    MPI_Datatype col, backwards, spaced, pair;
    MPI_Request r[4];
    MPI_Status st[4];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = rank ^ 1;

    MPI_Type_vector(R, 1, C, MPI_INT, &col);
    MPI_Type_commit(&col);

    // interleaved columns: receive two columns of m, send two plain arrays
    for (i = 0; i < R; i++) {
        col0[i] = 100 * rank + i;
        col2[i] = 200 * rank + i;
        for (j = 0; j < C; j++)
            m[i][j] = -1;
    }
    MPI_Irecv(&m[0][0], 1, col, peer, 0, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(&m[0][2], 1, col, peer, 1, MPI_COMM_WORLD, &r[1]);
    MPI_Isend(col0, R, MPI_INT, peer, 0, MPI_COMM_WORLD, &r[2]);
    MPI_Isend(col2, R, MPI_INT, peer, 1, MPI_COMM_WORLD, &r[3]);
    MPI_Waitall(4, r, st);
    for (i = 0; i < R; i++)
        CHECK(m[i][0] == 100 * peer + i && m[i][2] == 200 * peer + i && m[i][1] == -1 && m[i][3] == -1,
              "rank %d: interleaved row %d\n", rank, i);

    // the same bytes sent twice, received into two arrays
    MPI_Isend(col0, R, MPI_INT, peer, 2, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(col0, R, MPI_INT, peer, 3, MPI_COMM_WORLD, &r[1]);
    MPI_Irecv(col2, R, MPI_INT, peer, 2, MPI_COMM_WORLD, &r[2]);
    MPI_Irecv(twice, R, MPI_INT, peer, 3, MPI_COMM_WORLD, &r[3]);
    MPI_Waitall(4, r, st);
    CHECK(col2[3] == 100 * peer + 3 && twice[3] == 100 * peer + 3, "rank %d: double send\n", rank);

    // send from one half, receive into the other half of one array
    for (i = 0; i < 8; i++)
        arr[i] = i < 4 ? 10 * rank + i : -1;
    MPI_Irecv(arr + 4, 4, MPI_INT, peer, 4, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(arr, 4, MPI_INT, peer, 4, MPI_COMM_WORLD, &r[1]);
    MPI_Waitall(2, r, st);
    CHECK(arr[7] == 10 * peer + 3 && arr[0] == 10 * rank, "rank %d: halves\n", rank);

    MPI_Sendrecv(arr, 4, MPI_INT, peer, 5, arr + 4, 4, MPI_INT, peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(arr[5] == 10 * peer + 1, "rank %d: sendrecv halves\n", rank);
    MPI_Sendrecv_replace(arr, 4, MPI_INT, peer, 6, peer, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(arr[2] == 10 * peer + 2, "rank %d: sendrecv_replace\n", rank);

    // negative stride: blocks at 6, 4, 2, 0 (of arr), no overlap
    MPI_Type_vector(4, 1, -2, MPI_INT, &backwards);
    MPI_Type_commit(&backwards);
    for (i = 0; i < 8; i++)
        arr[i] = -1;
    MPI_Sendrecv(col0, R, MPI_INT, peer, 7, arr + 6, 1, backwards, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(arr[6] == 100 * peer && arr[0] == 100 * peer + 3 && arr[1] == -1, "rank %d: negative stride\n", rank);

    // count 3 of (int, gap) resized to 8 bytes: elements at 0, 2, 4
    MPI_Type_contiguous(1, MPI_INT, &pair);
    MPI_Type_create_resized(pair, 0, 2 * sizeof(int), &spaced);
    MPI_Type_commit(&spaced);
    for (i = 0; i < 8; i++)
        arr[i] = -1;
    MPI_Sendrecv(col0, 3, MPI_INT, peer, 8, arr, 3, spaced, peer, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(arr[0] == 100 * peer && arr[4] == 100 * peer + 2 && arr[3] == -1, "rank %d: spaced\n", rank);

    MPI_Type_free(&pair);
    MPI_Type_free(&spaced);
    MPI_Type_free(&backwards);
    MPI_Type_free(&col);

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_overlap_disjoint: OK\n");
    MPI_Finalize();
    return total != 0;
}
