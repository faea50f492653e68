package registry

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// Reader reads len(p) bytes of the target's memory at address addr; an
// address that cannot be read is an error.
type Reader interface {
	ReadAt(p []byte, addr uint64) error
}

// FormatError reports registry memory that does not decode: which field,
// at which address, and what is wrong with it.
type FormatError struct {
	Addr  uint64 // address of the field
	Field string // e.g. "mpidbg_type.nints"
	Msg   string
	Err   error // the reader's error, if reading failed
}

func (e *FormatError) Error() string {
	s := fmt.Sprintf("registry: %s at %#x: %s", e.Field, e.Addr, e.Msg)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *FormatError) Unwrap() error { return e.Err }

// rec is one structure read into memory, decoded field by field.
type rec struct {
	addr uint64
	name string
	b    []byte
}

func read(r Reader, addr uint64, size int, name string) (rec, error) {
	b := make([]byte, size)
	if err := r.ReadAt(b, addr); err != nil {
		return rec{}, &FormatError{Addr: addr, Field: name, Msg: "unreadable", Err: err}
	}
	return rec{addr: addr, name: name, b: b}, nil
}

var le = binary.LittleEndian

func (r rec) u32(off int) uint32 { return le.Uint32(r.b[off:]) }
func (r rec) i32(off int) int32  { return int32(le.Uint32(r.b[off:])) }
func (r rec) u64(off int) uint64 { return le.Uint64(r.b[off:]) }
func (r rec) i64(off int) int64  { return int64(le.Uint64(r.b[off:])) }

// str reads a NUL-terminated string from a fixed-size field.
func (r rec) str(off, size int) string {
	f := r.b[off : off+size]
	if i := bytes.IndexByte(f, 0); i >= 0 {
		f = f[:i]
	}
	return string(f)
}

func (r rec) fail(off int, field, format string, args ...any) error {
	return &FormatError{Addr: r.addr + uint64(off), Field: r.name + "." + field, Msg: fmt.Sprintf(format, args...)}
}

// count checks a length field against a limit.
func (r rec) count(off int, field string, limit int64) (int, error) {
	v := int64(r.i32(off))
	if v < 0 || v > limit {
		return 0, r.fail(off, field, "%d is not between 0 and %d", v, limit)
	}
	return int(v), nil
}

// array reads n little-endian values of size bytes each at addr.
func array(r Reader, addr uint64, n, size int, field string) ([]byte, error) {
	if n == 0 {
		return nil, nil
	}
	if addr == 0 {
		return nil, &FormatError{Addr: addr, Field: field, Msg: fmt.Sprintf("null address for %d entries", n)}
	}
	b := make([]byte, n*size)
	if err := r.ReadAt(b, addr); err != nil {
		return nil, &FormatError{Addr: addr, Field: field, Msg: "unreadable", Err: err}
	}
	return b, nil
}

func int32s(r Reader, addr uint64, n int, field string) ([]int32, error) {
	b, err := array(r, addr, n, 4, field)
	out := make([]int32, n)
	for i := range out {
		if err == nil {
			out[i] = int32(le.Uint32(b[4*i:]))
		}
	}
	return out, err
}

func int64s(r Reader, addr uint64, n int, field string) ([]int64, error) {
	b, err := array(r, addr, n, 8, field)
	out := make([]int64, n)
	for i := range out {
		if err == nil {
			out[i] = int64(le.Uint64(b[8*i:]))
		}
	}
	return out, err
}

func uint64s(r Reader, addr uint64, n int, field string) ([]uint64, error) {
	b, err := array(r, addr, n, 8, field)
	out := make([]uint64, n)
	for i := range out {
		if err == nil {
			out[i] = le.Uint64(b[8*i:])
		}
	}
	return out, err
}
