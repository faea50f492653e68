"""info mpi-call and the data behind -mpi-call: the MPI call on the stack
of the selected thread, its arguments (from the debug information, the
registers at the function's entry, or the shim's call context) and each
buffer argument through its datatype."""

import gdb

from . import helper
from .args import say
from .callframe import find_mpi_call_args, frame_name
from .printers import handle_value


# buffer argument -> (count, datatype) candidates, by the MPI standard's
# parameter names.
def arg_triples(names):
    out = []
    for n in names:
        if n in ("buf", "buffer", "inbuf", "outbuf"):
            cands = (["count", "incount", "outcount", "insize"], ["datatype"])
        elif n.endswith("buf"):
            p = n[:-3]
            cands = ([p + "count", "count"], [p + "type", p + "datatype", "datatype"])
        elif n.endswith("_addr"):
            p = n[:-4]
            cands = ([p + "count", "origin_count"], [p + "datatype", "origin_datatype"])
        else:
            continue
        count = next((c for c in cands[0] if c in names), None)
        dtype = next((c for c in cands[1] if c in names), None)
        if count and dtype:
            out.append((n, count, dtype))
    return out


def frame_args(frame):
    """The callee frame's arguments by name, from its debug information."""
    block = frame.block()  # RuntimeError without debug information
    while block is not None and block.function is None:
        block = block.superblock
    if block is None:
        raise RuntimeError("no function block")
    args = {}
    order = []
    for sym in block:
        if sym.is_argument:
            args[sym.name] = sym
            order.append(sym.name)
    return order, args


# x86-64 System V: the first six integer arguments' registers.
X86_64_ARGS = ("rdi", "rsi", "rdx", "rcx", "r8", "r9")


def entry_args(callee, names):
    """The arguments of the MPI function at its first instruction, from
    the registers and the stack (x86-64), for when the debug information
    has them optimized out: the newest frame must be an MPI function of
    the same name (the wrapper's PMPI_ twin, or the wrapper itself)
    stopped at its entry, as after 'break MPI_Send' or 'break PMPI_Send'.
    Returns {name: int} or None."""
    try:
        arch = callee.architecture().name()
    except (gdb.error, AttributeError):
        return None
    if "x86-64" not in arch:
        return None
    want = callee.name().lstrip("P")
    f = gdb.newest_frame()
    name = frame_name(f) or ""
    if name.lstrip("P") != want:
        return None
    pc = f.pc()
    try:
        where = gdb.execute("info symbol 0x%x" % pc, to_string=True)
    except gdb.error:
        return None
    if not where.startswith(name + " in ") and not where.startswith(name + " "):
        return None  # "NAME + OFFSET in ...": past the entry, the registers have moved on
    if "+" in where.split(" in ")[0]:
        return None
    ulong = gdb.lookup_type("unsigned long")
    out = {}
    sp = int(f.read_register("rsp").cast(ulong))
    for i, n in enumerate(names):
        if i < len(X86_64_ARGS):
            out[n] = int(f.read_register(X86_64_ARGS[i]).cast(ulong))
        else:
            mem = gdb.selected_inferior().read_memory(sp + 8 + 8 * (i - len(X86_64_ARGS)), 8)
            out[n] = int.from_bytes(bytes(mem), "little")
    return out


def mpi_call():
    """The MPI call on the stack of the selected thread as data, or None
    when there is none: what info mpi-call prints (render_call) and
    -mpi-call returns. It looks from the newest frame (find_mpi_call), so
    the selected frame does not matter."""
    # a Fortran call shows the C call its binding makes: its name and its
    # arguments in C form
    _, caller, callee = find_mpi_call_args()
    if callee is None:
        return None
    sal = caller.find_sal()
    call = {"call": callee.name(), "callee_level": callee.level(), "caller_level": caller.level(),
            "caller": frame_name(caller) or "??",
            "where": "%s:%d" % (sal.symtab.filename, sal.line) if sal.symtab is not None else "",
            "debug_info": True, "args": [], "buffers": []}
    try:
        order, syms = frame_args(callee)
    except RuntimeError:
        call["debug_info"] = False
        return call
    vals = call_args(callee, order, syms)
    for n in order:
        try:
            text = str(vals[n]) if n in vals else "<optimized out>"
        except gdb.error as e:  # a printer that cannot read what it prints
            text = "<error: %s>" % e
        call["args"].append({"name": n, "value": text})
    call["buffers"] = [call_buffer(call["call"], vals, *t) for t in arg_triples(order)]
    return call


