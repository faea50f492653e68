"""A stand-in for gdb's Python module, enough to import mpidbg_gdb and to
drive the parts of it that decide things rather than ask gdb: frames,
values and memory are what a test gives it."""

import sys
import types


class error(RuntimeError):
    pass


class GdbError(Exception):
    pass


class MemoryError(error):  # noqa: A001 (gdb's name)
    pass


COMMAND_DATA, COMMAND_STACK, COMMAND_BREAKPOINTS = 1, 2, 3
COMPLETE_COMMAND, COMPLETE_EXPRESSION = 1, 2
BP_BREAKPOINT = 1
TYPE_CODE_PTR, TYPE_CODE_ARRAY, TYPE_CODE_STRUCT, TYPE_CODE_INT = 1, 2, 3, 8

commands = {}  # name -> the gdb.Command made for it
mi_commands = {}
written = []  # what gdb.write printed
values = {}  # expression -> Value, for parse_and_eval
state = {"charset": "UTF-8", "newest": None, "memory": {}, "solibs": {}}


class Command(object):
    def __init__(self, name, *args, **kwargs):
        self.name = name
        commands[name] = self


class MICommand(object):
    def __init__(self, name):
        self.name = name
        mi_commands[name] = self


class Breakpoint(object):
    count = 0

    def __init__(self, spec, *args, **kwargs):
        Breakpoint.count += 1
        self.number = Breakpoint.count
        self.location = spec
        self.valid = True

    def is_valid(self):
        return self.valid

    def delete(self):
        self.valid = False


class _Registry(object):
    def __init__(self):
        self.handlers = []

    def connect(self, f):
        self.handlers.append(f)


events = types.SimpleNamespace(stop=_Registry(), gdb_exiting=_Registry())
pretty_printers = []


class Field(object):
    def __init__(self, name):
        self.name = name


class Type(object):
    def __init__(self, name, code=TYPE_CODE_INT, sizeof=4, fields=()):
        self.name, self.code, self.sizeof, self._fields = name, code, sizeof, list(fields)

    def strip_typedefs(self):
        return self

    def fields(self):
        return [Field(n) for n in self._fields]


class Value(object):
    """An integer, a pointer or an array at an address."""

    def __init__(self, n, type=None, address=None, members=None):
        self.n = n
        self.type = type or Type("int")
        self.address = address
        self.members = members or {}

    def __getitem__(self, name):
        return self.members[name]

    def __int__(self):
        return self.n

    def cast(self, t):
        return Value(self.n, t)


def lookup_type(name):
    return Type(name, TYPE_CODE_INT, 8)


def parse_and_eval(expr):
    try:
        return values[expr]
    except KeyError:
        raise error("No symbol \"%s\" in current context." % expr)


def write(s):
    written.append(s)


def execute(cmd, from_tty=False, to_string=False):
    written.append("(execute %s)" % cmd)
    return ""


def host_charset():
    return state["charset"]


def newest_frame():
    if state["newest"] is None:
        raise error("No stack.")
    return state["newest"]


def solib_name(pc):
    return state["solibs"].get(pc)


class Symtab(object):
    def __init__(self, filename):
        self.filename = filename


class Sal(object):
    def __init__(self, filename, line):
        self.symtab = Symtab(filename) if filename else None
        self.line = line


class Frame(object):
    """A frame of a stack the test builds with stack()."""

    def __init__(self, name, file="", line=0, pc=0):
        self._name, self._file, self._line, self._pc = name, file, line, pc
        self._older = None
        self._level = 0

    def name(self):
        return self._name

    def older(self):
        return self._older

    def level(self):
        return self._level

    def pc(self):
        return self._pc

    def find_sal(self):
        return Sal(self._file, self._line)

    def block(self):
        raise RuntimeError("Cannot locate block for frame.")  # no debug information

    def select(self):
        state["selected"] = self


def stack(*frames):
    """Links frames, innermost first, as the selected thread's stack."""
    for i, f in enumerate(frames):
        f._level = i
        f._older = frames[i + 1] if i + 1 < len(frames) else None
    state["newest"] = frames[0] if frames else None
    return frames


class Inferior(object):
    pid = 4242

    def read_memory(self, addr, length):
        mem = state["memory"]
        out = bytearray()
        for a in range(addr, addr + length):
            if a not in mem:
                raise MemoryError("Cannot access memory at address 0x%x" % a)
            out.append(mem[a])
        return memoryview(bytes(out))


def selected_inferior():
    return Inferior()


def reset():
    written.clear()
    values.clear()
    state.update(charset="UTF-8", newest=None, memory={}, solibs={})


def install():
    """Makes this module gdb for the imports that follow."""
    sys.modules.setdefault("gdb", sys.modules[__name__])
