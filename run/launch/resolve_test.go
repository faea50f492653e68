package launch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestResolve: a program is found as mpiexec's execvp finds it, and one
// that cannot run is refused with the reason.
func TestResolve(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("ring", "\x7fELF", 0o755)
	write("noexec.sh", "#!/bin/sh\necho hi\n", 0o644)
	write("badinterp.py", "#!/usr/bin/no-such-python\n", 0o755)
	write("envinterp.py", "#!/usr/bin/env no-such-python3 -u\n", 0o755)
	write("envok.sh", "#!/usr/bin/env -S sh -e\n", 0o755)
	write("script.sh", "#!/bin/sh\necho hi\n", 0o755)
	write("interp_noexec", "#!"+filepath.Join(dir, "noexec.sh")+"\n", 0o755)
	write("empty_interp", "#!\n", 0o755)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "onpath"), []byte("\x7fELF"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+":/usr/bin:/bin")
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)

	tests := []struct {
		program, dir string
		want         string // the path, or the error's text
		ok           bool
	}{
		{"ring", "", "ring: not found on PATH; did you mean ./ring?", false},
		{"ring", t.TempDir(), "ring: not found on PATH", false},
		{"nothing", "", "nothing: not found on PATH", false},
		{"./ring", "", "./ring", true},
		{"onpath", "", filepath.Join(bin, "onpath"), true},
		{"./missing", "", "./missing: no such file", false},
		{"./sub", "", "./sub: is a directory", false},
		{"./noexec.sh", "", "./noexec.sh: not executable (its mode is -rw-r--r--; chmod +x it)", false},
		{"./badinterp.py", "", "./badinterp.py: its interpreter /usr/bin/no-such-python (the #! line): no such file", false},
		{"./envinterp.py", "", "./envinterp.py: its interpreter no-such-python3 (the #! line, through env) is not found on PATH", false},
		{"./envok.sh", "", "./envok.sh", true},
		{"./script.sh", "", "./script.sh", true},
		{"./interp_noexec", "", "not executable", false},
		{"./empty_interp", "", "./empty_interp: a script whose #! line names no interpreter", false},
		{"sub/../ring", "", "sub/../ring", true},
		{"./ring", dir, filepath.Join(dir, "ring"), true},
	}
	for _, tt := range tests {
		got, err := Resolve(tt.program, tt.dir)
		switch {
		case tt.ok && err != nil:
			t.Errorf("Resolve(%q, %q): %v", tt.program, tt.dir, err)
		case tt.ok && got != tt.want:
			t.Errorf("Resolve(%q, %q) = %q, want %q", tt.program, tt.dir, got, tt.want)
		case !tt.ok && err == nil:
			t.Errorf("Resolve(%q, %q) = %q, want the error %q", tt.program, tt.dir, got, tt.want)
		case !tt.ok && !strings.Contains(err.Error(), tt.want):
			t.Errorf("Resolve(%q, %q): %q, want %q", tt.program, tt.dir, err, tt.want)
		}
	}
}

// TestResolveOpenMPI: Open MPI's mpiexec runs a bare name from the
// working directory when PATH does not have it (PATH first), an
// executable file only; Hydra's does not (TestResolve).
func TestResolveOpenMPI(t *testing.T) {
	dir := t.TempDir()
	for name, mode := range map[string]os.FileMode{"ring": 0o755, "noexec": 0o644, "onpath": 0o755} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("\x7fELF"), mode); err != nil {
			t.Fatal(err)
		}
	}
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "onpath"), []byte("\x7fELF"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+":/usr/bin:/bin")
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	other := t.TempDir()
	tests := []struct {
		program, dir string
		want         string
		ok           bool
	}{
		{"ring", "", filepath.Join(dir, "ring"), true},
		{"ring", other, "ring: not found on PATH", false},
		{"onpath", "", filepath.Join(bin, "onpath"), true}, // PATH first
		{"noexec", "", "noexec: not found on PATH, and ./noexec is not executable (its mode is -rw-r--r--; chmod +x it)", false},
		{"sub", "", "sub: not found on PATH", false},
		{"nothing", "", "nothing: not found on PATH", false},
	}
	for _, tt := range tests {
		got, err := ResolveFor(OpenMPI, tt.program, tt.dir)
		switch {
		case tt.ok && (err != nil || got != tt.want):
			t.Errorf("ResolveFor(OpenMPI, %q, %q) = %q, %v; want %q", tt.program, tt.dir, got, err, tt.want)
		case !tt.ok && (err == nil || err.Error() != tt.want):
			t.Errorf("ResolveFor(OpenMPI, %q, %q) = %q, %v; want the error %q", tt.program, tt.dir, got, err, tt.want)
		}
	}
}
