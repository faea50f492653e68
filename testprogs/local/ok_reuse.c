// ranks: 2
//
// ok_reuse.c: objects made and freed in a loop, so the MPI library hands
// out the same handle values again (MPICH does): each iteration creates,
// commits, uses and frees a datatype, dups and frees a communicator,
// creates and frees a group and a user operation, and makes, uses and
// frees a persistent request. A handle value seen before belongs to the
// new object: nothing here is a use after free or a double free.
// Correct: must produce no findings.
#include <mpi.h>
#include <stdio.h>

static int errors;
#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            errors++;                                                          \
            fprintf(stderr, __VA_ARGS__);                                      \
        }                                                                      \
    } while (0)

static void sum_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int *a = in, *b = inout, i;
    (void)dt;
    for (i = 0; i < *len; i++)
        b[i] += a[i];
}

int main(int argc, char **argv)
{
    int rank, it, i, total, out[8], in[8], s, gsize;
    MPI_Datatype t;
    MPI_Comm c;
    MPI_Group g;
    MPI_Op op;
    MPI_Request r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = rank ^ 1;

    for (it = 1; it <= 4; it++) {
        MPI_Type_vector(2, it, 4, MPI_INT, &t);
        MPI_Type_commit(&t);
        for (i = 0; i < 8; i++) {
            out[i] = 100 * rank + 10 * it + i;
            in[i] = -1;
        }
        MPI_Sendrecv(out, 1, t, peer, it, in, 1, t, peer, it, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(in[4 + it - 1] == 100 * peer + 10 * it + 4 + it - 1, "rank %d it %d: vector\n", rank, it);
        MPI_Type_free(&t);

        MPI_Comm_dup(MPI_COMM_WORLD, &c);
        MPI_Op_create(sum_op, 1, &op);
        MPI_Allreduce(&it, &s, 1, MPI_INT, op, c);
        CHECK(s == 2 * it, "rank %d it %d: sum %d\n", rank, it, s);
        MPI_Op_free(&op);
        MPI_Comm_group(c, &g);
        MPI_Group_size(g, &gsize);
        CHECK(gsize == 2, "rank %d: group size %d\n", rank, gsize);
        MPI_Group_free(&g);
        MPI_Comm_free(&c);

        if (rank == 0)
            MPI_Send_init(&it, 1, MPI_INT, 1, 50, MPI_COMM_WORLD, &r);
        else
            MPI_Recv_init(&s, 1, MPI_INT, 0, 50, MPI_COMM_WORLD, &r);
        MPI_Start(&r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        MPI_Request_free(&r);
        if (rank == 1)
            CHECK(s == it, "rank 1 it %d: persistent got %d\n", it, s);
    }

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_reuse: OK\n");
    MPI_Finalize();
    return total != 0;
}
