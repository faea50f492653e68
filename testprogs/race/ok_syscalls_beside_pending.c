// ranks: 2
//
// ok_syscalls_beside_pending.c: a solver step that overlaps a halo
// receive with its housekeeping. While a receive and a send into heap
// buffers are pending, the program works with heap structures allocated
// right beside them, on the same pages: its run configuration (the path
// names of its output and checkpoint), a file-status cache, a poll set,
// a sleep interval, a seed, a host description, resource limits and
// usage, and temporary-file templates. It checks whether the last
// checkpoint exists (stat, lstat, fstatat, statx, access), opens its log
// with fopen and open, makes a scratch directory and file (mkdtemp,
// mkstemp), renames and removes files, reads a symbolic link and the
// working directory, polls a pipe (poll, ppoll, select, epoll), sleeps
// (nanosleep, clock_nanosleep), seeds itself (getrandom), names its host
// (uname) and reads its limits, usage and signal mask.
// It touches the pending buffers only after MPI_Waitall; the memory
// beside them is the program's at any time.
// Correct: must produce no findings, and every call must succeed as it
// does natively (on a page the tracker protects the kernel answers
// EFAULT instead of faulting). The program checks each result and
// prints its OK line only when all are right.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

enum { PAGE = 4096, NR = 96, NS = 64 };

static int errors;

#define EXPECT(what, cond)                                                              \
    do {                                                                                \
        if (!(cond)) {                                                                  \
            fprintf(stderr, "ok_syscalls_beside_pending: rank %d: %s failed (%s)\n", \
                    rank, what, strerror(errno));                                       \
            errors++;                                                                   \
        }                                                                               \
    } while (0)

/* what the program keeps beside its halo buffers */
struct config {
    char outdir[256], logname[256], ckpt[256], moved[256], link[256];
    char tmpdir[64], tmpfile[128];
};
struct housekeeping {
    struct stat st, lst, atst;
    struct statx sx;
    struct pollfd fds[2];
    fd_set rd;
    struct timeval tv;
    struct timespec nap, rem, pnap;
    struct epoll_event ev[2];
    unsigned char seed[32];
    struct utsname host;
    struct rlimit stack;
    struct rusage usage;
    sigset_t mask;
    char cwd[512], target[512];
    int pipe[2];
};

/* poll_mpi: an MPI call between two system calls, as a loop that tests its
 * requests makes; mpidbg protects the pages again there */