def call_args(callee, order, syms):
    """The callee's arguments by name, as gdb.Values of their types: from
    its debug information; else from the registers at its first
    instruction (entry_args); else, for a buffer's address, count and
    datatype, from the shim's call context (shim_side): the wrappers'
    arguments are often optimized out. One none of them has is left out."""
    vals = {}
    for n in order:
        try:
            v = syms[n].value(callee)
            if not v.is_optimized_out:
                v.fetch_lazy()
                vals[n] = v
        except gdb.error:
            pass

    def recovered(n, x):
        if n not in vals:
            try:
                vals[n] = gdb.Value(x).cast(syms[n].type)  # as the argument: int width, sign, printer
            except gdb.error:
                pass

    if len(vals) < len(order):
        try:
            regs = entry_args(callee, order) or {}
        except (gdb.error, gdb.MemoryError):
            regs = {}
        for n, x in regs.items():
            recovered(n, x)
    if callee != gdb.newest_frame():
        # past its entry, inside a call it made (a check, a finding): the
        # wrapper's call context holds the buffer
        for names in arg_triples(order):
            if any(n not in vals for n in names):
                for n, x in zip(names, shim_side(callee, names[0]) or ()):
                    recovered(n, x)
    return vals


def call_buffer(name, vals, buf, count, dtype):
    """One buffer argument of MPI function name: where it is and what it
    holds, with the helper's table of its first values (text), or why it
    cannot be shown (error)."""
    b = {"name": buf, "count_arg": count, "datatype_arg": dtype, "addr": "", "count": "", "datatype": "",
         "type": "", "elements": "", "text": "", "error": ""}
    missing = [n for n in (buf, count, dtype) if n not in vals]
    if missing:
        b["error"] = ("%s optimized out in %s's frame: cannot show the buffer (break on %s or P%s, "
                      "where the arguments are still in the registers, and run info mpi-call there)"
                      % (", ".join(missing), name, name, name))
        return b
    b.update(addr=helper.hexaddr(handle_value(vals[buf])), count=int(vals[count]),
             datatype=helper.hexaddr(handle_value(vals[dtype])))
    try:
        text, value = helper.request("buffer", {"addr": b["addr"], "handle": b["datatype"], "count": b["count"]})
    except gdb.GdbError as e:  # this buffer's: the call and its other buffers still show
        b["error"] = str(e)
        return b
    value = value or {}
    b.update(text=text, type=value.get("type", ""), elements=value.get("total", ""))
    return b


def render_call(call):
    """What info mpi-call prints for mpi_call()'s data."""
    if call is None:
        return "No MPI call on the stack of the selected thread."
    where = " at " + call["where"] if call["where"] else ""
    lines = ["%s, called from %s%s (frame #%d)." % (call["call"], call["caller"], where, call["caller_level"])]
    if not call["debug_info"]:
        lines.append("%s has no debug information for its arguments: cannot show its buffers "
                     "(run the program with the mpidbg shim, whose MPI functions have it)." % call["call"])
    elif not call["buffers"]:
        lines.append("%s has no buffer argument." % call["call"])
    for b in call["buffers"]:
        if not b["addr"]:
            lines.append("%s: %s." % (b["name"], b["error"]))
            continue
        lines.append("%s = %s, %s = %d, %s = %s:" % (b["name"], b["addr"], b["count_arg"], b["count"],
                                                    b["datatype_arg"], b["datatype"]))
        lines.extend(x for x in (b["text"], b["error"]) if x)
    return "\n".join(lines)


def shim_side(frame, buf):
    """(address, count, datatype handle) of the buffer argument buf as the
    shim's wrapper recorded it in its call context (the local cx, whose
    sides the checks fill before they report): the arguments themselves
    are often optimized out of the wrapper's frame. Only for a wrapper
    frame that has called further (cx is set up by then). None when it
    has not recorded that buffer."""
    try:
        cx = frame.read_var("cx")
        n = int(cx["nside"])
        most = cx["sides"].type.range()[1] + 1  # MPIDBG_MAX_SIDES: never past the array
        for i in range(max(0, min(n, most))):
            side = cx["sides"][i]
            if side["name"].string() != buf or not side["ti"]:
                continue
            addr = int(side["buf"].cast(gdb.lookup_type("unsigned long")))
            return addr, int(side["count"]), int(side["ti"].dereference()["handle"])
    except (gdb.error, ValueError, RuntimeError, gdb.MemoryError):
        return None
    return None


class InfoMPICall(gdb.Command):
    """Show the MPI call the program is in, with its buffers.

Usage: info mpi-call

Looks up the stack of the selected thread for the MPI function (MPI_Send,
MPI_Wait...) the program called, and prints each buffer argument's values
through its datatype and count. The arguments are read from the MPI
function's frame, which needs its debug information (the mpidbg shim's
wrappers have it). The MI command -mpi-call gives the same as data."""

    def __init__(self):
        super(InfoMPICall, self).__init__("info mpi-call", gdb.COMMAND_STACK)

    def invoke(self, arg, from_tty):
        if arg.strip():
            raise gdb.GdbError("info mpi-call takes no arguments")
        say(render_call(mpi_call()))
