package registry

import (
	"errors"
	"strings"
	"testing"

	"github.com/mpidbg/mpidbg/datatype"
)

func TestSnapshot(t *testing.T) {
	m := exampleImage()
	s, err := ReadSnapshot(m.reader(), m.base)
	if err != nil {
		t.Fatal(err)
	}
	if s.Torn || s.WorldRank != 1 || s.WorldSize != 4 || s.MPI != MPICH || !s.Initialized || s.Finalized {
		t.Errorf("header: got %+v", s.Header)
	}
	if len(s.Predefined) != len(testPredef) || len(s.Types) != 4 || len(s.Requests) != 1 || len(s.Comms) != 1 {
		t.Fatalf("got %d predefined, %d types, %d requests, %d comms", len(s.Predefined), len(s.Types), len(s.Requests), len(s.Comms))
	}
	if q := s.Requests[0]; q.Kind != ReqRecv || q.Peer != 3 || q.Tag != 7 || !q.State.Has(Active) || q.Datatype != 0x8c000002 {
		t.Errorf("request: got %+v", q)
	}
	if c := s.Comms[0]; c.Name != "MPI_COMM_WORLD" || len(c.WorldRanks) != 4 || c.WorldRanks[3] != 3 {
		t.Errorf("comm: got %+v", c)
	}
	// three findings recorded in a ring of two: the newest two, oldest first
	if len(s.Findings) != 2 || s.Findings[0].Seq != 2 || s.Findings[1].Message != "finding number 3" {
		t.Errorf("findings: got %+v", s.Findings)
	}

	b := s.Builder()
	tests := []struct {
		handle                   uint64
		size, lb, extent, trueLB int64
		name                     string
	}{
		{0x8c000001, 43, -4, 104, 0, "s_type"},
		{0x8c000002, 43 * 6, -4, 104*9 + 104, 0, "halo"},
		{0x8c000003, 48, 0, 160, 40, ""}, // Fortran: first element (1,1) at (1+1*4)*8
		{0x8c000004, 24, 0, 280, 232, ""},
	}
	for _, tt := range tests {
		ty, err := b.Build(tt.handle)
		if err != nil {
			t.Errorf("%#x: %v", tt.handle, err)
			continue
		}
		got := [4]int64{ty.TypeSize(), ty.LB(), ty.Extent(), ty.TrueLB()}
		if want := [4]int64{tt.size, tt.lb, tt.extent, tt.trueLB}; got != want || ty.Name != tt.name {
			t.Errorf("%#x: got %v %q, want %v %q", tt.handle, got, ty.Name, want, tt.name)
		}
	}
	halo, _ := b.Build(0x8c000002)
	el, _ := halo.ElementAt(1, 14+10)
	if got := el.Path.String(); got != "halo(VECTOR)[0][1].s_type(STRUCT)[2][5](CHAR)" {
		t.Errorf("path: got %q", got)
	}
	if again, _ := b.Build(0x8c000002); again != halo {
		t.Error("Build does not cache")
	}
	var unknown *UnknownHandleError
	if _, err := b.Build(0x8c0000ff); !errors.As(err, &unknown) {
		t.Errorf("unknown handle: got %v", err)
	}
}

func TestHeaderErrors(t *testing.T) {
	tests := []struct {
		name  string
		patch func(m *image)
		want  string
	}{
		{"magic", func(m *image) { m.str(m.base, "NOTREGI") }, "mpidbg_registry.magic at 0x7f0000001000"},
		{"version", func(m *image) { m.u32(m.base+8, 9) }, "version 9: this mpidbg reads version 1"},
		{"handle size", func(m *image) { m.u32(m.base+28, 3) }, "handle_size at 0x7f000000101c: 3 is not 4 or 8"},
		{"count", func(m *image) { m.u32(m.base+72+tableSize+4, 1<<30) }, "types.count"},
		{"first chunk", func(m *image) { m.u32(m.base+72+tableSize+8, 0) }, "types.first_chunk"},
		{"null chunk", func(m *image) { m.u64(m.base+72+tableSize+16+8, 0) }, "types.chunks[1] at 0x7f0000001170: null, but record 1 of 4 lies in it"},
		{"nints", func(m *image) {
			s, _ := ReadSnapshot(m.reader(), m.base)
			m.u32(s.Types[0].Addr+48, 0xffffffff)
		}, "mpidbg_type.nints"},
		{"combiner", func(m *image) {
			s, _ := ReadSnapshot(m.reader(), m.base)
			m.u32(s.Types[1].Addr+60, 99)
		}, "99 is not a known combiner"},
		{"unreadable array", func(m *image) {
			s, _ := ReadSnapshot(m.reader(), m.base)
			m.u64(s.Types[0].Addr+24, 0x10)
		}, "mpidbg_type.ints at 0x10: unreadable"},
	}
	for _, tt := range tests {
		m := exampleImage()
		tt.patch(m)
		_, err := ReadSnapshot(m.reader(), m.base)
		var fe *FormatError
		if err == nil || !errors.As(err, &fe) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want a FormatError containing %q", tt.name, err, tt.want)
		}
	}
}

