package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/internal/envvar"
	"github.com/mpidbg/mpidbg/run/report"
)

// Real deadlocks under the real shim and MPICH: each program hangs (or,
// for the correct twin, does not), and mpidbg must report it with the
// blocked calls' lines and end the job. Hydra's MPIEXEC_TIMEOUT ends the
// job should mpidbg not: a failing test, never a hung one.

// deadlockPrograms: name, source, ranks, extra flags, the finding's id
// and ranks ("" for none), and the lines of the blocked calls (marked
// "/* blocked */" in the source).
var deadlockPrograms = []struct {
	name, src string
	np        int
	flags     []string
	id        string
	ranks     []int
}{
	{"head_to_head", `#include <mpi.h>
int main(int argc, char **argv) {
	int rank, x = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Recv(&x, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* blocked */
	MPI_Finalize();
	return 0;
}
`, 2, nil, "deadlock", []int{0, 1}},
	{"ring_zero_buffering", `#include <mpi.h>
int main(int argc, char **argv) {
	int rank, size, x = 0, y;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Send(&x, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD); /* blocked */
	MPI_Recv(&y, 1, MPI_INT, (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Finalize();
	return 0;
}
`, 3, []string{"--buffering", "zero"}, "potential-deadlock", []int{0, 1, 2}},
	{"collective_versus_p2p", `#include <mpi.h>
int main(int argc, char **argv) {
	int rank, x = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD); /* blocked */
		MPI_Ssend(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
	} else {
		MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* blocked */
		MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
`, 2, nil, "deadlock", []int{0, 1}},
	{"any_source_knot", `#include <mpi.h>
int main(int argc, char **argv) {
	int rank, x = 0, y[2], idx;
	MPI_Request r[2];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* blocked */
	} else if (rank == 1) {
		MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* blocked */
	} else {
		MPI_Irecv(&y[0], 1, MPI_INT, 0, 5, MPI_COMM_WORLD, &r[0]);
		MPI_Irecv(&y[1], 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &r[1]);
		MPI_Waitany(2, r, &idx, MPI_STATUS_IGNORE); /* blocked */
	}
	MPI_Finalize();
	return 0;
}
`, 3, nil, "deadlock", []int{0, 1, 2}},
	{"correct_twin", `#include <mpi.h>
int main(int argc, char **argv) {
	int rank, size, x = 0, y;
	MPI_Request r;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Irecv(&y, 1, MPI_INT, (rank + size - 1) % size, 0, MPI_COMM_WORLD, &r);
	MPI_Send(&x, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD);
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
`, 3, []string{"--buffering", "zero"}, "", nil},
}

func TestDeadlockMPICH(t *testing.T) {
	shim := needMPICH(t)
	t.Setenv(envvar.MPIExecTimeout, "120")
	t.Setenv(envvar.NoColor, "1")
	for _, p := range deadlockPrograms {
		t.Run(p.name, func(t *testing.T) {
			dir := t.TempDir()
			exe := compile(t, dir, p.name, p.src)
			out := filepath.Join(dir, "report.json")
			args := append([]string{"run", "-n", strconv.Itoa(p.np), "--shim", shim, "--json", out}, p.flags...)
			_, stderr, code := runWith(t, "", append(args, exe)...)
			var doc struct {
				Findings []report.Finding `json:"findings"`
			}
			b, err := os.ReadFile(out)
			if err == nil {
				err = json.Unmarshal(b, &doc)
			}
			if err != nil {
				t.Fatalf("%s: %v\nstderr:\n%s", out, err, stderr)
			}
			var found []report.Finding
			for _, f := range doc.Findings {
				if f.Category == "deadlock" {
					found = append(found, f)
				}
			}
			if p.id == "" {
				if len(found) > 0 || code != 0 {
					t.Fatalf("correct program: exit %d, deadlock findings %+v\nstderr:\n%s", code, found, stderr)
				}
				return
			}
			if code != 1 {
				t.Errorf("got exit %d, want 1", code)
			}
			if len(found) != 1 || found[0].ID != p.id || !slices.Equal(found[0].Ranks, p.ranks) {
				t.Fatalf("got %+v, want one %s in ranks %v\nstderr:\n%s", found, p.id, p.ranks, stderr)
			}
			// Every blocked call's line is in the related locations.
			src := filepath.Join(dir, p.name+".c")
			for i, line := range strings.Split(p.src, "\n") {
				if !strings.Contains(line, "/* blocked */") {
					continue
				}
				if !slices.ContainsFunc(found[0].Related, func(r checks.Related) bool {
					return r.Location.File == src && r.Location.Line == i+1 && strings.Contains(r.Message, " waits for ")
				}) {
					t.Errorf("no related location at %s:%d; got %+v", p.name, i+1, found[0].Related)
				}
			}
		})
	}
}

