import base64
import unittest

from . import gdbstub as gdb
from mpidbg_gdb import helper


class Protocol(unittest.TestCase):
    def setUp(self):
        gdb.reset()

    def test_hexaddr(self):
        self.assertEqual(helper.hexaddr(0x7ffd1234), "0x7ffd1234")
        self.assertEqual(helper.hexaddr(-1), "0xffffffffffffffff")

    def test_reads(self):
        gdb.state["memory"].update({0x1000 + i: i for i in range(4)})
        self.assertEqual(helper.Helper._read({"addr": "0x1000", "len": 4}), {"data": base64.b64encode(bytes(range(4))).decode()})
        self.assertEqual(helper.Helper._read({"addr": "0x1000", "len": 0}), {"data": ""})
        self.assertEqual(helper.Helper._read({"addr": "0x1002", "len": 4}), {"error": "Cannot access memory at address 0x1004"})
        self.assertIn("bad read length", helper.Helper._read({"addr": "0x1000", "len": -1})["error"])
        self.assertIn("bad read request", helper.Helper._read({"addr": "zz", "len": 1})["error"])


if __name__ == "__main__":
    unittest.main()
