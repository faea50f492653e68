"""The MI twins of the commands (-mpi-type, -mpi-buffer, -mpi-call,
-mpi-requests, -mpi-errors, -mpi-types), for the DAP server, when gdb
has gdb.MICommand (gdb 13), and how their results are encoded."""

import gdb

from . import helper
from .args import buffer_args, type_args
from .call import mpi_call, render_call
from .names import datatype_request


# The tables' drawing characters in ASCII, for a host charset without them.
ASCII_DRAWING = str.maketrans({"─": "-", "│": "|", "├": "|", "└": "`", "┌": "+", "┐": "+", "┘": "+",
                               "┬": "+", "┴": "+", "┼": "+", "…": "...", "→": "->", "×": "x"})


def mi_string(s):
    """s as gdb can hand it to MI: gdb encodes MI strings in its host
    charset, which is ASCII in the C locale; there, drawing characters
    become ASCII and anything else a \\u escape, instead of an error."""
    try:
        cs = gdb.host_charset()
    except (AttributeError, gdb.error):
        cs = "ascii"
    try:
        s.encode(cs)
        return s
    except (UnicodeEncodeError, LookupError):
        return s.translate(ASCII_DRAWING).encode("ascii", "backslashreplace").decode("ascii")


def mi_value(v):
    """v as an MI result: dicts, lists and strings only."""
    if isinstance(v, dict):
        return {str(k).replace("_", "-"): mi_value(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [mi_value(x) for x in v]
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    return mi_string(str(v))


def mi_result(text, value):
    res = {"text": mi_string(text)}
    if value is not None:
        res["value"] = mi_value(value)
    return res


if hasattr(gdb, "MICommand"):

    class MIType(gdb.MICommand):
        """-mpi-type EXPR [--tree|--typemap|--signature|--expanded] [--limit N]"""

        def __init__(self):
            super(MIType, self).__init__("-mpi-type")

        def invoke(self, argv):
            return mi_result(*datatype_request("type", type_args(list(argv))))

    class MIBuffer(gdb.MICommand):
        """-mpi-buffer BUF TYPE COUNT [--limit N] [--start K]"""

        def __init__(self):
            super(MIBuffer, self).__init__("-mpi-buffer")

        def invoke(self, argv):
            return mi_result(*datatype_request("buffer", buffer_args(list(argv))))

    class MICall(gdb.MICommand):
        """-mpi-call: the MPI call on the stack of the selected thread
        (info mpi-call as data); an error when there is none."""

        def __init__(self):
            super(MICall, self).__init__("-mpi-call")

        def invoke(self, argv):
            if argv:
                raise gdb.GdbError("-mpi-call takes no arguments")
            call = mpi_call()
            if call is None:
                raise gdb.GdbError("no MPI call on the stack of this thread")
            return mi_result(render_call(call), call)

    class MIRequests(gdb.MICommand):
        """-mpi-requests"""

        def __init__(self):
            super(MIRequests, self).__init__("-mpi-requests")

        def invoke(self, argv):
            return mi_result(*helper.request("requests"))

    class MIErrors(gdb.MICommand):
        """-mpi-errors"""

        def __init__(self):
            super(MIErrors, self).__init__("-mpi-errors")

        def invoke(self, argv):
            return mi_result(*helper.request("errors"))

    class MITypes(gdb.MICommand):
        """-mpi-types [REGEXP]"""

        def __init__(self):
            super(MITypes, self).__init__("-mpi-types")

        def invoke(self, argv):
            args = {"regexp": " ".join(argv)} if argv else {}
            return mi_result(*helper.request("types", args))

    MI_COMMANDS = (MIType, MIBuffer, MICall, MIRequests, MIErrors, MITypes)
else:
    MI_COMMANDS = ()
