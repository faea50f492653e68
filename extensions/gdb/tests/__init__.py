"""Unit tests of the gdb extension that run without gdb: gdbstub stands in
for gdb's Python module (make pyunit, or from extensions/gdb:
python3 -m unittest discover -s tests -t .)."""

from . import gdbstub

gdbstub.install()
