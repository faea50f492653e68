package checks

import (
	"strings"
	"testing"
)

// TestCatalogue: every entry is complete, uses the fixed vocabulary, and
// ids are lower-case words joined by dashes (they are typed on the command
// line as `mpidbg explain ID`).
func TestCatalogue(t *testing.T) {
	known := map[Category]bool{}
	for _, c := range Categories {
		known[c] = true
	}
	for _, e := range All() {
		switch {
		case e.Title == "" || e.Rule == "" || e.Doc == "":
			t.Errorf("%s: title, rule and doc must all be set", e.ID)
		case !known[e.Category]:
			t.Errorf("%s: category %q is not in the vocabulary", e.ID, e.Category)
		case e.Severity != SevError && e.Severity != SevWarning && e.Severity != SevInfo:
			t.Errorf("%s: severity %q", e.ID, e.Severity)
		case strings.Trim(e.ID, "abcdefghijklmnopqrstuvwxyz-") != "" || strings.Contains(e.ID, "--"):
			t.Errorf("id %q: want lower-case words joined by single dashes", e.ID)
		case !strings.HasPrefix(e.Rule, "MPI-"):
			t.Errorf("%s: rule %q should cite the standard's section", e.ID, e.Rule)
		}
	}
	if _, ok := Lookup("type-not-committed"); !ok {
		t.Error("type-not-committed is missing")
	}
}
