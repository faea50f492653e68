package dap

import (
	"strings"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/run/report"
)

// suppressRules are the suppression rules of a launch (its "suppress"
// files and the program's .mpidbg-suppress, run/report/suppress.go): a
// finding they cover does not stop a rank, as it does not show in
// `mpidbg run`'s report.
type suppressRules []report.Rule

// covers says whether a rule covers the finding a rank stopped on.
func (rs suppressRules) covers(f *findingInfo) bool {
	if f == nil || len(rs) == 0 {
		return false
	}
	cf := checks.Finding{ID: f.id, Category: checks.Category(f.category),
		Location: checks.Location{File: f.file, Line: f.line}}
	if _, fn, ok := strings.Cut(f.where, " in "); ok {
		cf.Location.Function = fn
	}
	for _, r := range rs {
		if r.Matches(&cf) {
			return true
		}
	}
	return false
}
