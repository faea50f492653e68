package registry

import (
	"bytes"
	"fmt"

	"github.com/mpidbg/mpidbg/checks"
)

// Python call sites (reg.h, struct mpidbg_pysite): a site with PySiteTag
// set is no code address but the index of a record naming a Python
// script's file, line and function, and the native code that called MPI.
const PySiteTag = uint64(1) << 63

// IsPySite says whether a site value (any record's or finding's site) is
// a Python call site.
func IsPySite(site uint64) bool { return site&PySiteTag != 0 }

// PySite is a Python call site's record.
type PySite struct {
	File     string // the script's absolute path
	Function string // the code object's qualified name: "main", "Solver.step", "<module>"
	Line     int    // 0 unknown
	Native   uint64 // return address of the native call into MPI, 0 none
	Code     uint64 // the code object's address, an identity only
	Offset   uint32 // the call's instruction, in code units
}

// Location is the script's place, as a finding's Site.Script names it
// (its String is "file:line in function", as a report writes it).
func (p PySite) Location() checks.Location {
	return checks.Location{File: p.File, Line: p.Line, Function: p.Function}
}

// maxPathLen bounds the strings a Python site record points at.
const maxPathLen = 4096

// PySite reads the record of a Python call site, with its strings. Sites
// are read one by one, when named: a rank interns one per line that
// calls MPI, which a debugger rarely needs all of.
func (h *Header) PySite(r Reader, site uint64) (PySite, error) {
	if !IsPySite(site) {
		return PySite{}, fmt.Errorf("registry: site %#x is not a Python site", site)
	}
	i := uint32(site)
	t := &h.pysites
	if i >= t.count {
		return PySite{}, &FormatError{Addr: t.addr + 4, Field: "mpidbg_registry.pysites.count",
			Msg: fmt.Sprintf("site %#x names record %d of %d", site, i, t.count)}
	}
	a, err := t.recordAddr(i)
	if err != nil {
		return PySite{}, err
	}
	x, err := read(r, a, pysiteSize, "mpidbg_pysite")
	if err != nil {
		return PySite{}, err
	}
	p := PySite{Native: x.u64(16), Code: x.u64(24), Line: int(x.i32(32)), Offset: x.u32(36)}
	if p.File, err = cString(r, x.u64(0), "mpidbg_pysite.file"); err != nil {
		return PySite{}, err
	}
	if p.Function, err = cString(r, x.u64(8), "mpidbg_pysite.function"); err != nil {
		return PySite{}, err
	}
	return p, nil
}

// cString reads a NUL-terminated string at addr, in pieces up to the
// next 64-byte boundary (never across a page), a byte at a time where
// such a piece cannot be read (the end of what a reader has).
func cString(r Reader, addr uint64, field string) (string, error) {
	if addr == 0 {
		return "", nil
	}
	var out []byte
	for len(out) < maxPathLen {
		b := make([]byte, 64-addr%64)
		if err := r.ReadAt(b, addr); err != nil {
			b = b[:1]
			if err := r.ReadAt(b, addr); err != nil {
				return "", &FormatError{Addr: addr, Field: field, Msg: "unreadable", Err: err}
			}
		}
		if i := bytes.IndexByte(b, 0); i >= 0 {
			return string(append(out, b[:i]...)), nil
		}
		out = append(out, b...)
		addr += uint64(len(b))
	}
	return "", &FormatError{Addr: addr, Field: field, Msg: fmt.Sprintf("no NUL in %d bytes", maxPathLen)}
}
