import unittest
from unittest import mock

from . import gdbstub as gdb
from mpidbg_gdb import breakonerror, helper

ERRORS = """1 older finding was overwritten (the ring keeps the newest 64)
#3 send-type-mismatch: the first
   at a.c:1
#4 recv-overflow: the newest
   path (VECTOR)[2]
   at a.c:9
"""


class BreakOnError(unittest.TestCase):
    def setUp(self):
        gdb.reset()

    def test_latest_finding_is_the_last_block(self):
        with mock.patch.object(helper, "request", lambda op, args=None, registry=True: (ERRORS, None)):
            self.assertEqual(breakonerror.latest_finding(), "#4 recv-overflow: the newest\n   path (VECTOR)[2]\n   at a.c:9")
        with mock.patch.object(helper, "request", lambda op, args=None, registry=True: ("no findings recorded", None)):
            self.assertEqual(breakonerror.latest_finding(), "no findings recorded")

    def test_an_exit_is_not_a_finding(self):
        gdb.values["f"] = gdb.Value(0)
        self.assertFalse(breakonerror.FindingBreakpoint.stop(None))
        gdb.values["f"] = gdb.Value(0x7F0000001000)
        with mock.patch.object(helper, "request", lambda op, args=None, registry=True: (ERRORS, None)):
            self.assertTrue(breakonerror.FindingBreakpoint.stop(None))
        self.assertIn("#4 recv-overflow: the newest", gdb.written[-1])

    def test_on_off(self):
        cmd = breakonerror.MPIBreakOnError()
        cmd.invoke("", False)
        cmd.invoke("on", False)
        cmd.invoke("on", False)
        cmd.invoke("show", False)
        cmd.invoke("off", False)
        cmd.invoke("", False)
        n = breakonerror._finding_bp
        self.assertIsNone(n)
        out = [w for w in gdb.written if not w.startswith("(execute")]
        self.assertEqual(out[0], "mpi break-on-error is off.\n")
        self.assertRegex(out[1], r"^mpidbg: stopping on findings \(breakpoint \d+ on mpidbg_break\)\.\n$")
        self.assertRegex(out[2], r"^mpi break-on-error is already on \(breakpoint \d+\)\.\n$")
        self.assertEqual(out[3:], ["mpi break-on-error is on.\n", "mpidbg: not stopping on findings.\n", "mpi break-on-error is off.\n"])
        with self.assertRaisesRegex(gdb.GdbError, "want on or off, not 'maybe'"):
            cmd.invoke(" maybe ", False)

    def test_the_stop_handler_is_connected(self):
        self.assertIn(breakonerror._on_stop, gdb.events.stop.handlers)


if __name__ == "__main__":
    unittest.main()
