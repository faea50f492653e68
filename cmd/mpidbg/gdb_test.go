package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mpidbg/mpidbg/internal/envvar"
	"github.com/mpidbg/mpidbg/internal/golden"
	"github.com/mpidbg/mpidbg/internal/mpilib"
	"github.com/mpidbg/mpidbg/internal/testenv"
)

// gdbSession is what TestGdb asks gdb at the line "// stop here" of
// testprogs/gdb/types.c, live and in a core file: each command's output
// is compared with testdata/gdb/types.golden.
var gdbSession = []string{
	"print t",
	"print/r t",
	"print v",
	"print raw",
	"print comm",
	"print reqs",
	"print op",
	"print win",
	"info mpi-types",
	"info mpi-types VECTOR",
	"mpi type t",
	"mpi type t --tree",
	"mpi type t --typemap",
	"mpi type v --signature",
	"mpi buffer grid v 1",
	"mpi buffer out t 2 --limit 6",
	"mpi buffer out t 2 --start 10 --limit 3",
	"mpi buffer grid v 1 --start -1",
	"mpi path t (RESIZED)(STRUCT)[1][2](DOUBLE)",
	"mpi path t t[1][2]",
	"mpi errors",
	"info mpi-requests",
	"info mpi-call",
	"mpi type 0xdead",
	"mpi type nosuch",
	// the MI twins, for the DAP server (docs/gdb.md, "The MI commands")
	`interpreter-exec mi "-mpi-type v"`,
	`interpreter-exec mi "-mpi-types VECTOR"`,
	`interpreter-exec mi "-mpi-buffer grid v 1 --limit 2"`,
	`interpreter-exec mi "-mpi-buffer grid v 1 --start 6 --limit 4"`,
	`interpreter-exec mi "-mpi-call"`,
	`interpreter-exec mi "-mpi-requests"`,
	`interpreter-exec mi "-mpi-errors"`,
}

// gdbFixture is one testprogs/gdb program built for a gdb test, with
// this tree's mpidbg, gdb extension and shim.
type gdbFixture struct {
	dir, src, exe, mpidbg, shim, gdb string
	env                              []string
	mpi                              mpilib.MPI
}

// forEachGdbMPI runs test once per MPI library, as a subtest named
// after it.
func forEachGdbMPI(t *testing.T, test func(t *testing.T, m mpilib.MPI)) {
	for _, m := range mpilib.All {
		t.Run(m.String(), func(t *testing.T) { test(t, m) })
	}
}

// golden is name's golden file for the fixture's MPI: name itself for
// MPICH, name with _openmpi before the extension for Open MPI (whose
// handles are addresses, and whose libraries differ).
func (f *gdbFixture) golden(name string) string {
	if f.mpi == mpilib.MPICH {
		return name
	}
	ext := filepath.Ext(name)
	return strings.TrimSuffix(name, ext) + "_" + f.mpi.String() + ext
}

func newGdbFixture(t *testing.T, m mpilib.MPI, name string) *gdbFixture {
	t.Helper()
	cc := needCompiler(t, m)
	f := &gdbFixture{shim: needShim(t, m), gdb: needGdb(t), dir: t.TempDir(), mpi: m}
	src, err := os.ReadFile(filepath.Join("..", "..", "testprogs", "gdb", name+".c"))
	if err != nil {
		t.Fatal(err)
	}
	f.src = string(src)
	f.exe = buildWith(t, cc, f.dir, name, f.src)
	f.mpidbg = buildMpidbg(t, f.dir)
	ext, err := filepath.Abs(filepath.Join("..", "..", "extensions", "gdb"))
	if err != nil {
		t.Fatal(err)
	}
	f.env = gdbTestEnv(f.mpidbg, ext, f.shim)
	if m == mpilib.OpenMPI {
		// the programs run as singletons (no mpiexec), where Open MPI
		// 4.1's one-sided component rdma fails MPI_Win_create (natively
		// too); root is allowed by needCompiler (internal/testenv)
		f.env = append(f.env, envvar.OMPIOsc+"=^rdma")
	}
	return f
}

