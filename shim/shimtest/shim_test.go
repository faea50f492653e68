package shimtest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mpidbg/mpidbg/internal/testenv"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/internal/envvar"
	"github.com/mpidbg/mpidbg/run/launch"
	"github.com/mpidbg/mpidbg/wire"
)

const shimDir = ".."

// run is one job's outcome: what the launcher side received, per rank,
// and the job's standard error.
type run struct {
	hellos   map[int]wire.Hello
	byes     map[int]wire.Bye
	findings []checks.Finding
	stderr   string
	err      error
	accepted int        // connections taken from the listener
	mu       sync.Mutex // over the fields above while the job runs
}

// acceptGrace bounds how long mpirun, once the job has ended, waits for
// the accept loop to take connections still in the listener's backlog:
// long beside the goroutine's scheduling delay under load (the drop it
// prevents was seen within 0.2 s of the connection), short enough for
// the jobs whose ranks never connect (a bad MPIDBG_CHECKS ends them
// before MPI_Init).
const acceptGrace = time.Second

func (r *run) ids() []string {
	var s []string
	for _, f := range r.findings {
		s = append(s, fmt.Sprintf("%d:%s", f.Ranks[0], f.ID))
	}
	sort.Strings(s)
	return s
}

// job is an mpiexec started in a process group of its own, so that a
// test that gives up on it can end the whole job.
type job struct {
	cmd  *exec.Cmd
	done chan struct{} // closed when mpiexec has been waited for
	err  error         // what Wait returned
}

// startJob runs prog with np ranks under l's mpiexec with l's shim
// preloaded and env set for the ranks. launch.Args spells the
// environment options for the mpiexec's flavor (-genv or -x). The job is
// ended when the test ends, if it has not ended by then.
func startJob(t *testing.T, l *lib, np int, env []launch.Var, stderr io.Writer, prog string, args ...string) *job {
	t.Helper()
	shim, dir := build(t, l)
	mpiexec := needMPI(t, l).exec
	env = append([]launch.Var{{Name: envvar.Preload, Value: shim}}, env...)
	cmd := exec.Command(mpiexec, launch.Args(launch.FlavorOf(mpiexec), np, nil, env, filepath.Join(dir, prog), args)...)
	cmd.Stderr = stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// a rank that outlives a killed mpiexec holds stderr open: do not let
	// Wait wait for it forever
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	j := &job{cmd: cmd, done: make(chan struct{})}
	go func() {
		j.err = cmd.Wait()
		close(j.done)
	}()
	t.Cleanup(j.kill)
	return j
}

// wait waits up to d for the job to end; it says whether it did.
func (j *job) wait(d time.Duration) bool {
	select {
	case <-j.done:
		return true
	case <-time.After(d):
		return false
	}
}

// kill ends a job that is still running. SIGTERM first: both mpiexecs
// pass it on to their ranks, and Open MPI's starts each rank in a process
// group of its own, which a signal to the job's group does not reach.
// SIGKILL to the group if that was not enough.
func (j *job) kill() {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		select {
		case <-j.done:
			return
		default:
		}
		syscall.Kill(-j.cmd.Process.Pid, sig)
		if j.wait(5 * time.Second) {
			return
		}
	}
	<-j.done
}

// vars turns NAME=VALUE strings into launch.Vars.
func vars(env []string) []launch.Var {
	var vs []launch.Var
	for _, e := range env {
		k, v, _ := strings.Cut(e, "=")
		vs = append(vs, launch.Var{Name: k, Value: v})
	}
	return vs
}

