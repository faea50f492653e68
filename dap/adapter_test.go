package dap

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-dap"
	"github.com/mpidbg/mpidbg/internal/envvar"
	"github.com/mpidbg/mpidbg/run/launch"
)

// stopTimeout bounds each wait for an event that must come; only a hang
// should reach it. It is generous because a loaded machine is slow here:
// in a session with ranks on other hosts, every library MPI_Init loads
// stops all the ranks while gdb reads the library through a gdbserver,
// and the first stop took 32 s at a load of 10 on two cores (5 s idle).
const stopTimeout = 4 * time.Minute

// launchJob runs initialize, launch, the breakpoints, configurationDone.
func launchJob(t *testing.T, c *testClient, launch map[string]any, file string, lines []int, filters []string) {
	t.Helper()
	c.call("initialize", map[string]any{"adapterID": "mpidbg", "linesStartAt1": true, "columnsStartAt1": true})
	seq := c.send("launch", launch)
	c.event("initialized", 0, stopTimeout)
	if file != "" {
		bps := []map[string]any{}
		for _, l := range lines {
			bps = append(bps, map[string]any{"line": l})
		}
		r := c.call("setBreakpoints", map[string]any{"source": map[string]any{"path": file}, "breakpoints": bps}).(*dap.SetBreakpointsResponse)
		if len(r.Body.Breakpoints) != len(lines) {
			t.Fatalf("setBreakpoints: %d breakpoints back, want %d", len(r.Body.Breakpoints), len(lines))
		}
	}
	if filters != nil {
		c.call("setExceptionBreakpoints", map[string]any{"filters": filters})
	}
	c.call("configurationDone", nil)
	c.response(seq, stopTimeout)
}

// threadNames maps thread ids to names.
func threadNames(t *testing.T, c *testClient) map[int]string {
	r := c.call("threads", nil).(*dap.ThreadsResponse)
	out := map[int]string{}
	for _, th := range r.Body.Threads {
		out[th.Id] = th.Name
	}
	return out
}

// rankThreads is threadNames without the extra threads of a rank.
func rankThreads(t *testing.T, c *testClient) map[int]string {
	out := threadNames(t, c)
	for id, name := range out {
		if strings.Contains(name, " thread ") {
			delete(out, id)
		}
	}
	return out
}

func topFrame(t *testing.T, c *testClient, tid int) dap.StackFrame {
	t.Helper()
	r := c.call("stackTrace", map[string]any{"threadId": tid, "startFrame": 0, "levels": 20}).(*dap.StackTraceResponse)
	if len(r.Body.StackFrames) == 0 {
		t.Fatalf("thread %d: no frames", tid)
	}
	return r.Body.StackFrames[0]
}

// scopesOf returns the Locals and "MPI call: CALL" scopes of a frame,
// failing the test without either.
func scopesOf(t *testing.T, c *testClient, frame int, call string) (locals, mpiCall int) {
	t.Helper()
	scopes := c.call("scopes", map[string]any{"frameId": frame}).(*dap.ScopesResponse)
	for _, s := range scopes.Body.Scopes {
		switch {
		case s.Name == "Locals":
			locals = s.VariablesReference
		case strings.HasPrefix(s.Name, "MPI call: "+call):
			mpiCall = s.VariablesReference
		}
	}
	if locals == 0 || mpiCall == 0 {
		t.Fatalf("scopes %+v: want Locals and MPI call: %s", scopes.Body.Scopes, call)
	}
	return locals, mpiCall
}

// TestLaunchBreakpoint: a breakpoint stops each of three ranks at its
// line, the threads are named by rank, and the session ends with the
// job, each rank let go by the adapter at its exit (exit.go).
func TestLaunchBreakpoint(t *testing.T) { forEachMPI(t, testLaunchBreakpoint) }

