package registry

import (
	"strings"
	"testing"
)

// pysiteImage is a registry with two Python call sites; the second's
// file name is longer than one piece of cString's reads.
func pysiteImage() *image {
	m := newImage()
	m.header(0, 2)
	long := "/home/u/" + strings.Repeat("deep/", 30) + "app.py"
	recs := []struct {
		file, fn string
		line     int32
		native   uint64
	}{{"/home/u/app.py", "<module>", 7, 0x7f0000400123}, {long, "Solver.step", 42, 0}}
	m.table(7, pysiteSize, len(recs), 1, func(i int, a uint64) {
		f := m.alloc(len(recs[i].file) + 1)
		m.str(f, recs[i].file)
		fn := m.alloc(len(recs[i].fn) + 1)
		m.str(fn, recs[i].fn)
		m.u64(a, f)
		m.u64(a+8, fn)
		m.u64(a+16, recs[i].native)
		m.u64(a+24, 0x7f0000009000)
		m.u32(a+32, uint32(recs[i].line))
		m.u32(a+36, 12)
	})
	return m
}

func TestPySite(t *testing.T) {
	m := pysiteImage()
	h, err := ReadHeader(m.reader(), m.base)
	if err != nil {
		t.Fatal(err)
	}
	p, err := h.PySite(m.reader(), PySiteTag|0)
	if err != nil {
		t.Fatal(err)
	}
	want := PySite{File: "/home/u/app.py", Function: "<module>", Line: 7, Native: 0x7f0000400123, Code: 0x7f0000009000, Offset: 12}
	if p != want {
		t.Errorf("site 0: %+v, want %+v", p, want)
	}
	if got := p.Location().String(); got != "/home/u/app.py:7 in <module>" {
		t.Errorf("Location: %q", got)
	}
	p, err = h.PySite(m.reader(), PySiteTag|1)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(p.File, "/deep/app.py") || len(p.File) < 150 || p.Function != "Solver.step" || p.Line != 42 {
		t.Errorf("site 1: %+v", p)
	}
	for _, bad := range []uint64{PySiteTag | 2, 0x401000} {
		if _, err := h.PySite(m.reader(), bad); err == nil {
			t.Errorf("site %#x: no error", bad)
		}
	}
}

// A header from before the pysites table (header_size 1976) still
// decodes, with no Python sites.
func TestPySiteOldHeader(t *testing.T) {
	m := pysiteImage()
	m.u32(m.base+12, headerSizeV1)
	h, err := ReadHeader(m.reader(), m.base)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.PySite(m.reader(), PySiteTag|0); err == nil {
		t.Error("a site in a header without the table: no error")
	}
	if _, err := ReadSnapshot(m.reader(), m.base); err != nil {
		t.Error(err)
	}
}
