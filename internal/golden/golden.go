// Package golden compares test output with files in testdata, the
// project's habit for everything visual (reports, trees, help text).
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// update is registered once for every test binary that imports golden.
var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// Check compares got with testdata/<test name>.golden, or writes that file
// when the test runs with -update.
func Check(t *testing.T, got string) {
	t.Helper()
	CheckFile(t, filepath.Join("testdata", filepath.FromSlash(t.Name())+".golden"), got)
}

// CheckFile compares got with the file at path, or writes it when the
// test runs with -update.
func CheckFile(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	Compare(t, path, got)
}

// Compare compares got with the file at path and never writes it: for a
// second output that must equal what another test wrote (a core file's
// view of a live session).
func Compare(t *testing.T, path, got string) {
	t.Helper()
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s: got:\n%s\nwant:\n%s", path, got, want)
	}
}