func testLaunchBreakpoint(t *testing.T, m testMPI) {
	prog, cfg := fixture(t, m, "breakpoints")
	log := keepLog(t, &cfg)
	src := filepath.Join(repoRoot(t), "testprogs", "dap", "breakpoints.c")
	line := markerLine(t, "breakpoints", "BREAK")
	c := start(t, cfg)
	launchJob(t, c, map[string]any{"program": prog, "np": 3}, src, []int{line}, nil)

	var ranks []string
	from := 0
	for i := 0; i < 3; i++ {
		ev, at := c.event("stopped", from, stopTimeout)
		from = at + 1
		st := ev.(*dap.StoppedEvent)
		if st.Body.Reason != "breakpoint" || !st.Body.AllThreadsStopped {
			t.Fatalf("stop %d: reason %q allThreadsStopped %v, want breakpoint, true", i, st.Body.Reason, st.Body.AllThreadsStopped)
		}
		names := threadNames(t, c)
		name := names[st.Body.ThreadId]
		if !strings.HasPrefix(name, "rank ") {
			t.Fatalf("stopped thread %d is named %q; threads %v", st.Body.ThreadId, name, names)
		}
		ranks = append(ranks, name)
		if f := topFrame(t, c, st.Body.ThreadId); f.Line != line || f.Source == nil || filepath.Base(f.Source.Path) != "breakpoints.c" {
			t.Fatalf("%s stopped at %+v, want breakpoints.c:%d", name, f, line)
		}
		c.call("continue", map[string]any{"threadId": st.Body.ThreadId})
	}
	sort.Strings(ranks)
	if strings.Join(ranks, ",") != "rank 0,rank 1,rank 2" {
		t.Errorf("ranks that stopped: %v, want each of 0-2 once", ranks)
	}
	c.event("exited", from, stopTimeout)
	c.event("terminated", from, stopTimeout)
	c.call("disconnect", nil)
	// none exited under gdb: with no breakpoint on _exit, each stopped
	// in the shim's exit hook, and the adapter detached it
	if b, d := log.count("-break-insert -f _exit"), log.count("-target-detach --thread-group"); b != 0 || d != 3 {
		t.Errorf("%d breakpoints on _exit and %d ranks detached at their exit, want none and each of the 3 ranks", b, d)
	}
}

// TestLaunchNoFilter: with no exception filter on, the planted finding
// does not stop the job (gdb lets it pass: the breakpoint on
// mpidbg_break, there for the ranks' exits, then has a condition), and
// each rank is still let go by the adapter at its exit.
func TestLaunchNoFilter(t *testing.T) { forEachMPI(t, testLaunchNoFilter) }

func testLaunchNoFilter(t *testing.T, m testMPI) {
	prog, cfg := fixture(t, m, "planted")
	log := keepLog(t, &cfg)
	c := start(t, cfg)
	launchJob(t, c, map[string]any{"program": prog, "np": 4}, "", nil, []string{})
	_, end := c.event("exited", 0, stopTimeout)
	c.event("terminated", end, stopTimeout)
	c.call("disconnect", nil)
	c.mu.Lock()
	for _, msg := range c.msgs[:end] {
		if st, ok := msg.(*dap.StoppedEvent); ok {
			t.Errorf("the job stopped with no exception filter on: %+v", st.Body)
		}
	}
	c.mu.Unlock()
	if n := log.count("mi> -break-condition"); n != 1 || log.count(" mpidbg_exit_status >= 0\n") != 1 {
		t.Errorf("%d conditions put on breakpoints, want 1: mpidbg_break's, that the rank be exiting", n)
	}
	if d := log.count("-target-detach --thread-group"); d != 4 {
		t.Errorf("%d ranks detached at their exit, want each of the 4", d)
	}
}

// TestLaunchFinding: the planted buffer-overlap stops rank 2 at the
// faulty line with the finding as the exception; the MPI_Datatype local
// unfolds; the MPI call's buffer shows through its datatype; the Debug
// Console runs mpi commands.
func TestLaunchFinding(t *testing.T) { forEachMPI(t, testLaunchFinding) }

