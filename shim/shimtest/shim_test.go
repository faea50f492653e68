// Package shimtest tests lib/libmpidbg.so from the outside: it builds the
// library from the current sources, runs the C programs of
// shim/testdata under mpiexec.mpich with the library preloaded and the
// launcher side of the wire protocol listening, and checks what the ranks
// report. It also checks the registry layout the C compiler produces
// against package registry, and the shim's finding ids against the
// catalogue.
package shimtest

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/wire"
)

const shimDir = ".."

func required() bool {
	v := os.Getenv("MPIDBG_REQUIRE_MPI")
	return v != "" && v != "0"
}

type tools struct{ cc, exec, goTool string }

var (
	toolsOnce sync.Once
	tl        tools
	toolsErr  error
)

func needMPI(t *testing.T) tools {
	t.Helper()
	toolsOnce.Do(func() {
		if tl.cc, toolsErr = exec.LookPath("mpicc.mpich"); toolsErr != nil {
			return
		}
		if tl.exec, toolsErr = exec.LookPath("mpiexec.mpich"); toolsErr != nil {
			return
		}
		if tl.goTool, toolsErr = exec.LookPath("go"); toolsErr != nil {
			tl.goTool, toolsErr = "/usr/local/go/bin/go", nil
		}
	})
	if toolsErr != nil {
		if required() {
			t.Fatalf("MPIDBG_REQUIRE_MPI is set but MPICH is missing: %v", toolsErr)
		}
		t.Skipf("MPICH not found (apt-get install mpich libmpich-dev); set MPIDBG_REQUIRE_MPI=1 to fail instead: %v", toolsErr)
	}
	return tl
}

var (
	buildOnce sync.Once
	buildDir  string
	libPath   string
	buildErr  error
)

