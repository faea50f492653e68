"""The connection to `mpidbg gdb-helper` (docs/gdb-helper.md).

One helper process per gdb session, started on first use and restarted
when it died. The helper decodes; gdb only reads memory for it, from a
live inferior or a core file alike, and never calls into the program.
"""

import base64
import json
import os
import shutil
import subprocess
import tempfile

import gdb

NO_SHIM = "no mpidbg shim in this process (run it with mpidbg run or mpidbg gdb)"
NO_PROCESS = "the program is not running (start it, attach to it or open a core file)"


class HelperError(gdb.GdbError):
    """An error the helper reported, or a failure to reach it."""


def find_binary():
    """The mpidbg executable: $MPIDBG_BIN, else bin/mpidbg of the source
    tree this file is in, else mpidbg on PATH."""
    env = os.environ.get("MPIDBG_BIN")
    if env:
        return env
    here = os.path.dirname(os.path.realpath(__file__))  # <root>/extensions/gdb/mpidbg_gdb
    candidate = os.path.normpath(os.path.join(here, "..", "..", "..", "bin", "mpidbg"))
    if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
        return candidate
    found = shutil.which("mpidbg")
    if found:
        return found
    raise HelperError(
        "mpidbg: cannot find the mpidbg executable (tried $MPIDBG_BIN, %s and PATH); "
        "build it with 'make build' or set MPIDBG_BIN" % candidate)


def registry_address():
    """The address of the shim's mpidbg_registry in the selected inferior
    (or core file), by gdb's symbol lookup; GdbError when there is none."""
    if gdb.selected_inferior().pid == 0:
        raise gdb.GdbError(NO_PROCESS)
    try:
        # by symbol, not by expression: "&x" is no address in a Fortran
        # frame's language
        sym = gdb.lookup_global_symbol("mpidbg_registry")
        v = sym.value().address if sym is not None else eval_as_c("&mpidbg_registry")
    except gdb.error:
        raise gdb.GdbError(NO_SHIM)
    try:
        addr = int(v)
    except (gdb.error, TypeError, ValueError):
        addr = int(v.cast(gdb.lookup_type("unsigned long")))
    if addr == 0:
        raise gdb.GdbError(NO_SHIM)
    return addr


def eval_as_c(expr):
    """expr evaluated as C whatever the selected frame's language (a
    shim without debug information, in a Fortran frame)."""
    lang = gdb.parameter("language")
    gdb.execute("set language c", to_string=True)
    try:
        return gdb.parse_and_eval(expr)
    finally:
        gdb.execute("set language %s" % lang, to_string=True)


def hexaddr(n):
    """n as the protocol writes addresses and handles: 0x and hex digits
    (two's complement for a negative n, on 64 bits)."""
    return "0x%x" % (n & 0xFFFFFFFFFFFFFFFF)


