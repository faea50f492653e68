package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mpidbg/mpidbg/internal/envvar"
	"github.com/mpidbg/mpidbg/internal/mpilib"
	"github.com/mpidbg/mpidbg/internal/testenv"
	"github.com/mpidbg/mpidbg/run/report"
)

// uncommitted.c: rank 0 sends and rank 1 receives with a contiguous type
// that nobody committed. MPICH rejects both calls; with its default error
// handler the first rejection aborts the job and the other rank may be
// killed before it reaches its call, so errors are returned instead.
const uncommittedC = `#include <mpi.h>
int main(int argc, char **argv) {
	int rank, buf[2] = {1, 2};
	MPI_Datatype pair;
	MPI_Init(&argc, &argv);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Type_contiguous(2, MPI_INT, &pair);
	if (rank == 0)
		MPI_Send(buf, 1, pair, 1, 0, MPI_COMM_WORLD); /* sendLine */
	else if (rank == 1)
		MPI_Recv(buf, 1, pair, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* recvLine */
	MPI_Type_free(&pair);
	MPI_Finalize();
	return 0;
}
`

const sendLine, recvLine = 10, 12

// TestRunMPICH runs a real program with a planted bug under the real shim
// and MPICH: the finding must come back with its source line.
func TestRunMPICH(t *testing.T) {
	shim := needMPICH(t)
	lines := strings.Split(uncommittedC, "\n")
	if !strings.Contains(lines[sendLine-1], "sendLine") || !strings.Contains(lines[recvLine-1], "recvLine") {
		t.Fatal("sendLine and recvLine do not point at the calls")
	}

	dir := t.TempDir()
	exe := compile(t, dir, "uncommitted", uncommittedC)
	src, out := exe+".c", filepath.Join(dir, "report.json")
	t.Setenv(envvar.MPIExecTimeout, "120") // Hydra ends a hung job
	t.Setenv(envvar.NoColor, "1")
	_, stderr, code := runWith(t, "", "run", "-n", "2", "--shim", shim, "--json", out, exe)
	if code == 2 || code == 0 {
		t.Fatalf("got exit %d, want the program's failure or 1; stderr:\n%s", code, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Version  int              `json:"version"`
		Findings []report.Finding `json:"findings"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v\n%s", out, err, b)
	}
	found := slices.ContainsFunc(doc.Findings, func(f report.Finding) bool {
		return f.ID == "type-not-committed" && slices.Contains(f.Ranks, 0) &&
			f.Location.File == src && f.Location.Line == sendLine && f.Location.Function == "main"
	})
	if !found {
		t.Errorf("no type-not-committed finding for rank 0 at %s:%d in main; got %s\nstderr:\n%s", src, sendLine, b, stderr)
	}
	if !strings.Contains(stderr, "type-not-committed") || !strings.Contains(stderr, "uncommitted.c:10") {
		t.Errorf("the terminal report lacks the finding:\n%s", stderr)
	}
}

// needMPICH skips (or, under make test, fails) without MPICH or the
// shim, and returns the shim's path.
func needMPICH(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs MPI")
	}
	testenv.NeedMPI(t, mpilib.MPICH)
	return testenv.NeedShim(t, mpilib.MPICH)
}

// compile builds src as dir/name with debug information.
func compile(t *testing.T, dir, name, src string) string {
	t.Helper()
	c, exe := filepath.Join(dir, name+".c"), filepath.Join(dir, name)
	if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command(mpilib.Compiler(mpilib.MPICH), "-g", "-O0", "-o", exe, c).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", mpilib.Compiler(mpilib.MPICH), err, b)
	}
	return exe
}