// build compiles the library from the current sources and the test
// programs, once per test binary.
func build(t *testing.T) (lib, dir string) {
	t.Helper()
	tl := needMPI(t)
	buildOnce.Do(func() {
		if buildDir, buildErr = os.MkdirTemp("", "mpidbg-shimtest-"); buildErr != nil {
			return
		}
		libPath = filepath.Join(buildDir, "libmpidbg.so")
		cmd := exec.Command(tl.goTool, "build", "-buildmode=c-shared", "-o", libPath, ".")
		cmd.Dir = shimDir
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("building the shim: %v\n%s", err, out)
			return
		}
		for _, p := range []string{"clean", "bugs", "layout", "threads", "file"} {
			cmd := exec.Command(tl.cc, "-g", "-O0", "-w", "-pthread", "-I"+shimDir, "-o", filepath.Join(buildDir, p), filepath.Join(shimDir, "testdata", p+".c"))
			if out, err := cmd.CombinedOutput(); err != nil {
				buildErr = fmt.Errorf("compiling %s.c: %v\n%s", p, err, out)
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return libPath, buildDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// run is one job's outcome: what the launcher side received, per rank,
// and the job's standard error.
type run struct {
	hellos   map[int]wire.Hello
	byes     map[int]wire.Bye
	findings []checks.Finding
	stderr   string
	err      error
}

func (r *run) ids() []string {
	var s []string
	for _, f := range r.findings {
		s = append(s, fmt.Sprintf("%d:%s", f.Ranks[0], f.ID))
	}
	sort.Strings(s)
	return s
}

// mpirun runs prog with np ranks, the library preloaded and a launcher
// listening on a unix socket unless env sets MPIDBG_REPORT.
func mpirun(t *testing.T, np int, env []string, prog string, args ...string) *run {
	t.Helper()
	lib, dir := build(t)
	sock := filepath.Join(t.TempDir(), "report.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	r := &run{hellos: map[int]wire.Hello{}, byes: map[int]wire.Bye{}}
	var mu sync.Mutex
	var wg sync.WaitGroup
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				rd := wire.NewReader(c)
				for {
					m, err := rd.Read()
					if err != nil {
						if !errors.Is(err, io.EOF) {
							mu.Lock()
							r.err = err
							mu.Unlock()
						}
						return
					}
					mu.Lock()
					switch m.Kind {
					case wire.KindHello:
						r.hellos[m.Hello.Rank] = *m.Hello
					case wire.KindBye:
						r.byes[m.Bye.Rank] = *m.Bye
					case wire.KindFinding:
						r.findings = append(r.findings, *m.Finding)
					}
					mu.Unlock()
				}
			}()
		}
	}()
	a := []string{"-n", fmt.Sprint(np), "-genv", "LD_PRELOAD", lib}
	report := "unix:" + sock
	for _, e := range env {
		k, v, _ := strings.Cut(e, "=")
		if k == wire.EnvReport {
			report = v
			continue
		}
		a = append(a, "-genv", k, v)
	}
	if report != "" {
		a = append(a, "-genv", wire.EnvReport, report)
	}
	a = append(a, filepath.Join(dir, prog))
	a = append(a, args...)
	cmd := exec.Command(needMPI(t).exec, a...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("%s %v: timed out\n%s", prog, args, stderr.String())
	}
	ln.Close()
	wg.Wait()
	r.stderr = stderr.String()
	if err != nil && r.err == nil {
		r.err = err
	}
	return r
}

// TestClean runs correct programs: one through most of the wrapped API
// on 2 and 3 ranks, one with four threads per rank under
// MPI_THREAD_MULTIPLE, one doing MPI-IO through ROMIO. Every rank says
// hello and bye and reports nothing.
func TestClean(t *testing.T) {
	tests := []struct {
		prog string
		np   int
		args []string
	}{
		{"clean", 2, nil},
		{"clean", 3, nil},
		{"threads", 2, nil}, // more ranks than cores with four threads each crawls, shim or not
		{"file", 2, []string{filepath.Join(t.TempDir(), "file.dat")}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/np%d", tt.prog, tt.np), func(t *testing.T) {
			r := mpirun(t, tt.np, nil, tt.prog, tt.args...)
			if r.err != nil {
				t.Fatalf("%s: %v\n%s", tt.prog, r.err, r.stderr)
			}
			for _, f := range r.findings {
				t.Errorf("rank %d: %s: %s", f.Ranks[0], f.ID, f.Message)
			}
			if len(r.hellos) != tt.np || len(r.byes) != tt.np {
				t.Errorf("got %d hellos and %d byes, want %d each", len(r.hellos), len(r.byes), tt.np)
			}
			for rank, h := range r.hellos {
				if h.Version != wire.Version || h.Size != tt.np || h.MPI != "mpich" || h.PID == 0 || !filepath.IsAbs(h.Exe) {
					t.Errorf("rank %d: hello %+v", rank, h)
				}
			}
		})
	}
}

func TestFindings(t *testing.T) {
	tests := []struct {
		name string
		env  []string
		want []string // rank:id, sorted
	}{
		{"uncommitted", nil, []string{"0:type-not-committed"}},
		{"args", nil, []string{
			"0:commit-predefined", "0:invalid-argument", "0:invalid-rank", "0:invalid-root", "0:invalid-tag", "0:negative-count", "0:type-null",
			"1:commit-predefined", "1:invalid-argument", "1:invalid-rank", "1:invalid-root", "1:invalid-tag", "1:negative-count", "1:type-null",
		}},
		{"leaks", nil, []string{
			"0:leak-comm", "0:leak-group", "0:leak-request", "0:leak-type", "0:request-never-completed",
			"1:leak-comm", "1:leak-group", "1:leak-request", "1:leak-type", "1:request-never-completed",
		}},
		{"leaks", []string{"MPIDBG_CHECKS=-leak,-request-lifecycle"}, nil},
		{"overlap-path", nil, []string{"0:buffer-overlap", "1:buffer-overlap"}},
		{"reqcopy", nil, nil}, // a request variable reused after its handle was copied
		{"reqlost", nil, []string{"0:request-never-completed", "0:request-overwritten", "1:request-never-completed", "1:request-overwritten"}},
	}
	for _, tt := range tests {
		t.Run(tt.name+strings.Join(tt.env, ""), func(t *testing.T) {
			r := mpirun(t, 2, tt.env, "bugs", tt.name)
			if r.err != nil {
				t.Fatalf("%v\n%s", r.err, r.stderr)
			}
			if got := r.ids(); strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("got %v, want %v\n%s", got, tt.want, r.stderr)
			}
			for _, f := range r.findings {
				e, ok := checks.Lookup(f.ID)
				if !ok || f.Category != e.Category || f.Severity != e.Severity || f.Rule != e.Rule {
					t.Errorf("%s: category %s, severity %s, rule %q do not match the catalogue", f.ID, f.Category, f.Severity, f.Rule)
				}
				if !strings.HasPrefix(f.Message, f.Call+": ") {
					t.Errorf("%s: message %q does not start with the call %s", f.ID, f.Message, f.Call)
				}
				if !strings.HasSuffix(f.Site.Module, "/bugs") || f.Site.Offset == 0 {
					t.Errorf("%s: site %+v is not in the program", f.ID, f.Site)
				}
			}
		})
	}
}

