// ranks: 2
// cflags: -pthread
//
// ok_mt_timer_wakeup.c: a rank whose checkpoint is timer-driven
// (MPI_THREAD_MULTIPLE). On each rank a writer thread sleeps on a
// semaphore; an alarm(3) handler posts it (sem_post is async-signal-
// safe), and the writer then sends its checkpoint summary to the other
// rank. Meanwhile the main thread waits in MPI_Recv for the other rank's
// summary. A second round does the same with a POSIX timer
// (timer_create, SIGEV_THREAD, 3 s) whose function signals a condition
// variable the writer waits on.
// Follows MPI-4.1 §11.6: a blocking call blocks only the calling thread;
// the handler calls no MPI function.
// Correct: must produce no findings. For 3 seconds each rank has
// every thread blocked in MPI or waiting for another thread, and only
// the armed timer will move it on: a deadlock checker that ignores the
// timer ends the job.
#define _GNU_SOURCE
#include <mpi.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static sem_t tick;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int due, rank;

static void on_alarm(int sig)
{
    (void)sig;
    sem_post(&tick);
}

static void *writer(void *arg)
{
    (void)arg;
    sem_wait(&tick);
    long summary = 100 + rank;
    MPI_Send(&summary, 1, MPI_LONG, 1 - rank, 1, MPI_COMM_WORLD);
    return NULL;
}

static void on_timer(union sigval v)
{
    (void)v;
    pthread_mutex_lock(&mu);
    due = 1;
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&mu);
}

static void *cond_writer(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&mu);
    while (!due)
        pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    long summary = 200 + rank;
    MPI_Send(&summary, 1, MPI_LONG, 1 - rank, 2, MPI_COMM_WORLD);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE)
        MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int ok = 1;

    sem_init(&tick, 0, 0);
    signal(SIGALRM, on_alarm);
    pthread_t w;
    pthread_create(&w, NULL, writer, NULL);
    alarm(3);
    long theirs = 0;
    MPI_Recv(&theirs, 1, MPI_LONG, 1 - rank, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    ok &= theirs == 100 + 1 - rank;
    pthread_join(w, NULL);

    pthread_t cw;
    pthread_create(&cw, NULL, cond_writer, NULL);
    timer_t t;
    struct sigevent sev = {0};
    sev.sigev_notify = SIGEV_THREAD;
    sev.sigev_notify_function = on_timer;
    timer_create(CLOCK_MONOTONIC, &sev, &t);
    struct itimerspec when = {{0, 0}, {3, 0}};
    timer_settime(t, 0, &when, NULL);
    MPI_Recv(&theirs, 1, MPI_LONG, 1 - rank, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    ok &= theirs == 200 + 1 - rank;
    pthread_join(cw, NULL);
    timer_delete(t);

    int all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    MPI_Finalize();
    if (!all)
        return 1;
    if (rank == 0)
        printf("ok_mt_timer_wakeup: OK\n");
    return 0;
}
