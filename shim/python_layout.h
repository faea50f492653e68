/*
 * The parts of CPython 3.11's structures that python.c reads, as byte
 * offsets for LP64 (x86_64, aarch64), so that the shim builds without
 * Python's headers. They are the same in every 3.11 release (checked
 * against 3.11.2 and 3.11.7); testdata/pylayout.c asserts each against
 * the installed headers (Include/cpython/pystate.h, code.h,
 * unicodeobject.h; Include/internal/pycore_frame.h), and python_test.go
 * compiles it when they are installed. python.c reads nothing of any
 * other version (Py_Version).
 */
#ifndef MPIDBG_PYTHON_LAYOUT_H
#define MPIDBG_PYTHON_LAYOUT_H

enum {
    MPIDBG_PY_VERSION_MINOR = 0x030B,  /* Py_Version >> 16: 3.11 */

    MPIDBG_PY_OB_TYPE = 8,             /* PyObject.ob_type */
    MPIDBG_PY_OB_SIZE = 16,            /* PyVarObject.ob_size */

    MPIDBG_PY_TS_CFRAME = 56,          /* PyThreadState.cframe */
    MPIDBG_PY_CF_CURRENT_FRAME = 8,    /* _PyCFrame.current_frame */

    MPIDBG_PY_FR_CODE = 32,            /* _PyInterpreterFrame.f_code */
    MPIDBG_PY_FR_PREVIOUS = 48,        /* _PyInterpreterFrame.previous */
    MPIDBG_PY_FR_PREV_INSTR = 56,      /* _PyInterpreterFrame.prev_instr */
    MPIDBG_PY_FR_OWNER = 69,           /* _PyInterpreterFrame.owner (char) */
    MPIDBG_PY_FRAME_OWNED_BY_GENERATOR = 1,

    MPIDBG_PY_CO_CONSTS = 24,          /* PyCodeObject.co_consts (tuple) */
    MPIDBG_PY_CO_FIRSTLINENO = 72,     /* PyCodeObject.co_firstlineno (int) */
    MPIDBG_PY_CO_FILENAME = 112,       /* PyCodeObject.co_filename (str) */
    MPIDBG_PY_CO_QUALNAME = 128,       /* PyCodeObject.co_qualname (str) */
    MPIDBG_PY_CO_LINETABLE = 136,      /* PyCodeObject.co_linetable (bytes) */
    MPIDBG_PY_CO_FIRSTTRACEABLE = 168, /* PyCodeObject._co_firsttraceable (int) */
    MPIDBG_PY_CO_CODE = 184,           /* PyCodeObject.co_code_adaptive: the code units */

    MPIDBG_PY_STR_LENGTH = 16,         /* PyASCIIObject.length (code points) */
    MPIDBG_PY_STR_STATE = 32,          /* PyASCIIObject.state (bit fields) */
    MPIDBG_PY_STR_ASCII_DATA = 48,     /* sizeof(PyASCIIObject): a compact ASCII string's bytes */
    MPIDBG_PY_STR_UTF8_LENGTH = 48,    /* PyCompactUnicodeObject.utf8_length */
    MPIDBG_PY_STR_UTF8 = 56,           /* PyCompactUnicodeObject.utf8, NULL until asked for */
    MPIDBG_PY_STR_COMPACT_DATA = 72,   /* sizeof(PyCompactUnicodeObject): a compact string's code points */

    MPIDBG_PY_TUPLE_ITEMS = 24,        /* PyTupleObject.ob_item */
    MPIDBG_PY_BYTES_DATA = 32,         /* PyBytesObject.ob_sval */
};

#endif