func testLaunchFinding(t *testing.T, m testMPI) {
	prog, cfg := fixture(t, m, "planted")
	line := markerLine(t, "planted", "FAULT")
	c := start(t, cfg)
	launchJob(t, c, map[string]any{"program": prog, "np": 4}, "", nil, []string{"errors"})

	ev, at := c.event("stopped", 0, stopTimeout)
	st := ev.(*dap.StoppedEvent)
	if st.Body.Reason != "exception" || st.Body.Text != "buffer-overlap" {
		t.Fatalf("stopped: reason %q text %q, want exception buffer-overlap", st.Body.Reason, st.Body.Text)
	}
	fev, _ := c.event("mpidbg/finding", 0, stopTimeout)
	if b, _ := json.Marshal(fev); !strings.Contains(string(b), `"rank":2`) || !strings.Contains(string(b), `"id":"buffer-overlap"`) {
		t.Errorf("mpidbg/finding event: %s", b)
	}
	tid := st.Body.ThreadId
	if name := threadNames(t, c)[tid]; name != "rank 2" {
		t.Fatalf("the faulty thread is %q, want rank 2", name)
	}
	top := topFrame(t, c, tid)
	if top.Line != line || top.Name != "main" {
		t.Fatalf("top frame %+v, want main at planted.c:%d (shim frames hidden)", top, line)
	}
	info := c.call("exceptionInfo", map[string]any{"threadId": tid}).(*dap.ExceptionInfoResponse)
	if info.Body.ExceptionId != "buffer-overlap" || info.Body.BreakMode != "always" || info.Body.Details == nil ||
		!strings.Contains(info.Body.Description, "MPI_Irecv") || !strings.Contains(info.Body.Details.StackTrace, "path") {
		t.Errorf("exceptionInfo: %+v %+v", info.Body, info.Body.Details)
	}

	locals, call := scopesOf(t, c, top.Id, "MPI_Isend")
	vars := variables(t, c, locals)
	row, ok := vars["row"]
	if !ok || row.VariablesReference == 0 || row.Type != "MPI_Datatype" {
		t.Fatalf("local row: %+v (found %v), want an MPI_Datatype with children", row, ok)
	}
	kids := variables(t, c, row.VariablesReference)
	if k := kids["combiner"]; !strings.Contains(k.Value, "VECTOR") {
		t.Errorf("row's children %+v: want combiner VECTOR", kids)
	}
	callVars := variables(t, c, call)
	buf, ok := callVars["buf (as its datatype)"]
	if !ok || buf.VariablesReference == 0 {
		t.Fatalf("MPI call variables %+v: want the buffer through its datatype", callVars)
	}
	elems := variables(t, c, buf.VariablesReference)
	if e := elems["[2](INT)"]; e.Value != "2" {
		t.Errorf("buffer elements %+v: want [2](INT) = 2", elems)
	}
	mem := c.call("readMemory", map[string]any{"memoryReference": buf.MemoryReference, "count": 16}).(*dap.ReadMemoryResponse)
	if mem.Body.Data == "" {
		t.Errorf("readMemory %s: no data", buf.MemoryReference)
	}
	repl := c.call("evaluate", map[string]any{"expression": "mpi errors", "context": "repl", "frameId": top.Id}).(*dap.EvaluateResponse)
	if !strings.Contains(repl.Body.Result, "buffer-overlap") {
		t.Errorf("mpi errors in the Debug Console: %q", repl.Body.Result)
	}
	// an expression with an effect is evaluated once
	c.call("evaluate", map[string]any{"expression": "buf[7] += 1", "context": "repl", "frameId": top.Id})
	if v := c.call("evaluate", map[string]any{"expression": "buf[7]", "context": "watch", "frameId": top.Id}).(*dap.EvaluateResponse); v.Body.Result != "8" {
		t.Errorf("buf[7] after buf[7] += 1: %q, want 8 (evaluated once)", v.Body.Result)
	}
	if r := c.send("evaluate", map[string]any{"expression": "rank = 7", "context": "hover", "frameId": top.Id}); true {
		m, _ := c.wait("hover response", stopTimeout, 0, func(m dap.Message) bool {
			x, ok := m.(dap.ResponseMessage)
			return ok && x.GetResponse().RequestSeq == r
		})
		if m.(dap.ResponseMessage).GetResponse().Success {
			t.Errorf("a hover evaluated an assignment")
		}
	}
	c.call("continue", map[string]any{"threadId": tid})
	c.event("terminated", at, stopTimeout)
	c.call("disconnect", nil)
}

// TestLaunchFindingFortran: planted.c's mistake in Fortran stops rank 2
// at the Fortran line, past the binding's frames, with the C call's
// arguments as the MPI call scope.
func TestLaunchFindingFortran(t *testing.T) { forEachMPI(t, testLaunchFindingFortran) }

func testLaunchFindingFortran(t *testing.T, m testMPI) {
	prog, cfg := fixture(t, m, "planted_f")
	line := markerLine(t, "planted_f", "FAULT")
	c := start(t, cfg)
	launchJob(t, c, map[string]any{"program": prog, "np": 4}, "", nil, []string{"errors"})

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
	if top.Line != line || top.Source == nil || filepath.Base(top.Source.Path) != "planted_f.f90" {
		t.Fatalf("top frame %+v, want planted_f.f90:%d (shim and binding frames hidden)", top, line)
	}
	info := c.call("exceptionInfo", map[string]any{"threadId": tid}).(*dap.ExceptionInfoResponse)
	if info.Body.Details == nil || !strings.Contains(info.Body.Details.StackTrace, "mpidbg explain --lang fortran buffer-overlap") {
		t.Errorf("exceptionInfo %+v: want explain in Fortran's names", info.Body.Details)
	}
	scopes := c.call("scopes", map[string]any{"frameId": top.Id}).(*dap.ScopesResponse)
	call := 0
	for _, s := range scopes.Body.Scopes {
		if strings.HasPrefix(s.Name, "MPI call: MPI_Isend") {
			call = s.VariablesReference
		}
	}
	if call == 0 {
		t.Fatalf("scopes %+v: want MPI call: MPI_Isend (the C call the binding makes)", scopes.Body.Scopes)
	}
	if v := variables(t, c, call); v["count"].Value != "4" {
		t.Errorf("MPI call variables %+v: want count 4", v)
	}
	c.call("continue", map[string]any{"threadId": tid})
	c.event("terminated", at, stopTimeout)
	c.call("disconnect", nil)
}

