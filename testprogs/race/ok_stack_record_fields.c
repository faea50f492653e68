// ranks: 2
//
// ok_stack_record_fields.c: each rank keeps a particle record on the
// stack. Five of its fields travel to the next rank (an MPI struct type
// of id, kind, code, level and position, with gaps between them); the
// others are the rank's bookkeeping (a dirty flag, a local count, visit
// counters), which the program reads and updates while the receive of
// the travelling fields is pending. MPI-4.1 §3.7.2 forbids access only to
// the bytes the datatype's type map touches (§5.1), so this is correct:
// no finding, though the record lies on the stack's first page, watched
// by debug registers.
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct particle {
    int32_t id;     /* travels */
    uint8_t dirty;  /* local */
    uint8_t kind;   /* travels */
    uint16_t count; /* local */
    uint16_t code;  /* travels */
    uint16_t visits;/* local */
    uint8_t level;  /* travels */
    uint8_t seen[3];/* local */
    double x;       /* travels */
};

static int rank, size, bad;

static void exchange(MPI_Datatype t, int step)
{
    struct particle in __attribute__((aligned(32)));
    struct particle out = {rank * 10 + step, 0, (uint8_t)(rank + 1), 0, (uint16_t)(rank * 3), 0, (uint8_t)step, {0, 0, 0}, rank + 0.5};
    int from = (rank + size - 1) % size, to = (rank + 1) % size;
    MPI_Request rq[2];
    in.dirty = 1;
    in.count = 7;
    in.visits = 0;
    in.seen[0] = in.seen[1] = in.seen[2] = 0;
    in.level = 0;
    MPI_Irecv(&in, 1, t, from, 0, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(&out, 1, t, to, 0, MPI_COMM_WORLD, &rq[1]);
    if (in.dirty)
        in.visits += in.count;
    in.seen[0] = (uint8_t)(in.visits + 1);
    if (in.seen[1] == 0 && in.seen[2] == 0)
        in.dirty = 0;
    MPI_Status st[2];
    MPI_Waitall(2, rq, st);
    if (in.id != from * 10 + step || in.kind != from + 1 || in.code != from * 3 || in.level != step || in.x != from + 0.5 ||
        in.visits != 7 || in.seen[0] != 8 || in.dirty != 0 || in.count != 7)
        bad++;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int bl[5] = {1, 1, 1, 1, 1};
    MPI_Aint disp[5] = {offsetof(struct particle, id), offsetof(struct particle, kind), offsetof(struct particle, code),
                        offsetof(struct particle, level), offsetof(struct particle, x)};
    MPI_Datatype types[5] = {MPI_INT32_T, MPI_UINT8_T, MPI_UINT16_T, MPI_UINT8_T, MPI_DOUBLE}, t0, t;
    MPI_Type_create_struct(5, bl, disp, types, &t0);
    MPI_Type_create_resized(t0, 0, sizeof(struct particle), &t);
    MPI_Type_commit(&t);
    for (int step = 0; step < 5; step++)
        exchange(t, step);
    MPI_Type_free(&t0);
    MPI_Type_free(&t);
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(bad ? "ok_stack_record_fields: WRONG DATA\n" : "ok_stack_record_fields: OK\n");
    MPI_Finalize();
    return bad ? 1 : 0;
}
