package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mpidbg/mpidbg/internal/envvar"
	"github.com/mpidbg/mpidbg/internal/mpilib"
	"github.com/mpidbg/mpidbg/run/launch"
)

// hangSrc is a program whose ranks say they are ready, then wait for a
// message that never comes (mpidbg's deadlock detector off).
const hangSrc = `#include <mpi.h>
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv) {
    int rank, x;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("ready %d\n", (int)getpid());
    fflush(stdout);
    MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
`

// TestKillRunEndsJob: SIGKILL to mpidbg run leaves neither mpiexec nor a
// rank running (mpiexec's parent-death signal, and the ranks watching
// their connection to mpidbg).
func TestKillRunEndsJob(t *testing.T) {
	for _, m := range []mpilib.MPI{mpilib.MPICH, mpilib.OpenMPI} {
		t.Run(m.String(), func(t *testing.T) {
			cc := needCompiler(t, m)
			shim := needShim(t, m)
			dir := t.TempDir()
			exe := buildWith(t, cc, dir, "hang_"+m.String(), hangSrc)
			mpidbg := buildMpidbg(t, dir)
			cmd := exec.Command(mpidbg, "run", "-n", "2", "--shim", shim, "--deadlock-timeout", "0", exe)
			ranks, mpiexec := startJob(t, cmd, 2)
			cmd.Process.Kill()
			cmd.Wait()
			waitGone(t, append(ranks, mpiexec), exe)
		})
	}
}

// TestKillRunAndLauncherEndsJob: SIGKILL to mpidbg run and to everything
// between it and the ranks (mpiexec, Hydra's proxies, Open MPI's daemon),
// so that no launcher passes the end on: the ranks' own watch of their
// connection to mpidbg (shim/peer.go) must end them. The launcher's
// processes are stopped first, so that mpiexec cannot act on the SIGTERM
// of its parent-death signal, nor mpidbg on mpiexec's end, before both
// are killed. Under MPICH nothing else ends the ranks (without the watch
// they are left running); Open MPI's ranks end themselves too when the
// daemon they were started by is gone, so there the test says only
// that none survives.
func TestKillRunAndLauncherEndsJob(t *testing.T) {
	for _, m := range []mpilib.MPI{mpilib.MPICH, mpilib.OpenMPI} {
		t.Run(m.String(), func(t *testing.T) {
			cc := needCompiler(t, m)
			shim := needShim(t, m)
			dir := t.TempDir()
			exe := buildWith(t, cc, dir, "hang_"+m.String(), hangSrc)
			mpidbg := buildMpidbg(t, dir)
			cmd := exec.Command(mpidbg, "run", "-n", "2", "--shim", shim, "--deadlock-timeout", "0", exe)
			ranks, _ := startJob(t, cmd, 2)
			var launcher []int
			for _, p := range descendants(cmd.Process.Pid) {
				if !slices.Contains(ranks, p) {
					launcher = append(launcher, p)
				}
			}
			t.Cleanup(func() {
				for _, p := range launcher {
					syscall.Kill(p, syscall.SIGKILL)
				}
			})
			for _, p := range launcher {
				syscall.Kill(p, syscall.SIGSTOP)
			}
			cmd.Process.Kill()
			cmd.Wait()
			for _, p := range launcher {
				syscall.Kill(p, syscall.SIGKILL)
			}
			for _, p := range ranks { // the ranks' own watch, nothing else, is left to end them
				if st := procState(p); st == "" || st == "Z" || st == "X" {
					t.Fatalf("rank %d ended before its launcher was gone (%q)", p, st)
				}
			}
			waitGone(t, append(ranks, launcher...), exe)
		})
	}
}

// descendants is every process below pid, read from /proc.
func descendants(pid int) []int {
	var out []int
	for _, c := range allChildren(pid) {
		out = append(out, c)
		out = append(out, descendants(c)...)
	}
	return out
}