func TestTornAndCycles(t *testing.T) {
	m := exampleImage()
	m.u64(m.base+16, 7) // a writer stopped mid-update
	s, err := ReadSnapshot(m.reader(), m.base)
	if err != nil || !s.Torn {
		t.Errorf("odd generation: got torn=%v, %v", s != nil && s.Torn, err)
	}

	// a vector whose old type is itself: an error, not a stack overflow
	m = exampleImage()
	s, _ = ReadSnapshot(m.reader(), m.base)
	halo := s.Types[1]
	oldTypes := m.at(halo.Addr + 40)
	m.u64(le.Uint64(oldTypes), halo.Handle)
	s, err = ReadSnapshot(m.reader(), m.base)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Builder().Build(halo.Handle); err == nil || !strings.Contains(err.Error(), "nests more than 64") {
		t.Errorf("cycle: got %v", err)
	}
}

func TestFromContents(t *testing.T) {
	P := datatype.Predefined
	tests := []struct {
		c     datatype.Combiner
		mpi   MPI
		ints  []int32
		addrs []int64
		types []*datatype.Type
		want  string // Expr of the result, or an error substring
	}{
		{datatype.CombinerContiguous, MPICH, []int32{3}, nil, []*datatype.Type{P(datatype.Int)}, "contiguous(3,INT)"},
		{datatype.CombinerHvector, MPICH, []int32{2, 1}, []int64{24}, []*datatype.Type{P(datatype.Double)}, "hvector(2,1,24,DOUBLE)"},
		{datatype.CombinerIndexed, MPICH, []int32{2, 1, 2, 0, 5}, nil, []*datatype.Type{P(datatype.Int)}, "indexed([1,2],[0,5],INT)"},
		{datatype.CombinerHindexedBlock, MPICH, []int32{2, 3}, []int64{0, 64}, []*datatype.Type{P(datatype.Int)}, "hindexed_block(3,[0,64],INT)"},
		{datatype.CombinerSubarray, OpenMPI, []int32{1, 8, 2, 3, 1}, nil, []*datatype.Type{P(datatype.Int)}, "subarray([8],[2],[3],FORTRAN,INT)"},
		{datatype.CombinerDarray, OpenMPI, []int32{2, 1, 1, 9, 0, -1, 2, 0}, nil, []*datatype.Type{P(datatype.Int)}, "darray(2,1,[9],[BLOCK],[DFLT],[2],C,INT)"},
		{datatype.CombinerResized, MPICH, nil, []int64{-4, 16}, []*datatype.Type{P(datatype.Int)}, "resized(-4,16,INT)"},
		{datatype.CombinerIndexed, MPICH, []int32{2, 1}, nil, []*datatype.Type{P(datatype.Int)}, "do not fit its layout"},
		{datatype.CombinerIndexed, MPICH, []int32{-5}, nil, []*datatype.Type{P(datatype.Int)}, "do not fit its layout"},
		{datatype.CombinerSubarray, MPICH, []int32{1, 8, 2, 3, 0}, nil, []*datatype.Type{P(datatype.Int)}, "order 0 is neither"},
		{datatype.CombinerVector, MPICH, []int32{-1, 1, 1}, nil, []*datatype.Type{P(datatype.Int)}, "vector: count -1 must be non-negative"},
		{datatype.CombinerNamed, MPICH, nil, nil, nil, "not a constructor combiner"},
	}
	for _, tt := range tests {
		ty, err := FromContents(tt.mpi, tt.c, tt.ints, tt.addrs, tt.types)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = ty.Expr()
		}
		if !strings.Contains(got, tt.want) {
			t.Errorf("%s %v: got %q, want %q", tt.c, tt.ints, got, tt.want)
		}
	}
}

// FuzzSnapshot: any corruption of a valid image decodes or fails with an
// error; it never panics or allocates without bound.
func FuzzSnapshot(f *testing.F) {
	f.Add(uint32(0), uint64(0))
	f.Add(uint32(72+tableSize+4), uint64(1)<<40)
	f.Add(uint32(48), uint64(1)<<62)
	f.Fuzz(func(t *testing.T, off uint32, v uint64) {
		m := exampleImage()
		o := uint64(off) % uint64(len(m.mem)-8)
		m.u64(m.base+o, v)
		s, err := ReadSnapshot(m.reader(), m.base)
		if err != nil {
			return
		}
		b := s.Builder()
		for _, ty := range s.Types {
			if built, err := b.Build(ty.Handle); err == nil {
				_ = built.Signature().String()
			}
		}
	})
}

// TestUnknownWorldRanks: a communicator whose ranks the shim could not
// translate (out of memory) has a null world_ranks; that decodes as "not
// known" and keeps the rest of the registry readable.
func TestUnknownWorldRanks(t *testing.T) {
	m := exampleImage()
	s, _ := ReadSnapshot(m.reader(), m.base)
	m.u64(s.Comms[0].Addr+16, 0)
	s, err := ReadSnapshot(m.reader(), m.base)
	if err != nil {
		t.Fatal(err)
	}
	if c := s.Comms[0]; c.WorldRanks != nil || c.Size != 4 || c.Name != "MPI_COMM_WORLD" {
		t.Errorf("got %+v, want size 4 with unknown world ranks", c)
	}
}
