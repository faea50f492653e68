package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpidbg/mpidbg/internal/envvar"
	"github.com/mpidbg/mpidbg/internal/mpilib"
	"github.com/mpidbg/mpidbg/internal/testenv"
)

// debianPython is Debian's python3 with its python3-mpi4py (built for
// Open MPI), or the test is missing (a failure under MPIDBG_REQUIRE_MPI).
func debianPython(t *testing.T) string {
	t.Helper()
	py := "/usr/bin/python3"
	if m, err := mpilib.DetectPython(py); err != nil || m != mpilib.OpenMPI {
		testenv.Missing(t, testenv.RequireMPI, "%s with Debian's mpi4py (apt-get install python3-mpi4py python3-numpy): %v, %v", py, m, err)
	}
	return py
}

// TestChooseMPIPython: python3 app.py runs with the MPI the
// interpreter's mpi4py links; --mpi may say so, not contradict it.
func TestChooseMPIPython(t *testing.T) {
	t.Setenv(envvar.Shim, "")
	py := debianPython(t)
	for _, tt := range []struct {
		mpi  string
		want mpilib.MPI
		err  string
	}{{"", mpilib.OpenMPI, ""}, {"openmpi", mpilib.OpenMPI, ""}, {"mpich", 0, "links openmpi"}} {
		got, err := chooseMPI(py, tt.mpi, "")
		switch {
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("--mpi %q: got %v, %v; want an error saying %q", tt.mpi, got, err, tt.err)
		case tt.err == "" && (err != nil || got != tt.want):
			t.Errorf("--mpi %q: got %v, %v; want %v", tt.mpi, got, err, tt.want)
		}
	}
}

const mismatchPy = `import numpy as np
from mpi4py import MPI


def exchange(comm):
    if comm.Get_rank() == 0:
        comm.Send([np.arange(4, dtype=np.int32), MPI.INT], dest=1, tag=3)
    else:
        comm.Recv([np.zeros(4), MPI.DOUBLE], source=0, tag=3)


exchange(MPI.COMM_WORLD)
`

// TestRunPython: mpidbg run -n 2 python3 app.py, as the README says, with
// no --mpi, --shim or --mpiexec: the finding names the script's line and
// function, the native frame in mpi4py's module a related location.
func TestRunPython(t *testing.T) {
	if testing.Short() {
		t.Skip("runs MPI")
	}
	py := debianPython(t)
	needCompiler(t, mpilib.OpenMPI)
	needShim(t, mpilib.OpenMPI)
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	tree := t.TempDir()
	if err := os.Symlink(filepath.Join(root, "lib"), filepath.Join(tree, "lib")); err != nil {
		t.Fatal(err)
	}
	bin := buildMpidbg(t, tree)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "app.py"), []byte(mismatchPy), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "run", "-n", "2", py, "app.py")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), envvar.Shim+"=")
	out, _ := cmd.CombinedOutput()
	for _, want := range []string{"type-mismatch", "at app.py:9 in exchange", "sent the message with MPI_Send at app.py:7 in exchange",
		"related  the native frame at", "/mpi4py/MPI."} {
		if !strings.Contains(string(out), want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Errorf("exit status %d, want 1", code)
	}
}

// TestPythonHint: a job whose interpreter has no mpi4py (a pyenv
// python3 ahead of the system's on PATH) never reaches MPI_Init; the
// error says why and names Debian's interpreter, which has it.
func TestPythonHint(t *testing.T) {
	py := debianPython(t)
	dir := t.TempDir()
	fake := filepath.Join(dir, "python3") // finds no mpi4py: prints an empty line
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	h := pythonHint("python3")
	if want := "python3 is " + fake + ", which has no mpi4py; " + py + " has mpi4py (built for openmpi)"; !strings.HasPrefix(h, want) {
		t.Errorf("hint %q, want it to begin %q", h, want)
	}
	// a virtual environment's python3: a link to the system's, with
	// packages of its own and no mpi4py among them
	venv := filepath.Join(t.TempDir(), "bin")
	if err := os.MkdirAll(venv, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(py, filepath.Join(venv, "python3")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(venv), "pyvenv.cfg"), []byte("home = /usr/bin\ninclude-system-site-packages = false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if h := pythonHint(filepath.Join(venv, "python3")); !strings.Contains(h, "which has no mpi4py; "+py+" has mpi4py") {
		t.Errorf("venv: hint %q, want it to name %s", h, py)
	}
	for _, p := range []string{py, "true", "no-such-program"} {
		if h := pythonHint(p); h != "" {
			t.Errorf("%s: hint %q, want none", p, h)
		}
	}
}