// session runs mpidbg gdb in batch mode: the commands before (unchecked:
// breakpoints, run), then cmds, each after a marker, on target (program,
// core, -p PID). It returns what cmds printed, with the fixture's
// directory taken out of the paths (creation sites name the copy of the
// source there).
func (f *gdbFixture) session(t *testing.T, before, cmds []string, target ...string) string {
	t.Helper()
	args := []string{"--gdb", f.gdb, "-nx", "-batch", "-ex", "set pagination off", "-ex", "set width 0"}
	for _, c := range before {
		args = append(args, "-ex", c)
	}
	args = append(args, sessionArgs(cmds)...)
	args = append(args, target...)
	got, prelude := runGdb(t, f.mpidbg, f.env, cmds, args...)
	if slices.Contains(before, "run") && gdbNotStopped.MatchString(prelude) {
		// the program ended before its stop: a singleton's MPI_Init can
		// fail on a loaded machine (Open MPI's forks a daemon); once is
		// retried, with the first attempt kept in the log
		t.Logf("the program did not reach its stop; again. The first attempt:\n%s", prelude)
		got, prelude = runGdb(t, f.mpidbg, f.env, cmds, args...)
		if gdbNotStopped.MatchString(prelude) {
			t.Fatalf("the program did not reach its stop:\n%s", prelude)
		}
	}
	return strings.ReplaceAll(got, f.dir+"/", "")
}

// gdbNotStopped matches what gdb prints when the program it ran ended.
var gdbNotStopped = regexp.MustCompile(`\[Inferior \d+ \(process \d+\) exited|The program is not being run|Program terminated with signal|without a process to debug`)

// TestGdb runs mpidbg gdb on testprogs/gdb/types.c in batch mode: the
// program stops at "// stop here" with datatypes and pending requests;
// the printers and commands must show them, and show the same from the
// core file gcore writes there.
func TestGdb(t *testing.T) { forEachGdbMPI(t, testGdb) }

func testGdb(t *testing.T, m mpilib.MPI) {
	f := newGdbFixture(t, m, "types")
	stop := 0
	for i, l := range strings.Split(f.src, "\n") {
		if strings.Contains(l, "// stop here") {
			stop = i + 1
		}
	}
	if stop == 0 {
		t.Fatal("types.c has no line marked // stop here")
	}
	core := filepath.Join(f.dir, "types.core")
	got := f.session(t, []string{"break types.c:" + strconv.Itoa(stop), "run", "gcore " + core}, gdbSession, f.exe)
	checkGdbGolden(t, f.golden("types.golden"), got, true)
	if _, err := os.Stat(core); err != nil {
		t.Fatalf("gcore wrote no core file: %v", err)
	}
	t.Run("core", func(t *testing.T) {
		checkGdbGolden(t, f.golden("types.golden"), f.session(t, nil, gdbSession, f.exe, core), false)
	})
}

// TestGdbFortran: in a Fortran program (testprogs/gdb/types_f.f90), a
// datatype shows through its TYPE(MPI_Datatype) variable and through its
// INTEGER handle, and a Fortran array through it, live and in a core file.
func TestGdbFortran(t *testing.T) { forEachGdbMPI(t, testGdbFortran) }

