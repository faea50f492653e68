package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mpidbg/mpidbg/internal/envvar"
	"github.com/mpidbg/mpidbg/internal/mpilib"
)

// namesSession is what TestGdbNames asks at "// stop here" of
// testprogs/gdb/names.c, and what each answer must say (every MPI,
// live and in the core file).
var namesSession = []struct{ cmd, want string }{
	{"print vec_t", "= MPI_DATATYPE_NULL"}, // MPI_Type_free set it
	{"print gone", "= freed datatype (was vec_t, freed at names.c:22 in main)"},
	{"print none", "= MPI_DATATYPE_NULL"},
	{"print req", "= MPI_REQUEST_NULL"},
	{"print done", "= MPI_REQUEST_NULL"}, // MPI_Wait set it
	{"print nocomm", "= MPI_COMM_NULL"},
	{"print noop", "= MPI_OP_NULL"},
	{"print nowin", "= MPI_WIN_NULL"},
	{"print nogroup", "= MPI_GROUP_NULL"},
	{"print (MPI_Datatype)" + "0x8c000777", "= freed or unknown datatype handle 0x8c000777"},
	// a macro in MPICH, libmpi's global in Open MPI: by name through the registry
	{"mpi buffer buf MPI_DOUBLE 2", "[1](DOUBLE)  DOUBLE  2.5"},
	{"mpi type MPI_DOUBLE --signature", "DOUBLE"},
	{"mpi type mpi_int", "signature    INT"},
	{"mpi path MPI_DOUBLE (DOUBLE)", "type         DOUBLE"},
	{"mpi type MPI_DATATYPE_NULL", "MPI_DATATYPE_NULL: the null datatype handle, which names no datatype"},
	{"mpi type none", "MPI_DATATYPE_NULL: the null datatype handle, which names no datatype"},
	{"mpi buffer buf MPI_DATATYPE_NULL 2", "the datatype is MPI_DATATYPE_NULL, the null handle: it names no datatype"},
	{"mpi type gone", "freed at    names.c:22 in main"},
	{"mpi type 0x8c000777", "freed or unknown datatype handle 0x8c000777"},
	{"mpi type MPI_NOSUCH", "MPI_NOSUCH: no such predefined MPI datatype"},
	{`interpreter-exec mi "-mpi-buffer buf MPI_DOUBLE 2"`, `path="[1](DOUBLE)"`},
	{`interpreter-exec mi "-mpi-type MPI_DATATYPE_NULL"`, `null="true"`},
}

// TestGdbNames: MPI's predefined names work as arguments whatever the
// library makes of them, null and freed handles print as such, and
// mpidbg gdb starts without Go's runtime-gdb.py auto-load warning (the
// shim's .debug_gdb_scripts is stripped), live and in a core file.
func TestGdbNames(t *testing.T) { forEachGdbMPI(t, testGdbNames) }

func testGdbNames(t *testing.T, m mpilib.MPI) {
	f := newGdbFixture(t, m, "names")
	stop := 0
	for i, l := range strings.Split(f.src, "\n") {
		if strings.Contains(l, "// stop here") {
			stop = i + 1
		}
	}
	var cmds []string
	for _, c := range namesSession {
		cmds = append(cmds, c.cmd)
	}
	check := func(t *testing.T, out string) {
		t.Helper()
		if strings.Contains(out, "runtime-gdb.py") || strings.Contains(out, "auto-loading has been declined") {
			t.Errorf("gdb warned about Go's runtime-gdb.py:\n%s", out)
		}
		got, ok := gdbSections(out, cmds)
		if !ok {
			t.Fatalf("the output lacks the session's markers:\n%s", out)
		}
		sections := strings.Split(got, "(gdb) ")
		for i, c := range namesSession {
			if i+1 >= len(sections) || !strings.Contains(sections[i+1], c.want) {
				t.Errorf("%s: want %q in:\n%s", c.cmd, c.want, got)
				return
			}
		}
		if strings.Contains(got, "No symbol") || strings.Contains(got, "neither predefined") {
			t.Errorf("an error gdb or the registry made in:\n%s", got)
		}
	}
	core := filepath.Join(f.dir, "names.core")
	check(t, f.fullSession(t, []string{"break names.c:" + strconv.Itoa(stop), "run", "gcore " + core}, cmds, f.exe))
	t.Run("core", func(t *testing.T) { check(t, f.fullSession(t, nil, cmds, f.exe, core)) })
}

// fullSession is session's output in full, from gdb's first line on,
// with the fixture's directory taken out of the paths.
func (f *gdbFixture) fullSession(t *testing.T, before, cmds []string, target ...string) string {
	t.Helper()
	args := []string{"gdb", "--gdb", f.gdb, "-nx", "-batch", "-ex", "set pagination off", "-ex", "set width 0"}
	for _, c := range before {
		args = append(args, "-ex", c)
	}
	args = append(append(args, sessionArgs(cmds)...), target...)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, f.mpidbg, args...)
	cmd.Env = f.env
	cmd.Dir = f.dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); ctx.Err() != nil {
		t.Fatalf("mpidbg gdb timed out; output:\n%s", out.String())
	} else if err != nil {
		t.Logf("mpidbg gdb: %v", err)
	}
	return strings.ReplaceAll(out.String(), f.dir+"/", "")
}

// TestGdbMissingProgram: mpidbg gdb refuses a program that is not there
// as mpidbg run does (a usage error, status 2) and starts no gdb.
func TestGdbMissingProgram(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "gdb-ran")
	fake := filepath.Join(dir, "fake-gdb")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "adir"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(envvar.GdbExt, filepath.Join("..", "..", "extensions", "gdb"))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"./nope"}, "program ./nope: no such file"},
		{[]string{"-batch", "-ex", "run", "nope-not-on-path"}, "program nope-not-on-path: no such file"},
		{[]string{"--args", "./nope", "-x"}, "program ./nope: no such file"},
		{[]string{filepath.Join(dir, "adir")}, "a directory, not a program"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(append([]string{"gdb", "--gdb", fake}, tc.args...), &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("mpidbg gdb %q: status %d, stderr %q; want 2 and %q", tc.args, code, stderr.String(), tc.want)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("mpidbg gdb %q started gdb", tc.args)
		}
	}
}
