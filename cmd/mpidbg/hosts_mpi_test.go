package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mpidbg/mpidbg/internal/envvar"
	"github.com/mpidbg/mpidbg/internal/mpilib"
	"github.com/mpidbg/mpidbg/internal/nshosts"
	"github.com/mpidbg/mpidbg/internal/testenv"
	"github.com/mpidbg/mpidbg/run/report"
)

// Jobs across machines: mpidbg and mpiexec on one test host (the head),
// two ranks on each of two others (package nshosts: network namespaces
// with host names of their own, the launcher's remote shell a script),
// the ranks reporting over TCP (--listen). With each MPI: the findings of
// every host's ranks are in the one report, which names each rank's host;
// a deadlock across hosts is found and the job ended; a rank that dies of
// SIGSEGV on a remote host is reported with its host, and the findings
// made before are kept.

// hostsDoc is what the tests read of --json's output.
type hostsDoc struct {
	Findings []report.Finding `json:"findings"`
	Outcome  struct {
		Exit  string             `json:"exit"`
		Ranks []report.RankEnd   `json:"ranks"`
		Hosts []report.HostRanks `json:"hosts"`
	} `json:"outcome"`
}

// hostsJob is one mpidbg run on the head of nt: 2 ranks per node.
type hostsJob struct {
	stderr string
	code   int
	took   time.Duration
	doc    hostsDoc
}

// hostsLimit ends a job that hangs in spite of everything.
const hostsLimit = 90 * time.Second

func runOnHosts(t *testing.T, nt *nshosts.Net, lib mpilib.MPI, mpidbg, shim string, exe string, args ...string) hostsJob {
	t.Helper()
	out := filepath.Join(t.TempDir(), "report.json")
	argv := []string{"run", "--listen", nt.Head.Addr + ":0", "--shim", shim, "--json", out}
	for _, a := range nt.LauncherArgs(lib, 2) {
		argv = append(argv, "--launcher-arg="+a)
	}
	argv = append(append(argv, "-n", "4", exe), args...)
	cmd := nt.Command(nt.Head, mpidbg, argv...)
	cmd.Env = append(os.Environ(), envvar.NoColor+"=1", envvar.MPIExecTimeout+"=60")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cmd.Stdout = &stderr
	ctx, cancel := context.WithTimeout(context.Background(), hostsLimit)
	defer cancel()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		cmd.Process.Kill()
		<-done
		t.Fatalf("mpidbg run did not end within %v:\n%s", hostsLimit, stderr.String())
	}
	j := hostsJob{stderr: stderr.String(), took: time.Since(start)}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		j.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("no JSON report (exit status %d): %v\n%s", j.code, err, j.stderr)
	}
	if err := json.Unmarshal(b, &j.doc); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	t.Logf("exit status %d after %v\n%s\n%s", j.code, j.took.Round(time.Millisecond), j.stderr, b)
	return j
}

// finding returns the finding id of doc, or nil.
func (d hostsDoc) finding(id string) *report.Finding {
	for i := range d.Findings {
		if d.Findings[i].ID == id {
			return &d.Findings[i]
		}
	}
	return nil
}

