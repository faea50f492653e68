"""Pretty printers for MPI handles, matched on the typedef name (MPI_Comm,
MPI_Datatype, ...), so MPICH's int handles and Open MPI's pointers both
work, and on mpi_f08's TYPE(MPI_Datatype). to_string only reads memory (through the helper), never calls into
the program, so it works on core files. print/r shows the raw value.
"""

import gdb

from . import helper
from .names import is_unknown, predefined_name

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


def unprefixed(err):
    """A helper's error as a value's text, without the "mpidbg: " that
    tells a command's error apart."""
    text = str(err)
    return text[len("mpidbg: "):] if text.startswith("mpidbg: ") else text


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
                elif is_unknown(e) and not self.field:
                    # Open MPI's MPI_DATATYPE_NULL is libmpi's global
                    name = predefined_name(helper.hexaddr(handle_value(self.val)))
                    self._got = (name or unprefixed(e), None)
                else:
                    self._got = ("%s <%s>" % (raw(self.val), e), None)
            except gdb.error as e:
                self._got = ("<%s>" % e, None)
        return self._got

    def to_string(self):
        text, v = self._get()
        if not v:
            return text
        if "freed" in (v.get("state") or []):
            # a copy of a handle MPI_Type_free took: what it was, and where it went
            was = v.get("name") or v.get("label") or v.get("combiner")
            where = (v.get("free_site") or {}).get("where")
            return "freed datatype (was %s%s)" % (was, ", freed at " + where if where else "")
        return v.get("label") or v.get("combiner")

    def children(self):
        _, v = self._get()
        if not v or v.get("predefined") or v.get("null"):
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
            if is_unknown(e):
                return unprefixed(e)
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
