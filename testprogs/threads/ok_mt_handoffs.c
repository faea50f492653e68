// ranks: 2
// cflags: -pthread
// runs: 10
//
// ok_mt_handoffs.c: four hand-overs between threads of rank 0
// (MPI_THREAD_MULTIPLE), each ordering two passive-target accesses of
// one word in rank 1's window (MPI_Win_lock_all, each put flushed before
// the hand-over): (1) a worker's put, then the main thread's after
// pthread_timedjoin_np; (2) a writer's put under
// pthread_rwlock_timedwrlock, then readers' gets under
// pthread_rwlock_timedrdlock once the writer has published; (3) the
// initialiser run by pthread_once puts a header word, and every thread
// gets it after its pthread_once returned; (4) a worker's put, then
// MPI_Grequest_complete, and the main thread's put after MPI_Wait on the
// generalized request (MPI-4.1 §13.2). All are correct (MPI-4.1 §12.7;
// §3.5).
// Expected: no findings.
#define _GNU_SOURCE
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

enum { THREADS = 4, W_JOIN = 0, W_RW = 1, W_ONCE = 2, W_GREQ = 3 };

static MPI_Win win;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static int published;
static pthread_once_t header_once = PTHREAD_ONCE_INIT;
static MPI_Request greq;

static void put_word(int word, int value)
{
    MPI_Put(&value, 1, MPI_INT, 1, word, 1, MPI_INT, win);
    MPI_Win_flush(1, win);
}

static int get_word(int word)
{
    int v = 0;
    MPI_Get(&v, 1, MPI_INT, 1, word, 1, MPI_INT, win);
    MPI_Win_flush(1, win);
    return v;
}

static struct timespec soon(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_sec += 30;
    return t;
}

static void *joined_worker(void *arg)
{
    (void)arg;
    put_word(W_JOIN, 1);
    return NULL;
}

static void *rw_writer(void *arg)
{
    (void)arg;
    struct timespec t = soon();
    pthread_rwlock_timedwrlock(&rw, &t);
    put_word(W_RW, 2);
    published = 1;
    pthread_rwlock_unlock(&rw);
    return NULL;
}

static void *rw_reader(void *arg)
{
    (void)arg;
    for (;;) {
        struct timespec t = soon();
        pthread_rwlock_timedrdlock(&rw, &t);
        int ready = published;
        if (ready)
            get_word(W_RW);
        pthread_rwlock_unlock(&rw);
        if (ready)
            return NULL;
    }
}

static void write_header(void)
{
    put_word(W_ONCE, 3);
}

static void *once_user(void *arg)
{
    (void)arg;
    pthread_once(&header_once, write_header);
    get_word(W_ONCE);
    return NULL;
}

static int query(void *extra, MPI_Status *st)
{
    (void)extra;
    MPI_Status_set_elements(st, MPI_BYTE, 0);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = MPI_UNDEFINED;
    st->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}
static int free_fn(void *extra)
{
    (void)extra;
    return MPI_SUCCESS;
}
static int cancel_fn(void *extra, int complete)
{
    (void)extra, (void)complete;
    return MPI_SUCCESS;
}

static void *greq_worker(void *arg)
{
    (void)arg;
    put_word(W_GREQ, 4);
    MPI_Grequest_complete(greq);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE || size != 2) {
        fprintf(stderr, "ok_mt_handoffs: needs MPI_THREAD_MULTIPLE and 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int words[4] = {0};
    MPI_Win_create(words, sizeof words, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_lock_all(0, win);
    if (rank == 0) {
        pthread_t th[THREADS];
        struct timespec t = soon();
        pthread_create(&th[0], NULL, joined_worker, NULL);
        pthread_timedjoin_np(th[0], NULL, &t);
        put_word(W_JOIN, 10);

        pthread_create(&th[0], NULL, rw_writer, NULL);
        for (int i = 1; i < THREADS; i++)
            pthread_create(&th[i], NULL, rw_reader, NULL);
        for (int i = 0; i < THREADS; i++)
            pthread_join(th[i], NULL);

        for (int i = 0; i < THREADS; i++)
            pthread_create(&th[i], NULL, once_user, NULL);
        for (int i = 0; i < THREADS; i++)
            pthread_join(th[i], NULL);

        MPI_Grequest_start(query, free_fn, cancel_fn, NULL, &greq);
        pthread_create(&th[0], NULL, greq_worker, NULL);
        MPI_Wait(&greq, MPI_STATUS_IGNORE);
        put_word(W_GREQ, 40);
        pthread_join(th[0], NULL);
        printf("ok_mt_handoffs: OK\n");
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
