"""The gdb commands: info mpi-types, info mpi-requests, info mpi-call, and
the mpi prefix (mpi type, mpi buffer, mpi path, mpi errors, mpi
break-on-error), with MI twins when gdb has gdb.MICommand."""

import re

import gdb

from . import helper
from .printers import handle_value


def split_args(arg):
    """Splits a command's argument string on blanks outside parentheses,
    brackets, braces and quotes, so an expression such as (char *) buf or
    a[i + 1] stays one word."""
    words, cur, depth, quote, esc = [], [], 0, None, False
    for c in arg or "":
        if quote:
            cur.append(c)
            if esc:
                esc = False
            elif c == "\\":
                esc = True
            elif c == quote:
                quote = None
            continue
        if c in "\"'":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth = max(0, depth - 1)
        elif c.isspace() and depth == 0:
            if cur:
                words.append("".join(cur))
                cur = []
            continue
        cur.append(c)
    if cur:
        words.append("".join(cur))
    return words


def parse_options(words, flags, valued, usage):
    """Takes --options out of words: flags (no value) and valued (with a
    value, --opt N or --opt=N). Returns (options dict, other words)."""
    opts, rest, i = {}, [], 0
    while i < len(words):
        w = words[i]
        if w == "--":
            rest.extend(words[i + 1:])
            break
        if w.startswith("--") and len(w) > 2:
            name, eq, val = w[2:].partition("=")
            if name in flags and not eq:
                opts[name] = True
            elif name in valued:
                if not eq:
                    i += 1
                    if i >= len(words):
                        raise gdb.GdbError("--%s wants a value.\nUsage: %s" % (name, usage))
                    val = words[i]
                opts[name] = val
            else:
                raise gdb.GdbError("unknown option %s.\nUsage: %s" % (w, usage))
        else:
            rest.append(w)
        i += 1
    return opts, rest


def to_int(expr):
    """Evaluates expr in the selected frame: a handle (int or pointer) or an
    address (a pointer or an array, which decays) as an integer."""
    try:
        v = gdb.parse_and_eval(expr)
    except gdb.error as e:
        raise gdb.GdbError("%s: %s" % (expr, e))
    t = v.type.strip_typedefs()
    try:
        if t.code == gdb.TYPE_CODE_ARRAY:
            if v.address is None:
                raise gdb.GdbError("%s: an array with no address" % expr)
            return int(v.address.cast(gdb.lookup_type("unsigned long")))
        return handle_value(v)  # an int handle such as MPICH's 0x8c000000, a pointer
    except gdb.GdbError:
        raise
    except (gdb.error, TypeError, ValueError) as e:
        raise gdb.GdbError("%s: not a handle, address or integer (%s): %s" % (expr, v.type, e))


def to_count(expr):
    try:
        return int(gdb.parse_and_eval(expr))
    except (gdb.error, TypeError, ValueError) as e:
        raise gdb.GdbError("%s: not an integer: %s" % (expr, e))


def to_natural(opt, s, what):
    """The value of --opt, a number from 0 (what it is, for the message)."""
    try:
        n = int(s)
    except ValueError:
        n = -1
    if n < 0:
        raise gdb.GdbError("--%s %s: want a number from 0 (%s)" % (opt, s, what))
    return n


def to_limit(s):
    return to_natural("limit", s, "the most lines or values to show")


def say(text):
    if text:
        gdb.write(text + "\n")


# The commands' arguments, shared by the CLI and MI forms.

TYPE_USAGE = "mpi type EXPR [--tree | --typemap | --signature | --expanded | --print] [--limit N]"
TYPE_VIEWS = ("tree", "typemap", "signature", "expanded", "print", "summary")


def type_args(words):
    opts, rest = parse_options(words, TYPE_VIEWS, ("limit", "view"), TYPE_USAGE)
    views = [v for v in TYPE_VIEWS if opts.get(v)]
    if "view" in opts:
        views.append(opts["view"])
    if len(views) > 1:
        raise gdb.GdbError("give one view, not %s.\nUsage: %s" % (", ".join(views), TYPE_USAGE))
    if not rest:
        raise gdb.GdbError("mpi type wants a datatype expression.\nUsage: " + TYPE_USAGE)
    args = {"handle": helper.hexaddr(to_int(" ".join(rest))), "view": views[0] if views else "summary"}
    if "limit" in opts:
        args["limit"] = to_limit(opts["limit"])
    return args


