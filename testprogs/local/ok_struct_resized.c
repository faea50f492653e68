// ranks: 2
//
// ok_struct_resized.c: an array of C structs (int, double[3], char) sent
// with a struct type built from offsetof and resized to sizeof(struct
// particle), so that a count of N walks the array; then every other
// particle with a vector of the resized type, and an MPI_Gather of two
// particles per rank. The intermediate struct type is freed right after
// the resize (the resized type stays valid). Checks every field.
// Correct: must produce no findings.
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define N 5

struct particle {
    int id;
    double pos[3];
    char kind;
};

static int errors;
#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            errors++;                                                          \
            fprintf(stderr, __VA_ARGS__);                                      \
        }                                                                      \
    } while (0)

static void fill(struct particle *p, int id)
{
    memset(p, 0, sizeof *p);
    p->id = id;
    p->pos[0] = id + 0.25;
    p->pos[1] = id + 0.5;
    p->pos[2] = id + 0.75;
    p->kind = (char)('a' + id % 26);
}

static int same(const struct particle *p, int id)
{
    return p->id == id && p->pos[0] == id + 0.25 && p->pos[1] == id + 0.5 && p->pos[2] == id + 0.75 &&
           p->kind == (char)('a' + id % 26);
}

int main(int argc, char **argv)
{
    int rank, size, i, total;
    struct particle out[N], in[N], two[2], *all;
    int blocklens[3] = {1, 3, 1};
    MPI_Aint displs[3] = {offsetof(struct particle, id), offsetof(struct particle, pos),
                          offsetof(struct particle, kind)};
    MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
    MPI_Datatype raw, ptype, every_other;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Type_create_struct(3, blocklens, displs, types, &raw);
    MPI_Type_create_resized(raw, 0, (MPI_Aint)sizeof(struct particle), &ptype);
    MPI_Type_free(&raw);
    MPI_Type_commit(&ptype);
    MPI_Type_vector(2, 1, 2, ptype, &every_other);
    MPI_Type_commit(&every_other);

    for (i = 0; i < N; i++) {
        fill(&out[i], 10 * rank + i);
        memset(&in[i], 0, sizeof in[i]);
    }

    if (rank == 0) {
        MPI_Send(out, N, ptype, 1, 0, MPI_COMM_WORLD);
        MPI_Send(out, 1, every_other, 1, 1, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Recv(in, N, ptype, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (i = 0; i < N; i++)
            CHECK(same(&in[i], i), "rank 1: particle %d wrong\n", i);
        MPI_Recv(two, 2, ptype, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(same(&two[0], 0) && same(&two[1], 2), "rank 1: every other particle wrong\n");
    }

    struct particle buf[N * 2 * 4];
    all = rank == 0 ? buf : NULL;
    MPI_Gather(out, 2, ptype, all, 2, ptype, 0, MPI_COMM_WORLD);
    if (rank == 0)
        for (i = 0; i < 2 * size; i++)
            CHECK(same(&all[i], 10 * (i / 2) + i % 2), "rank 0: gathered particle %d wrong\n", i);

    MPI_Type_free(&every_other);
    MPI_Type_free(&ptype);

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_struct_resized: OK\n");
    MPI_Finalize();
    return total != 0;
}
