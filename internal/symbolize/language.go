package symbolize

import (
	"debug/dwarf"

	"github.com/mpidbg/mpidbg/checks"
)

// Language is the source language of a compilation unit, as its DWARF
// DW_AT_language says (DWARF 5 section 7.12).
type Language uint8

const (
	LangUnknown Language = iota // no DWARF for the address, or another language
	LangC
	LangCXX
	LangFortran
)

// Language returns the language of the unit whose code holds the call
// that returns to site.Offset (the address before it, like Resolve).
func (r *Resolver) Language(site checks.Site) Language {
	r.mu.Lock()
	defer r.mu.Unlock()
	m, ok := r.modules[site.Module]
	if !ok {
		m = load(site.Module, r.DebugDirs)
		r.modules[site.Module] = m
	}
	if m.err != nil || m.d == nil {
		return LangUnknown
	}
	pc := site.Offset
	if pc > 0 {
		pc--
	}
	cu := m.unit(pc)
	switch {
	case cu == nil:
		return LangUnknown
	case isFortran(cu):
		return LangFortran
	case isCXX(cu):
		return LangCXX
	}
	switch lang, _ := cu.Val(dwarf.AttrLanguage).(int64); lang {
	case 0x01, 0x02, 0x0c, 0x1d, 0x2c: // C89, C, C99, C11, C17
		return LangC
	}
	return LangUnknown
}
