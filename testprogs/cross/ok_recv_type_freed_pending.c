// ranks: 3
//
// ok_recv_type_freed_pending.c: a collector that frees each receive's
// datatype as soon as the receive is posted, as generated bindings do
// (MPICH's mpi_f08 builds a datatype for a strided array section and
// frees it when the call returns). Workers 1 and 2 send records of
// varying length; rank 0 probes each with MPI_Mprobe, sizes a contiguous
// type from MPI_Get_count, receives with MPI_Imrecv and frees the type at
// once; it also posts an MPI_Irecv of a strided column type, frees that
// type, and builds other types of other shapes (which MPI may hand the
// freed handles) before it waits for both.
// Follows MPI-4.1 §5.1.9: "Any communication that is currently using this
// datatype will complete normally" after MPI_Type_free; the signatures
// match (§3.3.1). Correct: must produce no findings; rank 0 checks the
// data. A checker that looked the receive's datatype up by its handle at
// completion would compare with the new type and report a truncation or
// a mismatch.
#include <mpi.h>
#include <stdio.h>

enum { ROUNDS = 6, ROWS = 8, COLS = 5 };

int main(int argc, char **argv)
{
    int rank, size, wrong = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int r = 0; r < ROUNDS; r++) {
        if (rank == 0) {
            double grid[ROWS][COLS] = {{0}};
            MPI_Datatype column;
            MPI_Type_vector(ROWS, 1, COLS, MPI_DOUBLE, &column);
            MPI_Type_commit(&column);
            MPI_Request col;
            MPI_Irecv(&grid[0][r % COLS], 1, column, 2, 100 + r, MPI_COMM_WORLD, &col);
            MPI_Type_free(&column);
            for (int w = 1; w < size; w++) {
                MPI_Message msg;
                MPI_Status st;
                MPI_Mprobe(w, r, MPI_COMM_WORLD, &msg, &st);
                int n;
                MPI_Get_count(&st, MPI_INT, &n);
                MPI_Datatype record;
                MPI_Type_contiguous(n, MPI_INT, &record);
                MPI_Type_commit(&record);
                int buf[64];
                MPI_Request q;
                MPI_Imrecv(buf, 1, record, &msg, &q);
                MPI_Type_free(&record);
                MPI_Datatype other[3];
                MPI_Type_contiguous(3, MPI_INT, &other[0]);
                MPI_Type_vector(2, 2, 7, MPI_DOUBLE, &other[1]);
                MPI_Type_contiguous(1, MPI_CHAR, &other[2]);
                MPI_Wait(&q, MPI_STATUS_IGNORE);
                for (int i = 0; i < n; i++)
                    wrong += buf[i] != w * 1000 + r * 10 + i;
                for (int k = 0; k < 3; k++)
                    MPI_Type_free(&other[k]);
            }
            MPI_Wait(&col, MPI_STATUS_IGNORE);
            for (int i = 0; i < ROWS; i++)
                wrong += grid[i][r % COLS] != 0.5 * i + r;
        } else {
            int n = 3 + (rank + r) % 5, rec[64];
            for (int i = 0; i < n; i++)
                rec[i] = rank * 1000 + r * 10 + i;
            MPI_Send(rec, n, MPI_INT, 0, r, MPI_COMM_WORLD);
            if (rank == 2) {
                double col[ROWS];
                for (int i = 0; i < ROWS; i++)
                    col[i] = 0.5 * i + r;
                MPI_Send(col, ROWS, MPI_DOUBLE, 0, 100 + r, MPI_COMM_WORLD);
            }
        }
    }
    int any;
    MPI_Allreduce(&wrong, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(any ? "ok_recv_type_freed_pending: FAILED (%d)\n" : "ok_recv_type_freed_pending: OK\n", any);
    MPI_Finalize();
    return any != 0;
}
