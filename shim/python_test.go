package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// python311 is a CPython 3.11 interpreter, or the test is skipped: the
// shim reads no other version (python.c).
func python311(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"/usr/bin/python3.11", "python3.11", "python3"} {
		p, err := exec.LookPath(name)
		if err != nil {
			continue
		}
		out, err := exec.Command(p, "-c", "import sys, platform; print(platform.python_implementation(), sys.version_info[:2] == (3, 11))").Output()
		if err == nil && strings.TrimSpace(string(out)) == "CPython True" {
			return p
		}
	}
	t.Skip("no CPython 3.11 (python3.11)")
	return ""
}

// cc compiles C sources into a program in a temporary directory.
func cc(t *testing.T, name string, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler")
	}
	out := filepath.Join(t.TempDir(), name)
	cmd := exec.Command("cc", append([]string{"-Wall", "-Werror", "-O2", "-o", out}, args...)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cc %s: %v\n%s", strings.Join(args, " "), err, b)
	}
	return out
}

// linesScript prints, for every code object of some sources (a sample
// with what makes line tables interesting, and a few large modules of
// the standard library), its co_firstlineno, number of code units, line
// table in hex and the line of each code unit by co_lines(): what
// testdata/pyline_check.c compares pyline.c with.
const linesScript = `
import sys, types, inspect, json.decoder, argparse, threading, typing
sample = '''
import functools

@functools.lru_cache(
    maxsize=None)
def f(a,
      b):
    x = [i * 2
         for i in range(a)
         if i % 3]
    y = (lambda q:
         q + 1)(b)
    return (x,
            y)
''' + "\n" * 300 + '''
class C:
    def method(self, comm, buf):
        try:
            comm.Send(buf, dest=1,
                      tag=7)
        except Exception as e:
            raise RuntimeError(
                "x") from e
        finally:
            pass
''' + "".join("v%d = %d\n" % (i, i) for i in range(200)) + '''
async def g():
    async with x as y:
        await y
'''
roots = [compile(sample, "sample.py", "exec")]
for m in (json.decoder, argparse, threading, typing):
    roots.append(compile(inspect.getsource(m), m.__file__, "exec"))

def codes(co):
    yield co
    for c in co.co_consts:
        if isinstance(c, types.CodeType):
            yield from codes(c)

for root in roots:
    for co in codes(root):
        n = len(co.co_code) // 2
        lines = [-1] * n
        for start, end, line in co.co_lines():
            for u in range(start // 2, end // 2):
                lines[u] = -1 if line is None else line
        t = co.co_linetable.hex() or "-"
        print(co.co_firstlineno, n, t, *lines)
`

// TestPyLine compares pyline.c's decoding of line tables with CPython's
// own, for every code unit of some 640 code objects.
func TestPyLine(t *testing.T) {
	py := python311(t)
	prog := cc(t, "pyline_check", "testdata/pyline_check.c", "pyline.c")
	cases, err := exec.Command(py, "-c", linesScript).Output()
	if err != nil {
		t.Fatalf("%s: %v", py, err)
	}
	cmd := exec.Command(prog)
	cmd.Stdin = strings.NewReader(string(cases))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("pyline.c disagrees with %s: %v\n%s", py, err, out)
	}
	t.Logf("%s", strings.TrimSpace(string(out)))
}

// TestPyLayout checks python_layout.h's offsets against CPython 3.11's
// headers, when they are installed (python3.11-dev): the shim builds
// without them.
func TestPyLayout(t *testing.T) {
	py := python311(t)
	out, err := exec.Command(py, "-c", "import sysconfig; print(sysconfig.get_paths()['include'])").Output()
	if err != nil {
		t.Fatal(err)
	}
	inc := strings.TrimSpace(string(out))
	if _, err := os.Stat(filepath.Join(inc, "internal", "pycore_frame.h")); err != nil {
		t.Skipf("no CPython 3.11 headers in %s (python3.11-dev)", inc)
	}
	prog := cc(t, "pylayout", "-I"+inc, "testdata/pylayout.c")
	if b, err := exec.Command(prog).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
}
