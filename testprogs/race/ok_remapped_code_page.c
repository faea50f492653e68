// ranks: 2
//
// ok_remapped_code_page.c: a rank that runs generated code in a sandbox.
// Each rank receives a block of parameters into a page it maps for the
// purpose, completes the receive, unmaps the page, and maps a code page
// at the same address (the kernel may hand it out again at any time;
// MAP_FIXED makes it certain here), writes a small function into it and
// makes it executable. It then runs the function in a forked child, as
// a sandbox, and in itself.
// Follows MPI-4.1 §3.7.3: the receive buffer is the program's again once
// MPI_Wait completed the receive; what the program maps there later is
// its own.
// Correct: must produce no findings, and the code must run in the child
// and in the rank (a checker that gave the page the protection it had
// when it was a receive buffer would take execution away).
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

enum { PAGE = 4096 };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int ok = 1;
    for (int round = 0; round < 3; round++) {
        int *params = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (params == MAP_FAILED)
            MPI_Abort(MPI_COMM_WORLD, 2);
        int mine[4] = {rank, round, 40 + round, 0};
        MPI_Request r;
        MPI_Irecv(params, 4, MPI_INT, (rank + size - 1) % size, round, MPI_COMM_WORLD, &r);
        MPI_Send(mine, 4, MPI_INT, (rank + 1) % size, round, MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        int value = params[2];
        munmap(params, PAGE);
        unsigned char *code =
            mmap(params, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        if (code == MAP_FAILED)
            MPI_Abort(MPI_COMM_WORLD, 2);
        /* mov eax, value; ret */
        unsigned char fn_bytes[6] = {0xb8, 0, 0, 0, 0, 0xc3};
        memcpy(fn_bytes + 1, &value, 4);
        memcpy(code, fn_bytes, sizeof fn_bytes);
        mprotect(code, PAGE, PROT_READ | PROT_EXEC);
        int (*fn)(void) = (int (*)(void))(void *)code;
        pid_t pid = fork();
        if (pid == 0)
            _exit(fn());
        int st = 0;
        if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 40 + round)
            ok = 0;
        if (fn() != 40 + round)
            ok = 0;
        munmap(code, PAGE);
    }
    int all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    MPI_Finalize();
    if (!all)
        return 1;
    if (rank == 0)
        printf("ok_remapped_code_page: OK\n");
    return 0;
}
