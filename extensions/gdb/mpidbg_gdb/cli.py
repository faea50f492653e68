"""The CLI commands that show what the shim recorded: info mpi-types,
info mpi-requests, and the mpi prefix with mpi type, mpi buffer, mpi
path and mpi errors. Each asks the helper and prints its text."""

import gdb

from . import helper
from .args import buffer_args, path_args, say, split_args, type_args
from .names import datatype_request


class InfoMPITypes(gdb.Command):
    """List the MPI datatypes the program has created.

Usage: info mpi-types [REGEXP]

One line per datatype in the mpidbg registry: handle, name, constructor,
size, extent, state (committed, freed...) and where it was created. With
REGEXP, only the datatypes whose name (or, unnamed, constructor) matches
it. Needs the mpidbg shim in
the process (mpidbg gdb, mpidbg run); works on core files too."""

    def __init__(self):
        super(InfoMPITypes, self).__init__("info mpi-types", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        args = {}
        if arg.strip():
            args["regexp"] = arg.strip()
        say(helper.text("types", args))


class InfoMPIRequests(gdb.Command):
    """List the program's pending MPI requests.

Usage: info mpi-requests

One line per request not yet completed: handle, kind (send, receive,
collective...), buffer, count, datatype, peer, tag, communicator and where
it was started."""

    def __init__(self):
        super(InfoMPIRequests, self).__init__("info mpi-requests", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        if arg.strip():
            raise gdb.GdbError("info mpi-requests takes no arguments")
        say(helper.text("requests"))


class MPIPrefix(gdb.Command):
    """Show MPI datatypes, buffers and the findings of mpidbg.

The mpidbg shim (loaded by mpidbg gdb or mpidbg run) records the program's
MPI objects; these commands show them, in a live process or a core file:
  mpi type EXPR             a datatype: summary, --tree, --typemap, --signature
  mpi buffer BUF TYPE COUNT the values in a buffer through a datatype
  mpi path TYPE PATH        the element a type-tree path names, and its offset
  mpi errors                the findings mpidbg made
  mpi break-on-error on|off stop when mpidbg makes a finding
A TYPE may be a predefined name (MPI_DOUBLE), even where the library
makes it a macro or a global gdb cannot evaluate. Null handles print as
MPI_DATATYPE_NULL, MPI_REQUEST_NULL...; a freed datatype as what it was.
See also info mpi-types, info mpi-requests and info mpi-call."""

    def __init__(self):
        super(MPIPrefix, self).__init__("mpi", gdb.COMMAND_DATA, gdb.COMPLETE_COMMAND, prefix=True)

    def invoke(self, arg, from_tty):
        if arg.strip():
            raise gdb.GdbError('undefined mpi command: "%s".  Try "help mpi".' % arg.strip())
        gdb.execute("help mpi", from_tty)


class MPIType(gdb.Command):
    """Show an MPI datatype.

Usage: mpi type EXPR [--tree | --typemap | --signature | --expanded] [--limit N]

EXPR is evaluated in the selected frame: a variable of type MPI_Datatype,
a handle number, or a predefined name (MPI_INT, MPI_DOUBLE_PRECISION:
a macro or libmpi's global, which gdb may not know, is found by its name
in the registry). MPI_DATATYPE_NULL says so; a handle the registry does
not know is a freed or unknown one. Without an option: a summary
(constructor, size, lower bound, extent). --tree: the constructor tree. --typemap: every
basic element with its offset and type-tree path. --signature: the
sequence of basic types. --expanded: the type written out in full.
--limit N caps the lines (32 by default, at most 65536)."""

    def __init__(self):
        super(MPIType, self).__init__("mpi type", gdb.COMMAND_DATA, gdb.COMPLETE_EXPRESSION)

    def invoke(self, arg, from_tty):
        say(datatype_request("type", type_args(split_args(arg)))[0])


class MPIBuffer(gdb.Command):
    """Show a buffer's values through an MPI datatype.

Usage: mpi buffer BUF TYPE COUNT [--limit N] [--start K]

BUF is an address expression (a pointer or an array), TYPE a datatype
expression or a predefined name (MPI_DOUBLE, as in mpi type), COUNT the
number of TYPE elements, as in an MPI call. Prints
each value with its offset and type-tree path; gaps between the elements
are marked. --limit N caps the values (32 by default, at most 65536).
--start K shows the values from the K-th basic element on (from 0, in
type-map order; past the last one, none): with --limit, one page of a
large buffer. Write an expression with blanks inside parentheses:
mpi buffer (buf + 4) t n."""

    def __init__(self):
        super(MPIBuffer, self).__init__("mpi buffer", gdb.COMMAND_DATA, gdb.COMPLETE_EXPRESSION)

    def invoke(self, arg, from_tty):
        say(datatype_request("buffer", buffer_args(split_args(arg)))[0])


class MPIPath(gdb.Command):
    """Say which element of a datatype a type-tree path names.

Usage: mpi path TYPE PATH

TYPE is a datatype expression or a predefined name (as in mpi type).
PATH is a path such as t[2][5] (with t the TYPE expression: its element
2, that one's element 5), [2][5], or a full path as mpidbg prints it,
(STRUCT)[2][5](CHAR). Prints the element's basic type and its offset."""

    def __init__(self):
        super(MPIPath, self).__init__("mpi path", gdb.COMMAND_DATA, gdb.COMPLETE_EXPRESSION)

    def invoke(self, arg, from_tty):
        say(datatype_request("path", path_args(split_args(arg)))[0])


class MPIErrors(gdb.Command):
    """List the findings mpidbg made in this process.

Usage: mpi errors

Each finding the shim recorded: its id (see mpidbg explain ID), message,
type-tree path and source site."""

    def __init__(self):
        super(MPIErrors, self).__init__("mpi errors", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        if arg.strip():
            raise gdb.GdbError("mpi errors takes no arguments")
        say(helper.text("errors"))  # "no findings recorded" when there are none
