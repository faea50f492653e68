package shimtest

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mpidbg/mpidbg/shim/registry"
)

// TestLayout compares the C compiler's offsetof and sizeof for every
// field and structure of reg.h (testdata/layout.c) with the offsets
// package registry decodes: the two sides of the registry contract. It
// runs once per library because the program is compiled with that
// library's compiler wrapper, as the shim is.
func TestLayout(t *testing.T) {
	forEachMPI(t, testLayout)
}

func testLayout(t *testing.T, l *lib) {
	_, dir := build(t, l)
	out, err := exec.Command(filepath.Join(dir, "layout")).Output()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		name, v, _ := strings.Cut(line, " ")
		got, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatalf("layout: %q", line)
		}
		seen[name] = true
		want, ok := registry.Offsets[name]
		if !ok {
			if !strings.HasSuffix(name, ".pad") {
				t.Errorf("%s (%d in C) is not in registry.Offsets", name, got)
			}
			continue
		}
		if got != want {
			t.Errorf("%s: C has %d, registry.Offsets %d", name, got, want)
		}
	}
	for name := range registry.Offsets {
		if !seen[name] {
			t.Errorf("registry.Offsets has %s, which reg.h does not", name)
		}
	}
}