func testGdbFortran(t *testing.T, m mpilib.MPI) {
	fc, err := exec.LookPath(mpilib.FortranCompiler(m))
	if err != nil {
		testenv.Missing(t, testenv.RequireMPI, "%s is missing", mpilib.FortranCompiler(m))
	}
	f := newGdbFixture(t, m, "types")
	src, err := os.ReadFile(filepath.Join("..", "..", "testprogs", "gdb", "types_f.f90"))
	if err != nil {
		t.Fatal(err)
	}
	f90, exe := filepath.Join(f.dir, "types_f.f90"), filepath.Join(f.dir, "types_f")
	if err := os.WriteFile(f90, src, 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command(fc, "-g", "-O0", "-J", f.dir, "-o", exe, f90).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", fc, err, b)
	}
	stop := 0
	for i, l := range strings.Split(string(src), "\n") {
		if strings.Contains(l, "! stop here") {
			stop = i + 1
		}
	}
	cmds := []string{"mpi type row_t", "mpi type row_int --signature", "mpi buffer a(2,1) row_t 1", "print row_t"}
	check := func(t *testing.T, got string) {
		for _, want := range []string{"row_t", "VECTOR", "DOUBLE_PRECISION*3", "21", "22", "23",
			"= row_t = {combiner = VECTOR, count = 3, blocklength = 1, stride = 4, oldtype = DOUBLE_PRECISION"} {
			if !strings.Contains(got, want) {
				t.Errorf("no %q in:\n%s", want, got)
			}
		}
		if strings.Contains(got, "Error") || strings.Contains(got, "no datatype") {
			t.Errorf("an error in:\n%s", got)
		}
	}
	core := filepath.Join(f.dir, "types_f.core")
	check(t, f.session(t, []string{"break types_f.f90:" + strconv.Itoa(stop), "run", "gcore " + core}, cmds, exe))
	t.Run("core", func(t *testing.T) { check(t, f.session(t, nil, cmds, exe, core)) })
}

// errorSession is what TestGdbBreakOnError asks gdb once the program
// stopped on its finding.
var errorSession = []string{
	"frame",
	"info mpi-call",
	// the same as data, looked up from the newest frame whichever is
	// selected: main here, the shim's mpidbg_break in the core file
	`interpreter-exec mi "-mpi-call"`,
	"mpi errors",
	"info mpi-requests",
	"mpi break-on-error",
}

// TestGdbBreakOnError runs testprogs/gdb/errors.c under mpidbg gdb with
// mpi break-on-error on: the program must stop on its planted
// buffer-overlap with the program's frame of the faulty MPI_Isend
// selected, and mpi errors must show the finding with its places.
func TestGdbBreakOnError(t *testing.T) { forEachGdbMPI(t, testGdbBreakOnError) }

func testGdbBreakOnError(t *testing.T, m mpilib.MPI) {
	f := newGdbFixture(t, m, "errors")
	core := filepath.Join(f.dir, "errors.core")
	got := f.session(t, []string{"mpi break-on-error on", "run", "gcore " + core}, errorSession, f.exe)
	checkGdbGolden(t, f.golden("errors.golden"), got, true)

	// the core file written at the stop: the same call, findings and requests
	coreSession := errorSession[1:5]
	t.Run("core", func(t *testing.T) {
		checkGdbGolden(t, f.golden("errors_core.golden"), f.session(t, nil, coreSession, f.exe, core), true)
	})
}

// TestGdbAttach attaches mpidbg gdb -p to a running process that has the
// shim (as a rank of a job would): info mpi-types must list its datatype.
func TestGdbAttach(t *testing.T) { forEachGdbMPI(t, testGdbAttach) }

func testGdbAttach(t *testing.T, m mpilib.MPI) {
	if b, err := os.ReadFile("/proc/sys/kernel/yama/ptrace_scope"); err == nil && strings.TrimSpace(string(b)) != "0" && os.Geteuid() != 0 {
		t.Skip("yama's ptrace_scope lets only root attach gdb to a process it did not start")
	}
	f := newGdbFixture(t, m, "attach")
	prog := exec.Command(f.exe)
	prog.Env = append(f.env, envvar.Preload+"="+f.shim, envvar.Race+"=off")
	out, err := prog.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := prog.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		prog.Process.Kill()
		prog.Wait()
	}()
	line := make([]byte, 6)
	if _, err := io.ReadFull(out, line); err != nil || string(line) != "ready\n" {
		t.Fatalf("the program did not get ready: %q %v", line, err)
	}
	got := f.session(t, nil, []string{"info mpi-types"}, "-p", strconv.Itoa(prog.Process.Pid))
	if !strings.Contains(got, "VECTOR") || !strings.Contains(got, "attach.c:13 in main") {
		t.Errorf("info mpi-types after attaching:\n%s", got)
	}
}

