// ranks: 2
//
// ok_large_messages.c: 64 KiB and 1 MiB messages with MPI_Irecv/MPI_Isend
// (MPICH moves them by rendezvous over shared memory), with computation on
// other arrays between the start and MPI_Waitall, a strided (vector)
// receive into a large array whose gaps the program updates meanwhile,
// and the data checked. Legal: MPI-4.1 §3.7.2 restricts only the bytes of
// the pending buffers.
// Correct: must produce no findings and exit 0 (the tracker must not break
// the library's transfers into protected pages).
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

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
    int rank, total, peer;
    MPI_Request r[4];
    MPI_Status st[4];
    MPI_Datatype evens;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    peer = rank ^ 1;

    size_t sizes[2] = {64 * 1024, 1024 * 1024};
    for (int k = 0; k < 2; k++) {
        size_t n = sizes[k] / sizeof(double);
        double *out = malloc(sizes[k]), *in = malloc(sizes[k]), *a = malloc(sizes[k]), *b = malloc(sizes[k]);
        for (size_t i = 0; i < n; i++) {
            out[i] = rank * 1e6 + (double)i;
            in[i] = -1;
            a[i] = (double)i;
        }
        MPI_Irecv(in, (int)n, MPI_DOUBLE, peer, k, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(out, (int)n, MPI_DOUBLE, peer, k, MPI_COMM_WORLD, &r[1]);
        for (int rep = 0; rep < 3; rep++)
            for (size_t i = 0; i < n; i++)
                b[i] = 0.5 * a[i] + rep;
        MPI_Waitall(2, r, st);
        CHECK(in[n - 1] == peer * 1e6 + (double)(n - 1) && in[0] == peer * 1e6, "rank %d: %zu bytes: in[n-1] = %g\n",
              rank, sizes[k], in[n - 1]);
        CHECK(b[n - 1] == 0.5 * (double)(n - 1) + 2, "rank %d: b\n", rank);
        free(out);
        free(in);
        free(a);
        free(b);
    }

    // every other double of a 512 KiB array arrives; the program works on the others meanwhile
    int n = 65536;
    double *grid = malloc(n * sizeof *grid), *src = malloc(n / 2 * sizeof *src);
    for (int i = 0; i < n; i++)
        grid[i] = -1;
    for (int i = 0; i < n / 2; i++)
        src[i] = rank + i;
    MPI_Type_vector(n / 2, 1, 2, MPI_DOUBLE, &evens);
    MPI_Type_commit(&evens);
    MPI_Irecv(grid, 1, evens, peer, 9, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(src, n / 2, MPI_DOUBLE, peer, 9, MPI_COMM_WORLD, &r[1]);
    for (int i = 1; i < n; i += 2)
        grid[i] = i; // the gaps of the pending receive
    MPI_Waitall(2, r, st);
    CHECK(grid[n - 2] == peer + n / 2 - 1 && grid[n - 1] == n - 1, "rank %d: grid %g %g\n", rank, grid[n - 2], grid[n - 1]);
    MPI_Type_free(&evens);
    free(grid);
    free(src);

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_large_messages: OK\n");
    MPI_Finalize();
    return total != 0;
}
