package pretty

import (
	"strings"

	"github.com/mpidbg/mpidbg/checks"
)

// Entry draws a catalogue entry for `mpidbg explain ID`: the id and
// title, category, severity, the MPI rule, and the documentation.
func (r *Renderer) Entry(e checks.Entry) string {
	var b strings.Builder
	b.WriteString(r.head.Render(e.ID) + ": " + e.Title + "\n\n")
	b.WriteString(r.Fields([]Field{
		{"category", r.comb.Render(string(e.Category))},
		{"severity", r.severity(e.Severity).Render(string(e.Severity))},
		{"rule", e.Rule},
	}))
	b.WriteString("\n\n" + strings.TrimSpace(e.Doc))
	return b.String()
}

// Catalogue draws entries as a list grouped by category, in the order
// given: a category heading, then one line per id with its severity and
// title.
func (r *Renderer) Catalogue(es []checks.Entry) string {
	w := 0
	for _, e := range es {
		w = max(w, len(e.ID))
	}
	var b strings.Builder
	for i, e := range es {
		if i == 0 || es[i-1].Category != e.Category {
			if i > 0 {
				b.WriteString("\n")
			}
			b.WriteString(r.Heading(string(e.Category)) + "\n")
		}
		sev := string(e.Severity)
		b.WriteString("  " + e.ID + strings.Repeat(" ", w-len(e.ID)+2) +
			r.severity(e.Severity).Render(sev) + strings.Repeat(" ", len("warning")-len(sev)+2) + e.Title + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}
