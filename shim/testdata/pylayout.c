/* Asserts python_layout.h against CPython 3.11's own headers: compiled
 * by python_test.go with -I the headers' directory when they are
 * installed (python3.11-dev); the shim never includes them. Run, it
 * checks the string state bit fields, which no offsetof can. */
#define Py_BUILD_CORE 1
#include <Python.h>
#include <internal/pycore_frame.h>
#include <stddef.h>
#include <stdio.h>

#include "../python_layout.h"

_Static_assert(PY_VERSION_HEX >> 16 == MPIDBG_PY_VERSION_MINOR, "these headers are not CPython 3.11's");

#define AT(off, type, field) _Static_assert(offsetof(type, field) == (off), #type "." #field)
AT(MPIDBG_PY_OB_TYPE, PyObject, ob_type);
AT(MPIDBG_PY_OB_SIZE, PyVarObject, ob_size);
AT(MPIDBG_PY_TS_CFRAME, PyThreadState, cframe);
AT(MPIDBG_PY_CF_CURRENT_FRAME, _PyCFrame, current_frame);
AT(MPIDBG_PY_FR_CODE, _PyInterpreterFrame, f_code);
AT(MPIDBG_PY_FR_PREVIOUS, _PyInterpreterFrame, previous);
AT(MPIDBG_PY_FR_PREV_INSTR, _PyInterpreterFrame, prev_instr);
AT(MPIDBG_PY_FR_OWNER, _PyInterpreterFrame, owner);
AT(MPIDBG_PY_CO_CONSTS, PyCodeObject, co_consts);
AT(MPIDBG_PY_CO_FIRSTLINENO, PyCodeObject, co_firstlineno);
AT(MPIDBG_PY_CO_FILENAME, PyCodeObject, co_filename);
AT(MPIDBG_PY_CO_QUALNAME, PyCodeObject, co_qualname);
AT(MPIDBG_PY_CO_LINETABLE, PyCodeObject, co_linetable);
AT(MPIDBG_PY_CO_FIRSTTRACEABLE, PyCodeObject, _co_firsttraceable);
AT(MPIDBG_PY_CO_CODE, PyCodeObject, co_code_adaptive);
AT(MPIDBG_PY_STR_LENGTH, PyASCIIObject, length);
AT(MPIDBG_PY_STR_STATE, PyASCIIObject, state);
AT(MPIDBG_PY_STR_UTF8_LENGTH, PyCompactUnicodeObject, utf8_length);
AT(MPIDBG_PY_STR_UTF8, PyCompactUnicodeObject, utf8);
AT(MPIDBG_PY_TUPLE_ITEMS, PyTupleObject, ob_item);
AT(MPIDBG_PY_BYTES_DATA, PyBytesObject, ob_sval);
_Static_assert(sizeof(PyASCIIObject) == MPIDBG_PY_STR_ASCII_DATA, "PyASCIIObject size");
_Static_assert(sizeof(PyCompactUnicodeObject) == MPIDBG_PY_STR_COMPACT_DATA, "PyCompactUnicodeObject size");
_Static_assert(sizeof(_Py_CODEUNIT) == 2, "code unit");
_Static_assert((int)FRAME_OWNED_BY_GENERATOR == (int)MPIDBG_PY_FRAME_OWNED_BY_GENERATOR, "frame owner");

int main(void)
{
    /* python.c reads state as kind = bits 2-4, compact bit 5, ascii bit 6, ready bit 7 */
    union {
        uint32_t u;
        __typeof__(((PyASCIIObject *)0)->state) s;
    } x;
    int bad = 0;
    x.u = 0, x.s.kind = 7, bad |= x.u != 7u << 2;
    x.u = 0, x.s.compact = 1, bad |= x.u != 1u << 5;
    x.u = 0, x.s.ascii = 1, bad |= x.u != 1u << 6;
    x.u = 0, x.s.ready = 1, bad |= x.u != 1u << 7;
    puts(bad ? "state bits differ" : "ok");
    return bad;
}
