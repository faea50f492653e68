package registry

import (
	"fmt"

	"github.com/mpidbg/mpidbg/datatype"
)

// MPI says which library the shim was built for (enum mpidbg_mpi).
type MPI uint32

const (
	MPICH   MPI = 1
	OpenMPI MPI = 2
)

func (m MPI) String() string {
	switch m {
	case MPICH:
		return "mpich"
	case OpenMPI:
		return "openmpi"
	}
	return fmt.Sprintf("MPI(%d)", uint32(m))
}

// Header is the fixed part of the registry.
type Header struct {
	Version       uint32
	Generation    uint64
	MPI           MPI
	HandleSize    uint32
	WorldRank     int32
	WorldSize     int32
	PID           int32
	Initialized   bool
	Finalized     bool
	FindingsTotal uint64
	FindingsCap   uint32
	FindingsAddr  uint64
	tables        [7]table
	pysites       table // Python call sites (pysite.go); empty in a header without it
}

type table struct {
	recSize, count, firstChunk uint32
	chunks                     [numChunks]uint64
	addr                       uint64 // of the table structure, for errors
	name                       string
}

var tableNames = [7]string{"predefined", "types", "requests", "comms", "groups", "ops", "wins"}
var tableRecSizes = [7]uint32{predefSize, typeRecSizeV1, reqRecSize, commRecSize, groupRecSize, opRecSize, winRecSize}

// ReadHeader decodes and checks the registry header at addr.
func ReadHeader(r Reader, addr uint64) (Header, error) {
	x, err := read(r, addr, headerSizeV1, "mpidbg_registry")
	if err != nil {
		return Header{}, err
	}
	if string(x.b[:8]) != magic {
		return Header{}, x.fail(0, "magic", "%q is not %q: not an mpidbg registry", x.b[:8], magic)
	}
	h := Header{Version: x.u32(8), Generation: x.u64(16), MPI: MPI(x.u32(24)), HandleSize: x.u32(28),
		WorldRank: x.i32(32), WorldSize: x.i32(36), PID: x.i32(40), FindingsTotal: x.u64(48),
		FindingsCap: x.u32(56), FindingsAddr: x.u64(64)}
	flags := x.u32(44)
	h.Initialized, h.Finalized = flags&1 != 0, flags&2 != 0
	switch {
	case h.Version != Version:
		return Header{}, x.fail(8, "version", "version %d: this mpidbg reads version %d", h.Version, Version)
	case x.u32(12) < headerSizeV1:
		return Header{}, x.fail(12, "header_size", "%d is smaller than %d", x.u32(12), headerSizeV1)
	case h.HandleSize != 4 && h.HandleSize != 8:
		return Header{}, x.fail(28, "handle_size", "%d is not 4 or 8", h.HandleSize)
	case h.FindingsCap > maxFindings:
		return Header{}, x.fail(56, "findings_cap", "%d is above %d", h.FindingsCap, maxFindings)
	}
	for i := range h.tables {
		if err := readTable(x, 72+i*tableSize, tableNames[i], tableRecSizes[i], &h.tables[i]); err != nil {
			return Header{}, err
		}
	}
	if x.u32(12) >= headerSize {
		p, err := read(r, addr+headerSizeV1, tableSize, "mpidbg_registry")
		if err != nil {
			return Header{}, err
		}
		if err := readTable(p, 0, "pysites", pysiteSize, &h.pysites); err != nil {
			return Header{}, err
		}
	}
	return h, nil
}

// readTable decodes and checks the table at offset off of the header x.
func readTable(x rec, off int, name string, recSize uint32, t *table) error {
	t.addr, t.name = x.addr+uint64(off), "mpidbg_registry."+name
	t.recSize, t.count, t.firstChunk = x.u32(off), x.u32(off+4), x.u32(off+8)
	for c := range t.chunks {
		t.chunks[c] = x.u64(off + 16 + 8*c)
	}
	switch {
	case t.count == 0:
	case t.recSize < recSize || t.recSize > maxRecSize:
		return x.fail(off, name+".rec_size", "%d is not between %d and %d", t.recSize, recSize, maxRecSize)
	case t.count > maxRecords:
		return x.fail(off+4, name+".count", "%d is above %d", t.count, maxRecords)
	case t.firstChunk == 0 || t.firstChunk > maxFirstChunk:
		return x.fail(off+8, name+".first_chunk", "%d is not between 1 and %d", t.firstChunk, maxFirstChunk)
	}
	return nil
}

// recordAddr returns the address of record i of table t.
func (t *table) recordAddr(i uint32) (uint64, error) {
	base := uint64(0)
	for c := 0; c < numChunks; c++ {
		n := uint64(t.firstChunk) << c
		if uint64(i) < base+n {
			if t.chunks[c] == 0 {
				return 0, &FormatError{Addr: t.addr + 16 + uint64(8*c), Field: fmt.Sprintf("%s.chunks[%d]", t.name, c), Msg: fmt.Sprintf("null, but record %d of %d lies in it", i, t.count)}
			}
			return t.chunks[c] + (uint64(i)-base)*uint64(t.recSize), nil
		}
		base += n
	}
	return 0, &FormatError{Addr: t.addr, Field: t.name, Msg: fmt.Sprintf("record %d lies beyond the last chunk", i)}
}