// variables lists a reference's variables by name.
func variables(t *testing.T, c *testClient, ref int) map[string]dap.Variable {
	t.Helper()
	r := c.call("variables", map[string]any{"variablesReference": ref}).(*dap.VariablesResponse)
	out := map[string]dap.Variable{}
	for _, v := range r.Body.Variables {
		out[v.Name] = v
	}
	return out
}

// TestLaunchDeadlock: a deadlock stops every rank at its blocked call.
func TestLaunchDeadlock(t *testing.T) { forEachMPI(t, testLaunchDeadlock) }

func testLaunchDeadlock(t *testing.T, m testMPI) {
	prog, cfg := fixture(t, m, "deadlock")
	line := markerLine(t, "deadlock", "BLOCKED")
	c := start(t, cfg)
	launchJob(t, c, map[string]any{"program": prog, "np": 3, "deadlockTimeout": "1s"}, "", nil, []string{"errors"})
	ev, at := c.event("stopped", 0, stopTimeout)
	st := ev.(*dap.StoppedEvent)
	if st.Body.Reason != "exception" || st.Body.Text != "deadlock" || !st.Body.AllThreadsStopped {
		t.Fatalf("stopped: %+v, want an exception deadlock with all threads stopped", st.Body)
	}
	names := rankThreads(t, c)
	n := 0
	for tid, name := range names {
		n++
		if f := topFrame(t, c, tid); f.Line != line {
			t.Errorf("%s: top frame %+v, want deadlock.c:%d", name, f, line)
		}
		info := c.call("exceptionInfo", map[string]any{"threadId": tid}).(*dap.ExceptionInfoResponse)
		if info.Body.ExceptionId != "deadlock" {
			t.Errorf("%s: exceptionInfo %+v", name, info.Body)
		}
	}
	if n != 3 {
		t.Errorf("threads %v: want 3 ranks", names)
	}
	c.call("disconnect", map[string]any{"terminateDebuggee": true})
	c.event("terminated", at, stopTimeout)
}

// TestLaunchEntry: stopOnEntry stops every one of four ranks at main;
// the time from launch to that stop, and to each rank's stop at a
// breakpoint, is logged (docs/PERFORMANCE.md; never asserted).
func TestLaunchEntry(t *testing.T) { forEachMPI(t, testLaunchEntry) }

func testLaunchEntry(t *testing.T, m testMPI) {
	prog, cfg := fixture(t, m, "breakpoints")
	src := filepath.Join(repoRoot(t), "testprogs", "dap", "breakpoints.c")
	line := markerLine(t, "breakpoints", "BREAK")
	c := start(t, cfg)
	t0 := time.Now()
	launchJob(t, c, map[string]any{"program": prog, "np": 4, "stopOnEntry": true}, src, []int{line}, nil)
	ev, from := c.event("stopped", 0, stopTimeout)
	t.Logf("launch to every rank stopped at main: %v", time.Since(t0))
	if r := ev.(*dap.StoppedEvent).Body.Reason; r != "entry" {
		t.Fatalf("first stop: reason %q, want entry", r)
	}
	names := rankThreads(t, c)
	ranks := 0
	for tid, name := range names {
		ranks++
		if f := topFrame(t, c, tid); f.Name != "main" {
			t.Errorf("%s at entry: top frame %+v, want main", name, f)
		}
	}
	if ranks != 4 {
		t.Fatalf("threads %v: want 4 ranks", names)
	}
	t1 := time.Now()
	c.call("continue", map[string]any{"threadId": ev.(*dap.StoppedEvent).Body.ThreadId})
	for i := 0; i < 4; i++ {
		ev, at := c.event("stopped", from+1, stopTimeout)
		from = at
		if i == 0 {
			t.Logf("continue to the first rank stopped at the breakpoint: %v", time.Since(t1))
		}
		c.call("continue", map[string]any{"threadId": ev.(*dap.StoppedEvent).Body.ThreadId})
	}
	t.Logf("launch to the fourth rank stopped at the breakpoint: %v (with a client's round trips)", time.Since(t0))
	c.event("terminated", from, stopTimeout)
}