// TestGdbArgs checks how mpidbg gdb reads gdb's command line.
func TestGdbArgs(t *testing.T) {
	tests := []struct {
		args []string
		want gdbInvocation
	}{
		{[]string{"./app"}, gdbInvocation{program: "./app"}},
		{[]string{"-batch", "-ex", "run", "./app"}, gdbInvocation{program: "./app"}},
		{[]string{"-ex=run", "--iex", "set x", "./app", "arg"}, gdbInvocation{program: "./app", core: true}},
		{[]string{"./app", "core.1"}, gdbInvocation{program: "./app", core: true}},
		{[]string{"./app", "1234"}, gdbInvocation{program: "./app", attach: true}},
		{[]string{"-p", "1234"}, gdbInvocation{attach: true}},
		{[]string{"--pid=1234", "./app"}, gdbInvocation{program: "./app", attach: true}},
		{[]string{"-c", "core", "./app"}, gdbInvocation{program: "./app", core: true}},
		{[]string{"-q", "--args", "./app", "-p", "x"}, gdbInvocation{program: "./app"}},
		{[]string{"-batch", "-x", "cmds"}, gdbInvocation{}},
	}
	for _, tt := range tests {
		if got := scanGdbArgs(tt.args); got != tt.want {
			t.Errorf("scanGdbArgs(%q) = %+v, want %+v", tt.args, got, tt.want)
		}
	}
}

func TestGdbOwnFlags(t *testing.T) {
	tests := []struct {
		args      []string
		gdb, shim string
		rest      []string
		err       bool
	}{
		{args: []string{"-batch", "-ex", "run", "./app"}, rest: []string{"-batch", "-ex", "run", "./app"}},
		{args: []string{"--gdb", "/g", "-p", "12"}, gdb: "/g", rest: []string{"-p", "12"}},
		{args: []string{"-q", "--shim=/s.so", "./app"}, shim: "/s.so", rest: []string{"-q", "./app"}},
		{args: []string{"--", "--gdb", "x"}, rest: []string{"--gdb", "x"}},
		{args: []string{"--shim", "/s.so", "--args", "./app", "--shim", "x"}, shim: "/s.so", rest: []string{"--args", "./app", "--shim", "x"}},
		{args: []string{"./app", "--gdb"}, err: true},
	}
	for _, tt := range tests {
		g, rest, err := gdbOwnFlags(tt.args)
		if tt.err {
			if err == nil {
				t.Errorf("gdbOwnFlags(%q): no error", tt.args)
			}
			continue
		}
		if err != nil || g.gdb != tt.gdb || g.shim != tt.shim || strings.Join(rest, " ") != strings.Join(tt.rest, " ") {
			t.Errorf("gdbOwnFlags(%q) = %+v %q %v, want gdb %q shim %q rest %q", tt.args, g, rest, err, tt.gdb, tt.shim, tt.rest)
		}
	}
}

// needGdb skips (or, with MPIDBG_REQUIRE_MPI set, fails) without gdb,
// and returns its path.
func needGdb(t *testing.T) string {
	t.Helper()
	return testenv.NeedTool(t, testenv.RequireMPI, "gdb", "apt-get install gdb")
}

// buildMpidbg builds this command into dir/bin/mpidbg: gdb's extension
// starts it as its helper, and mpidbg gdb execs gdb, so the test cannot
// run it in-process.
func buildMpidbg(t *testing.T, dir string) string {
	t.Helper()
	exe := filepath.Join(dir, "bin", "mpidbg")
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		goTool = "go"
	}
	if b, err := exec.Command(goTool, "build", "-o", exe, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	return exe
}

