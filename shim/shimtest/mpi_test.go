package shimtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/mpidbg/mpidbg/internal/testenv"
	"github.com/mpidbg/mpidbg/internal/mpilib"
	"github.com/mpidbg/mpidbg/shim/registry"
)

// lib is one MPI library the shim is built for: every test that runs a
// program runs once per library (make test has both). The shim and the
// test programs are built for it once per test binary.
type lib struct {
	name     string       // mpich, openmpi: the subtest's name and the Hello's MPI
	title    string       // for messages
	cc, exec string       // Debian's own names; plain mpicc and mpiexec follow update-alternatives
	tag      string       // the shim's build tag, "" for the default (MPICH)
	apt      string       // the packages that install it
	mpi      registry.MPI // what the registry header says
	handle   uint32       // the registry's handle size: an int in MPICH, a pointer in Open MPI

	toolsOnce sync.Once
	tl        tools
	toolsErr  error

	buildOnce sync.Once
	dir       string // the shim and the programs built for this library
	shim      string
	buildErr  error
}

var libs = func() []*lib {
	var out []*lib
	for _, m := range mpilib.All {
		handle := uint32(4)
		if m == mpilib.OpenMPI {
			handle = 8
		}
		out = append(out, &lib{name: m.String(), title: mpilib.Title(m), cc: mpilib.Compiler(m),
			exec: mpilib.MPIExecNames(m)[0], tag: mpilib.BuildTag(m), apt: mpilib.Packages(m), mpi: m, handle: handle})
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

func required() bool {
	v := os.Getenv("MPIDBG_REQUIRE_MPI")
	return v != "" && v != "0"
}

type tools struct{ cc, exec, goTool string }

// needMPI finds l's compiler wrapper and mpiexec: a library that is
// missing fails the test under MPIDBG_REQUIRE_MPI and skips it otherwise.
func needMPI(t *testing.T, l *lib) tools {
	t.Helper()
	l.toolsOnce.Do(func() { l.tl, l.toolsErr = findTools(l) })
	if l.toolsErr != nil {
		if required() {
			t.Fatalf("MPIDBG_REQUIRE_MPI is set but %s is missing: %v", l.title, l.toolsErr)
		}
		t.Skipf("%s not found (apt-get install %s); set MPIDBG_REQUIRE_MPI=1 to fail instead: %v", l.title, l.apt, l.toolsErr)
	}
	return l.tl
}

func findTools(l *lib) (tl tools, err error) {
	if tl.cc, err = exec.LookPath(l.cc); err != nil {
		return tl, err
	}
	if tl.exec, err = exec.LookPath(l.exec); err != nil {
		return tl, err
	}
	if tl.goTool, err = exec.LookPath("go"); err != nil {
		tl.goTool, err = "/usr/local/go/bin/go", nil
	}
	return tl, nil
}

// testPrograms are the programs of shim/testdata the tests run.
var testPrograms = []string{"clean", "bugs", "layout", "threads", "file"}

// build compiles the shim for l from the current sources, and the test
// programs with l's compiler, once per test binary.
func build(t *testing.T, l *lib) (shim, dir string) {
	t.Helper()
	tl := needMPI(t, l)
	l.buildOnce.Do(func() { l.buildErr = l.buildAll(tl) })
	if l.buildErr != nil {
		t.Fatal(l.buildErr)
	}
	return l.shim, l.dir
}

func (l *lib) buildAll(tl tools) error {
	var err error
	if l.dir, err = os.MkdirTemp("", "mpidbg-shimtest-"+l.name+"-"); err != nil {
		return err
	}
	l.shim = filepath.Join(l.dir, "libmpidbg.so")
	args := []string{"build", "-buildmode=c-shared", "-o", l.shim}
	if l.tag != "" {
		args = append(args, "-tags", l.tag)
	}
	cmd := exec.Command(tl.goTool, append(args, ".")...)
	cmd.Dir = shimDir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building the shim for %s: %v\n%s", l.title, err, out)
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
// It removes the builds at the end.
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
