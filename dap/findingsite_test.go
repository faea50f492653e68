package dap

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-dap"
	"github.com/mpidbg/mpidbg/shim/registry"
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

// stackAtFree: a finding made in MPI_Comm_free, which cleanup (app.c:40)
// called from main (app.c:55).
const stackAtFree = `stack=[` +
	`frame={level="0",addr="0x00007f7a37600010",func="mpidbg_break",from="/lib/libmpidbg.so",arch="i386:x86-64"},` +
	`frame={level="1",addr="0x00007f7a37600200",func="MPI_Comm_free",file="wrappers_gen.c",fullname="/work/main/shim/wrappers_gen.c",line="900",arch="i386:x86-64"},` +
	`frame={level="2",addr="0x0000565200001040",func="cleanup",file="app.c",fullname="/ws/app.c",line="40",arch="i386:x86-64"},` +
	`frame={level="3",addr="0x0000565200001550",func="main",file="app.c",fullname="/ws/app.c",line="55",arch="i386:x86-64"}]`

// TestFindingFrame: the top frame of a finding's stop is the site's
// frame when the site is on the stack, the caller of the MPI call
// otherwise, which the exception then explains, except for a site gdb
// has no frame for (a Python script's line).
func TestFindingFrame(t *testing.T) {
	gdb, _ := fakeGdb(t, map[int]string{5: stackAtFree})
	ss, _ := testSession(t, gdb)
	for _, tc := range []struct {
		site      uint64
		where     string
		level     int
		elsewhere string
	}{
		{0x565200001040, "/ws/app.c:40 in cleanup", 2, ""},
		{0x565200001550, "/ws/app.c:55 in main", 3, ""}, // made in a callee of the site's call
		{0x565200000f00, "/ws/app.c:12 in post", 2,
			"mpidbg could tell only in MPI_Comm_free at app.c:40, where this stopped; the finding's site is /ws/app.c:12 in post"},
		{0x565200000f10, "/ws/app.c:40 in cleanup", 2, ""}, // another call on the same line
		{registry.PySiteTag | 1, "/ws/app.py:7 in step", 2, ""},
	} {
		f := &findingInfo{siteAddr: tc.site, where: tc.where}
		f.file, f.line = splitWhere(tc.where)
		if f.file == "/ws/app.c" {
			f.file = "app.c" // as gdb's frames name it
		}
		level, elsewhere := ss.findingFrame(5, f)
		if level != tc.level || elsewhere != tc.elsewhere {
			t.Errorf("site %#x (%s): level %d %q, want %d %q", tc.site, tc.where, level, elsewhere, tc.level, tc.elsewhere)
		}
	}
}