// mpirun runs prog with np ranks under l, the shim preloaded and a
// launcher listening on a unix socket unless env sets MPIDBG_REPORT.
func mpirun(t *testing.T, l *lib, np int, env []string, prog string, args ...string) *run {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "report.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	r := &run{hellos: map[int]wire.Hello{}, byes: map[int]wire.Bye{}}
	var wg sync.WaitGroup
	wg.Add(1) // the accept loop: held until ln closes, so that each connection's Add comes before Wait can return
	go r.accept(ln, &wg)
	hasReport := false
	for _, e := range env {
		hasReport = hasReport || strings.HasPrefix(e, envvar.Report+"=")
	}
	if !hasReport {
		env = append(env, envvar.Report+"=unix:"+sock)
	}
	var stderr strings.Builder
	j := startJob(t, l, np, vars(env), &stderr, prog, args...)
	if !j.wait(2 * time.Minute) {
		j.kill()
		t.Fatalf("%s %v: timed out\n%s", prog, args, stderr.String())
	}
	// A rank connects at MPI_Init, and its connection waits in the
	// listener's backlog until the accept loop runs, which on a loaded
	// machine may be after the job has ended (MPI_Abort right after a
	// finding): closing the listener then would drop it, findings and
	// all. A rank killed before MPI_Init never comes: the wait is bounded.
	for by := time.Now().Add(acceptGrace); time.Now().Before(by); time.Sleep(10 * time.Millisecond) {
		r.mu.Lock()
		n := r.accepted
		r.mu.Unlock()
		if n >= np || hasReport {
			break
		}
	}
	ln.Close()
	wg.Wait()
	r.stderr = stderr.String()
	if j.err != nil && r.err == nil {
		r.err = j.err
	}
	return r
}

// accept takes the ranks' connections on ln until it closes, and records
// what they send.
func (r *run) accept(ln net.Listener, wg *sync.WaitGroup) {
	defer wg.Done()
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		r.mu.Lock()
		r.accepted++
		r.mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			r.read(wire.NewReader(c))
		}()
	}
}

// read records the messages of one connection until it ends.
func (r *run) read(rd *wire.Reader) {
	for {
		m, err := rd.Read()
		r.mu.Lock()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				r.err = err
			}
			r.mu.Unlock()
			return
		}
		switch m.Kind {
		case wire.KindHello:
			r.hellos[m.Hello.Rank] = *m.Hello
		case wire.KindBye:
			r.byes[m.Bye.Rank] = *m.Bye
		case wire.KindFinding:
			r.findings = append(r.findings, *m.Finding)
		}
		r.mu.Unlock()
	}
}

// TestClean runs correct programs: one through most of the wrapped API
// on 2 and 3 ranks, one with four threads per rank under
// MPI_THREAD_MULTIPLE, one doing MPI-IO (ROMIO in MPICH, OMPIO in Open
// MPI). Every rank says hello, naming the library the shim was built
// for, and bye, and reports nothing.
func TestClean(t *testing.T) {
	forEachMPI(t, testClean)
}

func testClean(t *testing.T, l *lib) {
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
			r := mpirun(t, l, tt.np, nil, tt.prog, tt.args...)
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
				if h.Version != wire.Version || h.Size != tt.np || h.MPI != l.name || h.PID == 0 || !filepath.IsAbs(h.Exe) {
					t.Errorf("rank %d: hello %+v", rank, h)
				}
			}
		})
	}
}

func TestFindings(t *testing.T) {
	forEachMPI(t, testFindings)
}

