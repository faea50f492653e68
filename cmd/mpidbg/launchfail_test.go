package main

import (
	"bufio"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpidbg/mpidbg/internal/envvar"
	"github.com/mpidbg/mpidbg/internal/mpilib"
)

var bothMPIs = []mpilib.MPI{mpilib.MPICH, mpilib.OpenMPI}

// noInterpreter writes a copy of /bin/true whose program interpreter
// (PT_INTERP) does not exist: it passes mpidbg's checks, then execve
// fails in every rank, as for a program built for another machine.
func noInterpreter(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile("/bin/true")
	if err != nil {
		t.Skip(err)
	}
	f, err := elf.Open("/bin/true")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	done := false
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP && p.Filesz > 8 {
			name := []byte("/nonexistent/ld.so")[:min(18, p.Filesz-1)]
			copy(b[p.Off:p.Off+p.Filesz], append(name, make([]byte, int(p.Filesz)-len(name))...))
			done = true
		}
	}
	if !done {
		t.Skip("/bin/true has no program interpreter")
	}
	out := filepath.Join(dir, "foreign")
	if err := os.WriteFile(out, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRunLaunchFailsMPI: a program mpiexec cannot start is an error with
// mpiexec's own message and its status, not "no findings"; a program
// that never calls MPI_Init (/bin/true) is an error too: nothing was
// checked.
func TestRunLaunchFailsMPI(t *testing.T) {
	says := map[mpilib.MPI]string{mpilib.MPICH: "execvp error on file", mpilib.OpenMPI: "bad interpreter"}
	for _, m := range bothMPIs {
		t.Run(m.String(), func(t *testing.T) {
			needCompiler(t, m)
			shim := needShim(t, m)
			t.Setenv(envvar.NoColor, "1")
			bad := noInterpreter(t, t.TempDir())
			_, stderr, code := runWith(t, "", "run", "-n", "2", "--mpi", m.String(), "--shim", shim, bad)
			_, said, _ := strings.Cut(stderr, "saying:\n")
			if code == 0 || code == 1 || code == 2 || !strings.Contains(stderr, "mpidbg: error: no rank reached MPI_Init") ||
				!strings.Contains(said, says[m]) || strings.Contains(stderr, "no findings") {
				t.Errorf("got exit %d, want mpiexec's failure and its message (%q):\n%s", code, says[m], stderr)
			}
			_, stderr, code = runWith(t, "", "run", "-n", "2", "--mpi", m.String(), "--shim", shim, "/bin/true")
			if code != 1 || !strings.Contains(stderr, "nothing was checked") || strings.Contains(stderr, "no findings") {
				t.Errorf("/bin/true: got exit %d, want 1 and that nothing was checked:\n%s", code, stderr)
			}
			// a launcher that fails and says nothing is not taken for a
			// program that never called MPI_Init
			_, stderr, code = runWith(t, "", "run", "-n", "2", "--mpi", m.String(), "--shim", shim, "--mpiexec", "/bin/false", "/bin/true")
			if code != 1 || !strings.Contains(stderr, "false ended with exit status 1 and said nothing: it could not start /bin/true, or /bin/true failed before MPI_Init or ran without the shim") {
				t.Errorf("--mpiexec /bin/false: got exit %d, want 1 and the launcher's status:\n%s", code, stderr)
			}
		})
	}
}

// TestRunDeadlockNoBannerMPI: when mpidbg ends a deadlocked job, the
// launcher's banner does not appear; the program's own output does.
func TestRunDeadlockNoBannerMPI(t *testing.T) {
	for _, m := range bothMPIs {
		t.Run(m.String(), func(t *testing.T) {
			cc := needCompiler(t, m)
			shim := needShim(t, m)
			t.Setenv(envvar.NoColor, "1")
			exe := buildWith(t, cc, t.TempDir(), "ring", `#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
    int rank, size, x = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    printf("rank %d: before the ring\n", rank);
    fflush(stdout);
    MPI_Ssend(&x, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD);
    MPI_Recv(&x, 1, MPI_INT, (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
`)
			stdout, stderr, code := runWith(t, "", "run", "-n", "3", "--shim", shim, "--deadlock-timeout", "500ms", exe)
			if code != 1 || !strings.Contains(stderr, "deadlock") {
				t.Fatalf("got exit %d, want 1 and the deadlock:\n%s", code, stderr)
			}
			for _, banner := range []string{"BAD TERMINATION", "This typically refers", "noticed that process rank", "has exited due to"} {
				if strings.Contains(stdout+stderr, banner) {
					t.Errorf("the launcher's banner (%q) is there:\nstdout:\n%s\nstderr:\n%s", banner, stdout, stderr)
				}
			}
			for r := range 3 {
				if !strings.Contains(stdout, fmt.Sprintf("rank %d: before the ring\n", r)) {
					t.Errorf("rank %d's own line is missing from standard output:\n%s", r, stdout)
				}
			}
		})
	}
}

// TestRunClosedStdoutMPI: mpidbg run ... | head -1: the reader of
// standard output goes away, the job runs to its end and the report
// still reaches standard error.
func TestRunClosedStdoutMPI(t *testing.T) {
	for _, m := range bothMPIs {
		t.Run(m.String(), func(t *testing.T) {
			cc := needCompiler(t, m)
			shim := needShim(t, m)
			dir := t.TempDir()
			exe := buildWith(t, cc, dir, "chatty", `#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 20000; i++)
        printf("rank %d line %d\n", rank, i);
    MPI_Finalize();
    return 0;
}
`)
			mpidbg := buildMpidbg(t, dir)
			cmd := exec.Command(mpidbg, "run", "-n", "2", "--shim", shim, exe)
			cmd.Env = append(os.Environ(), envvar.NoColor+"=1")
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, _ := bufio.NewReader(out).ReadString('\n')
			out.Close() // head -1
			err = cmd.Wait()
			if err != nil || !strings.HasPrefix(line, "rank ") || !strings.Contains(stderr.String(), "mpidbg: no findings (2 ranks)") {
				t.Errorf("got %v, first line %q, want exit 0 and the report; stderr:\n%s", err, line, stderr.String())
			}
		})
	}
}

// TestRunBareNameMPI: a bare program name that is not on PATH but is in
// the current directory runs under Open MPI, whose mpiexec looks there,
// and is refused under MPICH, whose mpiexec (Hydra) does not, with the
// ./NAME that would work.
func TestRunBareNameMPI(t *testing.T) {
	for _, m := range bothMPIs {
		t.Run(m.String(), func(t *testing.T) {
			cc := needCompiler(t, m)
			shim := needShim(t, m)
			t.Setenv(envvar.NoColor, "1")
			dir := t.TempDir()
			buildWith(t, cc, dir, "hello", `#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("hello from rank %d\n", rank);
    MPI_Finalize();
    return 0;
}
`)
			wd, err := os.Getwd()
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Chdir(dir); err != nil {
				t.Fatal(err)
			}
			defer os.Chdir(wd)
			stdout, stderr, code := runWith(t, "", "run", "-n", "1", "--mpi", m.String(), "--shim", shim, "hello")
			switch m {
			case mpilib.OpenMPI:
				if code != 0 || !strings.Contains(stdout, "hello from rank 0\n") || !strings.Contains(stderr, "no findings") {
					t.Errorf("got exit %d, want 0 and the program's line:\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
				}
			default:
				want := "mpidbg run: program hello: not found on PATH; did you mean ./hello?\n"
				if code != 2 || stderr != want {
					t.Errorf("got exit %d, stderr %q; want 2, %q", code, stderr, want)
				}
			}
		})
	}
}