// TestMessages checks the text, path and related places of a few
// findings.
func TestMessages(t *testing.T) {
	r := mpirun(t, 2, nil, "bugs", "overlap-path")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	if len(r.findings) == 0 {
		t.Fatalf("no findings\n%s", r.stderr)
	}
	f := r.findings[0]
	if f.Path != "s_type(STRUCT)[2][5](CHAR)" {
		t.Errorf("buffer-overlap path: got %q, want s_type(STRUCT)[2][5](CHAR)", f.Path)
	}
	if f.Call != "MPI_Irecv" || !strings.Contains(f.Message, "the MPI_Irecv still in progress") {
		t.Errorf("buffer-overlap: %s: %s", f.Call, f.Message)
	}
	var rel []string
	for _, x := range f.Related {
		rel = append(rel, x.Message)
		if x.Site.Offset == 0 {
			t.Errorf("related %q has no site", x.Message)
		}
	}
	want := []string{"the MPI_Irecv started here", "datatype s_type made here by MPI_Type_create_struct"}
	if strings.Join(rel, "|") != strings.Join(want, "|") {
		t.Errorf("related: got %q, want %q", rel, want)
	}

	r = mpirun(t, 2, nil, "bugs", "args")
	msgs := map[string]string{}
	for _, f := range r.findings {
		if f.Ranks[0] == 0 {
			msgs[f.ID] = f.Message
		}
	}
	for id, want := range map[string]string{
		"negative-count":   "MPI_Send: count -3 must be non-negative",
		"invalid-rank":     "MPI_Send: dest 2 is not a rank of the communicator (size 2) nor MPI_PROC_NULL",
		"invalid-tag":      "MPI_Send: tag is MPI_ANY_TAG, which only receives accept",
		"invalid-root":     "MPI_Bcast: root 3 is not a rank of the communicator (size 2)",
		"invalid-argument": "MPI_Type_vector: vector: count -1 must be non-negative",
	} {
		if msgs[id] != want {
			t.Errorf("%s: got %q, want %q", id, msgs[id], want)
		}
	}
}

// TestStderr: without a launcher, a finding is one line on standard
// error with the source line of the call.
func TestStderr(t *testing.T) {
	r := mpirun(t, 2, []string{wire.EnvReport + "="}, "bugs", "uncommitted")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	re := regexp.MustCompile(`(?m)^mpidbg: rank 0: error type-not-committed: MPI_Send: datatype vector\(2,3,5,CHAR\) is used before MPI_Type_commit at .*bugs\.c:\d+ in uncommitted \(.*/bugs\+0x[0-9a-f]+\); datatype made here by MPI_Type_vector at .*bugs\.c:\d+`)
	if !re.MatchString(r.stderr) {
		t.Errorf("standard error has no finding line matching %s:\n%s", re, r.stderr)
	}
	// an unreachable launcher: said once, then the same lines
	r = mpirun(t, 2, []string{wire.EnvReport + "=unix:/nonexistent/mpidbg.sock"}, "bugs", "uncommitted")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	if !strings.Contains(r.stderr, "cannot reach the launcher") || !re.MatchString(r.stderr) {
		t.Errorf("unreachable launcher:\n%s", r.stderr)
	}
}

