/*
 * Processes the program starts, and the watched pages.
 *
 * A command started while a receive is pending reads the program's
 * memory around it: execve(2) reads the arguments and the environment
 * (the MPI library's setenv calls put the environment on the heap, a
 * putenv string may lie anywhere), and posix_spawn's child, which shares
 * the parent's memory until it execs, runs its file actions with every
 * signal blocked and every handler reset. On a watched page the kernel
 * answers EFAULT, or the child dies: system(3), popen(3) and
 * posix_spawn(3) failed now and then, a forked child's exec too.
 *
 * So:
 * - posix_spawn, posix_spawnp, system and popen hold every page open
 *   while they run (tr_hold): system for the whole command, since it
 *   spawns and waits inside glibc. Other threads' accesses meanwhile are
 *   not seen.
 * - A child made by fork is not the rank: it gives every page its
 *   original protection and holds them open for good, and its tracker is
 *   off (nothing it does is reported). Its calls of the program's
 *   execve and the rest then find nothing protected.
 * - vfork (track_twice.S: the child returns twice through the caller's
 *   frame, which C cannot) holds every page open from before the system
 *   call until the parent runs again, after the child's exec or exit:
 *   CPython's subprocess starts commands so.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>

#include "shim.h"
#include "track_int.h"

/* begin: hold every page open when the tracker runs; 1 when it held */
static int begin(void)
{
    if (!__atomic_load_n(&mpidbg_track_on, __ATOMIC_ACQUIRE))
        return 0;
    mpidbg_track_hold(1);
    return 1;
}

static void end(int held)
{
    if (held)
        mpidbg_track_hold(-1);
}

typedef int (*spawn_fn)(pid_t *, const char *, const posix_spawn_file_actions_t *, const posix_spawnattr_t *,
                        char *const[], char *const[]);

static int spawn(void **cache, const char *name, pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
                 const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
    spawn_fn real = (spawn_fn)mpidbg_next_symbol(cache, name);
    if (!real)
        return ENOSYS;
    int held = begin();
    int rc = real(pid, path, fa, attr, argv, envp);
    end(held);
    return rc;
}

int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa, const posix_spawnattr_t *attr,
                char *const argv[], char *const envp[])
{
    static void *cache;
    return spawn(&cache, "posix_spawn", pid, path, fa, attr, argv, envp);
}

int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa, const posix_spawnattr_t *attr,
                 char *const argv[], char *const envp[])
{
    static void *cache;
    return spawn(&cache, "posix_spawnp", pid, file, fa, attr, argv, envp);
}

int system(const char *command)
{
    static void *cache;
    int (*real)(const char *) = (int (*)(const char *))mpidbg_next_symbol(&cache, "system");
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    int held = begin();
    int rc = real(command);
    end(held);
    return rc;
}

FILE *popen(const char *command, const char *mode)
{
    static void *cache;
    FILE *(*real)(const char *, const char *) = (FILE * (*)(const char *, const char *))mpidbg_next_symbol(&cache, "popen");
    if (!real) {
        errno = ENOSYS;
        return NULL;
    }
    int held = begin();
    FILE *f = real(command, mode);
    end(held);
    return f;
}

/* vfork's halves in C (track_twice.S): the return address, kept in the
 * thread's storage, the hold, and the parent's result */
__thread void *mpidbg_vfork_ra __attribute__((tls_model("initial-exec"), visibility("hidden")));
static __thread int vfork_held __attribute__((tls_model("initial-exec")));

__attribute__((visibility("hidden"))) void mpidbg_vfork_begin(void);
__attribute__((visibility("hidden"))) long mpidbg_vfork_end(long rc);

void mpidbg_vfork_begin(void)
{
    vfork_held = begin();
}

long mpidbg_vfork_end(long rc)
{
    end(vfork_held);
    vfork_held = 0;
    if ((unsigned long)rc > -4096ul) {
        errno = (int)-rc;
        return -1;
    }
    return rc;
}

/* In a child made by fork: one thread, the others' locks maybe held, so
 * nothing here locks. */
static void fork_child(void)
{
    if (!__atomic_load_n(&mpidbg_track_on, __ATOMIC_ACQUIRE))
        return;
    __atomic_store_n(&mpidbg_track_on, 0, __ATOMIC_RELEASE);
    __atomic_add_fetch(&tr_holders, 1, __ATOMIC_SEQ_CST);
    tr_let_go_all();
}

void tr_spawn_init(void)
{
    pthread_atfork(NULL, NULL, fork_child);
}
