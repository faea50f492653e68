"""MPI's predefined names and null handles, whatever the library makes of
them: MPICH's are macros (MPI_DOUBLE is ((MPI_Datatype)0x4c00080b)),
which gdb knows only when the program was built with -g3; Open MPI's are
addresses of libmpi's globals (MPI_DOUBLE is &ompi_mpi_double), which
gdb's symbol table names but no expression reaches without the macro.

A datatype argument gdb cannot evaluate that is an MPI name goes to the
helper by name, which finds it among the registry's records of the
predefined datatypes. A handle the registry does not know is named from
gdb's symbol table when it is one of Open MPI's globals (MPI_COMM_NULL,
MPI_REQUEST_NULL, MPI_SUM...); MPICH's null handles the helper names
itself."""

import re

import gdb

from . import helper

MPI_NAME = re.compile(r"^mpi_\w+$", re.I)

# Open MPI's globals whose name is not ompi_ and the MPI name in lower case
OMPI_SPECIAL = {"MPI_REQUEST_NULL": "ompi_request_null", "MPI_MESSAGE_NULL": "ompi_message_null"}

UNKNOWN = "freed or unknown "


def is_mpi_name(expr):
    return bool(MPI_NAME.match(expr.strip()))


def symbol_address(name):
    """The address of a global by gdb's symbol table (with or without
    debug information), or None."""
    try:
        out = gdb.execute("info address %s" % name, to_string=True)
    except gdb.error:
        return None
    m = re.search(r"\bat (?:address )?(0x[0-9a-f]+)", out)
    return int(m.group(1), 16) if m else None


def datatype_by_name(expr):
    """The helper's arguments for an MPI datatype name gdb could not
    evaluate: the address of Open MPI's global for a null handle, else
    the name, which the helper resolves."""
    name = expr.strip().upper()
    if name.endswith("_NULL"):
        addr = symbol_address(OMPI_SPECIAL.get(name, "ompi_" + name.lower()))
        if addr is not None:
            return {"handle": helper.hexaddr(addr)}
    return {"name": name}


OMPI_GLOBAL = re.compile(r"^(ompi_mpi_\w+|ompi_request_null|ompi_message_null) in section ")


def predefined_name(addr):
    """The MPI name of an Open MPI predefined handle, or None. Open MPI's
    predefined objects are globals of libmpi named after them (mpi.h's
    OMPI_PREDEFINED_GLOBAL: MPI_SUM is &ompi_mpi_op_sum, MPI_COMM_WORLD
    &ompi_mpi_comm_world, MPI_REQUEST_NULL &ompi_request_null), which the
    shim does not record: gdb's symbol table names them, live and in a
    core file."""
    try:
        m = OMPI_GLOBAL.match(gdb.execute("info symbol %s" % addr, to_string=True))
    except gdb.error:
        return None
    if not m:
        return None
    name = m.group(1)
    name = name[len("ompi_mpi_"):] if name.startswith("ompi_mpi_") else name[len("ompi_"):]
    if name.startswith("op_") and name != "op_null":
        name = name[len("op_"):]
    return "MPI_" + name.upper()


def is_unknown(err):
    """Whether a helper error says a handle is not in the registry."""
    return UNKNOWN in str(err)


def null_text(name, view):
    if view == "print":
        return name
    return "%s: the null datatype handle, which names no datatype" % name


def datatype_request(op, args):
    """helper.request for an op on a datatype argument (type, buffer,
    path), with Open MPI's null and predefined handles, which the
    registry does not hold, named from gdb's symbols."""
    try:
        return helper.request(op, args)
    except gdb.GdbError as e:
        if not is_unknown(e) or "handle" not in args:
            raise
        name = predefined_name(args["handle"])
        if name is None:
            raise
        if not name.endswith("_NULL"):
            raise gdb.GdbError("mpidbg: %s is %s, which the shim did not record" % (args["handle"], name))
        if op != "type":
            raise gdb.GdbError("mpidbg: the datatype is %s, the null handle: it names no datatype" % name)
        return null_text(name, args.get("view")), {"handle": args["handle"], "name": name, "label": name,
                                                   "null": True, "predefined": False}
