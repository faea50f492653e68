package pretty

import (
	"testing"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/run/report"
)

// TestReportSummaryNames: a long report's summary names its most severe
// entries, so that the last line says what scrolled away.
func TestReportSummaryNames(t *testing.T) {
	f := func(id string, sev checks.Severity, file string, line int) report.Finding {
		return report.Finding{Finding: checks.Finding{ID: id, Severity: sev, Ranks: []int{0, 1},
			Location: checks.Location{File: file, Line: line, Function: "main"}}, Count: 2}
	}
	E, W := checks.SevError, checks.SevWarning
	rep := func(fs ...report.Finding) *report.Report {
		return &report.Report{Job: report.Job{Size: 64}, Findings: fs}
	}
	tests := []struct {
		rep  *report.Report
		want string
	}{
		{rep(f("type-mismatch", E, "/src/ring.c", 11), f("leak-type", W, "/src/ring.c", 20)),
			"mpidbg: 1 error, 1 warning in 2 of 64 ranks"},
		{rep(f("type-mismatch", E, "/src/ring.c", 11), f("collective-mismatch", E, "/src/x.c", 40),
			f("leak-type", W, "/src/ring.c", 20), f("leak-comm", W, "/src/ring.c", 21)),
			"mpidbg: 2 errors (type-mismatch at ring.c:11, collective-mismatch at x.c:40), 2 warnings in 2 of 64 ranks"},
		{rep(f("type-mismatch", E, "/src/ring.c", 11), f("collective-mismatch", E, "/src/x.c", 40),
			f("type-mismatch", E, "/src/ring.c", 11), f("invalid-tag", E, "", 0), f("invalid-rank", E, "/src/a.c", 3)),
			"mpidbg: 5 errors (type-mismatch at ring.c:11, collective-mismatch at x.c:40, invalid-tag in main, ...) in 2 of 64 ranks"},
		{rep(f("leak-type", W, "/src/a.c", 1), f("leak-comm", W, "/src/a.c", 2), f("leak-op", W, "/src/a.c", 3), f("leak-win", W, "/src/a.c", 4)),
			"mpidbg: 4 warnings (leak-type at a.c:1, leak-comm at a.c:2, leak-op at a.c:3, ...) in 2 of 64 ranks"},
	}
	for _, tt := range tests {
		if got := Plain().ReportSummary(tt.rep); got != tt.want {
			t.Errorf("got  %q\nwant %q", got, tt.want)
		}
	}
}
