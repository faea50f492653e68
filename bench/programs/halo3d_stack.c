/* The halo exchange of halo3d.c with its faces on the stack: each
 * iteration packs the six faces of the N^3 block into contiguous arrays
 * local to the exchange function (6 x 2 x N^2 doubles, 221 KiB for
 * N = 48), exchanges them with MPI_Irecv/MPI_Isend/MPI_Waitall and
 * unpacks the received ones into the ghost layers, then runs the same
 * Jacobi sweep. Median time per iteration in microseconds. This is the
 * shape of stencil codes that pack by hand; the access tracker watches
 * the faces' pages with page protection and the bytes on their first
 * pages, where the stack below the frame is, not at all (too many for
 * the debug registers; docs/races.md, "Stack buffers"). */
#include "common.h"

enum { N = 48, ITERS = 240 };
#define IDX(i, j, k) (((size_t)(i) * (N + 2) + (j)) * (N + 2) + (k))

/* the cell of face element (a, b) of dimension d at layer l */
static size_t cell(int d, int l, int a, int b)
{
    return d == 0 ? IDX(l, a + 1, b + 1) : d == 1 ? IDX(a + 1, l, b + 1) : IDX(a + 1, b + 1, l);
}

static void exchange(double *u, MPI_Comm cart, int nbr[3][2])
{
    double sface[6][N * N], rface[6][N * N];
    MPI_Request req[12];
    int r = 0;
    for (int d = 0; d < 3; d++)
        for (int s = 0; s < 2; s++)
            for (int a = 0; a < N; a++)
                for (int b = 0; b < N; b++)
                    sface[d * 2 + s][a * N + b] = u[cell(d, s ? N : 1, a, b)];
    for (int d = 0; d < 3; d++)
        for (int s = 0; s < 2; s++) {
            MPI_Irecv(rface[d * 2 + s], N * N, MPI_DOUBLE, nbr[d][s], d * 2 + s, cart, &req[r++]);
            MPI_Isend(sface[d * 2 + s], N * N, MPI_DOUBLE, nbr[d][s], d * 2 + 1 - s, cart, &req[r++]);
        }
    MPI_Waitall(r, req, MPI_STATUSES_IGNORE);
    for (int d = 0; d < 3; d++)
        for (int s = 0; s < 2; s++)
            for (int a = 0; a < N; a++)
                for (int b = 0; b < N; b++)
                    u[cell(d, s ? N + 1 : 0, a, b)] = rface[d * 2 + s][a * N + b];
}

int main(int argc, char **argv)
{
    int size, dims[3] = {0, 0, 0}, periods[3] = {1, 1, 1};
    MPI_Comm cart;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Dims_create(size, 3, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);

    size_t cells = (size_t)(N + 2) * (N + 2) * (N + 2);
    double *u = calloc(cells, sizeof *u), *v = calloc(cells, sizeof *v);
    int nbr[3][2];
    for (int d = 0; d < 3; d++)
        MPI_Cart_shift(cart, d, 1, &nbr[d][0], &nbr[d][1]);
    for (size_t c = 0; c < cells; c++)
        u[c] = (double)(c % 97);

    double samples[ITERS];
    for (int it = 0; it < ITERS; it++) {
        double t0 = MPI_Wtime();
        exchange(u, cart, nbr);
        for (int i = 1; i <= N; i++)
            for (int j = 1; j <= N; j++)
                for (int k = 1; k <= N; k++)
                    v[IDX(i, j, k)] = (u[IDX(i - 1, j, k)] + u[IDX(i + 1, j, k)] + u[IDX(i, j - 1, k)] +
                                       u[IDX(i, j + 1, k)] + u[IDX(i, j, k - 1)] + u[IDX(i, j, k + 1)]) / 6;
        double *t = u;
        u = v, v = t;
        samples[it] = (MPI_Wtime() - t0) * 1e6;
    }
    result("halo3d_stack_faces_iteration", median(samples, ITERS), "us");
    MPI_Comm_free(&cart);
    free(u);
    free(v);
    MPI_Finalize();
    return 0;
}