// TestAttach: attaching to a job by mpiexec's pid finds its ranks; a
// breakpoint stops them; detaching lets the job finish.
func TestAttach(t *testing.T) { forEachMPI(t, testAttach) }

func testAttach(t *testing.T, m testMPI) {
	prog, cfg := fixture(t, m, "spin")
	src := filepath.Join(repoRoot(t), "testprogs", "dap", "spin.c")
	line := markerLine(t, "spin", "SPIN")
	tools, err := cfg.Tools(prog, "", "", "")
	if err != nil {
		t.Fatal(err)
	}
	args := launch.Args(launch.FlavorOf(tools.MPIExec), 2, nil,
		[]launch.Var{{Name: envvar.Preload, Value: tools.Shim}, {Name: envvar.Race, Value: "off"}}, prog, nil)
	job := exec.Command(tools.MPIExec, args...)
	var out strings.Builder
	job.Stdout, job.Stderr = &out, &out
	if err := job.Start(); err != nil {
		t.Fatal(err)
	}
	ended := make(chan struct{})
	var waitErr error
	go func() { waitErr = job.Wait(); close(ended) }()
	t.Cleanup(func() {
		job.Process.Kill()
		<-ended
	})
	// wait for the ranks to be up
	deadline := time.Now().Add(30 * time.Second)
	for {
		if procs, err := ranksBelow(job.Process.Pid); err == nil && len(procs) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the ranks of the job did not start: %s", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	c := start(t, cfg)
	c.call("initialize", map[string]any{"adapterID": "mpidbg"})
	seq := c.send("attach", map[string]any{"pid": job.Process.Pid})
	c.event("initialized", 0, stopTimeout)
	c.call("setBreakpoints", map[string]any{"source": map[string]any{"path": src}, "breakpoints": []map[string]any{{"line": line}}})
	c.call("configurationDone", nil)
	c.response(seq, stopTimeout)
	ev, _ := c.event("stopped", 0, stopTimeout)
	tid := ev.(*dap.StoppedEvent).Body.ThreadId
	if name := threadNames(t, c)[tid]; !strings.HasPrefix(name, "rank ") {
		t.Fatalf("stopped thread %q", name)
	}
	if f := topFrame(t, c, tid); f.Line != line {
		t.Fatalf("stopped at %+v, want spin.c:%d", f, line)
	}
	c.call("setBreakpoints", map[string]any{"source": map[string]any{"path": src}, "breakpoints": []map[string]any{}})
	for id := range rankThreads(t, c) { // let every rank leave its loop
		c.call("evaluate", map[string]any{"expression": "-exec set var done = 1", "context": "repl", "frameId": topFrame(t, c, id).Id})
	}
	c.call("disconnect", map[string]any{"terminateDebuggee": false})
	select {
	case <-ended:
		if waitErr != nil || !strings.Contains(out.String(), "sum 1") {
			t.Errorf("the job after detaching: %v\n%s", waitErr, out.String())
		}
	case <-time.After(60 * time.Second):
		t.Errorf("the job did not finish after the debugger detached:\n%s", out.String())
	}
}

// TestLaunchNonStop: in non-stop mode each rank stops at the breakpoint
// on its own and is continued on its own.
func TestLaunchNonStop(t *testing.T) { forEachMPI(t, testLaunchNonStop) }

func testLaunchNonStop(t *testing.T, m testMPI) {
	prog, cfg := fixture(t, m, "breakpoints")
	src := filepath.Join(repoRoot(t), "testprogs", "dap", "breakpoints.c")
	line := markerLine(t, "breakpoints", "BREAK")
	c := start(t, cfg)
	launchJob(t, c, map[string]any{"program": prog, "np": 2, "nonStop": true}, src, []int{line}, nil)
	seen := map[int]bool{}
	from := 0
	for len(seen) < 2 {
		ev, at := c.event("stopped", from, stopTimeout)
		from = at + 1
		st := ev.(*dap.StoppedEvent)
		if st.Body.Reason != "breakpoint" || st.Body.AllThreadsStopped {
			t.Fatalf("stopped %+v: want a breakpoint stop of one thread", st.Body)
		}
		if f := topFrame(t, c, st.Body.ThreadId); f.Line != line {
			t.Fatalf("thread %d at %+v, want line %d", st.Body.ThreadId, f, line)
		}
		seen[st.Body.ThreadId] = true
		r := c.call("continue", map[string]any{"threadId": st.Body.ThreadId}).(*dap.ContinueResponse)
		if r.Body.AllThreadsContinued {
			t.Errorf("non-stop continue says all threads continued")
		}
	}
	c.event("terminated", from, stopTimeout)
}
