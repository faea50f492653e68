// ranks: 4
//
// ok_master_worker.c: the canonical master/worker. Rank 0 hands out 24
// tasks (integrate x^2 over a slice of [0, 1]) one at a time: each worker
// gets a first task, sends back its result (two doubles: the task's index
// and its value) and gets the next one, until a stop message. The master
// takes results with MPI_ANY_SOURCE and answers whoever sent
// (status.MPI_SOURCE), so which worker does which task depends on timing,
// and so does the order of the results, which the program files by the
// index each result carries. Every candidate message has the receive's
// type and size: the nondeterminism is the program's, on purpose
// (MPI-4.1 §3.5).
// Correct: must produce no findings (message-race-info, off by default,
// would describe the race).
#include <mpi.h>
#include <stdio.h>

enum { TASKS = 24, WORK = 1, RESULT = 2, STOP = 3 };

static double integrate(int task)
{
    double a = (double)task / TASKS, b = (double)(task + 1) / TASKS, h = (b - a) / 1000, s = 0;
    for (int i = 0; i < 1000; i++) {
        double x = a + (i + 0.5) * h;
        s += x * x * h;
    }
    return s;
}

static void master(int size)
{
    double part[TASKS] = {0}, res[2], total = 0;
    int next = 0, busy = 0;
    MPI_Status st;
    for (int w = 1; w < size && next < TASKS; w++, busy++, next++)
        MPI_Send(&next, 1, MPI_INT, w, WORK, MPI_COMM_WORLD);
    while (busy > 0) {
        MPI_Recv(res, 2, MPI_DOUBLE, MPI_ANY_SOURCE, RESULT, MPI_COMM_WORLD, &st);
        part[(int)res[0]] = res[1];
        busy--;
        if (next < TASKS) {
            MPI_Send(&next, 1, MPI_INT, st.MPI_SOURCE, WORK, MPI_COMM_WORLD);
            next++;
            busy++;
        }
    }
    for (int w = 1; w < size; w++)
        MPI_Send(&next, 1, MPI_INT, w, STOP, MPI_COMM_WORLD);
    for (int t = 0; t < TASKS; t++)
        total += part[t];
    if (total > 0.3333 && total < 0.3334)
        printf("ok_master_worker: OK\n");
    else
        printf("ok_master_worker: integral %f\n", total);
}

static void worker(void)
{
    int task;
    MPI_Status st;
    for (;;) {
        MPI_Recv(&task, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        if (st.MPI_TAG == STOP)
            return;
        double res[2] = {task, integrate(task)};
        MPI_Send(res, 2, MPI_DOUBLE, 0, RESULT, MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0)
        master(size);
    else
        worker();
    MPI_Finalize();
    return 0;
}
