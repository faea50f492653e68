package pretty

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/mpidbg/mpidbg/run/report"
)

// ReportJSONVersion is the version field of ReportJSON's output.
const ReportJSONVersion = 1

// ReportJSON writes the findings of rep as
//
//	{"version":1,"findings":[...]}
//
// with one finding per line. Each finding is checks.Finding's JSON form
// (id, category, severity, message, ranks, call, location {file, line,
// function}, path, related, rule, site) with "count", the number of
// reports merged into it. "site" is kept when the rank sent one: the
// module and offset, from which tools can resolve the location again. File names
// are as the debug information gives them (absolute, as a rule).
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
	b.WriteString("]}\n")
	return b.Bytes(), nil
}