// TestDeadlockStopMPICH: with --on-error stop the deadlocked ranks stop
// (state T) and mpidbg says how to attach; a Ctrl-C then ends the job.
func TestDeadlockStopMPICH(t *testing.T) {
	shim := needMPICH(t)
	t.Setenv(envvar.MPIExecTimeout, "120")
	t.Setenv(envvar.NoColor, "1")
	exe := compile(t, t.TempDir(), "head_to_head", deadlockPrograms[0].src)
	sigs := make(chan os.Signal, 1)
	oldSignals, oldStdin, oldGrace := runSignals, runStdin, runKillGrace
	runSignals = func() (<-chan os.Signal, func()) { return sigs, func() {} }
	runStdin = strings.NewReader("")
	runKillGrace = 500 * time.Millisecond // the stopped ranks take SIGINT only when resumed
	defer func() { runSignals, runStdin, runKillGrace = oldSignals, oldStdin, oldGrace }()
	out := &signalWriter{ready: make(chan struct{})}
	errOut := &stopWriter{signalWriter{ready: make(chan struct{})}}
	done := make(chan int)
	go func() {
		done <- run([]string{"run", "-n", "2", "--shim", shim, "--on-error", "stop", exe}, out, errOut)
	}()
	select {
	case <-errOut.ready:
	case code := <-done:
		t.Fatalf("run ended with %d before the ranks stopped:\n%s", code, errOut.buf.String())
	case <-time.After(2 * time.Minute):
		t.Fatal("the ranks were never stopped")
	}
	errOut.mu.Lock()
	text := errOut.buf.String()
	errOut.mu.Unlock()
	pids := regexp.MustCompile(`gdb -p (\d+)\n`).FindAllStringSubmatch(text, -1)
	if len(pids) != 2 {
		t.Errorf("want a gdb command per rank:\n%s", text)
	}
	for _, m := range pids {
		pid, _ := strconv.Atoi(m[1])
		deadline := time.Now().Add(time.Minute)
		for procState(pid) != "T" && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond) // the rank stops itself once it reads Stop
		}
		if s := procState(pid); s != "T" {
			t.Errorf("rank pid %d: state %q, want T (stopped)", pid, s)
		}
	}
	sigs <- syscall.SIGINT
	select {
	case code := <-done:
		if code != 1 {
			t.Errorf("got exit %d, want 1", code)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("the job outlived the Ctrl-C")
	}
	for _, m := range pids {
		pid, _ := strconv.Atoi(m[1])
		// a rank killed as mpiexec ended may still be tearing down its
		// memory (state R) for a moment; a live one would stay
		deadline := time.Now().Add(10 * time.Second)
		for s := procState(pid); s != "" && s != "Z" && time.Now().Before(deadline); s = procState(pid) {
			time.Sleep(20 * time.Millisecond)
		}
		if s := procState(pid); s != "" && s != "Z" {
			t.Errorf("rank pid %d is still there 10 s after the job ended (state %s)", pid, s)
		}
	}
	if !strings.Contains(errOut.buf.String(), "error · deadlock · MPI_Recv · ranks 0,1") {
		t.Errorf("no deadlock in the report:\n%s", errOut.buf.String())
	}
}

// stopWriter is ready once mpidbg has said how to end the stopped job.
type stopWriter struct{ signalWriter }

func (w *stopWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), "end the job with Ctrl-C") {
		w.once.Do(func() { close(w.ready) })
	}
	return len(p), nil
}

// procState is the state letter of a process ("T" stopped, "Z" zombie),
// "" when there is no such process.
func procState(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+3 > len(s) {
		return ""
	}
	return s[i+2 : i+3]
}
