import unittest

from . import gdbstub as gdb
from mpidbg_gdb import mi


class MIValues(unittest.TestCase):
    def setUp(self):
        gdb.reset()

    def test_value_shapes(self):
        v = mi.mi_value({"callee_level": 4, "debug_info": True, "args": [{"name": "buf", "x": None}], "t": (1, False)})
        self.assertEqual(v, {"callee-level": "4", "debug-info": "true", "args": [{"name": "buf", "x": ""}], "t": ["1", "false"]})

    def test_ascii_host_charset(self):
        gdb.state["charset"] = "ANSI_X3.4-1968"
        self.assertEqual(mi.mi_string("├─ a → b × 2 … é"), "|- a -> b x 2 ... \\xe9")
        gdb.state["charset"] = "UTF-8"
        self.assertEqual(mi.mi_string("├─ é"), "├─ é")

    def test_result(self):
        self.assertEqual(mi.mi_result("t", None), {"text": "t"})
        self.assertEqual(mi.mi_result("t", {"a": 1}), {"text": "t", "value": {"a": "1"}})

    def test_every_mi_command_is_made(self):
        self.assertEqual([c.__name__ for c in mi.MI_COMMANDS], ["MIType", "MIBuffer", "MICall", "MIRequests", "MIErrors", "MITypes"])


if __name__ == "__main__":
    unittest.main()