// TestAbort: MPIDBG_ON_ERROR=abort ends the job after the finding is out.
func TestAbort(t *testing.T) {
	r := mpirun(t, 2, []string{wire.EnvOnError + "=abort"}, "bugs", "uncommitted")
	if r.err == nil {
		t.Errorf("the job ended normally")
	}
	if got := r.ids(); strings.Join(got, " ") != "0:type-not-committed" {
		t.Errorf("got %v, want the finding before the abort", got)
	}
}

// TestCatalogueIDs: every finding id the C side knows is in the catalogue.
func TestCatalogueIDs(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(shimDir, "shim.h"))
	if err != nil {
		t.Fatal(err)
	}
	ms := regexp.MustCompile(`X\(\w+, "([a-z-]+)", MPIDBG_CAT_(\w+)\)`).FindAllStringSubmatch(string(b), -1)
	if len(ms) < 30 {
		t.Fatalf("found %d ids in shim.h", len(ms))
	}
	cats := map[string]checks.Category{"ARGUMENT": checks.CatArgument, "TYPE": checks.CatDatatypeLifecycle,
		"REQUEST": checks.CatRequestLifecycle, "LEAK": checks.CatLeak, "OVERLAP": checks.CatOverlap,
		"TYPEMATCH": checks.CatTypeMismatch, "COLL": checks.CatCollective, "DEADLOCK": checks.CatDeadlock,
		"RACE": checks.CatMessageRace, "LOST": checks.CatLostMessage, "BUFRACE": checks.CatBufferRace,
		"RMARACE": checks.CatRMARace}
	for _, m := range ms {
		e, ok := checks.Lookup(m[1])
		if !ok {
			t.Errorf("%s is not in the catalogue", m[1])
			continue
		}
		if e.Category != cats[m[2]] {
			t.Errorf("%s: category %s in shim.h, %s in the catalogue", m[1], cats[m[2]], e.Category)
		}
	}
}

// stopped runs bugs CASE with MPIDBG_ON_ERROR=stop, calls fn with the
// pid of rank 0 once it has stopped, and then resumes it with gdb.
func stopped(t *testing.T, bugCase string, fn func(pid int)) {
	gdb, err := exec.LookPath("gdb")
	if err != nil {
		t.Skip("gdb not found")
	}
	lib, dir := build(t)
	cmd := exec.Command(needMPI(t).exec, "-n", "2", "-genv", "LD_PRELOAD", lib, "-genv", wire.EnvOnError, "stop",
		"-genv", wire.EnvReport, "", filepath.Join(dir, "bugs"), bugCase)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := make(chan string)
	go func() {
		var b []byte
		buf := make([]byte, 512)
		for {
			n, err := stderr.Read(buf)
			b = append(b, buf[:n]...)
			for {
				i := strings.IndexByte(string(b), '\n')
				if i < 0 {
					break
				}
				lines <- string(b[:i])
				b = b[i+1:]
			}
			if err != nil {
				close(lines)
				return
			}
		}
	}()
	re := regexp.MustCompile(`^mpidbg: rank 0 stopped at MPI_Send: attach with gdb -p (\d+)$`)
	pid := 0
	var seen []string
	timeout := time.After(time.Minute)
	for pid == 0 {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("the job ended without stopping:\n%s", strings.Join(seen, "\n"))
			}
			seen = append(seen, l)
			if m := re.FindStringSubmatch(l); m != nil {
				pid, _ = strconv.Atoi(m[1])
			}
		case <-timeout:
			t.Fatalf("no stop line:\n%s", strings.Join(seen, "\n"))
		}
	}
	fn(pid)
	out, err := exec.Command(gdb, "-q", "-batch", "-nx", "-p", strconv.Itoa(pid), "-ex", "set var mpidbg_resume = 1", "-ex", "detach").CombinedOutput()
	if err != nil {
		t.Fatalf("gdb: %v\n%s", err, out)
	}
	done := make(chan error, 1)
	go func() {
		for range lines {
		}
		done <- cmd.Wait()
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("after resuming: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the job did not finish after mpidbg_resume was set")
	}
}

// TestStop: MPIDBG_ON_ERROR=stop parks the rank after the finding and
// says how to attach; a debugger that sets mpidbg_resume lets it go on.
func TestStop(t *testing.T) {
	stopped(t, "uncommitted", func(int) {})
}
