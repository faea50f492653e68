package main

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/internal/envvar"
	"github.com/mpidbg/mpidbg/internal/mpilib"
	"github.com/mpidbg/mpidbg/internal/testenv"
	"github.com/mpidbg/mpidbg/run/report"
	"github.com/mpidbg/mpidbg/wire"
)

// tokenC plants a type mismatch (rank 0 sends MPI_INT, rank 1 receives
// MPI_FLOAT), then rank 0 waits before MPI_Finalize for the file argv[1],
// which the test makes once its strangers have been turned away. Before
// MPI_Init each rank checks that the job's token is in its environment
// and on no command line of its own or its ancestors' (mpiexec, the
// launcher's proxies or daemons, a remote shell): any user of the
// machine reads those. After MPI_Init the token must be gone from its
// environment, so that a program it starts cannot pass for a rank.
const tokenC = `#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int parent(int pid) {
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%d/stat", pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	int ppid = 0;
	if (p && sscanf(p + 1, " %*c %d", &ppid) != 1)
		ppid = 0;
	return ppid;
}

static int on_cmdline(int pid, const char *tok) {
	char path[64];
	static char buf[1 << 16];
	snprintf(path, sizeof path, "/proc/%d/cmdline", pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	for (size_t i = 0; i < n; i++)
		if (buf[i] == 0)
			buf[i] = ' ';
	buf[n] = 0;
	return strstr(buf, tok) != NULL;
}

int main(int argc, char **argv) {
	char tok[128] = "";
	const char *t = getenv("MPIDBG_TOKEN");
	if (!t || strlen(t) != 64)
		fprintf(stderr, "TOKEN: none of 64 digits in the rank's environment\n");
	else
		strcpy(tok, t);
	for (int pid = getpid(); tok[0] && pid > 1; pid = parent(pid))
		if (on_cmdline(pid, tok))
			fprintf(stderr, "TOKEN: on the command line of process %d\n", pid);
	int rank, in[2] = {1, 2};
	float out[2];
	MPI_Init(&argc, &argv);
	if (getenv("MPIDBG_TOKEN"))
		fprintf(stderr, "TOKEN: still in the environment after MPI_Init\n");
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0)
		MPI_Send(in, 2, MPI_INT, 1, 0, MPI_COMM_WORLD);
	else if (rank == 1)
		MPI_Recv(out, 2, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	for (int i = 0; rank == 0 && i < 600 && access(argv[1], F_OK) != 0; i++)
		usleep(100000);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
`

// TestRunToken: a job under --listen on TCP, with strangers on its port
// (one sends a forged finding without a token, one with a wrong token,
// one says nothing), reports what its ranks found and nothing the
// strangers sent, and counts the three connections it refused. Each MPI
// on this host, and on a "remote" one: its launcher goes through an ssh
// that runs the command here in a fresh environment, so the token must
// travel as a remote rank gets it (Hydra's environment over its proxy's
// connection, Open MPI's -x NAME).
func TestRunToken(t *testing.T) {
	for _, lib := range []mpilib.MPI{mpilib.MPICH, mpilib.OpenMPI} {
		for _, remote := range []bool{false, true} {
			name := lib.String()
			if remote {
				name += "/remote"
			}
			t.Run(name, func(t *testing.T) { testRunToken(t, lib, remote) })
		}
	}
}