class Helper(object):
    def __init__(self):
        self.proc = None
        self.stderr = None
        self.next_id = 1

    def _start(self):
        exe = find_binary()
        self.stderr = tempfile.TemporaryFile(prefix="mpidbg-gdb-helper-")
        try:
            self.proc = subprocess.Popen(
                [exe, "gdb-helper"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=self.stderr, close_fds=True)
        except OSError as e:
            self.proc = None
            raise HelperError("mpidbg: cannot start %s gdb-helper: %s" % (exe, e))

    def _diagnostics(self):
        """The end of what the helper wrote on its standard error."""
        if self.stderr is None:
            return ""
        try:
            self.stderr.seek(0)
            text = self.stderr.read().decode("utf-8", "replace").strip()
        except (OSError, ValueError):
            return ""
        return text[-2000:]

    def stop(self):
        """Ends the helper; the next request starts a new one."""
        p, self.proc = self.proc, None
        if p is None:
            return
        for f in (p.stdin, p.stdout):
            try:
                f.close()
            except OSError:
                pass
        try:
            p.kill()
        except OSError:
            pass
        try:
            p.wait(timeout=2)
        except Exception:
            pass

    def _died(self, what):
        status = self.proc.poll() if self.proc else None
        diag = self._diagnostics()
        self.stop()
        msg = "mpidbg gdb-helper %s" % what
        if status is not None:
            msg += " (exit status %d)" % status
        if diag:
            msg += ":\n" + diag
        msg += "\nThe next mpidbg command starts a new helper."
        return HelperError(msg)

    def _send(self, obj):
        self.proc.stdin.write((json.dumps(obj) + "\n").encode("utf-8"))
        self.proc.stdin.flush()

    def request(self, op, args=None, registry=True):
        """Sends one request and serves the helper's memory reads until it
        answers. Returns (text, value); raises HelperError. registry=False
        for an op that needs no shim in the process (caller)."""
        args = dict(args or {})
        if registry:
            args["registry"] = hexaddr(registry_address())
        if self.proc is not None and self.proc.poll() is not None:
            self.stop()  # it died since the last request: start again
        if self.proc is None:
            self._start()
        rid = self.next_id
        self.next_id += 1
        try:
            try:
                self._send({"id": rid, "op": op, "args": args})
            except (OSError, ValueError):
                raise self._died("is not reading its requests")
            while True:
                line = self.proc.stdout.readline()
                if not line:
                    raise self._died("exited")
                try:
                    msg = json.loads(line.decode("utf-8"))
                except ValueError:
                    raise self._died("sent a line that is not JSON: %r" % line[:200])
                if not isinstance(msg, dict):
                    raise self._died("sent %r, not a JSON object" % line[:200])
                if "read" in msg or "where" in msg:
                    answer = self._read(msg["read"]) if "read" in msg else self._where(msg["where"])
                    try:
                        self._send(answer)
                    except (OSError, ValueError):
                        raise self._died("is not reading its answers")
                    continue
                if msg.get("id") != rid:
                    raise self._died("answered request %r while %d was pending" % (msg.get("id"), rid))
                if not msg.get("ok"):
                    raise HelperError("mpidbg: " + str(msg.get("error") or "the helper failed without a message"))
                return msg.get("text") or "", msg.get("value")
        except HelperError:
            raise
        except BaseException:
            # Interrupted (Ctrl-C) in the middle of a request: the helper
            # may still send for it, so it cannot serve the next one.
            self.stop()
            raise

    @staticmethod
    def _where(req):
        """Names call sites (return addresses) as file:line in function,
        from gdb's symbols; "" where gdb has none."""
        names = []
        try:
            addrs = [int(str(a), 0) for a in req["addrs"]]
        except (KeyError, TypeError, ValueError):
            return {"error": "bad where request %r" % (req,)}
        for a in addrs:
            names.append(_site_name(a))
        return {"where": names}

    @staticmethod
    def _read(req):
        try:
            addr = int(str(req["addr"]), 0)
            length = int(req["len"])
        except (KeyError, TypeError, ValueError):
            return {"error": "bad read request %r" % (req,)}
        if length < 0:
            return {"error": "bad read length %d" % length}
        if length == 0:
            return {"data": ""}
        try:
            mem = gdb.selected_inferior().read_memory(addr, length)
        except gdb.MemoryError as e:
            return {"error": str(e) or "Cannot access memory at address 0x%x" % addr}
        except gdb.error as e:
            return {"error": str(e)}
        return {"data": base64.b64encode(bytes(mem)).decode("ascii")}


def _site_name(ret):
    """The source line of the call whose return address is ret."""
    pc = ret - 1  # inside the call instruction
    try:
        sal = gdb.find_pc_line(pc)
    except gdb.error:
        return ""
    if sal is None or sal.symtab is None or not sal.line:
        return ""
    name = "%s:%d" % (sal.symtab.filename, sal.line)
    try:
        block = gdb.block_for_pc(pc)
        while block is not None and block.function is None:
            block = block.superblock
        if block is not None:
            name += " in " + block.function.print_name
    except RuntimeError:
        pass
    return name


_helper = Helper()


def request(op, args=None, registry=True):
    """Runs op on the session's helper; returns (text, value)."""
    return _helper.request(op, args, registry)


def text(op, args=None):
    return request(op, args)[0]


def stop():
    _helper.stop()
