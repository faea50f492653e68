package registry

import (
	"encoding/binary"
	"fmt"

	"github.com/mpidbg/mpidbg/datatype"
)

// image lays out a registry in a flat byte slice at a base address, the
// way the shim does in a process, for the decoder's tests.
type image struct {
	base uint64
	mem  []byte
}

const imageBase = 0x7f0000001000

func newImage() *image { return &image{base: imageBase, mem: make([]byte, headerSize)} }

func (m *image) alloc(n int) uint64 {
	for len(m.mem)%8 != 0 {
		m.mem = append(m.mem, 0)
	}
	a := m.base + uint64(len(m.mem))
	m.mem = append(m.mem, make([]byte, n)...)
	return a
}

func (m *image) at(addr uint64) []byte     { return m.mem[addr-m.base:] }
func (m *image) u32(addr uint64, v uint32) { binary.LittleEndian.PutUint32(m.at(addr), v) }
func (m *image) u64(addr uint64, v uint64) { binary.LittleEndian.PutUint64(m.at(addr), v) }
func (m *image) str(addr uint64, s string) { copy(m.at(addr), s) }

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

// header writes the fixed part; tables are filled by addRecords.
func (m *image) header(rank, size int32) {
	h := m.base
	m.str(h, magic)
	m.u32(h+8, Version)
	m.u32(h+12, headerSize)
	m.u32(h+24, uint32(MPICH))
	m.u32(h+28, 4)
	m.u32(h+32, uint32(rank))
	m.u32(h+36, uint32(size))
	m.u32(h+40, 4242)
	m.u32(h+44, 1)
}

// table puts records (each already laid out by fill) into table ti with
// chunks of first records, then 2*first, ...
func (m *image) table(ti int, recSize int, n int, first uint32, fill func(i int, addr uint64)) {
	t := m.base + 72 + uint64(ti*tableSize)
	m.u32(t, uint32(recSize))
	m.u32(t+4, uint32(n))
	m.u32(t+8, first)
	done := 0
	for c := 0; done < n; c++ {
		k := int(first) << c
		chunk := m.alloc(k * recSize)
		m.u64(t+16+uint64(8*c), chunk)
		for j := 0; j < k && done < n; j++ {
			fill(done, chunk+uint64(j*recSize))
			done++
		}
	}
}

func (m *image) int32s(v []int32) uint64 {
	a := m.alloc(4 * len(v))
	for i, x := range v {
		m.u32(a+uint64(4*i), uint32(x))
	}
	return a
}

func (m *image) int64s(v []int64) uint64 {
	a := m.alloc(8 * len(v))
	for i, x := range v {
		m.u64(a+uint64(8*i), uint64(x))
	}
	return a
}

func (m *image) handles(v []uint64) uint64 {
	a := m.alloc(8 * len(v))
	for i, x := range v {
		m.u64(a+uint64(8*i), x)
	}
	return a
}

type typeRec struct {
	handle   uint64
	combiner datatype.Combiner
	ints     []int32
	addrs    []int64
	types    []uint64
	state    State
	serial   uint32
	name     string
}

func (m *image) typeRecord(addr uint64, t typeRec) {
	m.u64(addr, t.handle)
	m.u64(addr+8, 0x401000+t.handle)
	m.u64(addr+24, m.int32s(t.ints))
	m.u64(addr+32, m.int64s(t.addrs))
	m.u64(addr+40, m.handles(t.types))
	m.u32(addr+48, uint32(len(t.ints)))
	m.u32(addr+52, uint32(len(t.addrs)))
	m.u32(addr+56, uint32(len(t.types)))
	m.u32(addr+60, uint32(t.combiner))
	m.u32(addr+64, uint32(t.state))
	m.u32(addr+68, t.serial)
	m.u64(addr+112, ^uint64(0))
	m.str(addr+120, t.name)
}

// MPICH's handles for the predefined types the tests use.
var testPredef = map[uint64]datatype.Basic{
	0x4c000101: datatype.Char, 0x4c000405: datatype.Int, 0x4c00080b: datatype.Double,
	0x4c000010: datatype.LB, 0x4c000011: datatype.UB,
}

// exampleImage: the struct, a vector of it, a subarray, a darray,
// a request, a communicator and two findings in a ring of 2 (3 recorded).
func exampleImage() *image {
	m := newImage()
	m.header(1, 4)
	var pre []uint64
	for h := range testPredef {
		pre = append(pre, h)
	}
	m.table(0, predefSize, len(pre), 2, func(i int, a uint64) {
		m.u64(a, pre[i])
		m.u32(a+8, uint32(testPredef[pre[i]]))
	})
	types := []typeRec{
		{handle: 0x8c000001, combiner: datatype.CombinerStruct, ints: []int32{5, 1, 5, 7, 2, 1},
			addrs: []int64{-4, 0, 47, 76, 100}, types: []uint64{0x4c000010, 0x4c000405, 0x4c000101, 0x4c00080b, 0x4c000011},
			state: Live | Committed, serial: 1, name: "s_type"},
		{handle: 0x8c000002, combiner: datatype.CombinerVector, ints: []int32{3, 2, 4}, types: []uint64{0x8c000001},
			state: Live | Committed, serial: 2, name: "halo"},
		{handle: 0x8c000003, combiner: datatype.CombinerSubarray, ints: []int32{2, 4, 5, 2, 3, 1, 1, 57}, types: []uint64{0x4c00080b},
			state: Live, serial: 3},
		{handle: 0x8c000004, combiner: datatype.CombinerDarray,
			ints:  []int32{6, 5, 2, 10, 7, 121, 122, -49767, 2, 3, 2, 56},
			types: []uint64{0x4c000405}, state: Freed, serial: 4},
	}
	m.table(1, typeRecSize, len(types), 1, func(i int, a uint64) { m.typeRecord(a, types[i]) })
	m.table(2, reqRecSize, 1, 4, func(i int, a uint64) {
		m.u64(a, 0xac000003)
		m.u64(a+16, 0x601000)
		m.u64(a+24, 0x8c000002)
		m.u64(a+32, 0x44000000)
		m.u64(a+40, 2)
		m.u32(a+48, 3)
		m.u32(a+52, 7)
		m.u32(a+60, uint32(Live|Active))
		m.u32(a+68, uint32(ReqRecv))
	})
	m.table(3, commRecSize, 1, 4, func(i int, a uint64) {
		m.u64(a, 0x44000000)
		m.u64(a+16, m.int32s([]int32{0, 1, 2, 3}))
		m.u32(a+24, 4)
		m.u32(a+28, 1)
		m.u32(a+36, uint32(Live|Predef))
		m.str(a+48, "MPI_COMM_WORLD")
	})
	ring := m.alloc(2 * findingSize)
	h := m.base
	m.u64(h+48, 3)
	m.u32(h+56, 2)
	m.u64(h+64, ring)
	for n := uint64(2); n <= 3; n++ {
		f := ring + ((n-1)%2)*findingSize
		m.u64(f, n)
		m.u32(f+24, 1)
		m.str(f+32, "type-not-committed")
		m.str(f+104, "MPI_Send")
		m.str(f+344, "finding number "+string(rune('0'+n)))
	}
	return m
}
