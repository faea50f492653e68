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