// Snapshot is everything the registry holds, read at one moment.
type Snapshot struct {
	Header
	// Torn is set when a writer was active during the read (an odd or
	// changed generation): records may be mid-update. A stopped process
	// can legitimately be in that state.
	Torn       bool
	Predefined map[uint64]datatype.Basic
	// Fortran maps a datatype's Fortran INTEGER handle (MPI_Type_c2f) to
	// its handle, for the types whose records hold it.
	Fortran  map[int32]uint64
	Types    []Type
	Requests []Request
	Comms    []Comm
	Groups   []Group
	Ops      []Op
	Wins     []Win
	Findings []Finding // oldest first
}

// ReadSnapshot reads the whole registry at addr. For a live process it
// retries a few times while a writer is active.
func ReadSnapshot(r Reader, addr uint64) (*Snapshot, error) {
	var s *Snapshot
	for try := 0; try < 3; try++ {
		h, err := ReadHeader(r, addr)
		if err != nil {
			return nil, err
		}
		if s, err = readTables(r, h); err != nil {
			return nil, err
		}
		after, err := read(r, addr+16, 8, "mpidbg_registry.generation")
		if err != nil {
			return nil, err
		}
		s.Torn = h.Generation%2 == 1 || after.u64(0) != h.Generation
		if !s.Torn {
			break
		}
	}
	return s, nil
}

func readTables(r Reader, h Header) (*Snapshot, error) {
	s := &Snapshot{Header: h, Predefined: map[uint64]datatype.Basic{}, Fortran: map[int32]uint64{}}
	each := func(ti int, fn func(addr uint64) error) error {
		t := &h.tables[ti]
		for i := uint32(0); i < t.count; i++ {
			a, err := t.recordAddr(i)
			if err != nil {
				return err
			}
			if err := fn(a); err != nil {
				return err
			}
		}
		return nil
	}
	err := each(0, func(a uint64) error {
		x, err := read(r, a, predefSize, "mpidbg_predef")
		if err != nil {
			return err
		}
		b := datatype.Basic(x.i32(8))
		if !b.Valid() {
			return x.fail(8, "basic", "%d is not a predefined datatype", x.i32(8))
		}
		s.Predefined[x.u64(0)] = b
		if f := x.i32(12); f != 0 {
			s.Fortran[f] = x.u64(0)
		}
		return nil
	})
	if err == nil {
		err = each(1, func(a uint64) error {
			t, err := ReadType(r, a)
			if err == nil && h.tables[1].recSize >= typeRecSize {
				var x rec
				if x, err = read(r, a+typeRecSizeV1, 4, "mpidbg_type.fhandle"); err == nil && x.i32(0) != 0 && t.State.Has(Live) {
					t.Fortran = x.i32(0)
					s.Fortran[t.Fortran] = t.Handle
				}
			}
			s.Types = append(s.Types, t)
			return err
		})
	}
	if err == nil {
		err = each(2, func(a uint64) error { q, err := readRequest(r, a); s.Requests = append(s.Requests, q); return err })
	}
	if err == nil {
		err = each(3, func(a uint64) error { c, err := readComm(r, a); s.Comms = append(s.Comms, c); return err })
	}
	if err == nil {
		err = each(4, func(a uint64) error { g, err := readGroup(r, a); s.Groups = append(s.Groups, g); return err })
	}
	if err == nil {
		err = each(5, func(a uint64) error { o, err := readOp(r, a); s.Ops = append(s.Ops, o); return err })
	}
	if err == nil {
		err = each(6, func(a uint64) error { w, err := readWin(r, a); s.Wins = append(s.Wins, w); return err })
	}
	if err != nil {
		return nil, err
	}
	if h.FindingsCap > 0 && h.FindingsTotal > 0 {
		n := min(h.FindingsTotal, uint64(h.FindingsCap))
		for k := h.FindingsTotal - n; k < h.FindingsTotal; k++ {
			f, err := readFinding(r, h.FindingsAddr+(k%uint64(h.FindingsCap))*findingSize)
			if err != nil {
				return nil, err
			}
			if f.Seq != 0 {
				s.Findings = append(s.Findings, f)
			}
		}
	}
	return s, nil
}

// Type returns the record of the datatype handle: the live one if there
// is one, else the most recent freed one.
func (s *Snapshot) Type(handle uint64) (Type, bool) {
	var best Type
	found := false
	for _, t := range s.Types {
		if t.Handle != handle {
			continue
		}
		if !found || t.State.Has(Live) || (!best.State.Has(Live) && t.Serial > best.Serial) {
			best, found = t, true
		}
	}
	return best, found
}

// Builder returns a Builder over this snapshot's records.
func (s *Snapshot) Builder() *Builder {
	return &Builder{MPI: s.MPI, Predefined: s.Predefined, Lookup: s.Type}
}
