import os
import unittest
from unittest import mock

from . import gdbstub as gdb
from mpidbg_gdb import call, callframe, helper


def user_stack():
    """A finding's stop: the shim's hook and check, its MPI_Isend wrapper,
    the program's main."""
    gdb.state["solibs"].update({1: "/opt/mpidbg/lib/libmpidbg.so", 2: "/opt/mpidbg/lib/libmpidbg.so",
                                3: "/opt/mpidbg/lib/libmpidbg.so"})
    return gdb.stack(gdb.Frame("mpidbg_break", "finding.c", 10, pc=1), gdb.Frame("check_send", "checks.c", 20, pc=2),
                     gdb.Frame("MPI_Isend", "wrappers.c", 30, pc=3), gdb.Frame("main", "errors.c", 16, pc=4),
                     gdb.Frame("__libc_start_call_main", pc=5))


def fake_caller(asked):
    """helper.request for the caller op, by a simplified rule (the real one
    is Go's, tested there): the first MPI_ frame whose caller's name does
    not start with MPI_, mpidbg or check_."""
    def request(op, args=None, registry=True):
        assert op == "caller" and registry is False, (op, registry)
        frames = args["frames"]
        asked.append(frames)
        for i in range(len(frames) - 1):
            if frames[i]["func"].startswith("MPI_") and not frames[i + 1]["func"].startswith(("MPI_", "mpidbg", "check_")):
                return "", {"callee": i, "caller": i + 1}
        return "", None
    return request


class FindMPICall(unittest.TestCase):
    def setUp(self):
        gdb.reset()

    def test_finds_the_programs_call_and_describes_frames(self):
        frames = user_stack()
        asked = []
        with mock.patch.object(helper, "request", fake_caller(asked)):
            callee, caller = callframe.find_mpi_call()
        self.assertIs(callee, frames[2])
        self.assertIs(caller, frames[3])
        self.assertEqual(asked[0][2], {"func": "MPI_Isend", "file": "wrappers.c", "lib": "/opt/mpidbg/lib/libmpidbg.so"})
        self.assertEqual(asked[0][4], {"func": "__libc_start_call_main", "file": "", "lib": ""})

    def test_a_deep_stack_goes_in_pieces_that_share_a_frame(self):
        names = ["f%d" % i for i in range(7)] + ["MPI_Send", "main"]
        frames = gdb.stack(*[gdb.Frame(n) for n in names])
        asked = []
        with mock.patch.object(helper, "request", fake_caller(asked)), mock.patch.object(callframe, "CALLER_CHUNK", 3):
            callee, caller = callframe.find_mpi_call()
        self.assertEqual((callee, caller), (frames[7], frames[8]))
        self.assertEqual([[f["func"] for f in a] for a in asked],
                         [["f0", "f1", "f2"], ["f2", "f3", "f4"], ["f4", "f5", "f6"], ["f6", "MPI_Send", "main"]])

    def test_none(self):
        gdb.stack(gdb.Frame("poll"), gdb.Frame("main"))
        with mock.patch.object(helper, "request", fake_caller([])):
            self.assertEqual(callframe.find_mpi_call(), (None, None))
        asked = []
        gdb.stack(gdb.Frame("main"))
        with mock.patch.object(helper, "request", fake_caller(asked)):
            self.assertEqual(callframe.find_mpi_call(), (None, None))
        self.assertEqual(asked, [])  # one frame: nothing to ask

    def test_no_process(self):
        with self.assertRaisesRegex(gdb.GdbError, "not running"):
            callframe.find_mpi_call()

    @unittest.skipUnless(os.access(os.path.join(os.path.dirname(__file__), "..", "..", "..", "bin", "mpidbg"), os.X_OK),
                         "bin/mpidbg is not built (make build)")
    def test_with_the_real_helper(self):
        frames = user_stack()
        try:
            self.assertEqual(callframe.find_mpi_call(), (frames[2], frames[3]))
            # the program's own frame in a library: still the program's
            gdb.state["solibs"][4] = "/usr/lib/x86_64-linux-gnu/libmpich.so.12"
            self.assertEqual(callframe.find_mpi_call(), (None, None))
        finally:
            helper.stop()


class MPICall(unittest.TestCase):
    def setUp(self):
        gdb.reset()

    def test_without_debug_information(self):
        frames = user_stack()
        with mock.patch.object(helper, "request", fake_caller([])):
            c = call.mpi_call()
        self.assertEqual(c, {"call": "MPI_Isend", "callee_level": 2, "caller_level": 3, "caller": "main",
                             "where": "errors.c:16", "debug_info": False, "args": [], "buffers": []})
        self.assertIs(frames[3], frames[2].older())
        self.assertEqual(call.render_call(c),
                         "MPI_Isend, called from main at errors.c:16 (frame #3).\n"
                         "MPI_Isend has no debug information for its arguments: cannot show its buffers "
                         "(run the program with the mpidbg shim, whose MPI functions have it).")

    def test_render(self):
        self.assertEqual(call.render_call(None), "No MPI call on the stack of the selected thread.")
        c = {"call": "MPI_Sendrecv", "caller": "main", "where": "", "caller_level": 1, "debug_info": True, "args": [],
             "buffers": [{"name": "sendbuf", "count_arg": "sendcount", "datatype_arg": "sendtype", "addr": "0x10", "count": 4,
                          "datatype": "0x4c000405", "text": "TABLE", "error": ""},
                         {"name": "recvbuf", "addr": "", "error": "recvcount optimized out"}]}
        self.assertEqual(call.render_call(c), "MPI_Sendrecv, called from main (frame #1).\n"
                         "sendbuf = 0x10, sendcount = 4, sendtype = 0x4c000405:\nTABLE\n"
                         "recvbuf: recvcount optimized out.")
        c["buffers"] = []
        self.assertTrue(call.render_call(c).endswith("MPI_Sendrecv has no buffer argument."))

    def test_arg_triples(self):
        self.assertEqual(call.arg_triples(["buf", "count", "datatype", "dest", "tag", "comm"]), [("buf", "count", "datatype")])
        self.assertEqual(call.arg_triples(["sendbuf", "sendcount", "sendtype", "recvbuf", "recvcount", "recvtype"]),
                         [("sendbuf", "sendcount", "sendtype"), ("recvbuf", "recvcount", "recvtype")])
        self.assertEqual(call.arg_triples(["sendbuf", "recvbuf", "count", "datatype", "op"]),
                         [("sendbuf", "count", "datatype"), ("recvbuf", "count", "datatype")])
        self.assertEqual(call.arg_triples(["origin_addr", "origin_count", "origin_datatype", "target_rank"]),
                         [("origin_addr", "origin_count", "origin_datatype")])
        self.assertEqual(call.arg_triples(["request"]), [])

    def test_a_buffer_with_arguments_lost(self):
        b = call.call_buffer("MPI_Send", {"buf": gdb.Value(1)}, "buf", "count", "datatype")
        self.assertEqual(b["addr"], "")
        self.assertEqual(b["error"], "count, datatype optimized out in MPI_Send's frame: cannot show the buffer "
                         "(break on MPI_Send or PMPI_Send, where the arguments are still in the registers, "
                         "and run info mpi-call there)")


if __name__ == "__main__":
    unittest.main()
