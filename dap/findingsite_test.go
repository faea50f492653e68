package dap

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-dap"
)

// TestLaunchFindingElsewhere: a request never completed is found at
// MPI_Finalize, after the function that started it returned. The stop
// stays at MPI_Finalize's line, and the exception says where it was
// found and where the request was started.
func TestLaunchFindingElsewhere(t *testing.T) { forEachMPI(t, testLaunchFindingElsewhere) }

func testLaunchFindingElsewhere(t *testing.T, m testMPI) {
	prog, cfg := fixture(t, m, "lost")
	found, site := markerLine(t, "lost", "FOUND"), markerLine(t, "lost", "SITE")
	c := start(t, cfg)
	launchJob(t, c, map[string]any{"program": prog, "np": 2}, "", nil, []string{"errors"})

	ev, at := c.event("stopped", 0, stopTimeout)
	st := ev.(*dap.StoppedEvent)
	if st.Body.Reason != "exception" || st.Body.Text != "request-never-completed" {
		t.Fatalf("stopped: reason %q text %q, want exception request-never-completed", st.Body.Reason, st.Body.Text)
	}
	tid := st.Body.ThreadId
	if top := topFrame(t, c, tid); top.Line != found || top.Name != "main" {
		t.Errorf("top frame %+v, want main at lost.c:%d (MPI_Finalize's call)", top, found)
	}
	info := c.call("exceptionInfo", map[string]any{"threadId": tid}).(*dap.ExceptionInfoResponse)
	for _, want := range []string{"mpidbg could tell only in MPI_Finalize at ", fmt.Sprintf("/lost.c:%d, where this stopped; ", found),
		fmt.Sprintf("the finding's site is %s:%d in post", fixtureSource(t, "lost"), site)} {
		if !strings.Contains(info.Body.Description, want) || info.Body.Details == nil || !strings.Contains(info.Body.Details.StackTrace, want) {
			t.Errorf("exceptionInfo %+v %+v: want %q in the description and the details", info.Body, info.Body.Details, want)
		}
	}
	c.call("continue", map[string]any{"threadId": tid})
	c.event("terminated", at, stopTimeout)
	c.call("disconnect", nil)
}
