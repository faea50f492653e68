package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/mpidbg/mpidbg/internal/envvar"
	"github.com/mpidbg/mpidbg/internal/mpilib"
	"github.com/mpidbg/mpidbg/run/report"
)

// pairC: rank 0 sends two ints that rank 1 receives as doubles, in a
// receive written over two lines.
const pairC = `#include <mpi.h>
int main(int argc, char **argv) {
	int rank, out[2] = {1, 2};
	double in[2];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0)
		MPI_Send(out, 2, MPI_INT, 1, 0, MPI_COMM_WORLD);
	else if (rank == 1)
		MPI_Recv(in, 2,
		         MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Finalize();
	return 0;
}
`

// TestRunSourceLines runs pairC under each MPI: the terminal report
// shows the receive's lines with MPI_DOUBLE marked as its datatype, and
// the send's line with MPI_INT marked; the JSON names both arguments.
func TestRunSourceLines(t *testing.T) {
	for _, m := range mpilib.All {
		t.Run(m.String(), func(t *testing.T) {
			cc := needCompiler(t, m)
			shim := needShim(t, m)
			dir := t.TempDir()
			exe := buildWith(t, cc, dir, "pair", pairC)
			out := filepath.Join(dir, "report.json")
			t.Setenv(envvar.NoColor, "1")
			_, stderr, code := runWith(t, "", "run", "-n", "2", "--shim", shim, "--json", out, exe)
			if code != 1 {
				t.Fatalf("exit %d, want 1 (an error found); stderr:\n%s", code, stderr)
			}
			for _, want := range []string{
				`(?m)^ +10 \| MPI_Recv\(in, 2,\n +11 \|          MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE\);\n +\|          \^{10} datatype\n`,
				`(?m)^ +8 \| MPI_Send\(out, 2, MPI_INT, 1, 0, MPI_COMM_WORLD\);\n +\|                  -{7} datatype\n`,
			} {
				if !regexp.MustCompile(want).MatchString(stderr) {
					t.Errorf("the report lacks the source lines %s:\n%s", want, stderr)
				}
			}
			if regexp.MustCompile("\x1b\\[").MatchString(stderr) {
				t.Errorf("colour with NO_COLOR and no terminal:\n%q", stderr)
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Findings []report.Finding `json:"findings"`
			}
			if err := json.Unmarshal(b, &doc); err != nil {
				t.Fatalf("%s: %v\n%s", out, err, b)
			}
			if len(doc.Findings) != 1 || doc.Findings[0].ID != "type-mismatch" || doc.Findings[0].Arg != "datatype" ||
				len(doc.Findings[0].Related) == 0 || doc.Findings[0].Related[0].Arg != "datatype" || doc.Findings[0].Related[0].Call != "MPI_Send" {
				t.Errorf("want one type-mismatch with arg datatype, its related send's arg datatype:\n%s", b)
			}
		})
	}
}
