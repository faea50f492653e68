package pretty

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/internal/ranklist"
	"github.com/mpidbg/mpidbg/run/report"
)

// Report draws an `mpidbg run` report for the terminal: one block per
// finding (a header with severity, id, category, call and ranks; the
// message; where; the type-tree path; related locations; the MPI rule),
// notes about the run, and a summary line. File names inside dir are
// shown relative to it. A report without findings is one line, plus the
// notes and deaths it has.
func (r *Renderer) Report(rep *report.Report, dir string) string {
	var b strings.Builder
	for i, f := range rep.Findings {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(r.finding(f, dir))
	}
	if len(rep.Findings) > 0 {
		b.WriteString("\n")
	}
	for _, n := range rep.Notes {
		b.WriteString(r.dim.Render("mpidbg: note: "+n) + "\n")
	}
	b.WriteString(r.ReportSummary(rep))
	return b.String()
}

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

func plural(n int, one, other string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, other)
}

func (r *Renderer) severity(s checks.Severity) lipgloss.Style {
	switch s {
	case checks.SevError:
		return r.bad
	case checks.SevWarning:
		return r.num.Bold(true)
	}
	return r.name
}

// finding draws one finding's block.
func (r *Renderer) finding(f report.Finding, dir string) string {
	sep := r.dim.Render(" · ")
	head := []string{r.severity(f.Severity).Render(string(f.Severity)), r.head.Render(f.ID)}
	if f.Category != "" {
		head = append(head, r.comb.Render(string(f.Category)))
	}
	if f.Call != "" {
		head = append(head, f.Call)
	}
	ranks := ranklist.Phrase(f.Ranks)
	if len(f.Ranks) == 0 {
		ranks = "rank unknown"
	}
	if f.Count > len(f.Ranks) && f.Count > 1 {
		ranks += fmt.Sprintf(", %d times", f.Count)
	}
	head = append(head, ranks)
	var b strings.Builder
	b.WriteString(strings.Join(head, sep) + "\n")
	if f.Message != "" {
		b.WriteString("  " + f.Message + "\n")
	}
	if at := where(f.Location, f.Site, dir); strings.HasPrefix(at, "in ") {
		b.WriteString("  " + r.dim.Render("in ") + at[3:] + "\n")
	} else if at != "" {
		b.WriteString("  " + r.dim.Render("at ") + at + "\n")
	}
	var fs []Field
	if f.Path != "" {
		fs = append(fs, Field{"path", f.Path})
	}
	for _, rel := range f.Related {
		v := rel.Message
		if at := where(rel.Location, rel.Site, dir); strings.HasPrefix(at, "in ") {
			v += r.dim.Render(" in ") + at[3:]
		} else if at != "" {
			v += r.dim.Render(" at ") + at
		}
		fs = append(fs, Field{"related", v})
	}
	if f.Rule != "" {
		fs = append(fs, Field{"rule", f.Rule})
	}
	if len(fs) > 0 {
		w := 0
		for _, x := range fs {
			w = max(w, len(x.Key))
		}
		for _, x := range fs {
			b.WriteString("  " + r.dim.Render(x.Key) + strings.Repeat(" ", w-len(x.Key)+2) + x.Value + "\n")
		}
	}
	return b.String()
}

// where is "file:line in function" with file relative to dir and a long
// C++ name shortened, "in function" without a file, "module+0xOFFSET" for
// an unresolved site, or "".
func where(loc checks.Location, site checks.Site, dir string) string {
	if loc != (checks.Location{}) {
		loc.File = report.RelPath(dir, loc.File)
		loc.Function = shortFunction(loc.Function)
		return loc.String()
	}
	if site.Module != "" {
		return fmt.Sprintf("%s+%#x", report.RelPath(dir, site.Module), site.Offset)
	}
	return ""
}
