"""Pretty printers for MPI handles, matched on the typedef name (MPI_Comm,
MPI_Datatype, ...), so MPICH's int handles and Open MPI's pointers both
work, and on mpi_f08's TYPE(MPI_Datatype). to_string only reads memory (through the helper), never calls into
the program, so it works on core files. print/r shows the raw value.
"""

import re

import gdb

from . import helper

# typedef name -> the helper's handle kind (MPI_Datatype: DatatypePrinter).
KINDS = {
    "MPI_Comm": "comm",
    "MPI_Request": "request",
    "MPI_Win": "win",
    "MPI_Op": "op",
    "MPI_Group": "group",
}


def handle_value(val):
    """The handle in val (an int handle or a pointer) as a non-negative
    integer of its own width."""
    t = val.type.strip_typedefs()
    if t.code == gdb.TYPE_CODE_PTR:
        return int(val.cast(gdb.lookup_type("unsigned long")))
    n = int(val)
    if n < 0:
        n &= (1 << (8 * t.sizeof)) - 1
    return n


def raw(val):
    """val as gdb would print it without a printer, for when the helper
    cannot say more."""
    n = handle_value(val)
    if val.type.strip_typedefs().code == gdb.TYPE_CODE_PTR:
        return "0x%x" % n
    return str(int(val))


class DatatypePrinter(object):
    """An MPI_Datatype as a struct: its constructor's arguments, its old
    types (each shown by this printer again, so the whole constructor tree
    unfolds), size, extent, state, name and creation site. A predefined
    type is just its name."""

    def __init__(self, val, fortran_field=None):
        self.val = val
        self.field = fortran_field  # TYPE(MPI_Datatype) of mpi_f08: its MPI_VAL, a Fortran handle
        self._got = None

    def _get(self):
        if self._got is None:
            try:
                if self.field:
                    args = {"handle": helper.hexaddr(int(self.val[self.field])), "fortran": True}
                else:
                    args = {"handle": helper.hexaddr(handle_value(self.val))}
                args["view"] = "print"
                self._got = helper.request("type", args)
            except gdb.GdbError as e:
                if str(e) in (helper.NO_SHIM, helper.NO_PROCESS):
                    self._got = (raw(self.val), None)
                else:
                    self._got = ("%s <%s>" % (raw(self.val), e), None)
            except gdb.error as e:
                self._got = ("<%s>" % e, None)
        return self._got

    def to_string(self):
        text, v = self._get()
        if not v:
            return text
        return v.get("label") or v.get("combiner")

    def children(self):
        _, v = self._get()
        if not v or v.get("predefined"):
            return
        yield "combiner", v.get("combiner")
        for p in v.get("params") or []:
            x = p.get("value")
            if isinstance(x, list):
                x = "[" + ", ".join(str(e) for e in x) + "]"
            yield p.get("name"), x
        old = v.get("oldtypes") or []
        for i, o in enumerate(old):
            name = "oldtype" if len(old) == 1 else "types[%d]" % i
            if (o.get("predefined") or self.field) and o.get("label"):
                # nothing to unfold (no second request); a Fortran value
                # cannot be made of a C handle
                yield name, o["label"]
                continue
            try:
                yield name, gdb.Value(int(o["handle"], 16)).cast(self.val.type)
            except (gdb.error, KeyError, TypeError, ValueError):
                yield name, o.get("handle")
        yield "size", v.get("size")
        yield "extent", v.get("extent")
        yield "lb", v.get("lb")
        state = v.get("state") or []
        yield "committed", "yes" if "committed" in state else "no"
        if "freed" in state:
            yield "freed", "yes"
        if v.get("name"):
            yield "name", v.get("name")
        site = v.get("site") or {}
        if site:
            yield "created_at", site.get("where") or site.get("addr")


OMPI_GLOBAL = re.compile(r"^ompi_mpi_(\w+) in section ")


def predefined_name(addr):
    """The MPI name of an Open MPI predefined handle, or None. Open MPI's
    predefined objects are globals of libmpi named after them (mpi.h's
    OMPI_PREDEFINED_GLOBAL: MPI_SUM is &ompi_mpi_op_sum, MPI_COMM_WORLD
    &ompi_mpi_comm_world), which the shim does not record: gdb's symbol
    table names them, live and in a core file."""
    try:
        m = OMPI_GLOBAL.match(gdb.execute("info symbol %s" % addr, to_string=True))
    except gdb.error:
        return None
    if not m:
        return None
    name = m.group(1)
    if name.startswith("op_"):
        name = "op_null" if name == "op_null" else name[len("op_"):]
    return "MPI_" + name.upper()


class HandlePrinter(object):
    def __init__(self, val, kind):
        self.val = val
        self.kind = kind

    def to_string(self):
        try:
            h = helper.hexaddr(handle_value(self.val))
        except gdb.error as e:
            return "<%s>" % e
        try:
            text, _ = helper.request("handle", {"kind": self.kind, "handle": h})
        except gdb.GdbError as e:
            if str(e) in (helper.NO_SHIM, helper.NO_PROCESS):
                return raw(self.val)
            name = predefined_name(h)
            if name:
                return name
            return "%s <%s>" % (raw(self.val), e)
        return text


def lookup(val):
    """The printer for val when its type is (a typedef of) an MPI handle
    typedef."""
    t = val.type
    try:
        t = t.unqualified()
    except gdb.error:
        return None
    if t.code == gdb.TYPE_CODE_STRUCT and (t.name or "").lower() == "mpi_datatype":
        # mpi_f08's TYPE(MPI_Datatype): a Fortran handle in MPI_VAL
        for f in t.fields():
            if f.name and f.name.lower() == "mpi_val":
                return DatatypePrinter(val, f.name)
    while t.code == gdb.TYPE_CODE_TYPEDEF:
        if t.name == "MPI_Datatype":
            return DatatypePrinter(val)
        if t.name in KINDS:
            return HandlePrinter(val, KINDS[t.name])
        try:
            t = t.target().unqualified()
        except (gdb.error, RuntimeError):
            return None
    return None


lookup.name = "mpidbg"
lookup.enabled = True


def register(objfile=None):
    """Installs the lookup function on objfile, or globally (once)."""
    where = objfile.pretty_printers if objfile is not None else gdb.pretty_printers
    if not any(getattr(p, "name", None) == "mpidbg" for p in where):
        where.append(lookup)
