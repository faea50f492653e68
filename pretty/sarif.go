package pretty

import (
	"encoding/json"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/internal/ranklist"
	"github.com/mpidbg/mpidbg/run/report"
)

// SARIF 2.1.0: the schema SARIF output names, and its version.
const (
	SARIFSchema  = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	SARIFVersion = "2.1.0"
)

// srcRoot is the uriBaseId of files inside the working directory.
const srcRoot = "%SRCROOT%"

// The parts of the SARIF 2.1.0 object model mpidbg writes.
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool               sarifTool                   `json:"tool"`
		OriginalURIBaseIDs map[string]sarifArtifactLoc `json:"originalUriBaseIds,omitempty"`
		Addresses          []sarifModule               `json:"addresses,omitempty"`
		Results            []sarifResult               `json:"results"`
		Invocations        []sarifInvocation           `json:"invocations,omitempty"` // sarifoutcome.go
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name    string      `json:"name"`
		Version string      `json:"version,omitempty"`
		Rules   []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID                   string            `json:"id"`
		ShortDescription     *sarifText        `json:"shortDescription,omitempty"`
		FullDescription      *sarifText        `json:"fullDescription,omitempty"`
		Help                 *sarifText        `json:"help,omitempty"`
		DefaultConfiguration *sarifConfig      `json:"defaultConfiguration,omitempty"`
		Properties           map[string]string `json:"properties,omitempty"`
	}
	sarifConfig struct {
		Level   string `json:"level"`
		Enabled *bool  `json:"enabled,omitempty"` // false: a finding that is off unless asked for (checks.Entry.OptIn)
	}
	sarifText struct {
		Text string `json:"text"`
	}
	sarifResult struct {
		RuleID           string          `json:"ruleId"`
		RuleIndex        int             `json:"ruleIndex"`
		Level            string          `json:"level"`
		Message          sarifText       `json:"message"`
		Locations        []sarifLocation `json:"locations,omitempty"`
		RelatedLocations []sarifLocation `json:"relatedLocations,omitempty"`
		OccurrenceCount  int             `json:"occurrenceCount,omitempty"`
		Properties       map[string]any  `json:"properties,omitempty"`
		Suppressions     []sarifSuppr    `json:"suppressions,omitempty"` // sarifsuppress.go
	}
	sarifLocation struct {
		ID               *int                   `json:"id,omitempty"`
		PhysicalLocation *sarifPhysical         `json:"physicalLocation,omitempty"`
		LogicalLocations []sarifLogicalLocation `json:"logicalLocations,omitempty"`
		Message          *sarifText             `json:"message,omitempty"`
	}
	sarifPhysical struct {
		ArtifactLocation sarifArtifactLoc `json:"artifactLocation"`
		Region           *sarifRegion     `json:"region,omitempty"`
		Address          *sarifAddress    `json:"address,omitempty"`
	}
	// sarifAddress is a code address in a module with no source line
	// for it (SARIF 2.1.0 §3.32): the site's offset, the module's ELF
	// address (pc minus its load bias), relative to its parent, the
	// module in run.addresses. Not absoluteAddress: where the module was
	// loaded differs from rank to rank and run to run, so the parent
	// gives none, and relativeAddress and offsetFromParent (the same
	// here, with one level) are from ELF address 0 as loaded, the load
	// base of a position-independent module.
	sarifAddress struct {
		RelativeAddress  uint64 `json:"relativeAddress"`
		OffsetFromParent uint64 `json:"offsetFromParent"`
		ParentIndex      int    `json:"parentIndex"`
		Kind             string `json:"kind"`
	}
	// sarifModule is a module an address lies in, in run.addresses.
	sarifModule struct {
		Name               string `json:"name"`
		FullyQualifiedName string `json:"fullyQualifiedName"`
		Kind               string `json:"kind"`
	}
	sarifArtifactLoc struct {
		URI       string `json:"uri"`
		URIBaseID string `json:"uriBaseId,omitempty"`
	}
	sarifRegion struct {
		StartLine int `json:"startLine"`
	}
	sarifLogicalLocation struct {
		Name string `json:"name"`
		Kind string `json:"kind"`
	}
)