// startJob starts cmd (mpidbg, running hangSrc with n ranks), waits for
// every rank to be ready, and returns the ranks' pids and mpiexec's.
func startJob(t *testing.T, cmd *exec.Cmd, n int) (ranks []int, mpiexec int) {
	t.Helper()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // should the test fail, nothing is left behind
		cmd.Process.Kill()
		for _, p := range append(ranks, mpiexec) {
			if p > 0 {
				syscall.Kill(p, syscall.SIGKILL)
			}
		}
	})
	lines := make(chan string)
	go func() {
		s := bufio.NewScanner(out)
		for s.Scan() {
			lines <- s.Text()
		}
		close(lines)
	}()
	deadline := time.After(60 * time.Second)
	for len(ranks) < n {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("the job ended before its ranks were ready; stderr:\n%s", stderr.String())
			}
			if pid, ok := strings.CutPrefix(l, "ready "); ok {
				p, _ := strconv.Atoi(pid)
				ranks = append(ranks, p)
			}
		case <-deadline:
			t.Fatalf("the ranks are not ready after 60 s; stderr:\n%s", stderr.String())
		}
	}
	go func() {
		for range lines { // keep the pipe drained
		}
	}()
	mpiexec = childOf(cmd.Process.Pid)
	if mpiexec == 0 {
		t.Fatalf("no mpiexec below mpidbg (pid %d)", cmd.Process.Pid)
	}
	return ranks, mpiexec
}

// childOf is a child of pid, read from /proc, or 0.
func childOf(pid int) int {
	if c := allChildren(pid); len(c) > 0 {
		return c[0]
	}
	return 0
}

// waitGone fails unless every process in pids, and every process running
// exe, is gone (or a zombie) within 15 s.
func waitGone(t *testing.T, pids []int, exe string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		var alive []string
		for _, p := range pids {
			if st := procState(p); st != "" && st != "Z" && st != "X" {
				alive = append(alive, fmt.Sprintf("%d (%s)", p, st))
			}
		}
		dirs, _ := filepath.Glob("/proc/[0-9]*/exe")
		for _, d := range dirs {
			if target, err := os.Readlink(d); err == nil && target == exe {
				p, _ := strconv.Atoi(filepath.Base(filepath.Dir(d)))
				if st := procState(p); st != "Z" && st != "X" && st != "" {
					alive = append(alive, fmt.Sprintf("%d running %s", p, filepath.Base(exe)))
				}
			}
		}
		if len(alive) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("still alive 15 s after mpidbg died: %s", strings.Join(alive, ", "))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestRankOutlivesClosedConnection: a rank whose connection to a live
// mpidbg closes goes on (it ends itself only when mpidbg is gone).
func TestRankOutlivesClosedConnection(t *testing.T) {
	for _, m := range []mpilib.MPI{mpilib.MPICH, mpilib.OpenMPI} {
		t.Run(m.String(), func(t *testing.T) {
			cc := needCompiler(t, m)
			shim := needShim(t, m)
			dir := t.TempDir()
			exe := buildWith(t, cc, dir, "late_"+m.String(), `#include <mpi.h>
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv) {
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    sleep(2); /* the launcher closes the connection meanwhile */
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d: OK\n", rank);
    MPI_Finalize();
    return 0;
}
`)
			sock := filepath.Join(dir, "r.sock")
			ln, err := net.Listen("unix", sock)
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			go func() { // reads each Hello, then closes the connection
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					go func() {
						bufio.NewReader(c).ReadString('\n')
						c.Close()
					}()
				}
			}()
			mpiexec, err := exec.LookPath(mpilib.MPIExecNames(m)[0])
			if err != nil {
				t.Skip(err)
			}
			env := []launch.Var{{Name: envvar.Preload, Value: shim}, {Name: envvar.Report, Value: "unix:" + sock}}
			cmd := exec.Command(mpiexec, launch.Args(launch.FlavorOf(mpiexec), 2, nil, env, exe, nil)...)
			out, err := cmd.CombinedOutput()
			if err != nil || strings.Count(string(out), ": OK") != 2 {
				t.Fatalf("%v; want both ranks OK:\n%s", err, out)
			}
		})
	}
}

