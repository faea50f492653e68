package helper

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/mpidbg/mpidbg/datatype"
	"github.com/mpidbg/mpidbg/shim/calls"
	"github.com/mpidbg/mpidbg/shim/registry"
)

// image lays out a registry in a byte slice at a base address, as the
// shim does in a rank. Field offsets come from registry.Offsets, the
// table the shim's layout test checks against the C compiler, so this
// builder cannot drift from the decoder.
type image struct {
	base uint64
	mem  []byte
}

const imageBase = 0x7f0000001000

func off(field string) uint64 {
	v, ok := registry.Offsets[field]
	if !ok {
		panic("no offset for " + field)
	}
	return uint64(v)
}

func newImage() *image {
	return &image{base: imageBase, mem: make([]byte, off("mpidbg_registry"))}
}

func (m *image) alloc(n int) uint64 {
	for len(m.mem)%16 != 0 {
		m.mem = append(m.mem, 0)
	}
	a := m.base + uint64(len(m.mem))
	m.mem = append(m.mem, make([]byte, n)...)
	return a
}

// set writes field (a key of registry.Offsets) of the structure at rec;
// the Go type of v gives the width.
func (m *image) set(rec uint64, field string, v any) {
	b := m.mem[rec-m.base+off(field):]
	switch v := v.(type) {
	case uint32:
		binary.LittleEndian.PutUint32(b, v)
	case int32:
		binary.LittleEndian.PutUint32(b, uint32(v))
	case uint64:
		binary.LittleEndian.PutUint64(b, v)
	case int64:
		binary.LittleEndian.PutUint64(b, uint64(v))
	case string:
		copy(b, v)
	default:
		panic(fmt.Sprintf("set %s: %T", field, v))
	}
}

func (m *image) reader() bytesReader { return bytesReader{base: m.base, data: m.mem} }

// bytesReader is the image's memory for the decoder: data is the memory
// at address base, and an address outside it cannot be read, as in a
// process.
type bytesReader struct {
	base uint64
	data []byte
}

func (b bytesReader) ReadAt(p []byte, addr uint64) error {
	if addr < b.base || addr-b.base > uint64(len(b.data)) || uint64(len(p)) > uint64(len(b.data))-(addr-b.base) {
		return fmt.Errorf("address %#x (%d bytes) is outside %#x..%#x", addr, len(p), b.base, b.base+uint64(len(b.data)))
	}
	copy(p, b.data[addr-b.base:])
	return nil
}

// callID is the call id of an MPI function the shim wraps; it panics for
// any other name, which would be a mistake in the test's image.
func callID(name string) int {
	for id := 0; calls.Name(id) != ""; id++ {
		if calls.Name(id) == name {
			return id
		}
	}
	panic("the shim wraps no " + name)
}

// table puts n records into the named table (chunks of 1, 2, 4, ...
// records), calling fill for each.
func (m *image) table(name, rec string, n int, fill func(i int, at uint64)) {
	t := m.base + off("mpidbg_registry."+name)
	size := int(off(rec))
	m.set(t, "mpidbg_table.rec_size", uint32(size))
	m.set(t, "mpidbg_table.count", uint32(n))
	m.set(t, "mpidbg_table.first_chunk", uint32(1))
	done := 0
	for c := 0; done < n; c++ {
		k := 1 << c
		chunk := m.alloc(k * size)
		binary.LittleEndian.PutUint64(m.mem[t-m.base+off("mpidbg_table.chunks")+uint64(8*c):], chunk)
		for j := 0; j < k && done < n; j++ {
			fill(done, chunk+uint64(j*size))
			done++
		}
	}
}

func (m *image) array(v any) uint64 {
	b, _ := binary.Append(nil, binary.LittleEndian, v)
	a := m.alloc(len(b))
	copy(m.mem[a-m.base:], b)
	return a
}

// MPICH's predefined handles.
const (
	hChar, hInt, hDouble, hLB, hUB = 0x4c000101, 0x4c000405, 0x4c00080b, 0x4c000010, 0x4c000011
	hSType, hHalo, hSub, hGone     = 0x8c000001, 0x8c000002, 0x8c000003, 0x8c000004
	hWorld, hDup                   = 0x44000000, 0x84000001
	hRecv, hSend, hDone            = 0xac000003, 0xac000001, 0xac000002
	hWin, hOp, hGroup              = 0xa0000000, 0x98000000, 0x88000000
)

type typeRec struct {
	handle   uint64
	combiner datatype.Combiner
	ints     []int32
	addrs    []int64
	types    []uint64
	state    registry.State
	size     int64
	extent   int64
	name     string
}

