package pretty

import (
	"fmt"
	"strings"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/internal/ranklist"
	"github.com/mpidbg/mpidbg/run/report"
)

// ReportSummary is the last line of Report: "mpidbg: 3 errors, 1 warning
// in 4 ranks; rank 2 died (signal 11)", or "mpidbg: no findings (4
// ranks)".
func (r *Renderer) ReportSummary(rep *report.Report) string {
	var parts []string
	counts := []struct {
		sev        checks.Severity
		one, other string
	}{
		{checks.SevError, "error", "errors"},
		{checks.SevWarning, "warning", "warnings"},
		{checks.SevInfo, "info", "info"},
	}
	for _, c := range counts {
		n := rep.Count(c.sev)
		if n == 0 {
			continue
		}
		word := c.other
		if n == 1 {
			word = c.one
		}
		parts = append(parts, r.severity(c.sev).Render(fmt.Sprintf("%d %s", n, word)))
	}
	line := "mpidbg: "
	switch all, with := rep.NumRanks(), rep.RanksWithFindings(); {
	case len(rep.Findings) == 0:
		line += fmt.Sprintf("no findings (%s)", plural(all, "rank", "ranks"))
	case len(parts) == 0:
		line += fmt.Sprintf("%s in %s", plural(len(rep.Findings), "finding", "findings"), plural(with, "rank", "ranks"))
	case with < all:
		line += strings.Join(parts, ", ") + fmt.Sprintf(" in %d of %s", with, plural(all, "rank", "ranks"))
	default:
		line += strings.Join(parts, ", ") + " in " + plural(with, "rank", "ranks")
	}
	for _, d := range rep.Died {
		s := ranklist.Phrase(d.Ranks) + " died"
		switch {
		case d.After && d.Status != "":
			s += " after MPI_Finalize (" + d.Status + ")"
		case d.Status != "":
			s += " (" + d.Status + ")"
		default:
			s += " before MPI_Finalize"
		}
		line += "; " + r.bad.Render(s)
	}
	if len(rep.Silent) > 0 {
		line += "; " + r.num.Render(ranklist.Phrase(rep.Silent)+" never connected")
	}
	if rep.Interrupted != "" {
		line += "; interrupted (" + rep.Interrupted + ")"
	}
	if rep.Exit != "" {
		line += "; mpiexec ended with " + rep.Exit
	}
	return line
}