BUFFER_USAGE = "mpi buffer BUF TYPE COUNT [--limit N] [--start K]"


def buffer_args(words):
    opts, rest = parse_options(words, (), ("limit", "start"), BUFFER_USAGE)
    if len(rest) != 3:
        raise gdb.GdbError("mpi buffer wants three expressions, got %d.\nUsage: %s" % (len(rest), BUFFER_USAGE))
    args = {}
    if "limit" in opts:
        args["limit"] = to_limit(opts["limit"])
    if "start" in opts:
        args["start"] = to_natural("start", opts["start"], "the index of the first element to show")
    args.update(addr=helper.hexaddr(to_int(rest[0])), handle=helper.hexaddr(to_int(rest[1])),
                count=to_count(rest[2]))
    return args


PATH_USAGE = "mpi path TYPE PATH"


def path_args(words):
    if len(words) < 2:
        raise gdb.GdbError("mpi path wants a datatype and a path.\nUsage: " + PATH_USAGE)
    path = " ".join(words[1:])
    # t[2][5] with t the TYPE expression: the path within that type, which
    # the helper takes as [2][5] (the program's variable is no type name)
    if path.startswith(words[0] + "[") or path.startswith(words[0] + "("):
        path = path[len(words[0]):]
    return {"handle": helper.hexaddr(to_int(words[0])), "path": path}


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
a handle number, MPI_INT... Without an option: a summary (constructor,
size, lower bound, extent). --tree: the constructor tree. --typemap: every
basic element with its offset and type-tree path. --signature: the
sequence of basic types. --expanded: the type written out in full.
--limit N caps the lines (32 by default, at most 65536)."""

    def __init__(self):
        super(MPIType, self).__init__("mpi type", gdb.COMMAND_DATA, gdb.COMPLETE_EXPRESSION)

    def invoke(self, arg, from_tty):
        say(helper.text("type", type_args(split_args(arg))))


class MPIBuffer(gdb.Command):
    """Show a buffer's values through an MPI datatype.

Usage: mpi buffer BUF TYPE COUNT [--limit N] [--start K]

BUF is an address expression (a pointer or an array), TYPE a datatype
expression, COUNT the number of TYPE elements, as in an MPI call. Prints
each value with its offset and type-tree path; gaps between the elements
are marked. --limit N caps the values (32 by default, at most 65536).
--start K shows the values from the K-th basic element on (from 0, in
type-map order; past the last one, none): with --limit, one page of a
large buffer. Write an expression with blanks inside parentheses:
mpi buffer (buf + 4) t n."""

    def __init__(self):
        super(MPIBuffer, self).__init__("mpi buffer", gdb.COMMAND_DATA, gdb.COMPLETE_EXPRESSION)

    def invoke(self, arg, from_tty):
        say(helper.text("buffer", buffer_args(split_args(arg))))


class MPIPath(gdb.Command):
    """Say which element of a datatype a type-tree path names.

Usage: mpi path TYPE PATH

