package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpidbg/mpidbg/internal/envvar"
	"github.com/mpidbg/mpidbg/internal/mpilib"
	"github.com/mpidbg/mpidbg/run/report"
)

// ringC: every rank sends an int to its right neighbour, which receives
// it as a double: one bug, made by every rank.
const ringC = `#include <mpi.h>
int main(int argc, char **argv) {
	int rank, size, out = 0;
	double in;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Sendrecv(&out, 1, MPI_INT, (rank + 1) % size, 0, &in, 1, MPI_DOUBLE, (rank + size - 1) % size, 0,
	             MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Finalize();
	return 0;
}
`

// TestRunFold64 runs the ring at 64 ranks (oversubscribed) under each
// MPI: the report must have one type-mismatch entry for all of them, with
// the shift as its pattern, not one entry per rank pair.
func TestRunFold64(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 64 ranks")
	}
	const n = 64
	for _, m := range mpilib.All {
		t.Run(m.String(), func(t *testing.T) {
			cc := needCompiler(t, m)
			shim := needShim(t, m)
			dir := t.TempDir()
			exe := buildWith(t, cc, dir, "ring", ringC)
			out := filepath.Join(dir, "report.json")
			t.Setenv(envvar.NoColor, "1")
			_, stderr, code := runWith(t, "", "run", "-n", "64", "--shim", shim, "--json", out, exe)
			if code != 1 {
				t.Fatalf("exit %d, want 1 (an error found); stderr:\n%s", code, stderr)
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
			if len(doc.Findings) != 1 {
				t.Fatalf("got %d findings, want 1 type-mismatch:\n%s", len(doc.Findings), b)
			}
			f := doc.Findings[0]
			const wantPattern = "each rank r sends to r+1 (mod 64); ranks 0-63"
			if f.ID != "type-mismatch" || len(f.Ranks) != n || f.Count != n || f.Pattern != wantPattern ||
				!strings.HasPrefix(f.Message, "rank 0 sends MPI_INT[0] where rank 1 receives MPI_DOUBLE[0]") {
				t.Errorf("got %s %v x%d, pattern %q: %s\nwant type-mismatch, ranks 0-63, 64 times, pattern %q, rank 0 to 1 as the example",
					f.ID, f.Ranks, f.Count, f.Pattern, f.Message, wantPattern)
			}
			if !strings.Contains(stderr, "type-mismatch") || !strings.Contains(stderr, "1 error") {
				t.Errorf("the terminal report does not say 1 error:\n%s", stderr)
			}
		})
	}
}
