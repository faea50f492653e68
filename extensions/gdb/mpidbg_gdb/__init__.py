"""mpidbg's gdb extension: pretty printers for MPI handles and commands
that show MPI datatypes, buffers, pending requests and mpidbg's findings
(docs/gdb.md). It decodes nothing itself: a long-lived `mpidbg gdb-helper`
does (docs/gdb-helper.md), reading the program's memory through gdb.
"""

import gdb

from . import commands, helper, printers

_registered = False


def register(objfile=None):
    """Installs the printers (on objfile, else for every objfile) and the
    commands. The commands are installed once per gdb session; calling it
    again only adds the printers to another objfile."""
    global _registered
    printers.register(objfile)
    if _registered:
        return
    _registered = True
    commands.register()
    if hasattr(gdb.events, "gdb_exiting"):
        gdb.events.gdb_exiting.connect(lambda event: helper.stop())
