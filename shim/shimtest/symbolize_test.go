package shimtest

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/internal/envvar"
	"github.com/mpidbg/mpidbg/internal/symbolize"
)

// placeRe is a place in a rank's standard-error line: "at FILE:LINE in
// FUNCTION (MODULE+0xOFFSET)", "at FILE:LINE (...)" or "in FUNCTION (...)".
var placeRe = regexp.MustCompile(`(?:at (\S+):(\d+)(?: in (\S+))?|in (\S+)) \(([^()\s]+)\+0x([0-9a-f]+)\)`)

// TestSymbolizeAgrees: the file:line a rank writes on standard error for
// a site (no launcher listening) is the one the report gives the same
// site, for sites of bugs.c built as usual (position-independent), as a
// classic executable, and with its debug information in a separate file
// found by its debug link.
func TestSymbolizeAgrees(t *testing.T) {
	forEachMPI(t, testSymbolizeAgrees)
}

func testSymbolizeAgrees(t *testing.T, l *lib) {
	_, dir := build(t, l)
	cc := needMPI(t, l).cc
	src := filepath.Join(shimDir, "testdata", "bugs.c")
	compile := func(name string, flags ...string) {
		t.Helper()
		args := append([]string{"-g", "-O0", "-w", "-pthread", "-I" + shimDir, "-o", filepath.Join(dir, name), src}, flags...)
		if out, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
			t.Fatalf("%s %s: %v\n%s", cc, strings.Join(args, " "), err, out)
		}
	}
	compile("bugs_nopie", "-fno-pie", "-no-pie")
	compile("bugs_split")
	objcopy := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("objcopy", args...).CombinedOutput(); err != nil {
			t.Fatalf("objcopy %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	split := filepath.Join(dir, "bugs_split")
	objcopy("--only-keep-debug", split, split+".debug")
	objcopy("--strip-debug", "--remove-section=.note.gnu.build-id", "--add-gnu-debuglink="+split+".debug", split)

	report := symbolize.New()
	for _, c := range []struct{ prog, bug string }{
		{"bugs", "uncommitted"}, {"bugs", "leaks"}, {"bugs_nopie", "uncommitted"}, {"bugs_split", "uncommitted"},
	} {
		r := mpirun(t, l, 2, []string{envvar.Report + "="}, c.prog, c.bug)
		if r.err != nil {
			t.Fatalf("%s %s: %v\n%s", c.prog, c.bug, r.err, r.stderr)
		}
		places := placeRe.FindAllStringSubmatch(r.stderr, -1)
		if len(places) == 0 {
			t.Fatalf("%s %s: no place on standard error:\n%s", c.prog, c.bug, r.stderr)
		}
		inSource := 0
		for _, m := range places {
			off, err := strconv.ParseUint(m[6], 16, 64)
			if err != nil {
				t.Fatal(err)
			}
			site := checks.Site{Module: m[5], Offset: off}
			line, _ := strconv.Atoi(m[2])
			shim := checks.Location{File: m[1], Line: line, Function: m[3] + m[4]}
			got, err := report.Resolve(site)
			if err != nil || got != shim {
				t.Errorf("%s %s: %s+%#x: the rank says %v, the report %v (%v)", c.prog, c.bug, site.Module, site.Offset, shim, got, err)
			}
			if filepath.Base(shim.File) == "bugs.c" && filepath.Base(site.Module) == c.prog {
				inSource++
			}
		}
		if inSource == 0 {
			t.Errorf("%s %s: no place in bugs.c:\n%s", c.prog, c.bug, r.stderr)
		}
	}
}