func TestHosts(t *testing.T) {
	if testing.Short() {
		t.Skip("runs MPI jobs across test hosts")
	}
	dir := t.TempDir()
	var mpidbg string
	wantHosts := []report.HostRanks{{Host: "node1", Ranks: []int{0, 1}}, {Host: "node2", Ranks: []int{2, 3}}}
	all := []int{0, 1, 2, 3}
	for _, lib := range mpilib.All {
		t.Run(lib.String(), func(t *testing.T) {
			cc := needCompiler(t, lib)
			shim := needShim(t, lib)
			if mpidbg == "" {
				mpidbg = buildMpidbg(t, dir)
			}
			root := testenv.Root()
			src := filepath.Join(root, "testprogs", "hosts", "exchange.c")
			exchange := filepath.Join(dir, "exchange_"+lib.String())
			ring := filepath.Join(dir, "ring_"+lib.String())
			for exe, c := range map[string]string{exchange: src, ring: filepath.Join(root, "testprogs", "cross", "bug_deadlock_ssend_ring.c")} {
				if b, err := exec.Command(cc, "-g", "-O0", "-o", exe, c).CombinedOutput(); err != nil {
					t.Fatalf("%s: %v\n%s", cc, err, b)
				}
			}

			t.Run("findings", func(t *testing.T) {
				nt := nshosts.New(t, 2)
				j := runOnHosts(t, nt, lib, mpidbg, shim, exchange)
				if j.code != 1 {
					t.Errorf("exit status %d, want 1 (errors found)", j.code)
				}
				for _, id := range []string{"type-mismatch", "leak-type"} {
					if f := j.doc.finding(id); f == nil || !reflect.DeepEqual(f.Ranks, all) {
						t.Errorf("%s: want it from ranks 0-3 (both hosts), got %+v", id, f)
					}
				}
				if !reflect.DeepEqual(j.doc.Outcome.Hosts, wantHosts) {
					t.Errorf("hosts %+v, want %+v", j.doc.Outcome.Hosts, wantHosts)
				}
				if len(j.doc.Outcome.Ranks) != 1 || j.doc.Outcome.Ranks[0].How != report.Finalized {
					t.Errorf("outcome %+v, want every rank finalized", j.doc.Outcome.Ranks)
				}
				if !strings.Contains(j.stderr, "on 2 hosts: node1 (ranks 0,1), node2 (ranks 2,3)") {
					t.Errorf("the summary does not name the hosts")
				}
			})

			t.Run("deadlock", func(t *testing.T) {
				nt := nshosts.New(t, 2)
				j := runOnHosts(t, nt, lib, mpidbg, shim, ring)
				if j.code != 1 {
					t.Errorf("exit status %d, want 1 (a deadlock)", j.code)
				}
				if f := j.doc.finding("deadlock"); f == nil || !reflect.DeepEqual(f.Ranks, all) {
					t.Errorf("deadlock: want it of ranks 0-3, got %+v", f)
				}
				// 2 s of deadlock timeout, 3 s for mpiexec to go after the
				// SIGTERM, and the start: far less than the job's own limit
				if j.took > 30*time.Second {
					t.Errorf("the job took %v to end", j.took)
				}
				for _, e := range j.doc.Outcome.Ranks {
					if e.How != report.EndedByTool {
						t.Errorf("ranks %v ended %q (%s), want ended by mpidbg", e.Ranks, e.How, e.Status)
					}
				}
				if !reflect.DeepEqual(j.doc.Outcome.Hosts, wantHosts) {
					t.Errorf("hosts %+v, want %+v", j.doc.Outcome.Hosts, wantHosts)
				}
			})

			t.Run("crash", func(t *testing.T) {
				nt := nshosts.New(t, 2)
				j := runOnHosts(t, nt, lib, mpidbg, shim, exchange, "3")
				if j.code == 0 || j.code == 1 || j.code == 2 {
					t.Errorf("exit status %d, want mpiexec's failure", j.code)
				}
				if f := j.doc.finding("type-mismatch"); f == nil || !reflect.DeepEqual(f.Ranks, all) {
					t.Errorf("the findings before the crash are lost: type-mismatch %+v", f)
				}
				line := markedLine(t, src, "/* crash */")
				crashed := false
				for _, e := range j.doc.Outcome.Ranks {
					if reflect.DeepEqual(e.Ranks, []int{3}) && e.How == report.Signalled && e.SignalName == "SIGSEGV" &&
						e.Location != nil && e.Location.File == src && e.Location.Line == line {
						crashed = true
					}
				}
				if !crashed {
					t.Errorf("no rank 3 SIGSEGV at %s:%d in the outcome %+v", src, line, j.doc.Outcome.Ranks)
				}
				if !reflect.DeepEqual(j.doc.Outcome.Hosts, wantHosts) {
					t.Errorf("hosts %+v, want %+v", j.doc.Outcome.Hosts, wantHosts)
				}
				if !strings.Contains(j.stderr, "rank 3 on node2 died of signal 11 (SIGSEGV") {
					t.Errorf("the report does not say that rank 3 on node2 died of SIGSEGV")
				}
			})
		})
	}
}

// markedLine is the number of the line of file that holds mark.
func markedLine(t *testing.T, file, mark string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, mark) {
			return i + 1
		}
	}
	t.Fatalf("%s: no line with %q", file, mark)
	return 0
}
