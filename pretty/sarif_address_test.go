package pretty

import (
	"encoding/json"
	"testing"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/run/report"
)

// A related place with no source line (a Python call's native frame in
// mpi4py's module) is its module and the offset in it, relative to the
// module, which run.addresses holds.
func TestSARIFAddress(t *testing.T) {
	mod := "/usr/lib/python3/dist-packages/mpi4py/MPI.cpython-311-x86_64-linux-gnu.so"
	rep := &report.Report{Findings: []report.Finding{{Count: 1, Finding: checks.Finding{
		ID: "type-mismatch", Category: checks.CatTypeMismatch, Severity: checks.SevError, Message: "m", Ranks: []int{1},
		Location: checks.Location{File: "/work/app/app.py", Line: 13, Function: "exchange"},
		Related:  []checks.Related{{Message: "the native frame", Site: checks.Site{Module: mod, Offset: 0xec47c}}},
	}}}}
	b, err := SARIF(rep, checks.All(), "/work/app", "")
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for _, e := range validateSARIF(doc) {
		t.Error(e)
	}
	var log sarifLog
	if err := json.Unmarshal(b, &log); err != nil {
		t.Fatal(err)
	}
	res := log.Runs[0].Results[0]
	if p := res.Locations[0].PhysicalLocation; p == nil || p.ArtifactLocation.URI != "app.py" || p.Region.StartLine != 13 {
		t.Errorf("location %+v", res.Locations[0].PhysicalLocation)
	}
	p := res.RelatedLocations[0].PhysicalLocation
	if p == nil || p.ArtifactLocation.URI != "file://"+mod || p.Address == nil || p.Region != nil {
		t.Fatalf("native frame: %+v", p)
	}
	want := sarifAddress{RelativeAddress: 0xec47c, OffsetFromParent: 0xec47c, ParentIndex: 0, Kind: "instruction"}
	if *p.Address != want {
		t.Errorf("native frame's address %+v, want %+v", *p.Address, want)
	}
	if m := log.Runs[0].Addresses; len(m) != 1 || m[0] != (sarifModule{Name: "MPI.cpython-311-x86_64-linux-gnu.so", FullyQualifiedName: mod, Kind: "module"}) {
		t.Errorf("run.addresses %+v, want mpi4py's module", m)
	}
}