// TestKillDapEndsJob: SIGTERM or SIGKILL to mpidbg dap, as an editor
// sends to a hung adapter, leaves neither mpiexec nor a rank running.
func TestKillDapEndsJob(t *testing.T) {
	// each MPI once, each signal once: a launch through gdb is not cheap
	for _, c := range []struct {
		m   mpilib.MPI
		sig syscall.Signal
	}{{mpilib.MPICH, syscall.SIGKILL}, {mpilib.OpenMPI, syscall.SIGTERM}} {
		t.Run(c.m.String()+"/"+c.sig.String(), func(t *testing.T) {
			cc := needCompiler(t, c.m)
			shim := needShim(t, c.m)
			needGdb(t)
			dir := t.TempDir()
			exe := buildWith(t, cc, dir, "hang_"+c.m.String(), hangSrc)
			mpidbg := buildMpidbg(t, dir)
			ext, err := filepath.Abs(filepath.Join("..", "..", "extensions", "gdb"))
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(mpidbg, "dap")
			cmd.Env = gdbTestEnv(mpidbg, ext, shim)
			in, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			ranks, mpiexec := startDapJob(t, cmd, in, exe, 2)
			cmd.Process.Signal(c.sig)
			cmd.Wait()
			waitGone(t, append(ranks, mpiexec), exe)
		})
	}
}

// startDapJob starts cmd (mpidbg dap), launches hangSrc's exe with n
// ranks through it, and returns the ranks' pids, read from the output
// events, once every rank is ready, and mpiexec's.
func startDapJob(t *testing.T, cmd *exec.Cmd, in io.Writer, exe string, n int) (ranks []int, mpiexec int) {
	t.Helper()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		for _, p := range append(ranks, mpiexec) {
			if p > 0 {
				syscall.Kill(p, syscall.SIGKILL)
			}
		}
	})
	seq := 0
	send := func(command string, args any) {
		seq++
		b, _ := json.Marshal(map[string]any{"seq": seq, "type": "request", "command": command, "arguments": args})
		fmt.Fprintf(in, "Content-Length: %d\r\n\r\n%s", len(b), b)
	}
	msgs := make(chan map[string]any)
	go func() { // DAP's framing: headers, a blank line, the JSON body
		r := bufio.NewReader(out)
		for {
			length := -1
			for {
				line, err := r.ReadString('\n')
				if err != nil {
					close(msgs)
					return
				}
				line = strings.TrimSpace(line)
				if line == "" {
					break
				}
				if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
					length, _ = strconv.Atoi(v)
				}
			}
			body := make([]byte, max(length, 0))
			if _, err := io.ReadFull(r, body); err != nil {
				close(msgs)
				return
			}
			var m map[string]any
			if json.Unmarshal(body, &m) == nil {
				msgs <- m
			}
		}
	}()
	send("initialize", map[string]any{"adapterID": "mpidbg", "linesStartAt1": true, "columnsStartAt1": true})
	send("launch", map[string]any{"program": exe, "np": n, "deadlockTimeout": "0"})
	deadline := time.After(90 * time.Second)
	ready := regexp.MustCompile(`ready (\d+)`)
	var output strings.Builder
	for len(ranks) < n {
		select {
		case m, ok := <-msgs:
			if !ok {
				t.Fatalf("mpidbg dap ended before the ranks were ready; output:\n%s\nstderr:\n%s", output.String(), stderr.String())
			}
			switch {
			case m["type"] == "event" && m["event"] == "initialized":
				send("configurationDone", nil)
			case m["type"] == "event" && m["event"] == "output":
				body, _ := m["body"].(map[string]any)
				text, _ := body["output"].(string)
				output.WriteString(text)
				for _, s := range ready.FindAllStringSubmatch(text, -1) {
					p, _ := strconv.Atoi(s[1])
					ranks = append(ranks, p)
				}
			case m["type"] == "response" && m["success"] == false:
				t.Fatalf("%v failed: %v", m["command"], m["message"])
			}
		case <-deadline:
			t.Fatalf("the ranks are not ready after 90 s; output:\n%s\nstderr:\n%s", output.String(), stderr.String())
		}
	}
	go func() {
		for range msgs {
		}
	}()
	for _, p := range allChildren(cmd.Process.Pid) {
		if strings.HasPrefix(procName(p), "mpiexec") {
			mpiexec = p
		}
	}
	if mpiexec == 0 {
		t.Fatalf("no mpiexec below mpidbg dap (pid %d)", cmd.Process.Pid)
	}
	return ranks, mpiexec
}

// allChildren is every child of pid, read from /proc.
func allChildren(pid int) []int {
	var out []int
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		if f := strings.Fields(s[i+1:]); len(f) > 1 && f[1] == strconv.Itoa(pid) {
			p, _ := strconv.Atoi(filepath.Base(filepath.Dir(d)))
			out = append(out, p)
		}
	}
	return out
}

// procName is the command name of pid (/proc/PID/comm).
func procName(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	return strings.TrimSpace(string(b))
}
