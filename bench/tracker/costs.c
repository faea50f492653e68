/* What the access tracker's mechanisms cost on this machine, one by one,
 * outside MPI: the numbers behind the choice for stack buffers
 * (docs/races.md, "Stack buffers"). Not part of `make bench`:
 *
 *     cc -O2 -o /tmp/costs bench/tracker/costs.c && /tmp/costs
 *
 * Each line is the median over 21 batches of the time of one operation:
 *   mprotect           one mprotect of one page (write access off and on)
 *   fault+open         a store to a write-protected page, the SIGSEGV
 *                      handler opens the page (the tracker's library fault)
 *   fault+step         a store to a write-protected page that the handler
 *                      opens for one instruction with the trap flag and
 *                      protects again from SIGTRAP (a false hit)
 *   call, page watched a call from a frame whose page is write-protected,
 *                      every frame write stepped as a false hit (what a
 *                      watched first page of a stack buffer costs per call)
 *   hw arm             a debug register set on a variable (perf event
 *                      PERF_EVENT_IOC_MODIFY_ATTRIBUTES, then ENABLE)
 *   hw disarm          the same register turned off (DISABLE)
 *   hw trap            a store to the watched variable, SIGTRAP delivered
 *   hw open            perf_event_open + close of a breakpoint event
 */
#define _GNU_SOURCE
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "measure.h"

enum { BATCHES = 21 };

static char *page;            /* the protected page */
static volatile int stepping; /* 1: fault+step mode, 0: fault+open */
static volatile long traps;

static double now(void)
{
    return clock_ns(CLOCK_MONOTONIC);
}

static double median(double *v)
{
    return median_of(v, BATCHES);
}

static void on_segv(int sig, siginfo_t *si, void *ctx)
{
    (void)sig;
    (void)si;
    mprotect(page, 4096, PROT_READ | PROT_WRITE);
    if (stepping)
        ((ucontext_t *)ctx)->uc_mcontext.gregs[REG_EFL] |= 0x100;
}

static void on_trap(int sig, siginfo_t *si, void *ctx)
{
    (void)sig;
    traps++;
    if (si->si_code == 6) /* TRAP_PERF: a debug register */
        return;
    mprotect(page, 4096, PROT_READ);
    ((ucontext_t *)ctx)->uc_mcontext.gregs[REG_EFL] &= ~0x100;
}

/* a frame on the protected page: rsp is moved into it, then a call */
__attribute__((noinline)) static long callee(long x)
{
    volatile long l[4];
    l[0] = x;
    l[1] = l[0] + 1;
    return l[1];
}

static long call_on(char *stack_top, long x)
{
    long r;
    /* switch the stack pointer to just above the protected page's middle
     * and make the call there: push of the return address, the callee's
     * frame, all on the page */
    __asm__ volatile("mov %%rsp, %%r12\n\t"
                     "mov %1, %%rsp\n\t"
                     "mov %2, %%rdi\n\t"
                     "call *%3\n\t"
                     "mov %%r12, %%rsp\n\t"
                     : "=a"(r)
                     : "r"(stack_top), "r"(x), "r"(callee)
                     : "r12", "rdi", "rsi", "rdx", "rcx", "r8", "r9", "r10", "r11", "memory");
    return r;
}

static int bp_open(volatile void *addr, int enabled)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.type = PERF_TYPE_BREAKPOINT;
    a.size = sizeof a;
    a.bp_type = HW_BREAKPOINT_W;
    a.bp_addr = (uintptr_t)addr;
    a.bp_len = 8;
    a.sample_period = 1;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    a.sigtrap = 1;
    a.remove_on_exec = 1;
    a.disabled = !enabled;
    return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

int main(void)
{
    static char alt[65536];
    stack_t ss = {.ss_sp = alt, .ss_size = sizeof alt};
    sigaltstack(&ss, NULL); /* the handlers must not run on the protected page */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sa.sa_sigaction = on_segv;
    sigaction(SIGSEGV, &sa, NULL);
    sa.sa_sigaction = on_trap;
    sigaction(SIGTRAP, &sa, NULL);
    char *stack = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    page = stack + 4096;
    double v[BATCHES];
    const int n = 2000;

    for (int b = 0; b < BATCHES; b++) {
        double t0 = now();
        for (int i = 0; i < n; i++)
            mprotect(page, 4096, i & 1 ? PROT_READ | PROT_WRITE : PROT_READ);
        v[b] = (now() - t0) / n;
    }
    printf("mprotect           %8.0f ns\n", median(v));

    stepping = 0;
    for (int b = 0; b < BATCHES; b++) {
        double t0 = now();
        for (int i = 0; i < n; i++) {
            mprotect(page, 4096, PROT_READ);
            ((volatile char *)page)[64] = (char)i;
        }
        v[b] = (now() - t0) / n;
    }
    printf("fault+open         %8.0f ns (with the mprotect that protects again)\n", median(v));

    stepping = 1;
    mprotect(page, 4096, PROT_READ);
    for (int b = 0; b < BATCHES; b++) {
        double t0 = now();
        for (int i = 0; i < n; i++)
            ((volatile char *)page)[64] = (char)i;
        v[b] = (now() - t0) / n;
    }
    printf("fault+step         %8.0f ns\n", median(v));

    long faults0 = traps;
    for (int b = 0; b < BATCHES; b++) {
        double t0 = now();
        for (int i = 0; i < n / 10; i++)
            call_on(page + 2048, i);
        v[b] = (now() - t0) / (n / 10);
    }
    printf("call, page watched %8.0f ns (%.1f stepped writes per call)\n", median(v),
           (double)(traps - faults0) / (BATCHES * (n / 10)));
    mprotect(page, 4096, PROT_READ | PROT_WRITE);
    stepping = 0;

    volatile long watched = 0;
    int fd = bp_open(&watched, 0);
    if (fd < 0) {
        perror("perf_event_open");
        return 0;
    }
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.type = PERF_TYPE_BREAKPOINT;
    a.size = sizeof a;
    a.bp_type = HW_BREAKPOINT_W;
    a.bp_addr = (uintptr_t)&watched;
    a.bp_len = 8;
    a.sample_period = 1;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    a.sigtrap = 1;
    a.remove_on_exec = 1;
    a.disabled = 1;
    double w[BATCHES];
    for (int b = 0; b < BATCHES; b++) {
        double arm = 0, disarm = 0;
        for (int i = 0; i < n; i++) {
            double t0 = now();
            ioctl(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &a);
            ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
            double t1 = now();
            ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
            disarm += now() - t1;
            arm += t1 - t0;
        }
        v[b] = arm / n;
        w[b] = disarm / n;
    }
    printf("hw arm             %8.0f ns\n", median(v));
    printf("hw disarm          %8.0f ns\n", median(w));
    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
    for (int b = 0; b < BATCHES; b++) {
        double t0 = now();
        for (int i = 0; i < n; i++)
            watched = i;
        v[b] = (now() - t0) / n;
    }
    printf("hw trap            %8.0f ns\n", median(v));
    close(fd);
    for (int b = 0; b < BATCHES; b++) {
        double t0 = now();
        for (int i = 0; i < n / 10; i++)
            close(bp_open(&watched, 1));
        v[b] = (now() - t0) / (n / 10);
    }
    printf("hw open            %8.0f ns\n", median(v));
    return 0;
}
