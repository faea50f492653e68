package shimtest

import (
	"testing"

	"github.com/mpidbg/mpidbg/datatype"
	"github.com/mpidbg/mpidbg/shim/registry"
)

// TestRegistryLive stops a rank at a finding and decodes its registry
// from /proc/PID/mem with package registry: the writer and the decoder
// agree on everything a debugger would show.
func TestRegistryLive(t *testing.T) {
	forEachMPI(t, testRegistryLive)
}

func testRegistryLive(t *testing.T, l *lib) {
	stopped(t, l, "registry", func(pid int) {
		proc, err := OpenProc(pid)
		if err != nil {
			t.Fatal(err)
		}
		defer proc.Close()
		maps, err := proc.Mappings()
		if err != nil {
			t.Fatal(err)
		}
		addr, err := Locate(maps)
		if err != nil {
			t.Fatal(err)
		}
		s, err := registry.ReadSnapshot(proc, addr)
		if err != nil {
			t.Fatal(err)
		}
		if s.Torn || s.WorldRank != 0 || s.WorldSize != 2 || s.PID != int32(pid) || !s.Initialized || s.Finalized || s.MPI != l.mpi || s.HandleSize != l.handle {
			t.Errorf("header: %+v", s.Header)
		}
		// the shim records the 40 predefined datatypes of the C binding
		// (aliases once); Open MPI 4 has no MPI_LB and MPI_UB. Of the 23
		// Fortran types, both libraries lack MPI_INTEGER16, MPI_REAL2 and
		// MPI_COMPLEX4 (MPICH's mpi.h names MPI_INTEGER16, as
		// MPI_DATATYPE_NULL), which must stay unrecorded.
		minPredef := 40 + 20
		if l.isOpenMPI() {
			minPredef = 38 + 20
		}
		if len(s.Predefined) < minPredef {
			t.Errorf("%d predefined datatypes, want %d or more", len(s.Predefined), minPredef)
		}
		recorded := map[datatype.Basic]bool{}
		for _, b := range s.Predefined {
			recorded[b] = true
		}
		for _, b := range []datatype.Basic{datatype.Integer, datatype.Real, datatype.DoublePrecision, datatype.Complex,
			datatype.Logical, datatype.Character, datatype.Integer8, datatype.Real16, datatype.TwoInteger, datatype.TwoReal} {
			if !recorded[b] {
				t.Errorf("MPI_%v is not recorded", b)
			}
		}
		if _, ok := s.Predefined[0x0c000000]; ok && !l.isOpenMPI() {
			t.Errorf("MPICH's MPI_DATATYPE_NULL is recorded as MPI_%v", s.Predefined[0x0c000000])
		}
		if len(s.Findings) != 1 || s.Findings[0].ID != "type-not-committed" || s.Findings[0].Call != "MPI_Send" || s.Findings[0].Site == 0 || s.Findings[0].RelatedSite == 0 {
			t.Errorf("findings: %+v", s.Findings)
		}
		// Under Open MPI bugs.c frees the struct that s_type resizes; its
		// record stays, freed, while s_type refers to it. Under MPICH
		// every type is live.
		wantFreed, freed := 0, 0
		if l.isOpenMPI() {
			wantFreed = 1
		}
		b := s.Builder()
		exprs := map[string]string{}
		for _, ty := range s.Types {
			m, err := b.Build(ty.Handle)
			if err != nil {
				t.Errorf("type %#x: %v", ty.Handle, err)
				continue
			}
			if m.TypeSize() != ty.Size || m.LB() != ty.LB || m.Extent() != ty.Extent || m.TrueLB() != ty.TrueLB || m.TrueExtent() != ty.TrueExt {
				t.Errorf("%s: the model says size %d, bounds %d+%d, true %d+%d; MPI said %d, %d+%d, %d+%d", m.Expr(),
					m.TypeSize(), m.LB(), m.Extent(), m.TrueLB(), m.TrueExtent(), ty.Size, ty.LB, ty.Extent, ty.TrueLB, ty.TrueExt)
			}
			if ty.State.Has(registry.Freed) {
				freed++
				if ty.Site == 0 || ty.FreeSite == 0 || ty.Serial == 0 || ty.State.Has(registry.Live) {
					t.Errorf("freed %s: record %+v", m.Expr(), ty)
				}
				continue
			}
			exprs[ty.Name] = m.Expr()
			if ty.Site == 0 || ty.Serial == 0 || !ty.State.Has(registry.Live) {
				t.Errorf("%s: record %+v", ty.Name, ty)
			}
			if ty.Name == "s_type" && (!ty.State.Has(registry.Committed) || ty.OverlapCount != 0) {
				t.Errorf("s_type: state %b, overlap count %d", ty.State, ty.OverlapCount)
			}
		}
		if freed != wantFreed {
			t.Errorf("%d freed type records, want %d", freed, wantFreed)
		}
		if expr, _, _ := sType(l); exprs["s_type"] != "s_type="+expr {
			t.Errorf("s_type: got %q, want %q", exprs["s_type"], "s_type="+expr)
		}
		if want := "halo=contiguous(6," + exprs["s_type"] + ")"; exprs["halo"] != want {
			t.Errorf("halo: got %q, want %q", exprs["halo"], want)
		}
		names := map[string]registry.Comm{}
		for _, c := range s.Comms {
			names[c.Name] = c
		}
		w, d := names["MPI_COMM_WORLD"], names["dup"]
		if !w.State.Has(registry.Predef) || len(w.WorldRanks) != 2 || w.Rank != 0 {
			t.Errorf("MPI_COMM_WORLD: %+v", w)
		}
		if d.Size != 2 || len(d.WorldRanks) != 2 || d.WorldRanks[1] != 1 || d.Site == 0 {
			t.Errorf("dup: %+v", d)
		}
		active := 0
		for _, q := range s.Requests {
			if q.State.Has(registry.Active) {
				active++
				if q.Kind != registry.ReqRecv || q.Peer != 1 || q.Tag != 5 || q.Comm != d.Handle || q.Count != 1 || q.Site == 0 {
					t.Errorf("the pending receive: %+v", q)
				}
			}
		}
		if active != 1 {
			t.Errorf("%d active requests, want 1", active)
		}
	})
}