// exampleImage: the s_type struct, a vector of it (halo), an
// uncommitted subarray, a freed contiguous type; three requests (one
// completed), two communicators, a window, an op, a group, a buffer of
// three s_type instances, and a findings ring of 2 that saw 3.
func exampleImage() (m *image, buf uint64) {
	m = newImage()
	h := m.base
	m.set(h, "mpidbg_registry.magic", "MPIDBGR\x00")
	m.set(h, "mpidbg_registry.version", uint32(registry.Version))
	m.set(h, "mpidbg_registry.header_size", uint32(off("mpidbg_registry")))
	m.set(h, "mpidbg_registry.mpi", uint32(registry.MPICH))
	m.set(h, "mpidbg_registry.handle_size", uint32(4))
	m.set(h, "mpidbg_registry.world_rank", int32(1))
	m.set(h, "mpidbg_registry.world_size", int32(4))
	m.set(h, "mpidbg_registry.pid", int32(4242))
	m.set(h, "mpidbg_registry.flags", uint32(1))

	pre := []struct {
		h uint64
		b datatype.Basic
	}{{hChar, datatype.Char}, {hInt, datatype.Int}, {hDouble, datatype.Double}, {hLB, datatype.LB}, {hUB, datatype.UB}}
	m.table("predefined", "mpidbg_predef", len(pre), func(i int, a uint64) {
		m.set(a, "mpidbg_predef.handle", pre[i].h)
		m.set(a, "mpidbg_predef.basic", int32(pre[i].b))
	})
	types := []typeRec{
		{hSType, datatype.CombinerStruct, []int32{5, 1, 5, 7, 2, 1}, []int64{-4, 0, 47, 76, 100},
			[]uint64{hLB, hInt, hChar, hDouble, hUB}, registry.Live | registry.Committed, 43, 104, "s_type"},
		{hHalo, datatype.CombinerVector, []int32{2, 1, 2}, nil, []uint64{hSType}, registry.Live | registry.Committed, 86, 312, "halo"},
		{hSub, datatype.CombinerSubarray, []int32{2, 4, 5, 2, 3, 1, 1, 56}, nil, []uint64{hDouble}, registry.Live, 48, 160, ""},
		{hGone, datatype.CombinerContiguous, []int32{3}, nil, []uint64{hInt}, registry.Freed, 12, 12, "gone"},
	}
	m.table("types", "mpidbg_type", len(types), func(i int, a uint64) {
		t := types[i]
		m.set(a, "mpidbg_type.handle", t.handle)
		m.set(a, "mpidbg_type.site", uint64(0x401000+16*i))
		m.set(a, "mpidbg_type.ints", m.array(t.ints))
		m.set(a, "mpidbg_type.addrs", m.array(t.addrs))
		m.set(a, "mpidbg_type.types", m.array(t.types))
		m.set(a, "mpidbg_type.nints", int32(len(t.ints)))
		m.set(a, "mpidbg_type.naddrs", int32(len(t.addrs)))
		m.set(a, "mpidbg_type.ntypes", int32(len(t.types)))
		m.set(a, "mpidbg_type.combiner", int32(t.combiner))
		m.set(a, "mpidbg_type.state", uint32(t.state))
		m.set(a, "mpidbg_type.serial", uint32(i+1))
		m.set(a, "mpidbg_type.size", t.size)
		m.set(a, "mpidbg_type.extent", t.extent)
		m.set(a, "mpidbg_type.overlap_count", int64(-1))
		m.set(a, "mpidbg_type.name", t.name)
		if t.state.Has(registry.Freed) {
			m.set(a, "mpidbg_type.free_site", uint64(0x402000))
		}
	})

	buf = m.alloc(3 * 104)
	for r := 0; r < 3; r++ {
		b := m.mem[buf-m.base+uint64(104*r):]
		for i := range 5 {
			binary.LittleEndian.PutUint32(b[4+4*i:], uint32(10*r+i))
		}
		copy(b[51:], "abcdefg")
		binary.LittleEndian.PutUint64(b[80:], math.Float64bits(1.5+float64(r)))
		binary.LittleEndian.PutUint64(b[88:], math.Float64bits(-2.25))
	}
	buf += 4 // the buffer pointer: s_type's lb is -4

	reqs := []struct {
		h             uint64
		kind          registry.ReqKind
		call          string
		buf, dt, comm uint64
		count         int64
		peer, tag     int32
		state         registry.State
	}{
		{hRecv, registry.ReqRecv, "MPI_Irecv", buf, hHalo, hWorld, 1, -2, -1, registry.Live | registry.Active},
		{hDone, registry.ReqSend, "MPI_Isend", 0x601000, hInt, hWorld, 4, 0, 5, registry.Freed},
		{hSend, registry.ReqSend, "MPI_Send_init", 0x601000, hInt, hDup, 4, 2, 9, registry.Live | registry.Persistent},
	}
	m.table("requests", "mpidbg_request", len(reqs), func(i int, a uint64) {
		q := reqs[i]
		m.set(a, "mpidbg_request.handle", q.h)
		m.set(a, "mpidbg_request.site", uint64(0x401800+16*i))
		m.set(a, "mpidbg_request.buf", q.buf)
		m.set(a, "mpidbg_request.datatype", q.dt)
		m.set(a, "mpidbg_request.comm", q.comm)
		m.set(a, "mpidbg_request.count", q.count)
		m.set(a, "mpidbg_request.peer", q.peer)
		m.set(a, "mpidbg_request.tag", q.tag)
		m.set(a, "mpidbg_request.call", int32(callID(q.call)))
		m.set(a, "mpidbg_request.state", uint32(q.state))
		m.set(a, "mpidbg_request.serial", uint32(i+1))
		m.set(a, "mpidbg_request.kind", uint32(q.kind))
	})
	m.table("comms", "mpidbg_comm", 2, func(i int, a uint64) {
		m.set(a, "mpidbg_comm.size", int32(4))
		m.set(a, "mpidbg_comm.rank", int32(1))
		m.set(a, "mpidbg_comm.serial", uint32(i+1))
		if i == 0 {
			m.set(a, "mpidbg_comm.handle", uint64(hWorld))
			m.set(a, "mpidbg_comm.world_ranks", m.array([]int32{0, 1, 2, 3}))
			m.set(a, "mpidbg_comm.state", uint32(registry.Live|registry.Predef))
			m.set(a, "mpidbg_comm.name", "MPI_COMM_WORLD")
			return
		}
		m.set(a, "mpidbg_comm.handle", uint64(hDup))
		m.set(a, "mpidbg_comm.site", uint64(0x401900))
		m.set(a, "mpidbg_comm.state", uint32(registry.Live))
	})
	m.table("groups", "mpidbg_group", 1, func(i int, a uint64) {
		m.set(a, "mpidbg_group.handle", uint64(hGroup))
		m.set(a, "mpidbg_group.world_ranks", m.array([]int32{3, 1}))
		m.set(a, "mpidbg_group.size", int32(2))
		m.set(a, "mpidbg_group.rank", int32(1))
		m.set(a, "mpidbg_group.state", uint32(registry.Live))
	})
	m.table("ops", "mpidbg_op", 1, func(i int, a uint64) {
		m.set(a, "mpidbg_op.handle", uint64(hOp))
		m.set(a, "mpidbg_op.fn", uint64(0x401234))
		m.set(a, "mpidbg_op.commute", int32(1))
		m.set(a, "mpidbg_op.state", uint32(registry.Live))
	})
	m.table("wins", "mpidbg_win", 1, func(i int, a uint64) {
		m.set(a, "mpidbg_win.handle", uint64(hWin))
		m.set(a, "mpidbg_win.base", uint64(0x602000))
		m.set(a, "mpidbg_win.size", int64(4096))
		m.set(a, "mpidbg_win.comm", uint64(hWorld))
		m.set(a, "mpidbg_win.disp_unit", int32(8))
		m.set(a, "mpidbg_win.state", uint32(registry.Live|registry.Freed))
	})

	// a Python script's call site, which finding 2 names (registry.PySite)
	m.table("pysites", "mpidbg_pysite", 1, func(i int, a uint64) {
		m.set(a, "mpidbg_pysite.file", m.array([]byte("/home/u/solver.py\x00")))
		m.set(a, "mpidbg_pysite.function", m.array([]byte("Solver.step\x00")))
		m.set(a, "mpidbg_pysite.native", uint64(0x7f0000400123))
		m.set(a, "mpidbg_pysite.line", int32(42))
	})

	fs := int(off("mpidbg_finding"))
	ring := m.alloc(2 * fs)
	m.set(h, "mpidbg_registry.findings_total", uint64(3))
	m.set(h, "mpidbg_registry.findings_cap", uint32(2))
	m.set(h, "mpidbg_registry.findings", ring)
	for n := uint64(2); n <= 3; n++ {
		f := ring + ((n-1)%2)*uint64(fs)
		m.set(f, "mpidbg_finding.seq", n)
		m.set(f, "mpidbg_finding.site", 0x401a00+n)
		if n == 2 {
			m.set(f, "mpidbg_finding.site", registry.PySiteTag)
		}
		m.set(f, "mpidbg_finding.rank", int32(1))
		m.set(f, "mpidbg_finding.severity", uint32(n-2))
		m.set(f, "mpidbg_finding.id", "type-not-committed")
		m.set(f, "mpidbg_finding.category", "datatype-lifecycle")
		m.set(f, "mpidbg_finding.call", "MPI_Send")
		m.set(f, "mpidbg_finding.message", fmt.Sprintf("finding number %d", n))
		if n == 3 {
			m.set(f, "mpidbg_finding.path", "s_type(STRUCT)[2][5](CHAR)")
			m.set(f, "mpidbg_finding.related_site", uint64(0x401000))
		}
	}
	return m, buf
}
