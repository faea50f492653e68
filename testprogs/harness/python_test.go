// Python programs: the interpreter that runs them, per MPI library.

package harness

import (
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/mpidbg/mpidbg/internal/mpilib"
	"github.com/mpidbg/mpidbg/internal/testenv"
)

var (
	pythonsOnce  sync.Once
	pythons      = map[mpilib.MPI]string{} // the interpreter whose mpi4py links the library
	pythonsTried []string                  // interpreters without a usable mpi4py, and why
)

// findPythons looks at python3 as PATH finds it, then Debian's
// /usr/bin/python3, and keeps for each MPI library the first whose
// mpi4py links it (mpilib.DetectPython, as mpidbg run picks the library).
func findPythons() {
	seen := map[string]bool{}
	for _, name := range []string{"python3", "/usr/bin/python3"} {
		p, err := exec.LookPath(name)
		if err != nil || seen[p] {
			continue
		}
		seen[p] = true
		m, err := mpilib.DetectPython(p)
		if err != nil {
			pythonsTried = append(pythonsTried, err.Error())
			continue
		}
		if pythons[m] == "" {
			pythons[m] = p
		}
	}
}

// pythonFor is the interpreter that runs p with tools' library. Without
// one, p is skipped when some interpreter's mpi4py links the other
// library (Debian's python3-mpi4py is built for Open MPI only), and
// missing otherwise (a failure under MPIDBG_REQUIRE_MPI).
func pythonFor(t *testing.T, tools mpiTools, p program) string {
	t.Helper()
	pythonsOnce.Do(findPythons)
	if py := pythons[tools.lib]; py != "" {
		return py
	}
	for lib, py := range pythons {
		t.Skipf("%s: not run with %s: the mpi4py of %s is built for %s (Debian's python3-mpi4py is Open MPI's)", p.file, tools.name, py, lib)
	}
	testenv.Missing(t, testenv.RequireMPI, "%s: no python3 with mpi4py (apt-get install python3-mpi4py python3-numpy): %s",
		p.file, strings.Join(pythonsTried, "; "))
	return ""
}

// command is how p, built as exe, is started: exe itself, or for a
// script its interpreter and the script.
func command(t *testing.T, tools mpiTools, p program, exe string) []string {
	t.Helper()
	if !p.lang.script {
		return []string{exe}
	}
	return []string{pythonFor(t, tools, p), exe}
}

// TestPythonFor: a script runs with its library's interpreter.
func TestPythonFor(t *testing.T) {
	pythonsOnce.Do(findPythons)
	for lib, py := range pythons {
		if got := command(t, mpiTools{lib: lib, name: lib.String()}, program{file: "ok_x.py", lang: langPython}, "/s/ok_x.py"); fmt.Sprint(got) != fmt.Sprint([]string{py, "/s/ok_x.py"}) {
			t.Errorf("%s: command %q", lib, got)
		}
	}
	if got := command(t, mpiTools{}, program{file: "ok_x.c", lang: langC}, "/b/ok_x"); len(got) != 1 || got[0] != "/b/ok_x" {
		t.Errorf("C: command %q", got)
	}
}
