# mpidbg's gdb extension. 'mpidbg gdb' sources it; by hand:
#   gdb -iex 'source /path/to/mpidbg/extensions/gdb/mpidbg-gdb.py' ./app
# or add that source line to ~/.gdbinit. See 'help mpi'.
import os
import sys

import gdb

_dir = os.path.dirname(os.path.realpath(os.path.expanduser(__file__)))
if _dir not in sys.path:
    sys.path.insert(0, _dir)

import mpidbg_gdb  # noqa: E402

mpidbg_gdb.register(None)
