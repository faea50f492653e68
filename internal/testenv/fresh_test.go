package testenv

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestStale builds a small tree and ages its files: a library is stale
// exactly when one of the shim's sources is newer, and the error names
// that source.
func TestStale(t *testing.T) {
	root := t.TempDir()
	files := []string{
		"go.mod", "shim/hooks.c", "shim/shim.h", "shim/main.go", "shim/watch_test.go", "shim/calls.tbl",
		"shim/registry/registry.go", "datatype/type.go", "checks/deadlock/graph.go", "wire/wire.go", "internal/mpilib/mpilib.go",
		// not sources of the shim
		"datatype/type_test.go", "run/report/report.go", "cmd/mpidbg/main.go", "shim/testdata/bugs.c", "shim/README.md",
	}
	old := time.Now().Add(-time.Hour)
	for _, f := range files {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	lib := filepath.Join(root, "lib", "libmpidbg.so")
	os.MkdirAll(filepath.Dir(lib), 0o755)
	if err := os.WriteFile(lib, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	libTime := old.Add(time.Minute)
	os.Chtimes(lib, libTime, libTime)
	if err := Stale(root, lib); err != nil {
		t.Fatalf("fresh library: %v", err)
	}
	touch := func(f string, at time.Time) {
		t.Helper()
		if err := os.Chtimes(filepath.Join(root, f), at, at); err != nil {
			t.Fatal(err)
		}
	}
	newer := libTime.Add(time.Minute)
	for _, f := range files {
		touch(f, newer)
		err := Stale(root, lib)
		var se *StaleError
		source := !slices.Contains([]string{"datatype/type_test.go", "run/report/report.go", "cmd/mpidbg/main.go", "shim/testdata/bugs.c", "shim/README.md"}, f)
		switch {
		case source && !errors.As(err, &se):
			t.Errorf("%s newer than the library: got %v, want a StaleError", f, err)
		case source && err.Error() != "lib/libmpidbg.so is older than "+f+": run make build":
			t.Errorf("%s newer: message %q", f, err)
		case !source && err != nil:
			t.Errorf("%s is no source of the shim, yet: %v", f, err)
		}
		touch(f, old)
	}
	// the newest source is the one named
	touch("shim/hooks.c", newer)
	touch("wire/wire.go", newer.Add(time.Second))
	if err := Stale(root, lib); err == nil || !strings.Contains(err.Error(), "wire/wire.go") {
		t.Errorf("got %v, want wire/wire.go named", err)
	}
	if err := Stale(root, filepath.Join(root, "lib", "missing.so")); err == nil || errors.As(err, new(*StaleError)) {
		t.Errorf("missing library: got %v, want a plain error", err)
	}
}

// TestMakefileSources: ShimSources lists what the Makefile's SHIM_SOURCES
// does in this tree, so that the tests call a library stale exactly when
// make would rebuild it.
func TestMakefileSources(t *testing.T) {
	mk := NeedTool(t, "", "make", "apt-get install make")
	root := Root()
	extra := filepath.Join(t.TempDir(), "print.mk")
	os.WriteFile(extra, []byte("print-shim-sources:\n\t@echo $(SHIM_SOURCES)\n"), 0o644)
	cmd := exec.Command(mk, "-s", "-f", "Makefile", "-f", extra, "print-shim-sources")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("make: %v", err)
	}
	want := strings.Fields(string(out))
	srcs, err := ShimSources(root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range srcs {
		rel, _ := filepath.Rel(root, s)
		got = append(got, rel)
	}
	slices.Sort(want)
	want = slices.Compact(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("ShimSources differs from the Makefile's SHIM_SOURCES:\n got %q\nwant %q", got, want)
	}
}
