package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mpidbg/mpidbg/internal/envvar"
	"github.com/mpidbg/mpidbg/internal/mpilib"
	"github.com/mpidbg/mpidbg/run/report"
)

// spawnC: the job's two ranks start two workers with MPI_Comm_spawn
// (its own program, argument "worker"), send each an int over the
// intercommunicator and wait for twice it back. The workers take a
// second before they answer, longer than the deadlock timeout the test
// sets, so ranks blocked on them must not read as a deadlock. Planted:
// rank 0 leaks a datatype (line 12: the report's), worker 1 leaks
// another (line 23: its own line on standard error).
const spawnC = `#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv) {
	MPI_Comm parent, inter;
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_get_parent(&parent);
	MPI_Datatype t;
	if (parent == MPI_COMM_NULL && rank == 0) MPI_Type_contiguous(2, MPI_INT, &t);
	if (parent == MPI_COMM_NULL) {
		char *args[] = {"worker", NULL};
		MPI_Comm_spawn(argv[0], args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE);
		int v = 100 + rank, back = 0;
		MPI_Send(&v, 1, MPI_INT, rank, 0, inter);
		MPI_Recv(&back, 1, MPI_INT, rank, 1, inter, MPI_STATUS_IGNORE);
		printf("rank %d got %d\n", rank, back);
		MPI_Comm_disconnect(&inter);
	} else {
		int v = 0;
		if (rank == 1) MPI_Type_contiguous(3, MPI_INT, &t);
		MPI_Recv(&v, 1, MPI_INT, rank, 0, parent, MPI_STATUS_IGNORE);
		sleep(1);
		v *= 2;
		MPI_Send(&v, 1, MPI_INT, rank, 1, parent);
		MPI_Comm_disconnect(&parent);
	}
	MPI_Finalize();
	return 0;
}
`

// TestRunSpawn: a job whose ranks start processes with MPI_Comm_spawn
// runs as it does without mpidbg (no wait for a shadow communicator the
// spawned side never makes), ends with its report, notes the processes
// started outside the job, and does not count them as refused
// connections; the spawned processes are checked and name themselves on
// standard error. Open MPI only: Debian's MPICH 4.0 (ch4:ucx) fails
// MPI_Comm_spawn without mpidbg too ("Error in spawn call").
func TestRunSpawn(t *testing.T) {
	if testing.Short() {
		t.Skip("runs MPI")
	}
	m := mpilib.OpenMPI
	cc := needCompiler(t, m)
	shim := needShim(t, m)
	dir := t.TempDir()
	exe := buildWith(t, cc, dir, "spawn", spawnC)
	t.Setenv(envvar.NoColor, "1")
	t.Setenv(envvar.MPIExecTimeout, "120")
	js := filepath.Join(dir, "r.json")

	stdout, stderr, code := runWith(t, "", "run", "-n", "2", "--shim", shim, "--deadlock-timeout", "300ms", "--json", js, exe)
	if code != 0 {
		t.Errorf("exit %d, want 0 (warnings only)", code)
	}
	for _, want := range []string{"rank 0 got 200\n", "rank 1 got 202\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	for _, want := range []string{
		"warning · leak-type · leak · MPI_Type_contiguous · rank 0\n",
		"/spawn.c:12 in main\n",
		"MPI_Comm_spawn started 2 processes outside the job",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the report lacks %q:\n%s", want, stderr)
		}
	}
	for _, bad := range []string{"deadlock", "refused", "ended before MPI_Finalize"} {
		if strings.Contains(stderr, bad) {
			t.Errorf("stderr has %q:\n%s", bad, stderr)
		}
	}
	if regexp.MustCompile(`spawned process 0 \(pid \d+\): (error|warning)`).MatchString(stderr) {
		t.Errorf("spawned process 0, which leaks nothing, reports a finding:\n%s", stderr)
	}
	worker := regexp.MustCompile(`(?m)^mpidbg: spawned process 1 \(pid \d+\): warning leak-type: MPI_Type_contiguous: .* at \S*spawn\.c:23 in main`)
	if !worker.MatchString(stderr) {
		t.Errorf("no line from spawned process 1 with its leak at spawn.c:23:\n%s", stderr)
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Findings []report.Finding `json:"findings"`
	}
	if err := json.Unmarshal(b, &doc); err != nil || len(doc.Findings) != 1 || doc.Findings[0].ID != "leak-type" {
		t.Errorf("JSON: %v; want the one leak-type of rank 0:\n%s", err, b)
	}
}
