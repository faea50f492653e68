package dap

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-dap"
	"github.com/mpidbg/mpidbg/internal/envvar"
	"github.com/mpidbg/mpidbg/internal/mpilib"
	"github.com/mpidbg/mpidbg/internal/nshosts"
	"github.com/mpidbg/mpidbg/internal/testenv"
)

// remoteJob is a session of mpidbg dap on the head of two test hosts,
// with planted.c's four ranks on the hosts, launched and attached.
type remoteJob struct {
	c       *testClient
	adapter *exec.Cmd
	exited  chan struct{} // closed when the adapter has exited
	src     string
	nt      *nshosts.Net
}

// startRemote launches planted.c with rank r on hosts[r]: the head is the
// adapter's host (its ranks are attached as local ones), the nodes are
// others.
func startRemote(t *testing.T, m testMPI, hosts []string) *remoteJob {
	if testing.Short() {
		t.Skip("runs an MPI job across test hosts")
	}
	if _, err := exec.LookPath("gdbserver"); err != nil {
		testenv.Missing(t, testenv.RequireMPI, "gdbserver is missing")
	}
	prog, cfg := fixture(t, m, "planted")
	shim, err := testenv.FindShim(m.lib)
	if err != nil {
		t.Fatal(err)
	}
	nt := nshosts.New(t, 2)

	log := filepath.Join(t.TempDir(), "dap.log")
	if l := os.Getenv(envvar.DAPLog); l != "" {
		log = l
	}
	// ip netns exec, unshare and sh each exec the next: the process is
	// mpidbg dap's
	cmd := nt.Command(nt.Head, cfg.Mpidbg, "dap", "--log", log)
	cmd.Env = os.Environ()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	j := &remoteJob{adapter: cmd, exited: make(chan struct{}), src: fixtureSource(t, "planted"), nt: nt}
	go func() { cmd.Wait(); close(j.exited) }()
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-j.exited:
		case <-time.After(30 * time.Second):
			t.Errorf("mpidbg dap did not end within 30 s of the client closing")
			cmd.Process.Kill()
			<-j.exited
		}
		if t.Failed() {
			b, _ := os.ReadFile(log)
			lines := strings.Split(string(b), "\n")
			if len(lines) > 150 {
				lines = lines[len(lines)-150:]
			}
			t.Logf("mpidbg dap's standard error:\n%s\nits log, last lines:\n%s", stderr.String(), strings.Join(lines, "\n"))
		}
	})
	j.c = newClient(t, stdout, stdin)
	// the launcher's words with the hosts' list (name:slots, in rank order)
	var list []string
	for i := 0; i < len(hosts); {
		k := i
		for k < len(hosts) && hosts[k] == hosts[i] {
			k++
		}
		list = append(list, fmt.Sprintf("%s:%d", hosts[i], k-i))
		i = k
	}
	args := nt.LauncherArgs(m.lib, 2)
	for i := range args {
		if i > 0 && (args[i-1] == "-hosts" || args[i-1] == "--host") {
			args[i] = strings.Join(list, ",")
		}
	}
	launchJob(t, j.c, map[string]any{"program": prog, "np": len(hosts), "mpi": m.name, "shim": shim,
		"mpiexecArgs": args, "listen": nt.Head.Addr}, "", nil, []string{"errors"})

	// every rank on a node came through its gdbserver, from its own host
	for r, host := range hosts {
		if host == nt.Head.Name {
			continue
		}
		want := fmt.Sprintf("mpidbg: rank %d (pid ", r)
		j.c.wait(want+"on "+host, stopTimeout, 0, func(msg dap.Message) bool {
			o, ok := msg.(*dap.OutputEvent)
			return ok && strings.HasPrefix(o.Body.Output, want) && strings.Contains(o.Body.Output, "is on "+host+":")
		})
	}
	return j
}

// TestLaunchRemoteRanks: the adapter and mpiexec on one test host (the
// head), two ranks on each of two others (package nshosts), so that
// every rank is on another host than gdb and is debugged through the
// gdbserver its shim starts. Rank 2, on node2, stops at its faulty call
// with the finding; its variables and its MPI call's buffer read as for
// a local rank; a breakpoint then stops every rank; the job ends, and
// no gdbserver outlives it.
func TestLaunchRemoteRanks(t *testing.T) {
	forEachMPI(t, func(t *testing.T, m testMPI) { testRemoteRanks(t, m, []string{"node1", "node1", "node2", "node2"}) })
}

// TestLaunchMixedRanks: as TestLaunchRemoteRanks, with ranks 0 and 1 on
// the adapter's host, attached as local processes, and ranks 2 and 3 on
// node1 through their gdbservers: one gdb, native and remote targets in
// one all-stop session. With MPICH only: what it adds to the test above
// is gdb's, and a session of remote Open MPI ranks takes half a minute
// (docs/dap.md).
func TestLaunchMixedRanks(t *testing.T) {
	testRemoteRanks(t, testMPI{mpilib.MPICH.String(), mpilib.MPICH}, []string{"head", "head", "node1", "node1"})
}

