package pretty

import (
	"slices"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/run/report"
)

// sarifSuppr says why a result is not shown (SARIF 2.1.0 §3.35):
// kind "external", a rule of a suppression file, named in the
// justification.
type sarifSuppr struct {
	Kind          string `json:"kind"`
	Justification string `json:"justification,omitempty"`
}

// withSuppressed is the report's findings, then those suppression rules
// took out of it.
func withSuppressed(rep *report.Report) []report.Finding {
	if len(rep.Suppressed) == 0 {
		return rep.Findings
	}
	all := slices.Clip(rep.Findings)
	for _, s := range rep.Suppressed {
		all = append(all, s.Finding)
	}
	return all
}

// suppressions are the suppressions of the n-th finding of
// withSuppressed(rep): none for a finding the report shows.
func suppressions(rep *report.Report, n int) []sarifSuppr {
	i := n - len(rep.Findings)
	if i < 0 || i >= len(rep.Suppressed) {
		return nil
	}
	s := rep.Suppressed[i]
	return []sarifSuppr{{Kind: "external", Justification: "suppressed by " + s.Rule.Source + " (" + s.Rule.String() + ")"}}
}

// offByDefault is a rule's defaultConfiguration.enabled (SARIF 2.1.0
// §3.50.3): false for a finding that is off unless asked for, left out
// (true) for the others.
func offByDefault(e checks.Entry) *bool {
	if !e.OptIn {
		return nil
	}
	off := false
	return &off
}
