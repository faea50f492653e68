package mpilib

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Debian's python3-mpi4py is built for Open MPI.
func TestDetectPython(t *testing.T) {
	py := "/usr/bin/python3"
	if _, err := os.Stat("/usr/lib/python3/dist-packages/mpi4py"); err != nil {
		t.Skip("no Debian python3-mpi4py")
	}
	m, err := DetectPython(py)
	if err != nil || m != OpenMPI {
		t.Errorf("DetectPython(%s) = %v, %v; want openmpi", py, m, err)
	}
}

func TestDetectPythonNot(t *testing.T) {
	dir := t.TempDir()
	// an interpreter without mpi4py: find_spec finds nothing
	fake := filepath.Join(dir, "python3")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := DetectPython(fake); !errors.Is(err, ErrNotPython) || !errors.Is(err, ErrNoMPI4Py) {
		t.Errorf("no mpi4py: %v, want ErrNotPython and ErrNoMPI4Py", err)
	}
	// not an interpreter's name: never run
	other := filepath.Join(dir, "app")
	if err := os.WriteFile(other, []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := DetectPython(other); !errors.Is(err, ErrNotPython) || errors.Is(err, ErrNoMPI4Py) {
		t.Errorf("app: %v, want ErrNotPython only", err)
	}
	// mpi4py without an MPI module mpidbg knows
	pkg := filepath.Join(dir, "site", "mpi4py")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	stub := filepath.Join(dir, "python3.11")
	if err := os.WriteFile(stub, []byte("#!/bin/sh\necho "+pkg+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := DetectPython(stub); !errors.Is(err, ErrNoMPI) {
		t.Errorf("empty mpi4py: %v, want ErrNoMPI", err)
	}
}
