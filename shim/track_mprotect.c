/*
 * The program's own mprotect, and the protection the tracker gives back.
 *
 * The table of pages keeps each page's protection from before the
 * tracker first touched it (tr_page.orig), and gives it back when the
 * page's last range ends. A program that makes a page read-only itself
 * (a table frozen after setup, a checkpoint that write-protects the
 * pages it has saved to find the dirty ones) after the page was once a
 * pending buffer's got it writable again at the next operation's
 * completion there. So a successful mprotect of the program's updates
 * the original protection of the table's pages in its range, and a page
 * still watched is protected again as the tracker wants, from the new
 * protection. The tracker's own calls go to the system call directly
 * (tr_mprotect). A faulting access the program's protection forbids is
 * then not the tracker's: the fault handler chains it to the program's
 * handler, or to the default, as without the tracker (track_fault.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim.h"
#include "track_int.h"

int mprotect(void *addr, size_t len, int prot)
{
    int rc = (int)syscall(SYS_mprotect, addr, len, prot);
    if (rc != 0 || !__atomic_load_n(&mpidbg_track_on, __ATOMIC_ACQUIRE) || !len)
        return rc;
    int e = errno;
    /* a signal handler of the program may call it on a thread that holds
     * the lock: then the table is left as it is, rather than deadlock */
    int locked = 0;
    for (int i = 0; i < 1000 && !(locked = pthread_mutex_trylock(&tr_mu) == 0); i++)
        sched_yield();
    if (locked) {
        tr_reprotected((uint64_t)(uintptr_t)addr, (uint64_t)(uintptr_t)addr + len, prot);
        pthread_mutex_unlock(&tr_mu);
    }
    errno = e;
    return rc;
}