func testFindings(t *testing.T, l *lib) {
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
		{"leaks", []string{envvar.Checks + "=-leak,-request-lifecycle"}, nil},
		{"overlap-path", nil, []string{"0:buffer-overlap", "1:buffer-overlap"}},
		{"reqcopy", nil, nil}, // a request variable reused after its handle was copied
		{"reqlost", nil, []string{"0:request-never-completed", "0:request-overwritten", "1:request-never-completed", "1:request-overwritten"}},
	}
	for _, tt := range tests {
		t.Run(tt.name+strings.Join(tt.env, ""), func(t *testing.T) {
			r := mpirun(t, l, 2, tt.env, "bugs", tt.name)
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

// sType is what the tests expect of s_type, the datatype of bugs.c, under
// l: its expression, the path of its byte 52, and the constructor the
// shim names for it. Under MPICH bugs.c builds it with MPI_LB and MPI_UB
// markers (the shim's record of MPI_Type_struct says MPI_Type_create_struct,
// which MPICH implements it with); Open MPI 4 removed those names, as
// MPI-3.0 did, so there bugs.c gives it the same bounds with
// MPI_Type_create_resized over a struct of the three real blocks.
func sType(l *lib) (expr, path52, ctor string) {
	if l.isOpenMPI() {
		return "resized(-4,104,struct([5,7,2],[0,47,76],[INT,CHAR,DOUBLE]))", "s_type(RESIZED)(STRUCT)[1][5](CHAR)", "MPI_Type_create_resized"
	}
	return "struct([1,5,7,2,1],[-4,0,47,76,100],[LB,INT,CHAR,DOUBLE,UB])", "s_type(STRUCT)[2][5](CHAR)", "MPI_Type_create_struct"
}

// TestMessages checks the text, path and related places of a few
// findings.
func TestMessages(t *testing.T) {
	forEachMPI(t, testMessages)
}

func testMessages(t *testing.T, l *lib) {
	r := mpirun(t, l, 2, nil, "bugs", "overlap-path")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	if len(r.findings) == 0 {
		t.Fatalf("no findings\n%s", r.stderr)
	}
	f := r.findings[0]
	_, path52, ctor := sType(l)
	if f.Path != path52 {
		t.Errorf("buffer-overlap path: got %q, want %s", f.Path, path52)
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
	want := []string{"the MPI_Irecv started here", "datatype s_type made here by " + ctor}
	if strings.Join(rel, "|") != strings.Join(want, "|") {
		t.Errorf("related: got %q, want %q", rel, want)
	}

	r = mpirun(t, l, 2, nil, "bugs", "args")
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
	forEachMPI(t, testStderr)
}

func testStderr(t *testing.T, l *lib) {
	r := mpirun(t, l, 2, []string{envvar.Report + "="}, "bugs", "uncommitted")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	re := regexp.MustCompile(`(?m)^mpidbg: rank 0: error type-not-committed: MPI_Send: datatype vector\(2,3,5,CHAR\) is used before MPI_Type_commit at .*bugs\.c:\d+ in uncommitted \(.*/bugs\+0x[0-9a-f]+\); datatype made here by MPI_Type_vector at .*bugs\.c:\d+`)
	if !re.MatchString(r.stderr) {
		t.Errorf("standard error has no finding line matching %s:\n%s", re, r.stderr)
	}
	// an unreachable launcher: said once, then the same lines
	r = mpirun(t, l, 2, []string{envvar.Report + "=unix:/nonexistent/mpidbg.sock"}, "bugs", "uncommitted")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	if !strings.Contains(r.stderr, "cannot reach the launcher") || !re.MatchString(r.stderr) {
		t.Errorf("unreachable launcher:\n%s", r.stderr)
	}
}

// TestAbort: MPIDBG_ON_ERROR=abort ends the job after the finding is out.
func TestAbort(t *testing.T) {
	forEachMPI(t, testAbort)
}

func testAbort(t *testing.T, l *lib) {
	r := mpirun(t, l, 2, []string{envvar.OnError + "=abort"}, "bugs", "uncommitted")
	if r.err == nil {
		t.Errorf("the job ended normally")
	}
	if got := r.ids(); strings.Join(got, " ") != "0:type-not-committed" {
		t.Errorf("got %v, want the finding before the abort", got)
	}
}

// stopped runs bugs CASE under l with MPIDBG_ON_ERROR=stop, calls fn
// with the pid of rank 0 once it has stopped, and then resumes it with
// gdb.
func stopped(t *testing.T, l *lib, bugCase string, fn func(pid int)) {
	gdb := testenv.NeedTool(t, testenv.RequireMPI, "gdb", "apt-get install gdb")
	pr, pw := io.Pipe()
	env := []launch.Var{{Name: envvar.OnError, Value: "stop"}, {Name: envvar.Report, Value: ""}}
	j := startJob(t, l, 2, env, pw, "bugs", bugCase)
	go func() {
		<-j.done
		pw.Close()
	}()
	lines := stderrLines(t, pr)
	pid := stopLine(t, lines)
	fn(pid)
	out, err := exec.Command(gdb, "-q", "-batch", "-nx", "-p", strconv.Itoa(pid), "-ex", "set var mpidbg_resume = 1", "-ex", "detach").CombinedOutput()
	if err != nil {
		t.Fatalf("gdb: %v\n%s", err, out)
	}
	go func() {
		for range lines {
		}
	}()
	if !j.wait(time.Minute) {
		t.Fatal("the job did not finish after mpidbg_resume was set")
	}
	if j.err != nil {
		t.Errorf("after resuming: %v", j.err)
	}
}

// stopLine waits for the line that says rank 0 has stopped and returns
// the pid it names.
func stopLine(t *testing.T, lines <-chan string) int {
	t.Helper()
	re := regexp.MustCompile(`^mpidbg: rank 0 stopped at MPI_Send: attach with gdb -p (\d+)$`)
	var seen []string
	timeout := time.After(time.Minute)
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("the job ended without stopping:\n%s", strings.Join(seen, "\n"))
			}
			seen = append(seen, line)
			if m := re.FindStringSubmatch(line); m != nil {
				pid, _ := strconv.Atoi(m[1])
				return pid
			}
		case <-timeout:
			t.Fatalf("no stop line:\n%s", strings.Join(seen, "\n"))
		}
	}
}

// stderrLines passes the lines read from r on the channel it returns,
// which closes at the end of r. Once the test has ended it reads on
// without passing them, so that the job never blocks writing its
// standard error.
func stderrLines(t *testing.T, r io.Reader) <-chan string {
	lines := make(chan string)
	quit := make(chan struct{})
	t.Cleanup(func() { close(quit) })
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-quit:
			}
		}
		io.Copy(io.Discard, r) // a line too long for the scanner
	}()
	return lines
}

