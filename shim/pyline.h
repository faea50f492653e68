/*
 * CPython 3.11's line tables (co_linetable), decoded without the
 * interpreter (pyline.c), for python.c. No dependencies: the tests
 * compile it alone.
 */
#ifndef MPIDBG_PYLINE_H
#define MPIDBG_PYLINE_H

#include <stddef.h>
#include <stdint.h>

/* mpidbg_py_line is the line of code unit `unit` in the line table t of
 * n bytes of a code object whose co_firstlineno is first; -1 when the
 * unit has no line or lies past the table. */
int mpidbg_py_line(const uint8_t *t, size_t n, int first, uint32_t unit) __attribute__((visibility("hidden")));

/* mpidbg_py_has_line says whether some code unit of the table is on
 * line. */
int mpidbg_py_has_line(const uint8_t *t, size_t n, int first, int line) __attribute__((visibility("hidden")));

#endif
