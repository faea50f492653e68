package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpidbg/mpidbg/internal/envvar"
	"github.com/mpidbg/mpidbg/internal/mpilib"
	"github.com/mpidbg/mpidbg/internal/testenv"
	"github.com/mpidbg/mpidbg/run/report"
)

// How a job ended, with each MPI: a segfault (also in several threads at
// once: the first thread's report must leave before the process dies),
// MPI_Abort, an exit and a return from main without MPI_Finalize, MPI's
// own exit on a fatal error, MPI's error handler ending a rank in the call
// where mpidbg reported an error, and a program that never calls
// MPI_Init. Line numbers are the lines marked in each program.
var outcomePrograms = []struct {
	name, src string
	line      int      // the marked line
	code      int      // mpidbg's exit status; -1: any failure but 0, 1 and 2
	want      []string // in the terminal report
	wantNot   []string
}{
	{"segv", `#include <mpi.h>
int *p;
int main(int argc, char **argv) {
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 1)
		*p = 3; /* here */
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
`, 9, -1, []string{"rank 1 died (signal 11, SIGSEGV) at segv.c:9 in main", "rank 1 died of signal 11 (SIGSEGV: address not mapped, at 0x0)"}, nil},
	{"sigabrt", `#include <mpi.h>
#include <stdlib.h>
int main(int argc, char **argv) {
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 1)
		abort(); /* here */
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
`, 9, -1, []string{"rank 1 died (signal 6, SIGABRT) at sigabrt.c:9 in main"}, nil},
	{"abort3", `#include <mpi.h>
int main(int argc, char **argv) {
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		MPI_Abort(MPI_COMM_WORLD, 3); /* here */
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
`, 8, 3, []string{"rank 0 called MPI_Abort(MPI_COMM_WORLD, 3) at abort3.c:8 in main", "the job ended with code 3"}, nil},
	// the program's own SIGSEGV handler faults too: natively the kernel
	// ends the process (the signal is blocked in its handler)
	{"handler_faults", `#include <mpi.h>
#include <signal.h>
#include <string.h>
int *volatile p;
static void on_segv(int s) { (void)s; *p = 1; /* here */ }
int main(int argc, char **argv) {
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_segv;
	sigaction(SIGSEGV, &sa, NULL);
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 1)
		*p = 42;
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
`, 5, -1, []string{"rank 1 died (signal 11, SIGSEGV) at handler_faults.c:5 in on_segv"}, nil},
	// from a callback MPI runs inside another call: still the rank's own
	{"abort_in_op", `#include <mpi.h>
static void give_up(void *in, void *inout, int *len, MPI_Datatype *t) {
	(void)in, (void)inout, (void)len, (void)t;
	MPI_Abort(MPI_COMM_WORLD, 43); /* here */
}
int main(int argc, char **argv) {
	int x = 1, y;
	MPI_Op op;
	MPI_Init(&argc, &argv);
	MPI_Op_create(give_up, 1, &op);
	MPI_Allreduce(&x, &y, 1, MPI_INT, op, MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
`, 4, 43, []string{"called MPI_Abort(MPI_COMM_WORLD, 43) at abort_in_op.c:4 in give_up", "the job ended with code 43"}, nil},
	{"exit2", `#include <mpi.h>
#include <stdlib.h>
int main(int argc, char **argv) {
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 1)
		exit(2); /* here */
	MPI_Finalize();
	return 0;
}
`, 9, -1, []string{"missing-finalize", "exit(2) was called", "rank 1 exited without MPI_Finalize at exit2.c:9 in main"}, []string{"rank 1 died"}},
	{"segvthreads", `#include <mpi.h>
#include <pthread.h>
int *volatile p;
pthread_barrier_t together;
static void *worker(void *a) {
	(void)a;
	pthread_barrier_wait(&together);
	*p = 3; /* here */
	return 0;
}
int main(int argc, char **argv) {
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 1) {
		pthread_t t[4];
		pthread_barrier_init(&together, 0, 4);
		for (int i = 0; i < 4; i++)
			pthread_create(&t[i], 0, worker, 0);
		for (int i = 0; i < 4; i++)
			pthread_join(t[i], 0);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
`, 8, -1, []string{"rank 1 died (signal 11, SIGSEGV) at segvthreads.c:8 in worker"}, nil},
	{"mpifatal", `#include <mpi.h>
int main(int argc, char **argv) {
	int rank, v[2] = {1, 2};
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 1)
		MPI_Send(v, 2, MPI_INT, 0, 0, MPI_COMM_WORLD);
	else
		MPI_Recv(v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* here */
	MPI_Finalize();
	return 0;
}
`, 9, -2, []string{"message-truncated", "MPI ended rank 0 on a fatal error in MPI_Recv at ",
		"mpifatal.c:9 in main, where mpidbg reported message-truncated (error handler MPI_ERRORS_ARE_FATAL)"},
		[]string{"missing-finalize", "without calling MPI_Finalize"}},
	{"mpifatalarg", `#include <mpi.h>
int main(int argc, char **argv) {
	int rank, size, v = 1;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		MPI_Send(&v, 1, MPI_INT, size, 0, MPI_COMM_WORLD); /* here */
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
`, 9, -2, []string{"MPI ended rank 0 on a fatal error in MPI_Send at ",
		"mpifatalarg.c:9 in main, where mpidbg reported invalid-rank (error handler MPI_ERRORS_ARE_FATAL)",
		"rank 1 ended before MPI_Finalize without a word (the launcher ends the other ranks when one fails)"},
		[]string{"missing-finalize", "ranks 0,1 ended"}},
	{"return", `#include <mpi.h>
int main(int argc, char **argv) {
	MPI_Init(&argc, &argv);
	MPI_Barrier(MPI_COMM_WORLD);
	return 0; /* here */
}
`, 5, -2, []string{"missing-finalize", "exited without calling MPI_Finalize: main returned 0"}, nil},
	{"noinit", `#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
	puts("noinit: OK"); /* here */
	return 0;
}
`, 4, -2, nil, []string{"missing-finalize"}},
}

