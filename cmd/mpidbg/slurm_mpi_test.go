package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpidbg/mpidbg/internal/envvar"
	"github.com/mpidbg/mpidbg/internal/mpilib"
	"github.com/mpidbg/mpidbg/internal/testenv"
)

const okPairC = `#include <mpi.h>
int main(int argc, char **argv) {
	int rank, v[2] = {1, 2}, w[2];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0)
		MPI_Send(v, 2, MPI_INT, 1, 0, MPI_COMM_WORLD);
	else if (rank == 1)
		MPI_Recv(w, 2, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Finalize();
	return 0;
}
`

// startSlurm starts the test's Slurm cluster and points srun at it.
func startSlurm(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Slurm cluster")
	}
	t.Setenv(envvar.SlurmConf, testenv.Slurm(t))
	t.Setenv(envvar.NoColor, "1")
}

// slurmPMI is the srun --mpi plugin each MPI takes: Debian's MPICH
// speaks PMI-2, its Open MPI PMIx.
var slurmPMI = map[mpilib.MPI]string{mpilib.MPICH: "--mpi=pmi2", mpilib.OpenMPI: "--mpi=pmix"}

// TestRunUnderSrun runs jobs under a real Slurm, a one-node cluster the
// test starts, with the launcher line written out: mpidbg run -- srun
// ... PROGRAM. MPICH's ranks take Slurm's PMI-2, Open MPI's its PMIx. A
// planted type mismatch is found and reported at its lines, with srun's
// --export=NONE too (mpidbg's variables are added to the list); a correct
// program is clean; a deadlock is found and the job ended through srun.
func TestRunUnderSrun(t *testing.T) {
	startSlurm(t)
	for _, m := range mpilib.All {
		t.Run(m.String(), func(t *testing.T) {
			cc := needCompiler(t, m)
			shim := needShim(t, m)
			dir := t.TempDir()
			bug := buildWith(t, cc, dir, "pair", pairC)
			ok := buildWith(t, cc, dir, "okpair", okPairC)
			hang := buildWith(t, cc, dir, "hang", hangSrc)
			pmi := slurmPMI[m]

			for _, export := range [][]string{nil, {"--export=NONE"}, {"--export", "ALL"}} {
				line := append(append([]string{"run", "--shim", shim, "--", "srun", "-n", "2", pmi}, export...), bug)
				_, stderr, code := runWith(t, "", line...)
				if code != 1 || !strings.Contains(stderr, "error · type-mismatch · MPI_Recv") ||
					!strings.Contains(stderr, "pair.c:10") || !strings.Contains(stderr, "1 error in 1 of 2 ranks") {
					t.Errorf("srun %v: exit %d, want 1 with the type mismatch at pair.c:10; stderr:\n%s", export, code, stderr)
				}
			}
			_, stderr, code := runWith(t, "", "run", "--shim", shim, "--", "srun", "-n", "2", pmi, ok)
			if code != 0 || !strings.Contains(stderr, "no findings (2 ranks)") {
				t.Errorf("correct program: exit %d, want 0 and no findings; stderr:\n%s", code, stderr)
			}
			_, stderr, code = runWith(t, "", "run", "--shim", shim, "--deadlock-timeout", "1s", "--", "srun", "-n", "2", pmi, hang)
			if code != 1 || !strings.Contains(stderr, "deadlock") || !strings.Contains(stderr, "SIGTERM to srun") {
				t.Errorf("deadlock: exit %d, want 1, the deadlock and srun ended; stderr:\n%s", code, stderr)
			}
		})
	}
}

// TestRunLauncherLineUsage: a launcher line refuses -n and --mpiexec,
// and one without a program says so.
func TestRunLauncherLineUsage(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "-n", "2", "--", "srun", "-n", "2", "/bin/true"}, "give the number of ranks"},
		{[]string{"run", "--mpiexec", "mpiexec", "--", "srun", "-n", "2", "/bin/true"}, "write the launcher's options in the line"},
		{[]string{"run", "--", "srun", "-n", "2", "no-such-program-here"}, "no program in the launcher line"},
	} {
		_, stderr, code := runWith(t, "", tt.args...)
		if code != 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, want 2 and %q; stderr:\n%s", tt.args, code, tt.want, stderr)
		}
	}
}

// TestCollectBatchScript: mpidbg collect runs a batch script whose
// launcher lines are left as they are, two srun steps and the MPI's own
// mpiexec (MPICH's with -genv LD_PRELOAD "$MPIDBG_PRELOAD", which Hydra
// needs), and reports the findings of every step's ranks; the script's
// own output passes through, and a script that fails gives its status.
func TestCollectBatchScript(t *testing.T) {
	startSlurm(t)
	for _, m := range mpilib.All {
		t.Run(m.String(), func(t *testing.T) {
			cc := needCompiler(t, m)
			shim := needShim(t, m)
			mpi := testenv.NeedMPI(t, m)
			dir := t.TempDir()
			bug := buildWith(t, cc, dir, "pair", pairC)
			ok := buildWith(t, cc, dir, "okpair", okPairC)
			pmi := slurmPMI[m]
			mpiexec := mpi.Exec
			if m == mpilib.MPICH {
				mpiexec += ` -genv LD_PRELOAD "$MPIDBG_PRELOAD"`
			}
			script := filepath.Join(dir, "job.sh")
			body := "#!/bin/sh\necho step one\nsrun -n 2 " + pmi + " " + ok + "\necho step two\nsrun -n 2 " + pmi + " " + bug +
				"\n" + mpiexec + " -n 2 " + bug + "\nexit ${JOBSTATUS:-0}\n"
			if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
				t.Fatal(err)
			}
			stdout, stderr, code := runWith(t, "", "collect", "--mpi", m.String(), "--shim", shim, "--", script)
			if code != 1 || !strings.Contains(stdout, "step one\n") || !strings.Contains(stdout, "step two\n") ||
				!strings.Contains(stderr, "error · type-mismatch · MPI_Recv · rank 1, 2 times") {
				t.Errorf("exit %d, want 1, the script's output and the mismatch of both buggy steps; stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			hang := buildWith(t, cc, dir, "hang", hangSrc)
			stuck := filepath.Join(dir, "stuck.sh")
			if err := os.WriteFile(stuck, []byte("#!/bin/sh\nsrun -n 2 "+pmi+" "+hang+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			_, stderr, code = runWith(t, "", "collect", "--mpi", m.String(), "--shim", shim, "--deadlock-timeout", "1s", "--", stuck)
			if code != 1 || !strings.Contains(stderr, "deadlock") {
				t.Errorf("a deadlocked step: exit %d, want 1 and the deadlock; stderr:\n%s", code, stderr)
			}
			waitGone(t, nil, hang) // the script's srun and ranks too, not the script alone
			t.Setenv("JOBSTATUS", "3")
			_, stderr, code = runWith(t, "", "collect", "--mpi", m.String(), "--shim", shim, "--", script)
			if code != 3 {
				t.Errorf("a script that exits 3: exit %d, want 3; stderr:\n%s", code, stderr)
			}
		})
	}
}