// SARIF writes rep as a SARIF 2.1.0 log with one run: the tool driver
// "mpidbg" (version, when not empty) with rules, one per catalogue entry
// (id, shortDescription the title, fullDescription the MPI rule, help
// the documentation, the severity as default level, properties.category)
// plus a bare rule for any finding id the catalogue lacks; and one result
// per finding (ruleId, ruleIndex, level error/warning/note, the message
// with its ranks, the location, the related locations, occurrenceCount,
// and properties ranks, call, path). Files inside dir get URIs relative
// to it, under the base id %SRCROOT% (which originalUriBaseIds maps to
// dir); others get absolute file: URIs. Findings suppression rules took
// out of the report follow, marked with suppressions (kind "external").
func SARIF(rep *report.Report, rules []checks.Entry, dir, version string) ([]byte, error) {
	run := sarifRun{Tool: sarifTool{Driver: sarifDriver{Name: "mpidbg", Version: version, Rules: []sarifRule{}}}, Results: []sarifResult{}}
	index := map[string]int{}
	for _, e := range rules {
		index[e.ID] = len(run.Tool.Driver.Rules)
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRule{
			ID:                   e.ID,
			ShortDescription:     &sarifText{e.Title},
			FullDescription:      &sarifText{e.Rule},
			Help:                 &sarifText{e.Doc},
			DefaultConfiguration: &sarifConfig{Level: sarifLevel(e.Severity), Enabled: offByDefault(e)},
			Properties:           map[string]string{"category": string(e.Category)},
		})
	}
	usesRoot := false
	loc := func(l checks.Location) *sarifPhysical {
		if l.File == "" {
			return nil
		}
		p := &sarifPhysical{ArtifactLocation: artifact(l.File, dir)}
		if p.ArtifactLocation.URIBaseID != "" {
			usesRoot = true
		}
		if l.Line > 0 {
			p.Region = &sarifRegion{StartLine: l.Line}
		}
		return p
	}
	// at is loc, or for a site no source line names, its module and
	// offset (a Python call's native frame, a library without -g)
	modules := map[string]int{} // index in run.Addresses
	at := func(l checks.Location, s checks.Site) *sarifPhysical {
		if p := loc(l); p != nil || s.Module == "" {
			return p
		}
		i, ok := modules[s.Module]
		if !ok {
			i = len(run.Addresses)
			modules[s.Module] = i
			run.Addresses = append(run.Addresses, sarifModule{Name: filepath.Base(s.Module), FullyQualifiedName: s.Module, Kind: "module"})
		}
		return &sarifPhysical{ArtifactLocation: artifact(s.Module, dir),
			Address: &sarifAddress{RelativeAddress: s.Offset, OffsetFromParent: s.Offset, ParentIndex: i, Kind: "instruction"}}
	}
	logical := func(l checks.Location) []sarifLogicalLocation {
		if l.Function == "" {
			return nil
		}
		return []sarifLogicalLocation{{Name: l.Function, Kind: "function"}}
	}
	for n, f := range withSuppressed(rep) {
		i, ok := index[f.ID]
		if !ok {
			i = len(run.Tool.Driver.Rules)
			index[f.ID] = i
			rule := sarifRule{ID: f.ID}
			if f.Category != "" {
				rule.Properties = map[string]string{"category": string(f.Category)}
			}
			run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, rule)
		}
		res := sarifResult{
			RuleID:          f.ID,
			RuleIndex:       i,
			Level:           sarifLevel(f.Severity),
			Message:         sarifText{f.Message + " (" + ranklist.Phrase(f.Ranks) + ")"},
			OccurrenceCount: f.Count,
			Properties:      map[string]any{"ranks": f.Ranks},
		}
		if len(f.Ranks) == 0 {
			res.Message.Text = f.Message
		}
		res.Suppressions = suppressions(rep, n)
		if f.Call != "" {
			res.Properties["call"] = f.Call
		}
		if f.Path != "" {
			res.Properties["path"] = f.Path
		}
		if p, l := loc(f.Location), logical(f.Location); p != nil || l != nil {
			res.Locations = []sarifLocation{{PhysicalLocation: p, LogicalLocations: l}}
		}
		for _, rel := range f.Related {
			id := len(res.RelatedLocations)
			res.RelatedLocations = append(res.RelatedLocations, sarifLocation{
				ID: &id, PhysicalLocation: at(rel.Location, rel.Site), LogicalLocations: logical(rel.Location),
				Message: &sarifText{rel.Message},
			})
		}
		run.Results = append(run.Results, res)
	}
	run.Invocations = sarifInvocations(rep, dir)
	for _, inv := range run.Invocations {
		for _, n := range inv.ToolExecutionNotifications {
			usesRoot = usesRoot || n.usesRoot()
		}
	}
	if usesRoot {
		run.OriginalURIBaseIDs = map[string]sarifArtifactLoc{srcRoot: {URI: dirURI(dir)}}
	}
	b, err := json.MarshalIndent(sarifLog{Schema: SARIFSchema, Version: SARIFVersion, Runs: []sarifRun{run}}, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

func sarifLevel(s checks.Severity) string {
	switch s {
	case checks.SevError:
		return "error"
	case checks.SevWarning:
		return "warning"
	}
	return "note"
}

// artifact is the artifact location of file: relative to %SRCROOT% when
// inside dir (or relative already), else an absolute file: URI.
func artifact(file, dir string) sarifArtifactLoc {
	if !filepath.IsAbs(file) {
		return sarifArtifactLoc{URI: relURI(file), URIBaseID: srcRoot}
	}
	if rel := report.RelPath(dir, file); rel != file {
		return sarifArtifactLoc{URI: relURI(rel), URIBaseID: srcRoot}
	}
	return sarifArtifactLoc{URI: fileURI(file)}
}

// relURI escapes a relative path as a URI reference; a first segment
// with a colon gets "./" so that it is not read as a scheme.
func relURI(p string) string {
	p = filepath.ToSlash(p)
	if first, _, _ := strings.Cut(p, "/"); strings.Contains(first, ":") {
		p = "./" + p
	}
	return (&url.URL{Path: p}).EscapedPath()
}

func fileURI(abs string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
}

// dirURI is the file: URI of a directory, ending in a slash as SARIF
// wants for a base.
func dirURI(dir string) string {
	u := fileURI(dir)
	if !strings.HasSuffix(u, "/") {
		u += "/"
	}
	return u
}
