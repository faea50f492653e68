package dap

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-dap"
	"github.com/mpidbg/mpidbg/internal/mpilib"
	"github.com/mpidbg/mpidbg/internal/testenv"
)

// TestLaunchFindingPython: a finding in a Python script (mpi4py) stops
// the rank, and the exception and the mpidbg/finding event name the
// script's line and function, as the report does. Only with the library
// the interpreter's mpi4py links (Debian's is Open MPI's).
func TestLaunchFindingPython(t *testing.T) { forEachMPI(t, testLaunchFindingPython) }

func testLaunchFindingPython(t *testing.T, m testMPI) {
	_, cfg := fixture(t, m, "planted") // the tools and the adapter's configuration
	py := "/usr/bin/python3"
	lib, err := mpilib.DetectPython(py)
	if err != nil {
		testenv.Missing(t, testenv.RequireMPI, "%s has no mpi4py (apt-get install python3-mpi4py python3-numpy): %v", py, err)
	}
	if lib != m.lib {
		t.Skipf("the mpi4py of %s is built for %s", py, lib)
	}
	src := filepath.Join(repoRoot(t), "testprogs", "dap", "planted_py.py")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	line := 0
	for i, l := range strings.Split(string(b), "\n") {
		if strings.HasSuffix(l, "# FAULT") {
			line = i + 1
		}
	}

	c := start(t, cfg)
	launchJob(t, c, map[string]any{"program": py, "args": []string{src}, "np": 2}, "", nil, []string{"errors"})
	ev, at := c.event("stopped", 0, stopTimeout)
	st := ev.(*dap.StoppedEvent)
	if st.Body.Reason != "exception" || st.Body.Text != "type-mismatch" {
		t.Fatalf("stopped: reason %q text %q, want exception type-mismatch", st.Body.Reason, st.Body.Text)
	}
	fev, _ := c.event("mpidbg/finding", 0, stopTimeout)
	where := fmt.Sprintf("%s:%d", src, line)
	if b, _ := json.Marshal(fev); !strings.Contains(string(b), fmt.Sprintf(`"site":{"file":%q,"line":%d}`, src, line)) {
		t.Errorf("mpidbg/finding event: %s, want the site %s", b, where)
	}
	info := c.call("exceptionInfo", map[string]any{"threadId": st.Body.ThreadId}).(*dap.ExceptionInfoResponse)
	if info.Body.Details == nil || !strings.Contains(info.Body.Details.StackTrace, "at "+where+" in exchange") ||
		!strings.Contains(info.Body.Details.StackTrace, "mpidbg explain --lang python type-mismatch") {
		t.Errorf("exceptionInfo: %+v %+v, want the site %s in exchange and explain in mpi4py's names", info.Body, info.Body.Details, where)
	}
	c.call("continue", map[string]any{"threadId": st.Body.ThreadId})
	c.event("terminated", at, stopTimeout)
	c.call("disconnect", nil)
}
