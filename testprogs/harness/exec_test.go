// Running a program or mpidbg under a time limit, and killing what is left.

package harness

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

type runResult struct {
	stdout, stderr []byte
	exit           int // -1: killed or not started
	timedOut       bool
	took           time.Duration // until the job ended (or was killed)
}

// run starts argv in dir, in its own process group, and kills the whole
// job when the time limit passes: SIGTERM to the group (mpiexec passes it
// on to the ranks, which hydra starts in sessions of their own), then,
// after a grace period, SIGKILL to the group and to every descendant
// seen.
func run(dir string, argv ...string) runResult {
	return runFor(*timeout, dir, argv...)
}

// runFor is run with a time limit of its own.
func runFor(limit time.Duration, dir string, argv ...string) runResult {
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	var killed sync.WaitGroup
	cmd.Cancel = func() error {
		pid := cmd.Process.Pid
		family := descendants(pid)
		syscall.Kill(-pid, syscall.SIGTERM)
		killed.Add(1)
		go func() {
			defer killed.Done()
			for i := 0; i < 50 && (alive(-pid) || slices.ContainsFunc(family, alive)); i++ {
				time.Sleep(100 * time.Millisecond)
			}
			family = append(family, descendants(pid)...)
			syscall.Kill(-pid, syscall.SIGKILL)
			for _, p := range family {
				syscall.Kill(p, syscall.SIGKILL)
			}
		}()
		return nil
	}
	cmd.WaitDelay = 10 * time.Second
	err := cmd.Run()
	res := runResult{stdout: stdout.Bytes(), stderr: stderr.Bytes(), exit: -1, timedOut: ctx.Err() != nil, took: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case err == nil:
		res.exit = 0
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		res.exit = ee.ExitCode()
	}
	if res.timedOut {
		killed.Wait()
	}
	return res
}

// alive reports whether a process (or, for a negative pid, a process
// group) still exists.
func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

// descendants lists the processes below pid, from /proc.
func descendants(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	parent := map[int]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses
		s := string(stat)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 {
			continue
		}
		if pp, err := strconv.Atoi(f[1]); err == nil {
			parent[p] = pp
		}
	}
	var out []int
	for p := range parent {
		for q := parent[p]; q > 1; q = parent[q] {
			if q == pid {
				out = append(out, p)
				break
			}
			if _, ok := parent[q]; !ok {
				break
			}
		}
	}
	return out
}

func tail(b []byte, n int) string {
	s := strings.TrimRight(string(b), "\n")
	if len(s) > n {
		s = "..." + s[len(s)-n:]
	}
	if s == "" {
		return "(empty)"
	}
	return s
}
