// ranks: 2
// flags: --deadlock-timeout=300ms
//
// ok_stopped_rank.c: a rank that is not given the CPU for a while is not
// deadlocked. Rank 0 asks rank 1 for a value and waits in MPI_Recv; rank
// 1 stops rank 0's process (SIGSTOP) for 1.5 s, as job control, a
// debugger or an overloaded node would, sends the value and waits in
// MPI_Recv for rank 0's acknowledgement. For those 1.5 s every rank is
// blocked and nothing changes, five times the deadlock timeout, yet the
// message rank 0 waits for has been sent: once it runs again it takes it
// and answers. A child process of rank 1 (fork: rank 1 itself is inside
// MPI_Recv by then) sends SIGCONT. On different hosts nobody is stopped.
// Follows MPI-4.1 §3.5 (progress: the receive completes once the
// matching send has started) and §3.4 (a standard send of 8 bytes may
// complete before the receive is posted, or not; either way rank 0's
// receive matches it).
// Every value is checked.
// Correct: must produce no findings.
#define _DEFAULT_SOURCE // usleep
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

struct hello {
    long pid;
    char host[64];
};

int main(int argc, char **argv)
{
    int rank, size, errors = 0, total = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "ok_stopped_rank: needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    struct hello me = {.pid = (long)getpid()};
    gethostname(me.host, sizeof me.host - 1);
    if (rank == 0) {
        double value = 0, ack = 1.0;
        MPI_Send(&me, (int)sizeof me, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(&value, 1, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (value != 42.5)
            errors++;
        MPI_Send(&ack, 1, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD);
    } else {
        struct hello peer;
        double value = 42.5, ack = 0;
        pid_t child = -1;
        MPI_Recv(&peer, (int)sizeof peer, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        peer.host[sizeof peer.host - 1] = 0;
        usleep(300 * 1000); // rank 0 is in MPI_Recv by now, and said so
        if (strcmp(peer.host, me.host) == 0 && kill((pid_t)peer.pid, SIGSTOP) == 0) {
            child = fork();
            if (child == 0) {
                usleep(1500 * 1000);
                kill((pid_t)peer.pid, SIGCONT);
                _exit(0);
            }
            if (child < 0)
                kill((pid_t)peer.pid, SIGCONT);
        }
        MPI_Send(&value, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
        MPI_Recv(&ack, 1, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (child > 0)
            waitpid(child, NULL, 0);
        if (ack != 1.0)
            errors++;
    }
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(total ? "ok_stopped_rank: %d wrong values\n" : "ok_stopped_rank: OK\n", total);
    MPI_Finalize();
    return total != 0;
}
