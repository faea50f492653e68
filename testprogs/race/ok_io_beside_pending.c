// ranks: 2
//
// ok_io_beside_pending.c: while receives into heap buffers and sends
// from them are pending, the program does a lot of I/O with memory that
// shares their pages. It prints 2000 lines through stdout, whose buffer
// stdio allocates at the first output, right after the receive buffer
// (as a C++ program's std::vector allocated before its first output);
// writes a message through unbuffered stderr and a 12000-byte block
// through fwrite (both reach the kernel straight from the program's
// memory, the block including the pending send buffer, which may be
// read); and moves data beside the pending buffers with write(2),
// read(2), pwrite(2), pread(2), writev(2), readv(2), send(2)/recv(2),
// sendto(2)/recvfrom(2) and sendmsg(2)/recvmsg(2) on socket pairs (the
// message header and iovec arrays on those pages too), fread and fgets;
// and it writes 1000 lines to a log stream whose buffer (set with
// setvbuf) shares a page with a third pending receive, then reads them
// back through the same stream.
// It touches the pending buffers only after MPI_Waitall, except to read
// the send buffer (MPI-4.1 §3.7.2, §3.7.3); the memory beside them is the
// program's at any time.
// Correct: must produce no findings, and every byte must arrive: no call
// may fail (on a page the tracker protects the kernel answers EFAULT
// instead of faulting, and stdio drops its buffer). Standard output and
// standard error go to files during the I/O; the program reads them back,
// compares them with what it wrote, and prints its OK line on the real
// standard output.
#define _GNU_SOURCE
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

enum { PAGE = 4096, LINES = 2000, NV = 64, NT = 64, NS = 128, NS2 = 64, NT2 = 64, BLOCK = 6 * PAGE, FWRITE_LEN = 12000, LOGLINES = 1000 };

static int errors, saved_err = 2;

/* diagnostics go to the real standard error, not to the file standing in for it */
static void fail(const char *what, long got, long want)
{
    char line[256];
    int n = snprintf(line, sizeof line, "ok_io_beside_pending: %s: got %ld, want %ld\n", what, got, want);
    if (write(saved_err, line, (size_t)n) < 0)
        errors++;
    errors++;
}

#define EXPECT(what, got, want)                                                \
    do {                                                                       \
        long got_ = (long)(got), want_ = (long)(want);                         \
        if (got_ != want_)                                                     \
            fail(what, got_, want_);                                           \
    } while (0)

static void fill(char *p, size_t n, int seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (char)('a' + (int)((i * 7 + (size_t)seed) % 26));
}

static int same(const char *p, size_t n, int seed)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != (char)('a' + (int)((i * 7 + (size_t)seed) % 26)))
            return 0;
    return 1;
}

/* poll: an MPI call between the program's stores beside the buffers and
 * its next I/O call, as a program polling its requests makes; mpidbg
 * protects again the pages those stores left open */
static void poll(void)
{
    int flag;
    MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
}

/* scratch: a file of its own, gone when closed */
static int scratch(void)
{
    char name[] = "/tmp/ok_io_beside_pending_XXXXXX";
    int fd = mkstemp(name);
    if (fd >= 0)
        unlink(name);
    return fd;
}

