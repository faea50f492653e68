"""mpi break-on-error: a breakpoint on the shim's finding hook that
prints the finding and selects the program's frame that made the faulty
MPI call."""

import re

import gdb

from . import helper
from .callframe import find_mpi_call


HOOK = "mpidbg_break"  # shim/finding.c: called once for every finding, and with NULL at a debugged rank's exit


def latest_finding():
    """The newest finding the helper's errors op lists, as its text: the
    last block that starts with "#SEQ" (the helper's errors text)."""
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
            if int(gdb.parse_and_eval("f")) == 0:
                return False  # the rank's exit (shim/debugger.c), for mpidbg dap
        except gdb.error:
            pass
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
