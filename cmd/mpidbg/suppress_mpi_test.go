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

// slotsC: rank 0 receives one block per worker with MPI_ANY_SOURCE,
// sizing the i-th receive for worker i's block; worker 2's block is
// longer and comes later (a sleep of a second: a loaded machine can
// delay a rank by a tenth), so the run goes well but the other order
// truncates: message-race, an error, at line 15. Nothing but time may
// order the two sends: a message between the workers would put worker
// 2's send after the first receive by the clocks that find the race.
const slotsC = `#include <mpi.h>
#include <time.h>
int main(int argc, char **argv) {
	int rank;
	double buf[8] = {0};
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		int at = 0;
		for (int w = 1; w <= 2; w++) {
			int n = w == 1 ? 2 : 4;
			/* the i-th block is assumed to be worker i's */
			MPI_Recv(buf + at, n, MPI_DOUBLE, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			at += n;
		}
	} else {
		struct timespec later = {rank == 1 ? 0 : 1, rank == 1 ? 50000000L : 0};
		nanosleep(&later, NULL);
		MPI_Send(buf, rank == 1 ? 2 : 4, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
`

// TestRunSuppress runs a program with a message-race error under each
// MPI: reported without rules (exit 1); with a --suppress file naming the
// reviewed site, or the same rule in .mpidbg-suppress beside the
// program, it is "1 suppressed", in the summary, the JSON and the SARIF,
// and the exit status is 0; a bad rule is a usage error naming its line.
func TestRunSuppress(t *testing.T) {
	for _, m := range mpilib.All {
		t.Run(m.String(), func(t *testing.T) {
			cc := needCompiler(t, m)
			shim := needShim(t, m)
			dir := t.TempDir()
			exe := buildWith(t, cc, dir, "slots", slotsC)
			t.Setenv(envvar.NoColor, "1")

			_, stderr, code := runWith(t, "", "run", "-n", "3", "--shim", shim, exe)
			if code != 1 || !strings.Contains(stderr, "error · message-race") ||
				!strings.Contains(stderr, "it receives 4 MPI_DOUBLE into room for 2: truncation") {
				t.Fatalf("without rules: exit %d, want 1 with the message-race error; stderr:\n%s", code, stderr)
			}

			rules := filepath.Join(dir, "reviewed.supp")
			if err := os.WriteFile(rules, []byte("# the workers are started in order\nmessage-race  slots.c:13\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			js, sarif := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.sarif")
			_, stderr, code = runWith(t, "", "run", "-n", "3", "--shim", shim, "--suppress", rules, "--json", js, "--sarif", sarif, exe)
			if code != 0 || strings.Contains(stderr, "error ·") || !strings.Contains(stderr, "no findings (3 ranks); 1 suppressed") {
				t.Errorf("--suppress: exit %d, want 0 and 1 suppressed; stderr:\n%s", code, stderr)
			}
			b, err := os.ReadFile(js)
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Findings   []report.Finding `json:"findings"`
				Suppressed int              `json:"suppressed"`
			}
			if err := json.Unmarshal(b, &doc); err != nil || len(doc.Findings) != 0 || doc.Suppressed != 1 {
				t.Errorf("JSON: %v; want no findings and suppressed 1:\n%s", err, b)
			}
			if b, err := os.ReadFile(sarif); err != nil || !strings.Contains(string(b), `"kind": "external"`) ||
				!strings.Contains(string(b), "reviewed.supp:2 (message-race slots.c:13)") {
				t.Errorf("SARIF: %v; want the result with an external suppression naming reviewed.supp:2:\n%s", err, b)
			}

			// the program's own file, found beside it
			if err := os.WriteFile(filepath.Join(dir, report.SuppressFile), []byte("message-race function=main\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			_, stderr, code = runWith(t, "", "run", "-n", "3", "--shim", shim, exe)
			if code != 0 || !strings.Contains(stderr, "1 suppressed") {
				t.Errorf("%s: exit %d, want 0 and 1 suppressed; stderr:\n%s", report.SuppressFile, code, stderr)
			}

			// --on-error abort|stop acts in the ranks, before the rules
			// apply: refused with a rule that can cover an error (here
			// .mpidbg-suppress's), not with one that covers warnings only
			for _, mode := range []string{"abort", "stop"} {
				_, stderr, code = runWith(t, "", "run", "-n", "3", "--shim", shim, "--on-error", mode, exe)
				want := "mpidbg run: --on-error " + mode + " with suppression rules: the ranks " + mode +
					" at an error finding, before the rules apply, so the rule \"message-race function=main\" (" +
					filepath.Join(dir, report.SuppressFile) + ":1) would not keep a suppressed error from"
				if code != 2 || !strings.HasPrefix(stderr, want) {
					t.Errorf("--on-error %s with rules: exit %d, stderr %q; want 2 and %q", mode, code, stderr, want)
				}
			}
			if err := os.WriteFile(filepath.Join(dir, report.SuppressFile), []byte("commit-twice *\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			_, stderr, code = runWith(t, "", "run", "-n", "3", "--shim", shim, "--on-error", "abort", exe)
			if code == 2 || strings.Contains(stderr, "suppression rules") || !strings.Contains(stderr, "message-race") {
				t.Errorf("--on-error abort with a warning's rule: exit %d, want the job to run and abort at the race; stderr:\n%s", code, stderr)
			}
			os.Remove(filepath.Join(dir, report.SuppressFile))

			// a bad line: a usage error before the job runs
			if err := os.WriteFile(rules, []byte("message-race\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			_, stderr, code = runWith(t, "", "run", "-n", "3", "--shim", shim, "--suppress", rules, exe)
			if code != 2 || !strings.Contains(stderr, "reviewed.supp:1: ") {
				t.Errorf("bad rule: exit %d, want 2 naming reviewed.supp:1; stderr:\n%s", code, stderr)
			}
		})
	}
}
