// ranks: 2
// cflags: -fopenmp
// runs: 10
//
// ok_mt_tag_per_type.c: a coupled multiphysics step, one field per thread.
// Two ranks, each with an OpenMP team of 4 threads (MPI_THREAD_MULTIPLE);
// every step each thread exchanges its field's interface values with the
// same thread of the other rank, all threads at once, each field with its
// own datatype and its own tag:
//   thread 0: cell flags, MPI_INT, with MPI_Sendrecv (tag 10);
//   thread 1: temperatures, MPI_DOUBLE, MPI_Irecv + MPI_Isend + MPI_Waitall
//             (tag 11);
//   thread 2: the x components of interleaved (x, y) float velocities, an
//             MPI_Type_vector of MPI_FLOAT, blocking MPI_Send and MPI_Recv
//             ordered by rank (tag 12);
//   thread 3: tracer particles, a struct {double pos; int id;} type
//             resized to the C struct, MPI_Sendrecv (tag 13).
// Follows MPI-4.1 §3.3.1 (each send's type signature matches its
// receive's; the types differ between threads but the tags keep them
// apart) and §11.6.1 (concurrent calls under MPI_THREAD_MULTIPLE).
// Every value received is checked.
// Correct: must produce no findings.
#include <mpi.h>
#include <omp.h>
#include <stddef.h>
#include <stdio.h>

enum { THREADS = 4, N = 16, STEPS = 5 };

struct particle {
    double pos;
    int id;
};

static int errors[THREADS];

int main(int argc, char **argv)
{
    int provided, rank, size, total = 0, sum = 0;
    MPI_Datatype xcomp, ptype, tmp;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE || size != 2) {
        fprintf(stderr, "ok_mt_tag_per_type: needs MPI_THREAD_MULTIPLE and 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Type_vector(N, 1, 2, MPI_FLOAT, &xcomp);
    MPI_Type_commit(&xcomp);
    int blens[2] = {1, 1};
    MPI_Aint disps[2] = {offsetof(struct particle, pos), offsetof(struct particle, id)};
    MPI_Datatype types[2] = {MPI_DOUBLE, MPI_INT};
    MPI_Type_create_struct(2, blens, disps, types, &tmp);
    MPI_Type_create_resized(tmp, 0, sizeof(struct particle), &ptype);
    MPI_Type_free(&tmp);
    MPI_Type_commit(&ptype);

    omp_set_dynamic(0);
#pragma omp parallel num_threads(THREADS)
    {
        int t = omp_get_thread_num(), other = 1 - rank;
        if (omp_get_num_threads() != THREADS)
            MPI_Abort(MPI_COMM_WORLD, 2);
        for (int step = 0; step < STEPS; step++) {
            int base = 1000 * step + 100 * rank, pbase = 1000 * step + 100 * other;
            switch (t) {
            case 0: {
                int out[N], in[N];
                for (int i = 0; i < N; i++)
                    out[i] = base + i;
                MPI_Sendrecv(out, N, MPI_INT, other, 10, in, N, MPI_INT, other, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                for (int i = 0; i < N; i++)
                    errors[t] += in[i] != pbase + i;
                break;
            }
            case 1: {
                double out[N], in[N];
                MPI_Request r[2];
                MPI_Status sts[2];
                for (int i = 0; i < N; i++)
                    out[i] = base + 0.25 * i;
                MPI_Irecv(in, N, MPI_DOUBLE, other, 11, MPI_COMM_WORLD, &r[0]);
                MPI_Isend(out, N, MPI_DOUBLE, other, 11, MPI_COMM_WORLD, &r[1]);
                MPI_Waitall(2, r, sts);
                for (int i = 0; i < N; i++)
                    errors[t] += in[i] != pbase + 0.25 * i;
                break;
            }
            case 2: {
                float out[2 * N], in[2 * N];
                for (int i = 0; i < N; i++) {
                    out[2 * i] = base + 0.5f * i;
                    out[2 * i + 1] = -1;
                    in[2 * i] = in[2 * i + 1] = -2;
                }
                if (rank == 0) {
                    MPI_Send(out, 1, xcomp, other, 12, MPI_COMM_WORLD);
                    MPI_Recv(in, 1, xcomp, other, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else {
                    MPI_Recv(in, 1, xcomp, other, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(out, 1, xcomp, other, 12, MPI_COMM_WORLD);
                }
                for (int i = 0; i < N; i++)
                    errors[t] += in[2 * i] != pbase + 0.5f * i || in[2 * i + 1] != -2;
                break;
            }
            default: {
                struct particle out[4], in[4];
                for (int i = 0; i < 4; i++) {
                    out[i].pos = base + 0.125 * i;
                    out[i].id = 10 * rank + i;
                }
                MPI_Sendrecv(out, 4, ptype, other, 13, in, 4, ptype, other, 13, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                for (int i = 0; i < 4; i++)
                    errors[t] += in[i].pos != pbase + 0.125 * i || in[i].id != 10 * other + i;
            }
            }
        }
    }

    MPI_Type_free(&xcomp);
    MPI_Type_free(&ptype);
    for (int t = 0; t < THREADS; t++) {
        if (errors[t])
            fprintf(stderr, "rank %d thread %d: %d wrong values\n", rank, t, errors[t]);
        sum += errors[t];
    }
    MPI_Allreduce(&sum, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_mt_tag_per_type: OK\n");
    MPI_Finalize();
    return total != 0;
}
