/*
 * Python programs (python.c): the calls a Python script makes through
 * mpi4py are named by the script's line, not by the extension module's
 * code. Included by shim.h.
 */
#ifndef MPIDBG_PYTHON_H
#define MPIDBG_PYTHON_H

#include <stdint.h>

#define MPIDBG_NPYTEXT 4

/* mpidbg_npy is how many of mpi4py's extension modules (its MPI module)
 * mpidbg_pytext holds the code of: 0 in any process that is not CPython
 * 3.11 (every C, C++ and Fortran program), so that mpidbg_enter pays one
 * predictable branch there; -1 in CPython 3.11 while no mpi4py module is
 * known (MPI initialised before mpi4py.MPI was imported). */
extern int mpidbg_npy __attribute__((visibility("hidden")));
extern struct mpidbg_pytext_range {
    uintptr_t lo, hi;
} mpidbg_pytext[MPIDBG_NPYTEXT] __attribute__((visibility("hidden")));

/* mpidbg_python_init looks for CPython 3.11 and its extension modules;
 * called once MPI is initialised (mpi4py's import initialises it, after
 * its module is loaded; when something else initialised MPI first,
 * mpidbg_python_site looks again at the first call from mpi4py's
 * directory). */
__attribute__((visibility("hidden"))) void mpidbg_python_init(void);

/* mpidbg_python_site is the site of a call whose return address is ra:
 * when ra lies in mpi4py's module and the calling thread runs Python
 * code, a Python site (MPIDBG_PYSITE_TAG, reg.h) naming the script's
 * line; otherwise ra itself. Never takes the GIL. */
__attribute__((visibility("hidden"))) uint64_t mpidbg_python_site(uintptr_t ra);

/* mpidbg_python_frames reads the calling thread's innermost Python
 * frames (code object and instruction of each, innermost first, at most
 * max) for a fault the program took outside MPI calls; async-signal-safe.
 * It returns how many it read: 0 when the thread runs no Python code.
 * Several, because the innermost may be a library's (numpy's sum reading
 * the buffer), which the site skips for the program's own caller. */
#define MPIDBG_PY_FRAMES 6
__attribute__((visibility("hidden"))) int mpidbg_python_frames(uint64_t *code, uint32_t *offset, int max);

/* mpidbg_python_site_at interns what mpidbg_python_frames read, later and
 * outside the signal handler: the Python site of the innermost frame
 * that is the program's, or native when none is (or a code object is no
 * longer one). The code objects may have been freed and their memory
 * unmapped meanwhile: they are read without faulting. */
__attribute__((visibility("hidden"))) uint64_t mpidbg_python_site_at(const uint64_t *code, const uint32_t *offset, int n,
                                                                    uint64_t native);

/* mpidbg_python_site_code codes a Python site for another rank
 * (mpidbg_site_code, sites.c): mod is the hash of the script's file name,
 * off has MPIDBG_PYSITE_TAG, the hash of the function's name and the line. */
__attribute__((visibility("hidden"))) void mpidbg_python_site_code(uint64_t site, uint64_t *off, uint32_t *mod);

/* mpidbg_fnv is the hash sites.c names modules by. */
__attribute__((visibility("hidden"))) uint32_t mpidbg_fnv(const char *s);

/* For the Go side (python.go): a Python site's record, and another
 * rank's coded site in this process's terms. */
struct mpidbg_pysite;
__attribute__((visibility("hidden"))) int mpidbg_python_site_get(uint64_t site, struct mpidbg_pysite *out);
__attribute__((visibility("hidden"))) int mpidbg_python_remote(uint32_t mod, uint64_t off, char *file, int flen, char *func, int fnlen, int *line);

#endif
