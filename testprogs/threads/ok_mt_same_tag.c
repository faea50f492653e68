// ranks: 2
// cflags: -pthread
// runs: 10
//
// ok_mt_same_tag.c: a hybrid task farm where threads share one tag. Rank 0
// (the master) and rank 1 (the worker) run 4 threads each
// (pthread_create, MPI_THREAD_MULTIPLE). Every master thread sends 8 tasks
// to rank 1 with MPI_Isend, all with tag TASK and the same datatype, at
// the same time as the other master threads; the 4 worker threads each
// take 8 tasks with tag TASK, whichever arrive, and send each result back
// to rank 0 with tag RESULT, concurrently again; the master threads each
// take 8 results, whichever arrive. On both ranks threads 0-2 receive
// with the peer's rank and the tag, thread 3 with MPI_ANY_SOURCE and
// MPI_ANY_TAG. Every task and result carries its task id, so which
// thread takes which message never changes the outcome.
// Follows MPI-4.1 §3.5 and §11.6.1: sends from distinct threads are not
// ordered against each other, so a receive may take any of them; the
// program does not depend on which (only one rank sends to each, and
// every message on the communicator towards a rank has the same tag and
// type, so every match is type-correct and no wildcard chooses between
// ranks).
// The master checks every result.
// Correct: must produce no findings.
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

enum { THREADS = 4, PER = 8, TASKS = THREADS * PER, TASK = 5, RESULT = 6 };

static int rank;
static int task[TASKS][2];  // master: id, seed
static int result[TASKS];   // master: by task id
static int got[TASKS];      // master: results received per task id
static int bad[THREADS];    // per thread: wrong source or tag seen

static int work(int seed)
{
    unsigned x = (unsigned)seed;
    int hits = 0;
    for (int i = 0; i < 1000; i++) {
        x = x * 1103515245u + 12345u;
        hits += (x >> 16) % 7 == 0;
    }
    return hits;
}

static void *master(void *arg)
{
    int t = (int)(long)arg, msg[2];
    MPI_Request req[PER];
    MPI_Status st, sts[PER];
    for (int k = 0; k < PER; k++) {
        int id = t * PER + k;
        task[id][0] = id;
        task[id][1] = 1000 + 17 * id;
        MPI_Isend(task[id], 2, MPI_INT, 1, TASK, MPI_COMM_WORLD, &req[k]);
    }
    for (int k = 0; k < PER; k++) {
        if (t == 3)
            MPI_Recv(msg, 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        else
            MPI_Recv(msg, 2, MPI_INT, 1, RESULT, MPI_COMM_WORLD, &st);
        if (st.MPI_SOURCE != 1 || st.MPI_TAG != RESULT || msg[0] < 0 || msg[0] >= TASKS) {
            bad[t]++;
            continue;
        }
        result[msg[0]] = msg[1];
        got[msg[0]]++; // each id comes once: no two threads write one entry
    }
    MPI_Waitall(PER, req, sts);
    return NULL;
}

static void *worker(void *arg)
{
    int t = (int)(long)arg, msg[2], out[2];
    MPI_Status st;
    for (int k = 0; k < PER; k++) {
        if (t == 3)
            MPI_Recv(msg, 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        else
            MPI_Recv(msg, 2, MPI_INT, 0, TASK, MPI_COMM_WORLD, &st);
        if (st.MPI_SOURCE != 0 || st.MPI_TAG != TASK)
            bad[t]++;
        out[0] = msg[0];
        out[1] = work(msg[1]);
        MPI_Send(out, 2, MPI_INT, 0, RESULT, MPI_COMM_WORLD);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, size, errors = 0, total = 0;
    pthread_t th[THREADS];

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE || size != 2) {
        fprintf(stderr, "ok_mt_same_tag: needs MPI_THREAD_MULTIPLE and 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (long t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, rank == 0 ? master : worker, (void *)t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);

    for (int t = 0; t < THREADS; t++)
        errors += bad[t];
    if (rank == 0)
        for (int id = 0; id < TASKS; id++)
            if ((got[id] != 1 || result[id] != work(1000 + 17 * id)) && errors++ == 0)
                fprintf(stderr, "task %d: %d result(s), %d, want 1, %d\n", id, got[id], result[id], work(1000 + 17 * id));
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_mt_same_tag: OK\n");
    MPI_Finalize();
    return total != 0;
}
