package dap

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-dap"
)

// TestLaunchNullHandles: the Locals show null handles by their MPI names
// and a copy of a freed datatype's handle as what it was, not as errors
// of the registry, on both MPIs.
func TestLaunchNullHandles(t *testing.T) { forEachMPI(t, testLaunchNullHandles) }

func testLaunchNullHandles(t *testing.T, m testMPI) {
	prog, cfg := fixture(t, m, "handles")
	line, freed := markerLine(t, "handles", "BREAK"), markerLine(t, "handles", "FREED")
	c := start(t, cfg)
	src := filepath.Join(repoRoot(t), "testprogs", "dap", "handles.c")
	launchJob(t, c, map[string]any{"program": prog, "np": 1}, src, []int{line}, nil)
	ev, at := c.event("stopped", 0, stopTimeout)
	tid := ev.(*dap.StoppedEvent).Body.ThreadId
	top := topFrame(t, c, tid)
	scopes := c.call("scopes", map[string]any{"frameId": top.Id}).(*dap.ScopesResponse)
	locals := variables(t, c, scopes.Body.Scopes[0].VariablesReference)
	for name, want := range map[string]string{
		"vec_t": "MPI_DATATYPE_NULL", "none": "MPI_DATATYPE_NULL", "req": "MPI_REQUEST_NULL",
		"gone": fmt.Sprintf("freed datatype (was vec_t, freed at %s:%d in main)", src, freed),
	} {
		v := locals[name]
		if v.Value != want {
			t.Errorf("%s = %q, want %q", name, v.Value, want)
		}
		if strings.HasSuffix(want, "_NULL") && v.VariablesReference != 0 {
			t.Errorf("%s: %s has children", name, want)
		}
	}
	c.call("continue", map[string]any{"threadId": tid})
	c.event("terminated", at, stopTimeout)
	c.call("disconnect", nil)
}
