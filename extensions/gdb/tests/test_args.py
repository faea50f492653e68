import unittest

from . import gdbstub as gdb
from mpidbg_gdb import args


class SplitArgs(unittest.TestCase):
    def test_blanks_inside_brackets_and_quotes_stay(self):
        self.assertEqual(args.split_args("(buf + 4) t n"), ["(buf + 4)", "t", "n"])
        self.assertEqual(args.split_args('a[i + 1]  "x y" {1, 2}'), ["a[i + 1]", '"x y"', "{1, 2}"])
        self.assertEqual(args.split_args(r'"a \" b" c'), [r'"a \" b"', "c"])

    def test_empty(self):
        self.assertEqual(args.split_args(""), [])
        self.assertEqual(args.split_args(None), [])
        self.assertEqual(args.split_args("   "), [])

    def test_unbalanced_closers_do_not_go_negative(self):
        self.assertEqual(args.split_args(") a b"), [")", "a", "b"])


class ParseOptions(unittest.TestCase):
    def test_flags_values_and_rest(self):
        opts, rest = args.parse_options(["t", "--tree", "--limit", "5", "--start=2", "x"], ("tree",), ("limit", "start"), "U")
        self.assertEqual(opts, {"tree": True, "limit": "5", "start": "2"})
        self.assertEqual(rest, ["t", "x"])

    def test_double_dash_ends_options(self):
        opts, rest = args.parse_options(["--", "--tree"], ("tree",), (), "U")
        self.assertEqual((opts, rest), ({}, ["--tree"]))

    def test_mistakes(self):
        with self.assertRaisesRegex(gdb.GdbError, "unknown option --frob.\nUsage: U"):
            args.parse_options(["--frob"], (), (), "U")
        with self.assertRaisesRegex(gdb.GdbError, "--limit wants a value"):
            args.parse_options(["--limit"], (), ("limit",), "U")


class Arguments(unittest.TestCase):
    def setUp(self):
        gdb.reset()
        gdb.values.update({
            "t": gdb.Value(0x8c000001, gdb.Type("MPI_Datatype")),
            "buf": gdb.Value(0x7ffd0000, gdb.Type("int *", gdb.TYPE_CODE_PTR, 8)),
            "arr": gdb.Value(0, gdb.Type("int [4]", gdb.TYPE_CODE_ARRAY, 16), address=gdb.Value(0x601040)),
            "n": gdb.Value(3),
            "neg": gdb.Value(-1, gdb.Type("MPI_Comm", gdb.TYPE_CODE_INT, 4)),
            "fa21": gdb.Value(21, gdb.Type("real(kind=8)", 4, 8), address=gdb.Value(0x601048)),
            "ft": gdb.Value(7, gdb.Type("integer(kind=4)", gdb.TYPE_CODE_INT, 4)),
            "f08t": gdb.Value(0, gdb.Type("mpi_datatype", gdb.TYPE_CODE_STRUCT, 4, ["mpi_val"]),
                              members={"mpi_val": gdb.Value(12, gdb.Type("integer(kind=4)"))}),
        })

    def test_type(self):
        self.assertEqual(args.type_args(["t"]), {"handle": "0x8c000001", "view": "summary"})
        self.assertEqual(args.type_args(["t", "--tree", "--limit", "7"]), {"handle": "0x8c000001", "view": "tree", "limit": 7})
        self.assertEqual(args.type_args(["--view", "typemap", "t"])["view"], "typemap")
        with self.assertRaisesRegex(gdb.GdbError, "give one view, not tree, signature"):
            args.type_args(["t", "--tree", "--signature"])
        with self.assertRaisesRegex(gdb.GdbError, "wants a datatype expression"):
            args.type_args([])
        with self.assertRaisesRegex(gdb.GdbError, r"--limit -2: want a number from 0 \(the most lines"):
            args.type_args(["t", "--limit=-2"])

    def test_buffer(self):
        self.assertEqual(args.buffer_args(["buf", "t", "n", "--start", "4"]),
                         {"start": 4, "addr": "0x7ffd0000", "handle": "0x8c000001", "count": 3})
        self.assertEqual(args.buffer_args(["arr", "t", "n"])["addr"], "0x601040")
        with self.assertRaisesRegex(gdb.GdbError, "wants three expressions, got 2"):
            args.buffer_args(["buf", "t"])
        with self.assertRaisesRegex(gdb.GdbError, "nosuch: No symbol"):
            args.buffer_args(["nosuch", "t", "n"])

    def test_path(self):
        self.assertEqual(args.path_args(["t", "t[2][5]"]), {"handle": "0x8c000001", "path": "[2][5]"})
        self.assertEqual(args.path_args(["t", "(STRUCT)[2](CHAR)"])["path"], "(STRUCT)[2](CHAR)")
        with self.assertRaisesRegex(gdb.GdbError, "wants a datatype and a path"):
            args.path_args(["t"])

    def test_fortran_handles(self):
        self.assertEqual(args.type_args(["ft"]), {"handle": "0x7", "fortran": True, "view": "summary"})
        self.assertEqual(args.type_args(["f08t"]), {"handle": "0xc", "fortran": True, "view": "summary"})
        self.assertEqual(args.buffer_args(["arr", "f08t", "n"]),
                         {"handle": "0xc", "fortran": True, "addr": "0x601040", "count": 3})
        self.assertEqual(args.path_args(["ft", "[1]"]), {"handle": "0x7", "fortran": True, "path": "[1]"})
        # a Fortran array element is its value: its address is meant
        self.assertEqual(args.buffer_args(["fa21", "ft", "n"])["addr"], "0x601048")

    def test_negative_handle_is_its_width_in_twos_complement(self):
        self.assertEqual(args.to_int("neg"), 0xFFFFFFFF)


if __name__ == "__main__":
    unittest.main()
