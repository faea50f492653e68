package shimtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/mpidbg/mpidbg/internal/mpilib"
	"github.com/mpidbg/mpidbg/internal/testenv"
	"github.com/mpidbg/mpidbg/shim/registry"
)

// lib is one MPI library the shim is built for: every test that runs a
// program runs once per library (make test has both). The tests load the
// shim make build built in lib/, and build the test programs for the
// library once per test binary.
type lib struct {
	name   string       // mpich, openmpi: the subtest's name and the Hello's MPI
	mpi    registry.MPI // what the registry header says
	handle uint32       // the registry's handle size: an int in MPICH, a pointer in Open MPI

	buildOnce sync.Once
	dir       string // the programs built for this library
	buildErr  error
}

var libs = func() []*lib {
	var out []*lib
	for _, m := range mpilib.All {
		handle := uint32(4)
		if m == mpilib.OpenMPI {
			handle = 8
		}
		out = append(out, &lib{name: m.String(), mpi: m, handle: handle})
	}
	return out
}()

// forEachMPI runs test once per MPI library, as a subtest named after it.
func forEachMPI(t *testing.T, test func(t *testing.T, l *lib)) {
	for _, l := range libs {
		t.Run(l.name, func(t *testing.T) { test(t, l) })
	}
}

// isOpenMPI says whether l is Open MPI, for the few expectations that
// differ between the libraries.
func (l *lib) isOpenMPI() bool { return l.mpi == registry.OpenMPI }

type tools struct{ cc, exec string }

// needMPI finds l's compiler wrapper and mpiexec: a library that is
// missing fails the test under MPIDBG_REQUIRE_MPI and skips it otherwise.
func needMPI(t *testing.T, l *lib) tools {
	t.Helper()
	tl := testenv.NeedMPI(t, l.mpi)
	return tools{cc: tl.CC, exec: tl.Exec}
}

// testPrograms are the programs of shim/testdata the tests run.
var testPrograms = []string{"clean", "bugs", "layout", "threads", "file"}

// build returns the shim of lib/ for l (a shim that is missing fails
// the test under MPIDBG_REQUIRE_SHIM and skips it otherwise; one older
// than its sources fails it), and compiles the test programs with l's
// compiler once per test binary.
func build(t *testing.T, l *lib) (shim, dir string) {
	t.Helper()
	tl := needMPI(t, l)
	shim = testenv.NeedShim(t, l.mpi)
	l.buildOnce.Do(func() { l.buildErr = l.buildAll(tl) })
	if l.buildErr != nil {
		t.Fatal(l.buildErr)
	}
	return shim, l.dir
}

func (l *lib) buildAll(tl tools) error {
	var err error
	if l.dir, err = os.MkdirTemp("", "mpidbg-shimtest-"+l.name+"-"); err != nil {
		return err
	}
	for _, p := range testPrograms {
		cmd := exec.Command(tl.cc, "-g", "-O0", "-w", "-pthread", "-I"+shimDir, "-o", filepath.Join(l.dir, p), filepath.Join(shimDir, "testdata", p+".c"))
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("compiling %s.c with %s: %v\n%s", p, tl.cc, err, out)
		}
	}
	return nil
}

// TestMain lets Open MPI's mpiexec start more ranks than there are cores
// (TestClean runs 3 ranks) and, when the tests run as root (CI), run at
// all: settings of the test machine, which users make for themselves.
// It removes the programs at the end.
func TestMain(m *testing.M) {
	testenv.OpenMPI()
	code := m.Run()
	for _, l := range libs {
		if l.dir != "" {
			os.RemoveAll(l.dir)
		}
	}
	os.Exit(code)
}