static void poll_mpi(void)
{
    int flag;
    MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = 1 - rank;

    /* one page-aligned block: the receive at the end of the first page,
     * the configuration after it on the same page; the send at the start
     * of the third page, the housekeeping structures after it */
    char *raw = malloc(5 * PAGE);
    char *blk = (char *)(((uintptr_t)raw + PAGE - 1) & ~(uintptr_t)(PAGE - 1));
    double *halo_in = (double *)(blk + PAGE - NR * sizeof(double));
    struct config *cfg = (struct config *)blk;
    double *halo_out = (double *)(blk + 2 * PAGE);
    struct housekeeping *hk = (struct housekeeping *)(blk + 2 * PAGE + NS * sizeof(double));
    if ((char *)(cfg + 1) > (char *)halo_in || (char *)(hk + 1) > blk + 4 * PAGE) {
        fprintf(stderr, "layout\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    memset(blk, 0, 4 * PAGE);
    for (int i = 0; i < NS; i++)
        halo_out[i] = rank * 100 + i;

    MPI_Request req[2];
    MPI_Irecv(halo_in, NR, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(halo_out, NS, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, &req[1]);

    /* the run's files, named in the configuration */
    snprintf(cfg->tmpdir, sizeof cfg->tmpdir, "/tmp/ok_syscalls_%d_XXXXXX", rank);
    poll_mpi();
    EXPECT("mkdtemp", mkdtemp(cfg->tmpdir) != NULL);
    snprintf(cfg->outdir, sizeof cfg->outdir, "%s/out", cfg->tmpdir);
    snprintf(cfg->logname, sizeof cfg->logname, "%s/solver.log", cfg->tmpdir);
    snprintf(cfg->ckpt, sizeof cfg->ckpt, "%s/step.ckpt", cfg->tmpdir);
    snprintf(cfg->moved, sizeof cfg->moved, "%s/step.ckpt.old", cfg->tmpdir);
    snprintf(cfg->link, sizeof cfg->link, "%s/latest", cfg->tmpdir);
    snprintf(cfg->tmpfile, sizeof cfg->tmpfile, "%s/scratchXXXXXX", cfg->tmpdir);
    poll_mpi();
    EXPECT("mkdir", mkdir(cfg->outdir, 0700) == 0);
    poll_mpi();
    EXPECT("access (no checkpoint yet)", access(cfg->ckpt, F_OK) == -1 && errno == ENOENT);

    poll_mpi();
    FILE *log = fopen(cfg->logname, "w");
    EXPECT("fopen", log != NULL);
    if (log) {
        fprintf(log, "rank %d starts\n", rank);
        fclose(log);
    }
    poll_mpi();
    int fd = open(cfg->ckpt, O_CREAT | O_WRONLY | O_TRUNC, 0600);
    EXPECT("open", fd >= 0);
    EXPECT("write", write(fd, "checkpoint\n", 11) == 11);
    close(fd);
    poll_mpi();
    EXPECT("symlink", symlink(cfg->ckpt, cfg->link) == 0);

    /* the checkpoint's status, four ways */
    poll_mpi();
    EXPECT("stat", stat(cfg->ckpt, &hk->st) == 0 && hk->st.st_size == 11);
    poll_mpi();
    EXPECT("lstat", lstat(cfg->link, &hk->lst) == 0 && S_ISLNK(hk->lst.st_mode));
    poll_mpi();
    EXPECT("fstatat", fstatat(AT_FDCWD, cfg->ckpt, &hk->atst, 0) == 0 && hk->atst.st_ino == hk->st.st_ino);
    poll_mpi();
    EXPECT("statx", statx(AT_FDCWD, cfg->ckpt, 0, STATX_SIZE, &hk->sx) == 0 && hk->sx.stx_size == 11);
    poll_mpi();
    fd = open(cfg->ckpt, O_RDONLY);
    EXPECT("fstat", fd >= 0 && fstat(fd, &hk->st) == 0 && hk->st.st_size == 11);
    if (fd >= 0)
        close(fd);
    poll_mpi();
    ssize_t n = readlink(cfg->link, hk->target, sizeof hk->target - 1);
    EXPECT("readlink", n == (ssize_t)strlen(cfg->ckpt) && memcmp(hk->target, cfg->ckpt, (size_t)n) == 0);
    poll_mpi();
    EXPECT("getcwd", getcwd(hk->cwd, sizeof hk->cwd) != NULL && hk->cwd[0] == '/');
    poll_mpi();
    EXPECT("rename", rename(cfg->ckpt, cfg->moved) == 0);
    poll_mpi();
    fd = mkstemp(cfg->tmpfile);
    EXPECT("mkstemp", fd >= 0);
    if (fd >= 0)
        close(fd);

    /* a pipe polled four ways */
    poll_mpi();
    EXPECT("pipe", pipe(hk->pipe) == 0);
    EXPECT("write to the pipe", write(hk->pipe[1], "x", 1) == 1);
    hk->fds[0] = (struct pollfd){hk->pipe[0], POLLIN, 0};
    hk->fds[1] = (struct pollfd){hk->pipe[1], POLLOUT, 0};
    poll_mpi();
    EXPECT("poll", poll(hk->fds, 2, 1000) == 2 && (hk->fds[0].revents & POLLIN));
    hk->pnap = (struct timespec){1, 0};
    poll_mpi();
    EXPECT("ppoll", ppoll(hk->fds, 2, &hk->pnap, NULL) == 2);
    FD_ZERO(&hk->rd);
    FD_SET(hk->pipe[0], &hk->rd);
    hk->tv = (struct timeval){1, 0};
    poll_mpi();
    EXPECT("select", select(hk->pipe[0] + 1, &hk->rd, NULL, NULL, &hk->tv) == 1 && FD_ISSET(hk->pipe[0], &hk->rd));
    int ep = epoll_create1(0);
    hk->ev[0] = (struct epoll_event){.events = EPOLLIN, .data.fd = hk->pipe[0]};
    poll_mpi();
    EXPECT("epoll_ctl", ep >= 0 && epoll_ctl(ep, EPOLL_CTL_ADD, hk->pipe[0], &hk->ev[0]) == 0);
    memset(hk->ev, 0, sizeof hk->ev);
    poll_mpi();
    EXPECT("epoll_wait", epoll_wait(ep, hk->ev, 2, 1000) == 1 && hk->ev[0].data.fd == hk->pipe[0]);
    close(ep);

    /* a short nap, a seed, the host, the limits */
    hk->nap = (struct timespec){0, 100000};
    poll_mpi();
    EXPECT("nanosleep", nanosleep(&hk->nap, &hk->rem) == 0);
    poll_mpi();
    EXPECT("clock_nanosleep", clock_nanosleep(CLOCK_MONOTONIC, 0, &hk->nap, &hk->rem) == 0);
    poll_mpi();
    EXPECT("getrandom", getrandom(hk->seed, sizeof hk->seed, 0) == (ssize_t)sizeof hk->seed);
    poll_mpi();
    EXPECT("uname", uname(&hk->host) == 0 && hk->host.sysname[0] != 0);
    poll_mpi();
    EXPECT("getrlimit", getrlimit(RLIMIT_STACK, &hk->stack) == 0);
    poll_mpi();
    EXPECT("getrusage", getrusage(RUSAGE_SELF, &hk->usage) == 0);
    poll_mpi();
    EXPECT("sigprocmask", sigprocmask(SIG_BLOCK, NULL, &hk->mask) == 0);

    /* clean up the run's files */
    poll_mpi();
    EXPECT("unlink", unlink(cfg->moved) == 0 && unlink(cfg->link) == 0 && unlink(cfg->logname) == 0 &&
                         unlink(cfg->tmpfile) == 0);
    poll_mpi();
    EXPECT("rmdir", rmdir(cfg->outdir) == 0 && rmdir(cfg->tmpdir) == 0);
    close(hk->pipe[0]);
    close(hk->pipe[1]);

    MPI_Status stat[2];
    MPI_Waitall(2, req, stat);
    for (int i = 0; i < NS; i++)
        if (halo_in[i] != peer * 100 + i) {
            fprintf(stderr, "rank %d: halo_in[%d] = %g\n", rank, i, halo_in[i]);
            errors++;
            break;
        }
    int all;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf("ok_syscalls_beside_pending: OK\n");
    free(raw);
    MPI_Finalize();
    return all != 0;
}
