// ranks: 2
// native: hangs
// cflags: -pthread
//
// bug_mt_deadlock_after_timer.c: the timer-driven checkpoint of
// ok_mt_timer_wakeup.c with the wrong semaphore posted. The alarm(1)
// handler posts a semaphore nobody waits on; the writer thread waits on
// another one for ever, so neither rank's summary is sent, and both main
// threads wait in MPI_Recv for good once the alarm has gone off.
// Breaks MPI-4.1 §3.4 (a receive whose matching send is never made
// blocks for ever): a deadlock.
// Expected: deadlock at the MPI_Recv, found after the alarm expired
// (until then the timer may have woken the writer).
#include <mpi.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <unistd.h>

static sem_t tick, other;
static int rank;

static void on_alarm(int sig)
{
    (void)sig;
    sem_post(&other);
}

static void *writer(void *arg)
{
    (void)arg;
    sem_wait(&tick);
    long summary = 100 + rank;
    MPI_Send(&summary, 1, MPI_LONG, 1 - rank, 1, MPI_COMM_WORLD);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE)
        MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    sem_init(&tick, 0, 0);
    sem_init(&other, 0, 0);
    signal(SIGALRM, on_alarm);
    pthread_t w;
    pthread_create(&w, NULL, writer, NULL);
    alarm(1);
    long theirs = 0;
    MPI_Recv(&theirs, 1, MPI_LONG, 1 - rank, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "deadlock"
    pthread_join(w, NULL);
    MPI_Finalize();
    return 0;
}
