package dap

import (
	"bufio"
	"encoding/json"
	"testing"

	"github.com/google/go-dap"
	"github.com/mpidbg/mpidbg/checks"
)

// TestFindingEventBody: the mpidbg/finding event as the extension reads
// it (extensions/vscode/src/finding.js, whose tests use these shapes):
// rank always, a number; ranks for a finding of several ranks.
func TestFindingEventBody(t *testing.T) {
	s, out := testServer(Config{})
	s.sendFinding(&findingInfo{id: "buffer-overlap", severity: "error", category: "overlap", call: "MPI_Isend",
		message: "m", rank: 2, file: "/src/planted.c", line: 41, details: "d"})
	s.sendFinding(&findingInfo{id: "type-mismatch", severity: "error", message: "m", rank: 1, file: "/src/halo.f90", line: 7,
		lang: checks.FileLanguage("/src/halo.f90"), details: "d"})
	s.sendFinding(deadlockInfo(checks.Finding{ID: "deadlock", Severity: checks.SevError, Category: checks.CatDeadlock,
		Message: "ranks 0-2 can never continue", Ranks: []int{0, 1, 2}}))
	s.sendFinding(deadlockInfo(checks.Finding{ID: "deadlock", Severity: checks.SevError, Message: "m"}))
	var bodies []map[string]any
	r := bufio.NewReader(out)
	for {
		b, err := dap.ReadBaseMessage(r)
		if err != nil {
			break
		}
		var ev struct {
			Event string
			Body  map[string]any
		}
		if err := json.Unmarshal(b, &ev); err != nil || ev.Event != "mpidbg/finding" {
			t.Fatalf("%s: %v", b, err)
		}
		bodies = append(bodies, ev.Body)
	}
	if len(bodies) != 4 {
		t.Fatalf("%d events, want 4", len(bodies))
	}
	want := []map[string]any{
		{"rank": 2.0, "id": "buffer-overlap", "severity": "error", "category": "overlap", "call": "MPI_Isend", "message": "m",
			"site": map[string]any{"file": "/src/planted.c", "line": 41.0}, "language": "c", "text": "d"},
		{"rank": 1.0, "id": "type-mismatch", "severity": "error", "message": "m",
			"site": map[string]any{"file": "/src/halo.f90", "line": 7.0}, "language": "fortran", "text": "d"},
		{"rank": 0.0, "ranks": []any{0.0, 1.0, 2.0}, "id": "deadlock", "severity": "error", "category": "deadlock",
			"message": "ranks 0-2 can never continue", "language": "c"},
		{"rank": -1.0, "id": "deadlock", "severity": "error", "message": "m", "language": "c"},
	}
	for i, b := range bodies {
		if i > 1 {
			delete(b, "text") // deadlockInfo's details
		}
		got, _ := json.Marshal(b)
		exp, _ := json.Marshal(want[i])
		if string(got) != string(exp) {
			t.Errorf("event %d body:\n%s\nwant\n%s", i, got, exp)
		}
	}
}