/* slurp reads a whole file from its start */
static char *slurp(int fd, long *len)
{
    long n = (long)lseek(fd, 0, SEEK_END), got = 0;
    char *p = malloc((size_t)n + 1);
    lseek(fd, 0, SEEK_SET);
    while (p && got < n) {
        ssize_t k = read(fd, p + got, (size_t)(n - got));
        if (k <= 0)
            break;
        got += k;
    }
    *len = got;
    return p;
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = 1 - rank;

    /* standard output and error go to files while the receives are pending */
    int outfd = scratch(), errfd = scratch(), saved_out = dup(1);
    saved_err = dup(2);
    EXPECT("scratch files", outfd >= 0 && errfd >= 0 && saved_out >= 0 && saved_err >= 0, 1);
    dup2(outfd, 1);
    dup2(errfd, 2);

    /* a page-aligned block of six pages: a send in the last 512 bytes of
     * the first, the second receive in the last 256 bytes of the third,
     * another send in the first 256 bytes of the fourth, a third receive
     * in the last 256 bytes of the sixth */
    char *raw = malloc(BLOCK + PAGE);
    char *blk = (char *)(((uintptr_t)raw + PAGE - 1) & ~(uintptr_t)(PAGE - 1));
    int *tail = (int *)(blk + 3 * PAGE - NT * sizeof(int));
    int *sendbuf = (int *)(blk + PAGE - NS * sizeof(int));
    int *sendbuf2 = (int *)(blk + 3 * PAGE);
    int *tail2 = (int *)(blk + 6 * PAGE - NT2 * sizeof(int));
    char *logbuf = blk + 5 * PAGE; /* a log stream's buffer beside the third receive */
    char *a = blk, *c = blk + 2 * PAGE; /* memory beside the send (3584 bytes), beside the second receive (3840) */
    fill(blk, BLOCK, 0);
    for (int i = 0; i < NS; i++)
        sendbuf[i] = rank * 10000 + i;
    for (int i = 0; i < NS2; i++)
        sendbuf2[i] = rank * 20000 + i;

    MPI_Request req[5];
    MPI_Irecv(tail, NT, MPI_INT, peer, 2, MPI_COMM_WORLD, &req[1]);
    MPI_Irecv(tail2, NT2, MPI_INT, peer, 5, MPI_COMM_WORLD, &req[4]);
    MPI_Isend(sendbuf, NS, MPI_INT, peer, 3, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(sendbuf2, NS2, MPI_INT, peer, 4, MPI_COMM_WORLD, &req[3]);

    /* the receive buffer of the C++ program's vector, allocated before the
     * first output: stdout's buffer (unless MPI made the stream
     * unbuffered) is allocated next, as a rule on the same page */
    double *out = malloc(NV * sizeof *out), *in = malloc(NV * sizeof *in);
    for (int i = 0; i < NV; i++)
        out[i] = rank * 1000 + i;
    MPI_Irecv(in, NV, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, &req[0]);

    /* stdout's buffer is allocated now, beside the pending receive */
    for (int i = 0; i < LINES; i++)
        if (printf("rank %d line %d of %d\n", rank, i, LINES) < 0)
            fail("printf", i, -1);
    /* a block larger than stdout's buffer: written from the program's memory, send buffer included */
    poll();
    EXPECT("fwrite", fwrite(blk, 1, FWRITE_LEN, stdout), FWRITE_LEN);
    poll();
    EXPECT("fflush(stdout)", fflush(stdout), 0);
    EXPECT("ferror(stdout)", ferror(stdout), 0);

    /* unbuffered stderr writes the string itself */
    char *msg = c + 100;
    snprintf(msg, 64, "rank %d: a message beside a pending receive\n", rank);
    poll();
    EXPECT("fputs(stderr)", fputs(msg, stderr) >= 0, 1);

    /* write(2), then pread(2), pwrite(2), read(2) beside both pending buffers */
    int fd = scratch();
    fill(c, 1000, 1);
    poll();
    EXPECT("write", write(fd, c, 1000), 1000);
    poll();
    EXPECT("pread", pread(fd, a, 1000, 0), 1000);
    EXPECT("pread data", same(a, 1000, 1), 1);
    fill(a + 1000, 500, 2);
    poll();
    EXPECT("pwrite", pwrite(fd, a + 1000, 500, 1000), 500);
    lseek(fd, 0, SEEK_SET);
    poll();
    EXPECT("read", read(fd, c + 1000, 1500), 1500);
    EXPECT("read data", same(c + 1000, 1000, 1) && same(c + 2000, 500, 2), 1);

    /* writev(2) and readv(2), the iovec arrays beside the receive */
    struct iovec *iov = (struct iovec *)(c + 3000);
    fill(a + 2000, 300, 3);
    fill(c + 2600, 200, 4);
    iov[0] = (struct iovec){a + 2000, 300};
    iov[1] = (struct iovec){c + 2600, 200};
    poll();
    EXPECT("writev", writev(fd, iov, 2), 500);
    memset(a + 2400, 0, 300);
    memset(c + 2000, 0, 200);
    iov[0] = (struct iovec){c + 2000, 200};
    iov[1] = (struct iovec){a + 2400, 300};
    poll();
    EXPECT("preadv", preadv(fd, iov, 2, 1500), 500);
    EXPECT("preadv data", same(c + 2000, 200, 3) && same(a + 2400, 100, 3 + 200 * 7) && same(a + 2500, 200, 4), 1);
    lseek(fd, 1500, SEEK_SET);
    poll();
    EXPECT("readv", readv(fd, iov, 2), 500);
    close(fd);

    /* a stream socket pair: send(2) and recv(2); the receiving calls do
     * not wait (the data is there already), so that a failed send fails
     * the program rather than hanging it */
    int sv[2];
    EXPECT("socketpair(STREAM)", socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    fill(c, 700, 5);
    poll();
    EXPECT("send", send(sv[0], c, 700, 0), 700);
    memset(a, 0, 700);
    long got = 0;
    poll();
    while (got < 700) {
        ssize_t k = recv(sv[1], a + got, (size_t)(700 - got), MSG_DONTWAIT);
        if (k <= 0) {
            fail("recv", k, 700 - got);
            break;
        }
        got += k;
    }
    EXPECT("recv data", same(a, 700, 5), 1);
    /* sendmsg(2) and recvmsg(2): header, iovec array and data beside the buffers */
    struct msghdr *mh = (struct msghdr *)(c + 3200);
    iov = (struct iovec *)(c + 3400);
    fill(a + 1000, 100, 6);
    fill(c + 1000, 50, 7);
    iov[0] = (struct iovec){a + 1000, 100};
    iov[1] = (struct iovec){c + 1000, 50};
    memset(mh, 0, sizeof *mh);
    mh->msg_iov = iov;
    mh->msg_iovlen = 2;
    poll();
    EXPECT("sendmsg", sendmsg(sv[0], mh, 0), 150);
    memset(c + 1200, 0, 150);
    iov[0] = (struct iovec){c + 1200, 150};
    memset(mh, 0, sizeof *mh);
    mh->msg_iov = iov;
    mh->msg_iovlen = 1;
    poll();
    EXPECT("recvmsg", recvmsg(sv[1], mh, MSG_DONTWAIT), 150);
    EXPECT("recvmsg data", same(c + 1200, 100, 6) && same(c + 1300, 50, 7), 1);
    close(sv[0]);
    close(sv[1]);

    /* a datagram pair: sendto(2) and recvfrom(2), the address beside the receive */
    EXPECT("socketpair(DGRAM)", socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0);
    fill(a + 3000, 300, 8);
    poll();
    EXPECT("sendto", sendto(sv[0], a + 3000, 300, 0, NULL, 0), 300);
    socklen_t *fromlen = (socklen_t *)(c + 3600);
    *fromlen = sizeof(struct sockaddr_un);
    poll();
    EXPECT("recvfrom", recvfrom(sv[1], c + 2000, 300, MSG_DONTWAIT, (struct sockaddr *)(c + 3700), fromlen), 300);
    EXPECT("recvfrom data", same(c + 2000, 300, 8), 1);
    close(sv[0]);
    close(sv[1]);

    /* stdio reading a file: fread reads the first 4096 bytes of a block
     * larger than the stream's buffer straight into the program's memory
     * (here from beside the second send), fgets through the buffer */
    fd = scratch();
    char *into = blk + 3 * PAGE + NS2 * sizeof(int);
    fill(into, 7600, 9);
    EXPECT("write(2) for fread", write(fd, into, 7600), 7600);
    EXPECT("write(2) for fgets", write(fd, "first line\nsecond line\n", 23), 23);
    lseek(fd, 0, SEEK_SET);
    FILE *f = fdopen(fd, "r");
    memset(into, 0, 7600);
    poll();
    EXPECT("fread", fread(into, 1, 7600, f), 7600);
    EXPECT("fread data", same(into, 7600, 9), 1);
    poll();
    EXPECT("fgets", fgets(c + 3000, 64, f) != NULL && strcmp(c + 3000, "first line\n") == 0, 1);
    poll();
    EXPECT("fgets", fgets(c + 3000, 64, f) != NULL && strcmp(c + 3000, "second line\n") == 0, 1);
    fclose(f);

    /* a log stream whose buffer the program gave it, beside the third
     * receive: stdio writes the lines out of it and reads them back into it */
    FILE *log = fdopen(scratch(), "w+");
    EXPECT("setvbuf", log != NULL && setvbuf(log, logbuf, _IOFBF, 2048) == 0, 1);
    poll();
    for (int i = 0; i < LOGLINES && log; i++)
        if (fprintf(log, "rank %d log line %d\n", rank, i) < 0)
            fail("fprintf(log)", i, -1);
    poll();
    EXPECT("fflush(log)", log ? fflush(log) : 0, 0);
    poll();
    if (log)
        rewind(log);
    char line[64];
    for (int i = 0; i < LOGLINES && log; i++) {
        char want[64];
        snprintf(want, sizeof want, "rank %d log line %d\n", rank, i);
        if (!fgets(line, sizeof line, log) || strcmp(line, want) != 0) {
            fail("log line read back", i, -1);
            break;
        }
    }
    EXPECT("ferror(log)", log ? ferror(log) : 0, 0);
    if (log)
        fclose(log);

    for (int i = 0; i < LINES; i++)
        if (printf("rank %d after the I/O %d\n", rank, i) < 0)
            fail("printf", i, -1);

    /* the peer's messages, then the buffers */
    int tailsrc[NT], echo[NS], echo2[NS2], tail2src[NT2];
    for (int i = 0; i < NT2; i++)
        tail2src[i] = rank * 300 + i;
    for (int i = 0; i < NT; i++)
        tailsrc[i] = rank * 100 + i;
    MPI_Send(out, NV, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD);
    MPI_Send(tailsrc, NT, MPI_INT, peer, 2, MPI_COMM_WORLD);
    MPI_Send(tail2src, NT2, MPI_INT, peer, 5, MPI_COMM_WORLD);
    MPI_Recv(echo, NS, MPI_INT, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(echo2, NS2, MPI_INT, peer, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Status st[5];
    MPI_Waitall(5, req, st);
    for (int i = 0; i < NV; i++)
        EXPECT("received vector", in[i], peer * 1000 + i);
    for (int i = 0; i < NT; i++)
        EXPECT("received tail", tail[i], peer * 100 + i);
    for (int i = 0; i < NT2; i++)
        EXPECT("received second tail", tail2[i], peer * 300 + i);
    for (int i = 0; i < NS; i++)
        EXPECT("received block", echo[i], peer * 10000 + i);
    for (int i = 0; i < NS2; i++)
        EXPECT("received second block", echo2[i], peer * 20000 + i);

    /* what went to standard output and standard error, byte for byte */
    EXPECT("fflush", fflush(stdout) | fflush(stderr), 0);
    size_t cap = 2 * LINES * 40 + FWRITE_LEN, n = 0;
    char *want = malloc(cap);
    for (int i = 0; i < LINES; i++)
        n += (size_t)snprintf(want + n, cap - n, "rank %d line %d of %d\n", rank, i, LINES);
    char *block = want + n;
    fill(block, FWRITE_LEN, 0);
    for (int i = 0; i < NS; i++)
        memcpy(block + PAGE - NS * sizeof(int) + i * sizeof(int), &(int){rank * 10000 + i}, sizeof(int));
    n += FWRITE_LEN;
    for (int i = 0; i < LINES; i++)
        n += (size_t)snprintf(want + n, cap - n, "rank %d after the I/O %d\n", rank, i);
    long outlen, errlen;
    char *outtext = slurp(outfd, &outlen), *errtext = slurp(errfd, &errlen);
    EXPECT("standard output's length", outlen, n);
    EXPECT("standard output", outtext && outlen == (long)n && memcmp(outtext, want, n) == 0, 1);
    char errwant[64];
    snprintf(errwant, sizeof errwant, "rank %d: a message beside a pending receive\n", rank);
    EXPECT("standard error", errtext && errlen == (long)strlen(errwant) && memcmp(errtext, errwant, strlen(errwant)) == 0, 1);

    dup2(saved_out, 1);
    dup2(saved_err, 2);
    int all = 0;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf("ok_io_beside_pending: OK\n");
    free(want);
    free(outtext);
    free(errtext);
    free(in);
    free(out);
    free(raw);
    MPI_Finalize();
    return 0;
}
