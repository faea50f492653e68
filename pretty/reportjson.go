package pretty

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/mpidbg/mpidbg/run/report"
)

// ReportJSONVersion is the version field of ReportJSON's output: 2 added
// "outcome" (docs/run.md has the schema).
const ReportJSONVersion = 2

// ReportJSON writes the findings of rep and how the job ended as
//
//	{"version":2,"findings":[...],
//	"outcome":{"size":2,"exit":"exit status 11","ranks":[...]}}
//
// with one finding, and one group of ranks, per line. Each finding is
// checks.Finding's JSON form (id, category, severity, message, ranks,
// call, location {file, line, function}, path, related, rule, site) with
// "count", the number of reports merged into it. "site" is kept when the
// rank sent one: the module and offset, from which tools can resolve the
// location again. File names are as the debug information gives them
// (absolute, as a rule). The outcome has the job's size, mpiexec's
// status ("exit", absent on success), the signal mpidbg passed on
// ("interrupted"), the launcher's error ("launch_error") and the ranks
// grouped by how they ended (report.RankEnd's JSON form); when the ranks
// ran on more than one host, "hosts": each host with its ranks
// ({"host":"node1","ranks":[0,1]}, report.HostRanks); "refused", only
// when some were, counts the report connections the launcher turned away
// ({"no_token":N,"surplus":M}, report.Refused). "suppressed",
// before the outcome and only when not 0, counts the findings suppression
// rules took out of the report; "notes", before the outcome and only when
// there are any, are the report's lines about the run itself (a check a
// rank could not make on its machine, missing debug information).
func ReportJSON(rep *report.Report) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "{\"version\":%d,\"findings\":[", ReportJSONVersion)
	for i, f := range rep.Findings {
		line, err := json.Marshal(f)
		if err != nil {
			return nil, fmt.Errorf("encode finding %s: %w", f.ID, err)
		}
		// An empty site (the location came with the finding) says nothing.
		line = bytes.ReplaceAll(line, []byte(`,"site":{}`), nil)
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n")
		b.Write(line)
	}
	if len(rep.Findings) > 0 {
		b.WriteString("\n")
	}
	b.WriteString("],\n")
	if n := len(rep.Suppressed); n > 0 { // findings suppression rules took out (run/report/suppress.go)
		fmt.Fprintf(&b, "\"suppressed\":%d,\n", n)
	}
	if len(rep.Notes) > 0 { // about the run itself: what could not be checked, and why
		notes, err := json.Marshal(rep.Notes)
		if err != nil {
			return nil, err
		}
		b.WriteString(`"notes":`)
		b.Write(notes)
		b.WriteString(",\n")
	}
	var refused *report.Refused
	if rep.Refused != (report.Refused{}) {
		refused = &rep.Refused
	}
	job, err := json.Marshal(struct {
		Size        int             `json:"size"`
		Exit        string          `json:"exit,omitempty"`
		Interrupted string          `json:"interrupted,omitempty"`
		LaunchError string          `json:"launch_error,omitempty"`
		Refused     *report.Refused `json:"refused,omitempty"`
	}{rep.NumRanks(), rep.Exit, rep.Interrupted, rep.LaunchError, refused})
	if err != nil {
		return nil, err
	}
	b.WriteString(`"outcome":`)
	b.Write(job[:len(job)-1])
	b.WriteString(`,"ranks":[`)
	for i, e := range rep.Outcome.Ranks {
		line, err := json.Marshal(e)
		if err != nil {
			return nil, fmt.Errorf("encode the outcome of %v: %w", e.Ranks, err)
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n")
		b.Write(line)
	}
	if len(rep.Outcome.Ranks) > 0 {
		b.WriteString("\n")
	}
	b.WriteString("]")
	if len(rep.Outcome.Hosts) > 0 { // a job across machines (run/report/hosts.go)
		b.WriteString(`,"hosts":[`)
		for i, h := range rep.Outcome.Hosts {
			line, err := json.Marshal(h)
			if err != nil {
				return nil, err
			}
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString("\n")
			b.Write(line)
		}
		b.WriteString("\n]")
	}
	b.WriteString("}}\n")
	return b.Bytes(), nil
}
