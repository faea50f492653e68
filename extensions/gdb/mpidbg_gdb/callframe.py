"""Which frame of the selected thread is the program's MPI call. The
helper decides (its caller op, the rule the DAP server follows too);
this module describes gdb's frames to it."""

import gdb

from . import helper


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
    callee, caller, _ = find_mpi_call_args()
    return callee, caller


def find_mpi_call_args():
    """find_mpi_call's frames and the frame with the call's arguments:
    the callee, or for a Fortran binding's entry point the C call it
    makes (the shim's wrapper, with debug information); or (None, None,
    None)."""
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
                return frames[i], frames[i + 1], frames[int(found.get("args", i))]
            # the next piece starts with this one's last frame: the rule
            # looks at a frame and its caller together
            frames, described = frames[-1:], described[-1:]
    return None, None, None