func testRunToken(t *testing.T, lib mpilib.MPI, remote bool) {
	if testing.Short() {
		t.Skip("runs MPI")
	}
	testenv.NeedMPI(t, lib)
	shim := testenv.NeedShim(t, lib)
	dir := t.TempDir()
	exe := buildWith(t, testenv.NeedCompiler(t, lib), dir, "token", tokenC)
	t.Setenv(envvar.MPIExecTimeout, "120")
	t.Setenv(envvar.NoColor, "1")

	probe, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := probe.Addr().String()
	probe.Close()
	ready := filepath.Join(dir, "ready")
	jsonOut, sarifOut := filepath.Join(dir, "out.json"), filepath.Join(dir, "out.sarif")
	args := []string{"run", "-n", "2", "--shim", shim, "--listen", addr, "--json", jsonOut, "--sarif", sarifOut}
	if remote {
		ssh := filepath.Join(dir, "ssh")
		log := filepath.Join(dir, "ssh.log")
		keep := ""
		for _, k := range []string{envvar.OMPIAllowRunAsRoot, envvar.OMPIAllowRunAsRootConfirm} {
			if v := os.Getenv(k); v != "" {
				keep += " " + k + "=" + v
			}
		}
		script := fmt.Sprintf(`#!/bin/sh
# ssh [options] HOST COMMAND...: COMMAND here, in a fresh environment
echo "$*" >> %s
while [ $# -gt 0 ]; do case "$1" in -*) shift;; *) break;; esac; done
shift
exec env -i PATH="$PATH" HOME="$HOME"%s sh -c "$*"
`, log, keep)
		if err := os.WriteFile(ssh, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			b, err := os.ReadFile(log)
			if err != nil || len(b) == 0 {
				t.Errorf("the launcher did not go through ssh: %v", err)
			}
		})
		// 127.0.0.2 is not this host to either launcher
		if lib == mpilib.OpenMPI {
			args = append(args, "--launcher-arg=--mca", "--launcher-arg=plm_rsh_agent", "--launcher-arg="+ssh, "--launcher-arg=-host", "--launcher-arg=127.0.0.2:2")
		} else {
			args = append(args, "--launcher-arg=-launcher", "--launcher-arg=ssh", "--launcher-arg=-launcher-exec", "--launcher-arg="+ssh, "--launcher-arg=-hosts", "--launcher-arg=127.0.0.2")
		}
	}
	args = append(args, exe, ready)

	type result struct {
		stderr string
		code   int
	}
	done := make(chan result, 1)
	go func() {
		_, stderr, code := runWith(t, "", args...)
		done <- result{stderr, code}
	}()

	dial := func() net.Conn {
		deadline := time.Now().Add(30 * time.Second)
		for {
			c, err := net.Dial("tcp", addr)
			if err == nil {
				return c
			}
			if time.Now().After(deadline) {
				t.Fatalf("mpidbg does not listen on %s: %v", addr, err)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	forge := func(first []byte) net.Conn {
		c := dial()
		c.Write(first)
		w := wire.NewWriter(c)
		w.Write(wire.Message{Kind: wire.KindHello, Hello: &wire.Hello{Version: wire.Version, Rank: 0, Size: 2, PID: 1, Host: "stranger", Exe: exe, MPI: lib.String()}})
		w.Write(wire.Message{Kind: wire.KindFinding, Finding: &checks.Finding{ID: "invalid-tag", Severity: checks.SevError,
			Message: "FORGED by a stranger", Ranks: []int{0}, Call: "MPI_Send"}})
		w.Write(wire.Message{Kind: wire.KindBye, Bye: &wire.Bye{Rank: 0, Findings: 1}})
		return c
	}
	// the listener's answer, then the end of the connection
	turnedAway := func(c net.Conn, who string) {
		t.Helper()
		defer c.Close()
		c.SetReadDeadline(time.Now().Add(20 * time.Second))
		m, err := wire.NewReader(c).Read()
		if err != nil || m.Kind != wire.KindRefused {
			t.Errorf("%s: got %+v, %v; want Refused", who, m, err)
		}
	}
	silent := dial()
	defer silent.Close()
	bare := forge(nil)
	wrong := forge(wire.TokenLine(strings.Repeat("0", wire.TokenLen)))
	turnedAway(bare, "a forged finding without a token")
	turnedAway(wrong, "a forged finding with a wrong token")
	if err := os.WriteFile(ready, nil, 0o644); err != nil {
		t.Fatal(err)
	}

	var res result
	select {
	case res = <-done:
	case <-time.After(3 * time.Minute):
		t.Fatal("mpidbg run did not end")
	}
	if res.code != 1 {
		t.Errorf("exit status %d, want 1 (an error finding)", res.code)
	}
	for _, w := range []string{"type-mismatch", "3 connections refused: no valid job token"} {
		if !strings.Contains(res.stderr, w) {
			t.Errorf("no %q in:\n%s", w, res.stderr)
		}
	}
	for _, w := range []string{"FORGED", "TOKEN:", "refused the connection"} {
		if strings.Contains(res.stderr, w) {
			t.Errorf("%q in:\n%s", w, res.stderr)
		}
	}

	b, err := os.ReadFile(jsonOut)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Findings []report.Finding `json:"findings"`
		Outcome  struct {
			Ranks   []report.RankEnd `json:"ranks"`
			Refused report.Refused   `json:"refused"`
		} `json:"outcome"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if len(doc.Findings) != 1 || doc.Findings[0].ID != "type-mismatch" || strings.Contains(string(b), "FORGED") {
		t.Errorf("want the one type-mismatch the ranks found, nothing forged:\n%s", b)
	}
	if len(doc.Outcome.Ranks) != 1 || doc.Outcome.Ranks[0].How != report.Finalized || len(doc.Outcome.Ranks[0].Ranks) != 2 {
		t.Errorf("want both ranks finalized:\n%s", b)
	}
	if doc.Outcome.Refused != (report.Refused{NoToken: 3}) {
		t.Errorf("refused %+v, want 3 without a token:\n%s", doc.Outcome.Refused, b)
	}
	if b, err := os.ReadFile(sarifOut); err != nil || !strings.Contains(string(b), "3 connections refused: no valid job token") {
		t.Errorf("the SARIF log does not say the refused connections: %v", err)
	}
}