// gdbTestEnv is the environment for mpidbg gdb: this tree's extension,
// helper and shim; MPIDBG_RACE unset so that mpidbg gdb turns it off.
func gdbTestEnv(mpidbg, ext, shim string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case envvar.Race, envvar.Bin, envvar.GdbExt, envvar.Shim, envvar.Preload:
			continue
		}
		env = append(env, kv)
	}
	// the C locale, as on a bare CI machine: gdb's host charset is ASCII,
	// so MI strings take the extension's ASCII fallback on every machine
	return append(env, envvar.Bin+"="+mpidbg, envvar.GdbExt+"="+ext, envvar.Shim+"="+shim,
		envvar.NoColor+"=1", envvar.MPIExecTimeout+"=120", "LC_ALL=C")
}

// sessionArgs is a session's commands as -ex arguments, each command after a
// marker line that sections the output.
func sessionArgs(cmds []string) []string {
	var args []string
	for _, c := range cmds {
		args = append(args, "-ex", "echo @@@ "+c+`\n`, "-ex", c)
	}
	return append(args, "-ex", `echo @@@ end\n`)
}

// runGdb runs mpidbg gdb with args and returns what cmds printed (see
// gdbSections) and what came before the first of them.
func runGdb(t *testing.T, mpidbg string, env []string, cmds []string, args ...string) (got, prelude string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, mpidbg, append([]string{"gdb"}, args...)...)
	cmd.Env = env
	cmd.Dir = filepath.Dir(filepath.Dir(mpidbg))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("mpidbg gdb timed out; output:\n%s", out.String())
	}
	if err != nil {
		t.Logf("mpidbg gdb: %v (gdb -batch fails when a command does)", err)
	}
	got, ok := gdbSections(out.String(), cmds)
	if !ok {
		t.Fatalf("the output lacks the session's markers:\n%s", out.String())
	}
	prelude, _, _ = strings.Cut(out.String(), "@@@ ")
	return got, prelude
}

var (
	gdbMarker = regexp.MustCompile(`(?m)^@@@ (.*)$`)
	// run-time addresses: stack, heap, code of a position-independent program
	gdbAddr = regexp.MustCompile(`0x(0000)?(7f|55|56)[0-9a-f]{9,10}\b`)
	// a frame's number counts the shim's frames below it
	gdbFrameNo = regexp.MustCompile(`(?m)^#\d+  |\(frame #\d+\)|-level="\d+"`)
)

// gdbSections keeps what the session's commands printed, from the first
// marker to the last, with run-time addresses replaced by 0xADDR.
func gdbSections(out string, cmds []string) (string, bool) {
	locs := gdbMarker.FindAllStringIndex(out, -1)
	if len(locs) != len(cmds)+1 {
		return "", false
	}
	var b strings.Builder
	for i := 0; i < len(cmds); i++ {
		b.WriteString("(gdb) " + cmds[i] + "\n")
		body := out[locs[i][1]:locs[i+1][0]]
		body = strings.TrimPrefix(body, "\n")
		b.WriteString(body)
	}
	out = gdbAddr.ReplaceAllString(b.String(), "0xADDR")
	// whether an out-pointer argument of the shim's wrapper survives in a
	// register is the compiler's choice, and changes with the shim's code
	out = strings.ReplaceAll(out, `value="<optimized out>"`, `value="0xADDR"`)
	return gdbFrameNo.ReplaceAllStringFunc(out, func(m string) string {
		switch {
		case strings.HasPrefix(m, "#"):
			return "#N  "
		case strings.HasPrefix(m, "-level"):
			return `-level="N"`
		}
		return "(frame #N)"
	}), true
}

// checkGdbGolden compares got with testdata/gdb/NAME; write: the session
// that defines the file, which go test -update rewrites.
func checkGdbGolden(t *testing.T, name, got string, write bool) {
	t.Helper()
	path := filepath.Join("testdata", "gdb", name)
	if write {
		golden.CheckFile(t, path, got)
	} else {
		golden.Compare(t, path, got)
	}
}
