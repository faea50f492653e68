// ranks: 2
//
// ok_async_io_beside_pending.c: a solver that checkpoints in the
// background while its halo exchange is in flight. Each step's state is
// one heap block: the halo receive buffer, and beside it the step's
// POSIX aio control block and a progress counter. Between MPI_Irecv and
// MPI_Wait the rank writes its previous field with aio_write (the
// control block beside the pending halo), writes its log with
// MPI_File_iwrite_at from a buffer whose last page it shares with the
// next step's pending receive, and from the middle of the run on a
// SIGEV_THREAD timer (every 200 µs) bumps the progress counter. Every
// few steps it also writes a summary with lio_listio(LIO_WAIT).
// Follows MPI-4.1 §3.7.2 (no pending receive buffer is touched before
// MPI_Wait; the fields beside it are the program's own), §14.4.3 (the
// write buffer is left alone until MPI_Wait), and POSIX aio (aio_return
// once per request).
// Correct: must produce no findings, and every write must be complete
// (glibc's aio threads, its timer threads and MPI-IO's background
// writes run with every signal blocked: a fault there on a watched page
// ended the process, or the write came back short).
#define _GNU_SOURCE
#include <aio.h>
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { N = 512, LOG = 2000, STEPS = 24 };

struct step {
    double halo[N]; /* pending receive */
    struct aiocb cb; /* the checkpoint write, beside it */
    long progress;
};

struct logbuf {
    double log[LOG]; /* MPI_File_iwrite_at's buffer */
    double halo[N];  /* the next pending receive, on its last page */
};

static void on_tick(union sigval v)
{
    struct step *volatile *cur = v.sival_ptr;
    struct step *s = *cur;
    if (s)
        __atomic_add_fetch(&s->progress, 1, __ATOMIC_RELAXED);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, errors = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;

    char path[96];
    snprintf(path, sizeof path, "/tmp/ok_async_io_%d_%d.ckpt", (int)getpid(), rank);
    int fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0600);
    char logpath[96] = "/tmp/ok_async_io_log_XXXXXX";
    if (rank == 0 && mkstemp(logpath) < 0)
        MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Bcast(logpath, sizeof logpath, MPI_CHAR, 0, MPI_COMM_WORLD);
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, logpath, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh);

    static struct step *volatile current;
    struct sigevent sev = {0};
    sev.sigev_notify = SIGEV_THREAD;
    sev.sigev_notify_function = on_tick;
    sev.sigev_value.sival_ptr = (void *)&current;
    timer_t timer;

    static double field[N], out[N];
    static struct step *steps[STEPS]; /* kept until the timer is gone: its thread may still hold one */
    struct logbuf *lb = calloc(1, sizeof *lb);
    for (int s = 0; s < STEPS; s++) {
        if (s == STEPS / 2) {
            timer_create(CLOCK_MONOTONIC, &sev, &timer);
            struct itimerspec every = {{0, 200000}, {0, 200000}};
            timer_settime(timer, 0, &every, NULL);
        }
        struct step *st = steps[s] = calloc(1, sizeof *st);
        MPI_Request r[3];
        MPI_Status stt[3];
        MPI_Irecv(st->halo, N, MPI_DOUBLE, left, s, MPI_COMM_WORLD, &r[0]);
        current = st;
        st->cb.aio_fildes = fd;
        st->cb.aio_buf = field;
        st->cb.aio_nbytes = sizeof field;
        st->cb.aio_offset = 0;
        if (aio_write(&st->cb) != 0)
            errors++;
        MPI_Irecv(lb->halo, N, MPI_DOUBLE, left, 1000 + s, MPI_COMM_WORLD, &r[1]);
        for (int i = 0; i < LOG; i++)
            lb->log[i] = rank + s + i * 1e-3;
        MPI_Request w;
        MPI_File_iwrite_at(fh, (MPI_Offset)rank * LOG * sizeof(double), lb->log, LOG, MPI_DOUBLE, &w);
        for (int i = 0; i < N; i++)
            out[i] = rank * 100.0 + s + i;
        MPI_Send(out, N, MPI_DOUBLE, right, s, MPI_COMM_WORLD);
        MPI_Isend(out, N, MPI_DOUBLE, right, 1000 + s, MPI_COMM_WORLD, &r[2]);
        MPI_Status ws;
        MPI_Wait(&w, &ws);
        int written;
        MPI_Get_count(&ws, MPI_DOUBLE, &written);
        if (written != LOG)
            errors++;
        MPI_Waitall(3, r, stt);
        current = NULL;
        if (st->halo[3] != left * 100.0 + s + 3 || lb->halo[5] != left * 100.0 + s + 5)
            errors++;
        while (aio_error(&st->cb) == EINPROGRESS)
            ;
        if (aio_return(&st->cb) != (ssize_t)sizeof field)
            errors++;
        for (int i = 0; i < N; i++)
            field[i] = st->halo[i] * 0.5;
        if (s % 4 == 3) {
            struct aiocb sum = {0}, *list[1] = {&sum};
            sum.aio_fildes = fd;
            sum.aio_buf = field;
            sum.aio_nbytes = sizeof field;
            sum.aio_offset = sizeof field;
            sum.aio_lio_opcode = LIO_WRITE;
            if (lio_listio(LIO_WAIT, list, 1, NULL) != 0 || aio_return(&sum) != (ssize_t)sizeof field)
                errors++;
        }
    }
    timer_delete(timer);
    for (int s = 0; s < STEPS; s++)
        free(steps[s]);
    MPI_File_close(&fh);
    close(fd);
    unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        unlink(logpath);
    free(lb);
    int all;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf("ok_async_io_beside_pending: OK\n");
    MPI_Finalize();
    return all != 0;
}
