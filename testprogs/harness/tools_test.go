// The MPI libraries, their shims and bin/mpidbg as the tests find them; compiling a program.

package harness

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mpidbg/mpidbg/internal/envvar"

	"github.com/mpidbg/mpidbg/internal/mpilib"
	"github.com/mpidbg/mpidbg/internal/testenv"
)

// mpiTools is one MPI library as the tests use it.
type mpiTools struct {
	lib      mpilib.MPI
	name     string // mpich, openmpi: the subtests' first level
	cc, exec string // its C compiler wrapper and mpiexec
	shim     string // the shim built for it
	version  int    // MPI_VERSION of its mpi.h
}

// shimEnv names the variable that overrides lib/ for m's shim:
// MPIDBG_SHIM for MPICH (as for mpidbg run), MPIDBG_SHIM_OPENMPI.
func shimEnv(m mpilib.MPI) string {
	if m == mpilib.MPICH {
		return envvar.Shim
	}
	return envvar.ShimOpenMPI
}

var (
	mpisOnce    sync.Once
	mpis        []mpiTools
	missingMPI  []string // libraries not installed, and why
	missingShim []string // shims not built, and why
	staleShim   []string // shims older than their sources
)

// needMPIs returns the MPI libraries to test with (mpilib.All), each
// with its shim. A library that is missing fails the test under
// MPIDBG_REQUIRE_MPI, a shim that is missing under MPIDBG_REQUIRE_SHIM
// (make test sets both: both libraries are installed there); otherwise
// they are left out, with the reason logged. With none at all the test
// skips. A shim of lib/ older than its sources always fails the test.
func needMPIs(t *testing.T) []mpiTools {
	t.Helper()
	mpisOnce.Do(func() {
		for _, lib := range mpilib.All {
			m := mpiTools{lib: lib, name: lib.String()}
			tl, err := testenv.FindMPI(lib)
			if err == nil {
				m.cc, m.exec = tl.CC, tl.Exec
				m.version, err = mpiVersion(m.cc)
			}
			if err != nil {
				missingMPI = append(missingMPI, fmt.Sprintf("%s: %v", m.name, err))
				continue
			}
			var stale *testenv.StaleError
			switch m.shim, err = shimFor(lib); {
			case errors.As(err, &stale):
				staleShim = append(staleShim, err.Error())
				continue
			case err != nil:
				missingShim = append(missingShim, fmt.Sprintf("%s: the shim: %v (make build)", m.name, err))
				continue
			}
			mpis = append(mpis, m)
		}
	})
	if len(staleShim) > 0 {
		t.Fatal(strings.Join(staleShim, "\n"))
	}
	if len(missingMPI) > 0 && testenv.Required(testenv.RequireMPI) {
		t.Fatalf("%s is set but:\n%s", testenv.RequireMPI, strings.Join(missingMPI, "\n"))
	}
	if len(missingShim) > 0 && testenv.Required(testenv.RequireShim) {
		t.Fatalf("%s is set but:\n%s", testenv.RequireShim, strings.Join(missingShim, "\n"))
	}
	if left := append(slices.Clip(missingMPI), missingShim...); len(left) > 0 {
		t.Logf("left out:\n%s", strings.Join(left, "\n"))
	}
	if len(mpis) == 0 {
		t.Skip("no MPI library with its shim; set MPIDBG_REQUIRE_MPI=1 and MPIDBG_REQUIRE_SHIM=1 to fail instead")
	}
	return mpis
}

// shimFor is m's shim: the file the environment names (shimEnv), else
// lib/ of this tree, which must not be older than its sources.
func shimFor(m mpilib.MPI) (string, error) {
	if shim := os.Getenv(shimEnv(m)); shim != "" {
		abs, err := filepath.Abs(shim)
		if err == nil {
			_, err = os.Stat(abs)
		}
		return abs, err
	}
	return testenv.FindShim(m)
}

// mpiVersion is the MPI_VERSION the compiler wrapper's mpi.h defines.
func mpiVersion(cc string) (int, error) {
	cmd := exec.Command(cc, "-E", "-dM", "-x", "c", "-")
	cmd.Stdin = strings.NewReader("#include <mpi.h>\n")
	out, err := cmd.Output()
	if err != nil {
		return 0, fmt.Errorf("%s -E: %v", cc, err)
	}
	m := regexp.MustCompile(`(?m)^#define MPI_VERSION\s+(\d+)`).FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("%s: mpi.h defines no MPI_VERSION", cc)
	}
	return strconv.Atoi(string(m[1]))
}

// skipForMPI skips p on a library older than the MPI version it needs
// ("// mpi: 4": it calls functions MPI-4.0 added, which Open MPI 4.1, an
// MPI-3.1 library, does not have), and where "// skip[MPI]:" says so.
func skipForMPI(t *testing.T, tools mpiTools, p program) {
	t.Helper()
	if why := p.skipFor[tools.name]; why != "" {
		t.Skipf("%s: not run with %s: %s", p.file, tools.name, why)
	}
	if p.mpiVersion > tools.version {
		t.Skipf("%s needs MPI-%d; %s is MPI-%d", p.file, p.mpiVersion, tools.name, tools.version)
	}
}

