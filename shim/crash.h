/*
 * How a rank ends: its fatal signals (crash.c), MPI_Abort and an exit
 * without MPI_Finalize (ending.c), each told to mpidbg.
 */
#ifndef MPIDBG_CRASH_H
#define MPIDBG_CRASH_H

#include <stdint.h>

#define CRASH_NSIG 5

/* mpidbg_crash_init installs the fatal-signal handlers (after the Go
 * runtime's, before the race tracker's); fd is the shim's own copy of the
 * launcher connection, -1 without one. */
void mpidbg_crash_init(int fd) __attribute__((visibility("hidden")));
void mpidbg_crash_fini(void) __attribute__((visibility("hidden")));
extern int mpidbg_crashed __attribute__((visibility("hidden"))); /* a fatal signal was reported */
/* the fatal signals whose program handler this thread runs (crash.c),
 * a bit per crash.c's index; a jump out of the handler clears them */
extern __thread unsigned mpidbg_in_own_handler __attribute__((visibility("hidden"), tls_model("initial-exec")));

/* mpidbg_crash_before_init takes the handlers the program has at
 * MPI_Init's entry: the program's own, which crash.c calls itself. */
void mpidbg_crash_before_init(void) __attribute__((visibility("hidden")));

/* mpidbg_ending_init arms the exit hook (MPI_Init; the hook is registered
 * by a constructor); the fini says MPI_Finalize was reached; aborting
 * says the rank is calling MPI_Abort (the program, or the shim for
 * --on-error abort). */
void mpidbg_ending_init(void) __attribute__((visibility("hidden")));
void mpidbg_ending_fini(void) __attribute__((visibility("hidden")));
extern int mpidbg_aborting __attribute__((visibility("hidden")));

/* mpidbg_break is where debuggers stop: on a finding (finding.c), and,
 * with f NULL, in the exit of a rank a debugger attached to. */
struct mpidbg_finding;
void mpidbg_break(const struct mpidbg_finding *f);

/* mpidbg_debugger_exit makes that stop (debugger.c). */
void mpidbg_debugger_exit(int status) __attribute__((visibility("hidden")));

/* mpidbg_on_error_abort says MPIDBG_ON_ERROR is abort (finding.c). */
int mpidbg_on_error_abort(void) __attribute__((visibility("hidden")));

/* Go entry points (outcome.go) */
extern int mpidbg_go_report_fd(void);
extern void mpidbg_go_exit(int32_t status, uint64_t site, int how);
extern void mpidbg_go_abort(int32_t code, const char *comm, uint64_t site);
extern void mpidbg_go_report_drain(void);

#endif
