package dap

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-dap"
	"github.com/mpidbg/mpidbg/internal/testenv"
)

// TestLaunchFindingCXX: a finding in a C++ program stops the rank in a
// member function of a class template, and the stack frame and the
// exception's text name it as the source does (app::Mailbox<int>::
// loop_back), not by its mangled name or its bare DWARF name.
func TestLaunchFindingCXX(t *testing.T) { forEachMPI(t, testLaunchFindingCXX) }

func testLaunchFindingCXX(t *testing.T, m testMPI) {
	_, cfg := fixture(t, m, "planted") // the tools and the adapter's configuration
	tools, err := testenv.FindMPI(m.lib)
	if err != nil {
		t.Fatal(err)
	}
	cxx := strings.Replace(tools.CC, "mpicc", "mpicxx", 1)
	if _, err := exec.LookPath(cxx); err != nil {
		testenv.Missing(t, testenv.RequireMPI, "%s is missing", cxx)
	}
	src := filepath.Join(repoRoot(t), "testprogs", "dap", "planted_cxx.cpp")
	prog := filepath.Join(t.TempDir(), "planted_cxx")
	if out, err := exec.Command(cxx, "-std=c++17", "-g", "-O0", "-DMPICH_SKIP_MPICXX", "-DOMPI_SKIP_MPICXX", "-o", prog, src).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", cxx, src, err, out)
	}
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	line := 0
	for i, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, "// FAULT") {
			line = i + 1
		}
	}

	c := start(t, cfg)
	launchJob(t, c, map[string]any{"program": prog, "np": 2}, "", nil, []string{"errors"})
	ev, at := c.event("stopped", 0, stopTimeout)
	st := ev.(*dap.StoppedEvent)
	if st.Body.Reason != "exception" || st.Body.Text != "buffer-overlap" {
		t.Fatalf("stopped: reason %q text %q, want exception buffer-overlap", st.Body.Reason, st.Body.Text)
	}
	tid := st.Body.ThreadId
	top := topFrame(t, c, tid)
	if top.Line != line || !strings.HasPrefix(top.Name, "app::Mailbox<int>::loop_back") {
		t.Errorf("top frame %+v, want app::Mailbox<int>::loop_back at planted_cxx.cpp:%d", top, line)
	}
	info := c.call("exceptionInfo", map[string]any{"threadId": tid}).(*dap.ExceptionInfoResponse)
	if info.Body.Details == nil || !strings.Contains(info.Body.Details.StackTrace, "in app::Mailbox<int>::loop_back(int)") {
		t.Errorf("exceptionInfo: %+v %+v, want the site in app::Mailbox<int>::loop_back(int)", info.Body, info.Body.Details)
	}
	c.call("continue", map[string]any{"threadId": tid})
	c.event("terminated", at, stopTimeout)
	c.call("disconnect", nil)
}
