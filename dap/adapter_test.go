package dap

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-dap"
)

const stopTimeout = 60 * time.Second

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

func topFrame(t *testing.T, c *testClient, tid int) dap.StackFrame {
	t.Helper()
	r := c.call("stackTrace", map[string]any{"threadId": tid, "startFrame": 0, "levels": 20}).(*dap.StackTraceResponse)
	if len(r.Body.StackFrames) == 0 {
		t.Fatalf("thread %d: no frames", tid)
	}
	return r.Body.StackFrames[0]
}

// TestLaunchBreakpoint: a breakpoint stops each of three ranks at its
// line, the threads are named by rank, and the session ends with the
// job.
func TestLaunchBreakpoint(t *testing.T) {
	prog, cfg := fixture(t, "breakpoints")
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
}
