package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestRunSignalStatus: a job interrupted by signal N ends mpidbg with
// 128+N, whatever mpiexec's own status (Hydra may exit 0 or 2 after it
// passed SIGINT on); 2 is for usage errors only.
func TestRunSignalStatus(t *testing.T) {
	shim, _ := fakeEnv(t)
	self, _ := os.Executable()
	for _, tt := range []struct {
		sig  syscall.Signal
		want int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		sigs := make(chan os.Signal, 1)
		oldSignals, oldStdin := runSignals, runStdin
		runSignals = func() (<-chan os.Signal, func()) { return sigs, func() {} }
		runStdin = strings.NewReader("")
		out := &signalWriter{ready: make(chan struct{})}
		var errOut bytes.Buffer
		done := make(chan int)
		go func() {
			done <- run([]string{"run", "--mpiexec", self, "--shim", shim, "-n", "2", "interrupt_2"}, out, &errOut)
		}()
		select {
		case <-out.ready:
		case code := <-done:
			t.Fatalf("run ended early with %d: %s", code, errOut.String())
		}
		sigs <- tt.sig
		if code := <-done; code != tt.want {
			t.Errorf("%v: got exit %d, want %d; stderr:\n%s", tt.sig, code, tt.want, errOut.String())
		}
		runSignals, runStdin = oldSignals, oldStdin
	}
}

// TestRunSameReportFile: --json and --sarif to one file is a usage error,
// found before anything runs.
func TestRunSameReportFile(t *testing.T) {
	shim, record := fakeEnv(t)
	self, _ := os.Executable()
	dir := t.TempDir()
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	// a link to the report not written yet, and a directory linked
	if err := os.Symlink("r.out", filepath.Join(dir, "link.out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".", filepath.Join(dir, "here")); err != nil {
		t.Fatal(err)
	}
	for _, pair := range [][2]string{{"r.out", "r.out"}, {"r.out", filepath.Join(dir, "r.out")}, {"./sub/../r.out", "r.out"},
		{"r.out", "link.out"}, {"here/r.out", "r.out"}} {
		os.Remove(record)
		os.Mkdir(filepath.Join(dir, "sub"), 0o755)
		_, stderr, code := runWith(t, "", "run", "--mpiexec", self, "--shim", shim, "-n", "2", "--json", pair[0], "--sarif", pair[1], "clean")
		if code != 2 || !strings.Contains(stderr, "--json and --sarif name the same file") {
			t.Errorf("--json %s --sarif %s: exit %d, stderr %q; want 2 and a refusal", pair[0], pair[1], code, stderr)
		}
		if _, err := os.Stat(record); err == nil {
			t.Errorf("--json %s --sarif %s: mpiexec ran", pair[0], pair[1])
		}
	}
}

// TestRunProgramRefused: a program that mpiexec could not start is
// refused before anything runs (status 2), with the reason: a bare name
// that is not on PATH (the one in the current directory needs ./), a
// file that is not executable, a script whose interpreter is missing.
func TestRunProgramRefused(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"ring": "\x7fELF", "noexec.sh": "#!/bin/sh\n", "app.py": "#!/usr/bin/no-such-python3\n"} {
		mode := os.FileMode(0o755)
		if name == "noexec.sh" {
			mode = 0o644
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	for _, tt := range []struct{ program, want string }{
		{"ring", "mpidbg run: program ring: not found on PATH; did you mean ./ring?\n"},
		{"./noexec.sh", "mpidbg run: program ./noexec.sh: not executable (its mode is -rw-r--r--; chmod +x it)\n"},
		{"./app.py", "mpidbg run: program ./app.py: its interpreter /usr/bin/no-such-python3 (the #! line): no such file\n"},
	} {
		_, stderr, code := runWith(t, "", "run", "-n", "2", tt.program)
		if code != 2 || stderr != tt.want {
			t.Errorf("%s: got exit %d, stderr %q; want 2, %q", tt.program, code, stderr, tt.want)
		}
	}
}
