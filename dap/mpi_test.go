package dap

import (
	"os"
	"testing"

	"github.com/mpidbg/mpidbg/internal/mpilib"
	"github.com/mpidbg/mpidbg/internal/testenv"
)

// testMPI is one MPI library the adapter's tests run with: every launch
// and attach test runs once per library (make test has both).
type testMPI struct {
	name string // mpich, openmpi: the subtest's name and the "mpi" attribute
	lib  mpilib.MPI
}

// forEachMPI runs test once per MPI library, as a subtest named after it.
func forEachMPI(t *testing.T, test func(t *testing.T, m testMPI)) {
	for _, lib := range mpilib.All {
		m := testMPI{lib.String(), lib}
		t.Run(m.name, func(t *testing.T) { test(t, m) })
	}
}

// TestMain lets Open MPI's mpiexec start more ranks than there are cores
// and, when the tests run as root (CI), run at all: settings of the test
// machine, which users make for themselves.
func TestMain(m *testing.M) {
	testenv.OpenMPI()
	os.Exit(m.Run())
}