var (
	mpidbgOnce sync.Once
	mpidbgBin  string
	mpidbgErr  error
)

// needMpidbg returns bin/mpidbg, built with go build when it is missing or
// older than a Go source file of the tree.
func needMpidbg(t *testing.T) string {
	t.Helper()
	mpidbgOnce.Do(func() { mpidbgBin, mpidbgErr = buildMpidbg() })
	if mpidbgErr != nil {
		t.Fatal(mpidbgErr)
	}
	return mpidbgBin
}

func buildMpidbg() (string, error) {
	root, err := filepath.Abs(rootDir)
	if err != nil {
		return "", err
	}
	bin := filepath.Join(root, "bin", "mpidbg")
	if fi, err := os.Stat(bin); err == nil && !newerSource(root, fi.ModTime()) {
		return bin, nil
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = "/usr/local/go/bin/go"
	}
	cmd := exec.Command(goTool, "build", "-o", bin, "./cmd/mpidbg")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building bin/mpidbg: %v\n%s", err, out)
	}
	return bin, nil
}

// newerSource reports whether a non-test Go file of the module (outside
// testprogs and extensions) is newer than t.
func newerSource(root string, t time.Time) bool {
	newer := false
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if newer {
			return filepath.SkipAll
		}
		if err != nil {
			return nil
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "testprogs", "extensions", "node_modules", "bin", "lib", "testdata":
				return filepath.SkipDir
			}
			return nil
		}
		if n := d.Name(); strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") || n == "go.mod" || n == "go.sum" {
			if fi, err := d.Info(); err == nil && fi.ModTime().After(t) {
				newer = true
			}
		}
		return nil
	})
	return newer
}

var compilers sync.Map // wrapper name -> *found

type found struct {
	once sync.Once
	path string
	err  error
}

// compiler is tools' compiler wrapper for l (mpicc.mpich, mpif90.openmpi,
// mpicxx.mpich), once it and the compiler it runs (gfortran, g++) are
// found on PATH.
func (tools mpiTools) compiler(l *lang) (string, error) {
	name := l.wrapper(tools.lib)
	v, _ := compilers.LoadOrStore(name, &found{})
	f := v.(*found)
	f.once.Do(func() {
		if f.path, f.err = exec.LookPath(name); f.err != nil {
			f.err = fmt.Errorf("%s is missing (apt-get install %s)", name, mpilib.Packages(tools.lib))
			return
		}
		// both libraries' wrappers print their command line for -show:
		// the compiler comes first
		out, err := exec.Command(f.path, "-show").Output()
		cc := strings.Fields(string(out))
		if err != nil || len(cc) == 0 {
			f.err = fmt.Errorf("%s -show: %v", name, err)
			return
		}
		if _, err := exec.LookPath(cc[0]); err != nil {
			f.err = fmt.Errorf("%s, which %s runs, is missing (apt-get install %s)", cc[0], name, l.compiler)
		}
	})
	return f.path, f.err
}

type built struct {
	once sync.Once
	exe  string
	err  error
}

var builds sync.Map // MPI library/program path -> *built

// build compiles p once per test binary and MPI library, with the
// wrapper and flags of its language (lang_test.go) and the flags of its
// "// cflags:" line after the source (where -lm must be); a compiler
// warning is an error. A wrapper or compiler that is missing ends the
// test as testenv.Missing does (a failure under MPIDBG_REQUIRE_MPI).
func build(t *testing.T, tools mpiTools, p program) string {
	t.Helper()
	if p.lang.script {
		pythonFor(t, tools, p) // runs it (command), or skips
		return p.path
	}
	cc, err := tools.compiler(p.lang)
	if err != nil {
		testenv.Missing(t, testenv.RequireMPI, "%s: %v", p.file, err)
	}
	v, _ := builds.LoadOrStore(tools.name+"/"+p.path, &built{})
	b := v.(*built)
	b.once.Do(func() {
		dir := filepath.Join(buildDir, tools.name)
		// the compiler runs in a folder of the program's own, where
		// what it leaves beside the executable goes (gfortran's .mod
		// files of the modules a program defines)
		work := filepath.Join(dir, p.name+".d")
		if err := os.MkdirAll(work, 0o755); err != nil {
			b.err = err
			return
		}
		exe := filepath.Join(dir, p.name)
		args := append(slices.Clip(p.lang.flags), "-o", exe, p.path)
		cmd := exec.Command(cc, append(args, p.cflags...)...)
		cmd.Dir = work
		out, err := cmd.CombinedOutput()
		switch {
		case err != nil:
			b.err = fmt.Errorf("%s: compile: %v\n%s", p.file, err, out)
		case p.lang.warnings(out) != "":
			b.err = fmt.Errorf("%s: compiler warnings:\n%s", p.file, p.lang.warnings(out))
		default:
			b.exe = exe
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.exe
}
