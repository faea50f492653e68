package report

import (
	"testing"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/wire"
)

// A Python script's call (checks.Site.Script) keeps the place the rank
// read from the interpreter; its native frame, a related place, is
// resolved like any site; two ranks' calls on one line merge.
func TestBuildPythonSite(t *testing.T) {
	c := NewCollector()
	mpi4py := "/usr/lib/python3/dist-packages/mpi4py/MPI.cpython-311-x86_64-linux-gnu.so"
	for rank, native := range []uint64{0xec47c, 0xec47c} {
		cn := c.Conn()
		cn.Handle(hello(rank, 100+rank))
		script := checks.Location{File: "/home/u/app.py", Line: 13, Function: "exchange"}
		cn.Handle(wire.Message{Kind: wire.KindFinding, Finding: &checks.Finding{
			ID: "type-mismatch", Message: "element 0 is MPI_INT on the sending side and MPI_DOUBLE on the receiving side", Call: "MPI_Recv",
			Ranks: []int{rank}, Site: checks.Site{Module: mpi4py, Offset: native, Script: script},
			Related: []checks.Related{
				{Message: "the sender called MPI_Send", Site: checks.Site{Script: checks.Location{File: "/home/u/app.py", Line: 10, Function: "exchange"}}},
				{Message: "the native frame", Site: checks.Site{Module: "/bin/app", Offset: 100}},
			}}})
		cn.Handle(bye(rank, 1))
		cn.End(nil)
	}
	r := Build(c, Job{Size: 2}, fakeResolver{})
	if len(r.Findings) != 1 {
		t.Fatalf("%d findings, want 1 (merged)", len(r.Findings))
	}
	f := r.Findings[0]
	if got := f.Location.String(); got != "/home/u/app.py:13 in exchange" {
		t.Errorf("location %q", got)
	}
	if got := f.Related[0].Location.String(); got != "/home/u/app.py:10 in exchange" {
		t.Errorf("related 0 %q", got)
	}
	if got := f.Related[1].Location.String(); got != "/src/app.c:50 in main" {
		t.Errorf("related 1 (native, resolved) %q", got)
	}
	if len(f.Ranks) != 2 {
		t.Errorf("ranks %v", f.Ranks)
	}
}
