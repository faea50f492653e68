import unittest
from unittest import mock

from . import gdbstub as gdb
from mpidbg_gdb import args, names


class Names(unittest.TestCase):
    def setUp(self):
        gdb.values.clear()

    def test_a_name_gdb_cannot_evaluate_goes_by_name(self):
        # MPICH's MPI_DOUBLE is a macro: gdb has no symbol for it
        self.assertEqual(args.datatype_arg("MPI_DOUBLE"), {"name": "MPI_DOUBLE"})
        self.assertEqual(args.datatype_arg("mpi_double_precision"), {"name": "MPI_DOUBLE_PRECISION"})

    def test_a_name_gdb_knows_is_its_value(self):
        gdb.values["MPI_INT"] = gdb.Value(0x4C000405, gdb.Type("MPI_Datatype"))
        self.assertEqual(args.datatype_arg("MPI_INT"), {"handle": "0x4c000405"})

    def test_open_mpis_null_is_libmpis_global(self):
        out = 'Symbol "ompi_mpi_datatype_null" is static storage at address 0x555555558b60.'
        with mock.patch.object(gdb, "execute", return_value=out) as ex:
            self.assertEqual(args.datatype_arg("MPI_DATATYPE_NULL"), {"handle": "0x555555558b60"})
            ex.assert_called_with("info address ompi_mpi_datatype_null", to_string=True)
        with mock.patch.object(gdb, "execute", side_effect=gdb.error("No symbol")):
            self.assertEqual(args.datatype_arg("MPI_DATATYPE_NULL"), {"name": "MPI_DATATYPE_NULL"})

    def test_open_mpis_globals_are_named(self):
        for sym, want in (("ompi_mpi_datatype_null", "MPI_DATATYPE_NULL"), ("ompi_request_null", "MPI_REQUEST_NULL"),
                          ("ompi_mpi_op_sum", "MPI_SUM"), ("ompi_mpi_op_null", "MPI_OP_NULL"),
                          ("ompi_mpi_comm_world", "MPI_COMM_WORLD")):
            out = "%s in section .bss of /usr/lib/libmpi.so.40\n" % sym
            with mock.patch.object(gdb, "execute", return_value=out):
                self.assertEqual(names.predefined_name("0x1000"), want)
        for out in ("ompi_mpi_comm_world + 8 in section .bss\n", "No symbol matches 0x1000.\n", "ompi_foo in section .bss\n"):
            with mock.patch.object(gdb, "execute", return_value=out):
                self.assertIsNone(names.predefined_name("0x1000"))


if __name__ == "__main__":
    unittest.main()
