// Package testenv is what the tests need from the machine they run on:
// the MPI libraries' tools, this tree's shims as `make build` built them,
// other tools (gdb, gcc), and the settings Open MPI needs there.
//
// A test that lacks something skips, unless make test said it must not:
// MPIDBG_REQUIRE_MPI=1 turns a missing MPI library or tool into a
// failure, MPIDBG_REQUIRE_SHIM=1 a missing shim. A shim that is older
// than its sources always fails: a test would otherwise check code that
// is no longer the tree's.
package testenv

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/mpidbg/mpidbg/internal/envvar"

	"github.com/mpidbg/mpidbg/internal/mpilib"
)

// The variables make test sets so that nothing it needs skips.
const (
	RequireMPI  = envvar.RequireMPI
	RequireShim = envvar.RequireShim
)

// Required reports whether env (RequireMPI, RequireShim) is set to
// anything but "" or "0".
func Required(env string) bool {
	v := os.Getenv(env)
	return v != "" && v != "0"
}

// Missing ends t for want of something: it fails when env is required
// and skips otherwise (env "" always skips). The message says how to fail
// instead.
func Missing(t testing.TB, env, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if env != "" && Required(env) {
		t.Fatalf("%s is set but %s", env, msg)
	}
	if env != "" {
		msg += "; set " + env + "=1 to fail instead"
	}
	t.Skip(msg)
}

// NeedTool returns the path of the program name on PATH, or ends t with
// Missing(env); hint says how to install it.
func NeedTool(t testing.TB, env, name, hint string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if hint != "" {
			hint = " (" + hint + ")"
		}
		Missing(t, env, "%s is missing%s", name, hint)
	}
	return p
}

// OpenMPI lets Open MPI's mpiexec start more ranks than there are cores
// (the tests run up to 8 ranks on 2) and, when the tests run as root (CI
// does), run at all. It also leaves out the transport layers for
// Omni-Path and True Scale adapters (and OFI, the one Debian's
// configuration leaves out, which the variable would otherwise bring
// back), so that ranks do not spend 0.2 s of each job's start looking
// for hardware the test machines lack: the pml they select (ob1) is the
// same either way, and the tests start about 2000 Open MPI jobs. Waiting
// ranks yield their core, which Open MPI does by itself only when one
// job's ranks outnumber the cores: the tests run two jobs at once on a
// 2-core machine, whose spinning ranks would otherwise take turns by the
// scheduler's time slice. Each variable is set only when the environment
// does not already say; a user of mpidbg makes these choices for
// themselves.
func OpenMPI() {
	set := func(k, v string) {
		if os.Getenv(k) == "" {
			os.Setenv(k, v)
		}
	}
	set(envvar.OMPIOversubscribe, "1")
	set(envvar.OMPIMTL, "^psm,psm2,ofi")
	set(envvar.OMPIYieldWhenIdle, "1")
	if os.Geteuid() == 0 {
		set(envvar.OMPIAllowRunAsRoot, "1")
		set(envvar.OMPIAllowRunAsRootConfirm, "1")
	}
}

// MPI is one MPI library's tools as found on PATH.
type MPI struct {
	Lib  mpilib.MPI
	CC   string // the compiler wrapper (mpicc.mpich, mpicc.openmpi)
	Exec string // its mpiexec (mpiexec.mpich, mpiexec.openmpi)
}

// FindCompiler returns m's compiler wrapper on PATH.
func FindCompiler(m mpilib.MPI) (string, error) {
	cc, err := exec.LookPath(mpilib.Compiler(m))
	if err != nil {
		return "", fmt.Errorf("%s is missing (apt-get install %s)", mpilib.Compiler(m), mpilib.Packages(m))
	}
	return cc, nil
}

// FindMPI returns m's compiler wrapper and mpiexec (Debian's names for
// that library: the plain mpicc and mpiexec follow update-alternatives).
func FindMPI(m mpilib.MPI) (MPI, error) {
	cc, err := FindCompiler(m)
	if err != nil {
		return MPI{}, err
	}
	name := mpilib.MPIExecNames(m)[0]
	x, err := exec.LookPath(name)
	if err != nil {
		return MPI{}, fmt.Errorf("%s is missing (apt-get install %s)", name, mpilib.Packages(m))
	}
	return MPI{Lib: m, CC: cc, Exec: x}, nil
}

// NeedCompiler returns m's compiler wrapper, or ends t with
// Missing(RequireMPI).
func NeedCompiler(t testing.TB, m mpilib.MPI) string {
	t.Helper()
	cc, err := FindCompiler(m)
	if err != nil {
		Missing(t, RequireMPI, "%v", err)
	}
	return cc
}

// NeedMPI returns m's tools, or ends t with Missing(RequireMPI). It makes
// this machine's Open MPI settings (OpenMPI) for the jobs the test runs.
func NeedMPI(t testing.TB, m mpilib.MPI) MPI {
	t.Helper()
	OpenMPI()
	tl, err := FindMPI(m)
	if err != nil {
		Missing(t, RequireMPI, "%v", err)
	}
	return tl
}

// Root is the source tree's root directory.
func Root() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		panic("testenv: no caller information")
	}
	return filepath.Dir(filepath.Dir(filepath.Dir(file)))
}

// ShimPath is the path of this tree's shim for m: lib/libmpidbg.so,
// lib/libmpidbg-openmpi.so.
func ShimPath(m mpilib.MPI) string {
	return filepath.Join(Root(), "lib", mpilib.Shim(m))
}

// FindShim returns this tree's shim for m. It is an error when the
// shim is missing, and a *StaleError when it is older than a source it
// is built from.
func FindShim(m mpilib.MPI) (string, error) {
	shim := ShimPath(m)
	if _, err := os.Stat(shim); err != nil {
		return shim, fmt.Errorf("the shim %s is not built (make build): %w", shim, err)
	}
	return shim, checkFresh(shim)
}

// NeedShim returns this tree's shim for m. A shim that is missing ends t
// with Missing(RequireShim); one that is stale fails t.
func NeedShim(t testing.TB, m mpilib.MPI) string {
	t.Helper()
	shim, err := FindShim(m)
	var stale *StaleError
	switch {
	case errors.As(err, &stale):
		t.Fatal(err)
	case err != nil:
		Missing(t, RequireShim, "%v", err)
	}
	return shim
}

// fresh caches the freshness check: every test of a binary loads the
// same libraries, and the sources do not change while it runs.
var fresh sync.Map // shim path -> error

func checkFresh(shim string) error {
	if err, ok := fresh.Load(shim); ok {
		return asError(err)
	}
	err := Stale(Root(), shim)
	fresh.Store(shim, err)
	return err
}

func asError(v any) error {
	if v == nil {
		return nil
	}
	err, _ := v.(error)
	return err
}