func testRemoteRanks(t *testing.T, m testMPI, hosts []string) {
	j := startRemote(t, m, hosts)
	c, src := j.c, j.src
	fault, after := markerLine(t, "planted", "FAULT"), markerLine(t, "planted", "AFTER")

	ev, at := c.event("stopped", 0, stopTimeout)
	st := ev.(*dap.StoppedEvent)
	if st.Body.Reason != "exception" || st.Body.Text != "buffer-overlap" {
		t.Fatalf("stopped: reason %q text %q, want exception buffer-overlap", st.Body.Reason, st.Body.Text)
	}
	tid := st.Body.ThreadId
	if name := threadNames(t, c)[tid]; name != "rank 2" {
		t.Fatalf("the faulty thread is %q, want rank 2", name)
	}
	top := topFrame(t, c, tid)
	if top.Line != fault || top.Name != "main" {
		t.Fatalf("top frame %+v, want main at planted.c:%d", top, fault)
	}
	info := c.call("exceptionInfo", map[string]any{"threadId": tid}).(*dap.ExceptionInfoResponse)
	if info.Body.ExceptionId != "buffer-overlap" || !strings.Contains(info.Body.Description, "MPI_Irecv") {
		t.Errorf("exceptionInfo: %+v", info.Body)
	}
	locals, call := scopesOf(t, c, top.Id, "MPI_Isend")
	if r := variables(t, c, locals)["rank"]; r.Value != "2" {
		t.Errorf("local rank = %q, want 2", r.Value)
	}
	row := variables(t, c, locals)["row"]
	if kids := variables(t, c, row.VariablesReference); !strings.Contains(kids["combiner"].Value, "VECTOR") {
		t.Errorf("row's children %+v: want combiner VECTOR", kids)
	}
	buf := variables(t, c, call)["buf (as its datatype)"]
	if buf.VariablesReference == 0 {
		t.Fatalf("no buffer through its datatype in the MPI call scope")
	}
	if e := variables(t, c, buf.VariablesReference)["[2](INT)"]; e.Value != "2" {
		t.Errorf("buffer element [2](INT) = %q, want 2", e.Value)
	}
	repl := c.call("evaluate", map[string]any{"expression": "mpi errors", "context": "repl", "frameId": top.Id}).(*dap.EvaluateResponse)
	if !strings.Contains(repl.Body.Result, "buffer-overlap") {
		t.Errorf("mpi errors in the Debug Console: %q", repl.Body.Result)
	}
	// a breakpoint past the barrier, which no rank passes before rank 2
	// goes on, stops each rank, on both hosts
	bp := c.call("setBreakpoints", map[string]any{"source": map[string]any{"path": src},
		"breakpoints": []map[string]any{{"line": after}}}).(*dap.SetBreakpointsResponse)
	if len(bp.Body.Breakpoints) != 1 || !bp.Body.Breakpoints[0].Verified {
		t.Fatalf("setBreakpoints at line %d: %+v", after, bp.Body.Breakpoints)
	}
	c.call("continue", map[string]any{"threadId": tid})

	var ranks []string
	from := at + 1
	for i := 0; i < 4; i++ {
		ev, next := c.event("stopped", from, stopTimeout)
		from = next + 1
		st := ev.(*dap.StoppedEvent)
		if st.Body.Reason != "breakpoint" {
			t.Fatalf("stop %d: reason %q, want breakpoint", i, st.Body.Reason)
		}
		name := threadNames(t, c)[st.Body.ThreadId]
		if f := topFrame(t, c, st.Body.ThreadId); f.Line != after {
			t.Fatalf("%s stopped at line %d, want %d", name, f.Line, after)
		}
		ranks = append(ranks, name)
		c.call("continue", map[string]any{"threadId": st.Body.ThreadId})
	}
	sort.Strings(ranks)
	if strings.Join(ranks, ",") != "rank 0,rank 1,rank 2,rank 3" {
		t.Errorf("ranks stopped at the breakpoint: %v, want each of 0-3 once", ranks)
	}
	c.event("exited", from, stopTimeout)
	c.event("terminated", from, stopTimeout)
	c.call("disconnect", nil)
	j.gone(t)
}

// TestRemoteAdapterKilled: the adapter killed while a remote rank is
// stopped at its finding takes the job with it: every rank on the test
// hosts ends, and so does every gdbserver.
func TestRemoteAdapterKilled(t *testing.T) { forEachMPI(t, testRemoteAdapterKilled) }

func testRemoteAdapterKilled(t *testing.T, m testMPI) {
	j := startRemote(t, m, []string{"node1", "node1", "node2", "node2"})
	ev, _ := j.c.event("stopped", 0, stopTimeout)
	if st := ev.(*dap.StoppedEvent); st.Body.Text != "buffer-overlap" {
		t.Fatalf("stopped: %+v, want the finding", st.Body)
	}
	j.adapter.Process.Kill()
	<-j.exited
	j.gone(t)
}

// gone waits until nothing of the job is left on the nodes: no rank, no
// gdbserver, no launcher daemon (a process in a node's namespace is the
// job's: the test made them).
func (j *remoteJob) gone(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var left []string
		for _, h := range j.nt.Nodes {
			out, err := exec.Command("ip", "netns", "pids", h.NS).Output()
			if err != nil {
				t.Fatalf("ip netns pids %s: %v", h.NS, err)
			}
			for _, p := range strings.Fields(string(out)) {
				pid, _ := strconv.Atoi(p)
				if !alive(pid) {
					continue
				}
				cmd, _ := os.ReadFile(filepath.Join("/proc", p, "cmdline"))
				left = append(left, fmt.Sprintf("%s: %s (pid %s)", h.Name, strings.ReplaceAll(strings.TrimRight(string(cmd), "\x00"), "\x00", " "), p))
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("still there 30 s after the session ended: %v", left)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// alive says whether pid is a process that has not ended (a zombie has).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}
