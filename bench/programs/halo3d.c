/* A 3-D Jacobi sweep on an N^3 block of doubles per rank with one ghost
 * layer, decomposed over a periodic Cartesian grid (MPI_Dims_create), the
 * six faces exchanged every iteration with MPI_Type_create_subarray types
 * through MPI_Irecv/MPI_Isend/MPI_Waitall. Median time per iteration in
 * microseconds. This is the shape of real stencil codes: derived
 * datatypes, nonblocking calls, and computation between exchanges.
 *
 *     halo3d [N [ITERS]]
 *
 * N defaults to 48; the result is named halo3d_<N>_iteration. ITERS
 * defaults to a count that keeps a run near a tenth of a second natively
 * on 2 ranks: the smaller the block, the larger the exchange's share of an
 * iteration, and the more iterations the median needs to settle. */
#include "common.h"

static int N;
#define IDX(i, j, k) (((size_t)(i) * (N + 2) + (j)) * (N + 2) + (k))

/* face types of dimension d: the ghost layer (side 0 or N+1) to receive,
 * the first or last interior layer (1 or N) to send */
static MPI_Datatype face(int d, int layer)
{
    int sizes[3] = {N + 2, N + 2, N + 2}, sub[3] = {N, N, N}, start[3] = {1, 1, 1};
    MPI_Datatype t;
    sub[d] = 1;
    start[d] = layer;
    MPI_Type_create_subarray(3, sizes, sub, start, MPI_ORDER_C, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    return t;
}

int main(int argc, char **argv)
{
    int size, dims[3] = {0, 0, 0}, periods[3] = {1, 1, 1};
    MPI_Comm cart;
    MPI_Init(&argc, &argv);
    N = argc > 1 ? atoi(argv[1]) : 48;
    int iters = argc > 2 ? atoi(argv[2]) : N <= 16 ? 2000 : N <= 32 ? 600 : 240;
    if (N < 1 || iters < 1) {
        fprintf(stderr, "usage: halo3d [N [ITERS]], N and ITERS at least 1\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Dims_create(size, 3, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);

    size_t cells = (size_t)(N + 2) * (N + 2) * (N + 2);
    double *u = calloc(cells, sizeof *u), *v = calloc(cells, sizeof *v);
    MPI_Datatype send[3][2], recv[3][2];
    int nbr[3][2];
    for (int d = 0; d < 3; d++) {
        MPI_Cart_shift(cart, d, 1, &nbr[d][0], &nbr[d][1]);
        send[d][0] = face(d, 1), send[d][1] = face(d, N);
        recv[d][0] = face(d, 0), recv[d][1] = face(d, N + 1);
    }
    for (size_t c = 0; c < cells; c++)
        u[c] = (double)(c % 97);

    double *samples = malloc((size_t)iters * sizeof *samples);
    for (int it = 0; it < iters; it++) {
        double t0 = MPI_Wtime();
        MPI_Request req[12];
        int r = 0;
        for (int d = 0; d < 3; d++)
            for (int s = 0; s < 2; s++) {
                MPI_Irecv(u, 1, recv[d][s], nbr[d][s], d * 2 + s, cart, &req[r++]);
                MPI_Isend(u, 1, send[d][s], nbr[d][s], d * 2 + 1 - s, cart, &req[r++]);
            }
        MPI_Waitall(r, req, MPI_STATUSES_IGNORE);
        for (int i = 1; i <= N; i++)
            for (int j = 1; j <= N; j++)
                for (int k = 1; k <= N; k++)
                    v[IDX(i, j, k)] = (u[IDX(i - 1, j, k)] + u[IDX(i + 1, j, k)] + u[IDX(i, j - 1, k)] +
                                       u[IDX(i, j + 1, k)] + u[IDX(i, j, k - 1)] + u[IDX(i, j, k + 1)]) / 6;
        double *t = u;
        u = v, v = t;
        samples[it] = (MPI_Wtime() - t0) * 1e6;
    }
    char name[64];
    snprintf(name, sizeof name, "halo3d_%d_iteration", N);
    result(name, median(samples, iters), "us");
    for (int d = 0; d < 3; d++)
        for (int s = 0; s < 2; s++) {
            MPI_Type_free(&send[d][s]);
            MPI_Type_free(&recv[d][s]);
        }
    MPI_Comm_free(&cart);
    free(samples);
    free(u);
    free(v);
    MPI_Finalize();
    return 0;
}
