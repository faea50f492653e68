"""The commands' arguments: splitting a command line into words, taking
--options out, evaluating expressions as handles, addresses and counts,
and each command's arguments as the helper's op takes them (shared by
the CLI commands and their MI twins)."""

import gdb

from . import helper, names
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


def buffer_addr(expr):
    """A buffer expression's address: an array's or a pointer's as
    to_int, and for a Fortran variable or array element (a(2,1): the
    language has no pointers, an element is its value) or any other
    value with an address, where it lies."""
    try:
        v = gdb.parse_and_eval(expr)
        t = v.type.strip_typedefs()
        fortran_int = t.code == gdb.TYPE_CODE_INT and (t.name or "").lower().startswith(("integer", "logical"))
        if t.code not in (gdb.TYPE_CODE_ARRAY, gdb.TYPE_CODE_PTR, gdb.TYPE_CODE_INT) or fortran_int:
            if v.address is not None:
                return int(v.address.cast(gdb.lookup_type("unsigned long")))
    except (gdb.error, TypeError, ValueError):
        pass  # to_int says what is wrong with it
    return to_int(expr)


def datatype_arg(expr):
    """The helper's arguments for a datatype expression: {"handle": ...},
    with "fortran": True when the value is a Fortran handle (an INTEGER,
    or a TYPE(MPI_Datatype) of the mpi_f08 module, whose MPI_VAL it is),
    which the helper maps to the datatype through the registry. An MPI
    name gdb cannot evaluate (a macro, Open MPI's global) goes by name
    (names.datatype_by_name)."""
    if names.is_mpi_name(expr):
        try:
            gdb.parse_and_eval(expr)
        except gdb.error:
            return names.datatype_by_name(expr)
    try:
        v = gdb.parse_and_eval(expr)
        t = v.type.strip_typedefs()
        if t.code == gdb.TYPE_CODE_STRUCT:
            for f in t.fields():
                if f.name and f.name.lower() == "mpi_val":
                    return {"handle": helper.hexaddr(int(v[f.name])), "fortran": True}
        if t.code == gdb.TYPE_CODE_INT and (t.name or "").lower().startswith("integer"):
            return {"handle": helper.hexaddr(int(v)), "fortran": True}
    except (gdb.error, TypeError, ValueError):
        pass  # to_int says what is wrong with it
    return {"handle": helper.hexaddr(to_int(expr))}


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
    args = datatype_arg(" ".join(rest))
    args["view"] = views[0] if views else "summary"
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
    args.update(datatype_arg(rest[1]))
    args.update(addr=helper.hexaddr(buffer_addr(rest[0])), count=to_count(rest[2]))
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
    args = datatype_arg(words[0])
    args["path"] = path
    return args