// TestStop: MPIDBG_ON_ERROR=stop parks the rank after the finding and
// says how to attach; a debugger that sets mpidbg_resume lets it go on.
func TestStop(t *testing.T) {
	forEachMPI(t, func(t *testing.T, l *lib) {
		stopped(t, l, "uncommitted", func(int) {})
	})
}

// TestChecksVariable: the shim reads MPIDBG_CHECKS as mpidbg run's
// --checks is read (checks.ValidateDisabled): a list it refuses ends the
// rank with the valid names, a list it takes runs the program.
func TestChecksVariable(t *testing.T) {
	forEachMPI(t, func(t *testing.T, l *lib) {
		for _, tt := range []struct {
			list string
			ok   bool
		}{
			{"-leak", true}, {" -leak , -overlap", true}, {"", true},
			{"-leaks", false}, {"leak", false}, {"-leak,", false}, {"-leak,,-overlap", false},
			{"+message-race-info", true}, {"-leak,+message-race-info", true}, {"+message-race", false}, {"+leak", false},
		} {
			if err := checks.ValidateDisabled(tt.list); (err == nil) != tt.ok {
				t.Errorf("checks.ValidateDisabled(%q): %v, want ok %v", tt.list, err, tt.ok)
			}
			r := mpirun(t, l, 2, []string{envvar.Checks + "=" + tt.list}, "clean")
			switch {
			case tt.ok && r.err != nil:
				t.Errorf("%s=%q: %v\n%s", envvar.Checks, tt.list, r.err, r.stderr)
			case !tt.ok && (r.err == nil || !strings.Contains(r.stderr, "is not -CATEGORY, a category to turn off (categories: argument,")):
				t.Errorf("%s=%q: got %v and stderr\n%s\nwant the rank ended with the categories", envvar.Checks, tt.list, r.err, r.stderr)
			}
		}
	})
}