PATH is a path such as t[2][5] (with t the TYPE expression: its element
2, that one's element 5), [2][5], or a full path as mpidbg prints it,
(STRUCT)[2][5](CHAR). Prints the element's basic type and its offset."""

    def __init__(self):
        super(MPIPath, self).__init__("mpi path", gdb.COMMAND_DATA, gdb.COMPLETE_EXPRESSION)

    def invoke(self, arg, from_tty):
        say(helper.text("path", path_args(split_args(arg))))


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


# break-on-error

HOOK = "mpidbg_break"  # shim/finding.c: called once for every finding


def latest_finding():
    """The newest finding the helper's errors op lists, as its text: the
    last block that starts with "#SEQ" (gdbhelper's errors text)."""
    text = helper.text("errors")
    lines = text.split("\n")
    starts = [i for i, l in enumerate(lines) if re.match(r"^#\d+ ", l)]
    if starts:
        return "\n".join(lines[starts[-1]:]).rstrip()
    return text


class FindingBreakpoint(gdb.Breakpoint):
    def __init__(self):
        super(FindingBreakpoint, self).__init__(HOOK, gdb.BP_BREAKPOINT, internal=False)

    def stop(self):
        try:
            finding = latest_finding()
        except gdb.GdbError as e:
            finding = "(cannot read it: %s)" % e
        gdb.write("mpidbg stopped on a finding:\n%s\n" % finding)
        return True


def _on_stop(event):
    """After a stop on the finding breakpoint, selects the program's frame
    that made the faulty MPI call, so that the user lands on their line
    (the shim's frames stay on the stack, one 'down' away)."""
    bps = getattr(event, "breakpoints", None) or []
    if _finding_bp is None or not any(b is _finding_bp for b in bps):
        return
    try:
        _, caller = find_mpi_call()
        if caller is not None:
            caller.select()
            gdb.execute("frame", to_string=False)
    except (gdb.error, gdb.GdbError):
        pass


gdb.events.stop.connect(_on_stop)


_finding_bp = None


class MPIBreakOnError(gdb.Command):
    """Stop the program whenever mpidbg makes a finding.

Usage: mpi break-on-error on|off

on sets a breakpoint on the shim's hook mpidbg_break, which the shim calls
once for every finding (pending until the shim is loaded). When it is
hit, the finding is printed and the program's frame that made the
faulty MPI call is selected (the shim's frames are below it). off
deletes the breakpoint."""

    def __init__(self):
        super(MPIBreakOnError, self).__init__("mpi break-on-error", gdb.COMMAND_BREAKPOINTS)

    def invoke(self, arg, from_tty):
        global _finding_bp
        a = arg.strip().lower()
        on = _finding_bp is not None and _finding_bp.is_valid()
        if a in ("", "show"):
            gdb.write("mpi break-on-error is %s.\n" % ("on" if on else "off"))
        elif a in ("on", "1", "yes", "enable"):
            if on:
                gdb.write("mpi break-on-error is already on (breakpoint %d).\n" % _finding_bp.number)
                return
            # Pending until the shim is loaded, without asking.
            gdb.execute("set breakpoint pending on", to_string=True)
            _finding_bp = FindingBreakpoint()
            gdb.write("mpidbg: stopping on findings (breakpoint %d on %s).\n" % (_finding_bp.number, HOOK))
        elif a in ("off", "0", "no", "disable"):
            if on:
                _finding_bp.delete()
            _finding_bp = None
            gdb.write("mpidbg: not stopping on findings.\n")
        else:
            raise gdb.GdbError("mpi break-on-error: want on or off, not %r" % arg.strip())


# info mpi-call

def frame_name(f):
    try:
        name = f.name()
    except gdb.error:
        return None
    return name


def describe_frame(f):
    """Frame f as the helper's caller op takes it: its function, source
    file and shared library, each "" when gdb does not know."""
    name = frame_name(f) or ""
    try:
        sal = f.find_sal()
        source = sal.symtab.filename if sal.symtab is not None else ""
    except gdb.error:
        source = ""
    try:
        lib = gdb.solib_name(f.pc()) or ""
    except gdb.error:
        lib = ""
    return {"func": name, "file": source, "lib": lib}


# Frames sent to the helper at once: the call is near the top, so a deep
# stack is seldom walked whole.
CALLER_CHUNK = 32


def find_mpi_call():
    """The MPI_* frame that the program called, looking from the newest
    frame of the selected thread: (callee frame, caller frame), or
    (None, None). Which frame that is, past the shim's and MPI's own, the
    helper decides (its caller op), by the rule the DAP server follows."""
    try:
        f = gdb.newest_frame()
    except gdb.error:
        raise gdb.GdbError(helper.NO_PROCESS)
    frames, described = [], []
    while f is not None:
        frames.append(f)
        described.append(describe_frame(f))
        f = f.older()
        if len(frames) == CALLER_CHUNK or (f is None and len(frames) > 1):
            _, found = helper.request("caller", {"frames": described}, registry=False)
            if found is not None:
                i = int(found["callee"])
                return frames[i], frames[i + 1]
            # the next piece starts with this one's last frame: the rule
            # looks at a frame and its caller together
            frames, described = frames[-1:], described[-1:]
    return None, None


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
    callee, caller = find_mpi_call()
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


# MI commands

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
            return mi_result(*helper.request("type", type_args(list(argv))))

    class MIBuffer(gdb.MICommand):
        """-mpi-buffer BUF TYPE COUNT [--limit N] [--start K]"""

        def __init__(self):
            super(MIBuffer, self).__init__("-mpi-buffer")

        def invoke(self, argv):
            return mi_result(*helper.request("buffer", buffer_args(list(argv))))

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


def register():
    InfoMPITypes()
    InfoMPIRequests()
    InfoMPICall()
    MPIPrefix()
    MPIType()
    MPIBuffer()
    MPIPath()
    MPIErrors()
    MPIBreakOnError()
    for c in MI_COMMANDS:
        c()