func TestRunOutcome(t *testing.T) {
	for _, lib := range []mpilib.MPI{mpilib.MPICH, mpilib.OpenMPI} {
		t.Run(lib.String(), func(t *testing.T) {
			if testing.Short() {
				t.Skip("runs MPI")
			}
			testenv.NeedMPI(t, lib)
			shim := testenv.NeedShim(t, lib)
			cc := testenv.NeedCompiler(t, lib)
			dir := t.TempDir()
			for _, p := range outcomePrograms {
				t.Run(p.name, func(t *testing.T) {
					src, exe := filepath.Join(dir, p.name+".c"), filepath.Join(dir, p.name)
					if !strings.Contains(strings.Split(p.src, "\n")[p.line-1], "/* here */") {
						t.Fatalf("line %d is not the marked one", p.line)
					}
					if err := os.WriteFile(src, []byte(p.src), 0o644); err != nil {
						t.Fatal(err)
					}
					if b, err := exec.Command(cc, "-g", "-O0", "-o", exe, src).CombinedOutput(); err != nil {
						t.Fatalf("%s: %v\n%s", cc, err, b)
					}
					out := filepath.Join(dir, p.name+".json")
					t.Setenv(envvar.MPIExecTimeout, "60")
					t.Setenv(envvar.NoColor, "1")
					_, stderr, code := runWith(t, "", "run", "-n", "2", "--shim", shim, "--json", out, exe)
					switch {
					case p.code == -1 && code == 0,
						p.code >= 0 && code != p.code,
						p.code == -2 && code == 2:
						t.Errorf("exit status %d, want %d; stderr:\n%s", code, p.code, stderr)
					}
					for _, w := range p.want {
						if !strings.Contains(stderr, w) {
							t.Errorf("no %q in:\n%s", w, stderr)
						}
					}
					for _, w := range p.wantNot {
						if strings.Contains(stderr, w) {
							t.Errorf("%q in:\n%s", w, stderr)
						}
					}
					// MPICH's network layer (UCX) prints a backtrace of the
					// fault; the shim's handler must leave the program's
					// frames in it, not end it in the shim.
					if p.name == "segv" && lib == mpilib.MPICH {
						i := strings.Index(stderr, "==== backtrace")
						if i < 0 {
							t.Errorf("no backtrace from MPICH's UCX in:\n%s", stderr)
						} else if bt, _, _ := strings.Cut(stderr[i:], "====\n"); !strings.Contains(stderr[i:], exe+"(") {
							t.Errorf("MPI's backtrace has no frame of %s:\n%s", exe, bt)
						}
					}
					b, err := os.ReadFile(out)
					if err != nil {
						t.Fatal(err)
					}
					var doc struct {
						Findings []report.Finding `json:"findings"`
						Outcome  struct {
							Ranks []report.RankEnd `json:"ranks"`
						} `json:"outcome"`
					}
					if err := json.Unmarshal(b, &doc); err != nil {
						t.Fatalf("%v\n%s", err, b)
					}
					if p.name == "return" {
						// The launcher may end one rank before its own exit: a
						// rank that exits without MPI_Finalize is a failure to it.
						if len(doc.Findings) != 1 || doc.Findings[0].ID != "missing-finalize" {
							t.Errorf("want one missing-finalize:\n%s", b)
						}
						return
					}
					if p.name == "mpifatal" {
						// MPICH's fatal-error path (MPI_ERRORS_ARE_FATAL) calls
						// exit() from inside the library: MPI ended the rank, the
						// program did not leave MPI_Finalize out. Open MPI aborts.
						// Either way the rank said first that it went on into
						// MPI_Recv after the error (the location below).
						for _, f := range doc.Findings {
							if f.ID != "message-truncated" {
								t.Errorf("finding %s besides message-truncated:\n%s", f.ID, b)
							}
						}
					}
					if p.name == "noinit" {
						if len(doc.Findings) != 0 {
							t.Errorf("findings for a program that never called MPI_Init:\n%s", b)
						}
						return
					}
					found := false
					for _, e := range doc.Outcome.Ranks {
						if e.Location != nil && e.Location.File == src && e.Location.Line == p.line && e.How != report.Finalized {
							found = true
						}
					}
					if !found {
						t.Errorf("no rank ended at %s:%d in the JSON outcome:\n%s", src, p.line, b)
					}
				})
			}
		})
	}
}
