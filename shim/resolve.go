package main

/*
#include "engine.h"
*/
import "C"

import (
	"debug/dwarf"
	"debug/elf"
	"sort"
	"sync"

	"github.com/mpidbg/mpidbg/checks"
)

// Resolving sites to file:line is the launcher's job; a rank resolves
// only for its standard-error lines, when no launcher listens. Modules
// are read once and kept.

type module struct {
	lines []lineEntry // sorted by address
	funcs []elf.Symbol
}

type lineEntry struct {
	addr uint64
	file string
	line int
}

var modules struct {
	sync.Mutex
	m map[string]*module
}

func loadModule(path string) *module {
	modules.Lock()
	defer modules.Unlock()
	if modules.m == nil {
		modules.m = map[string]*module{}
	}
	if m, ok := modules.m[path]; ok {
		return m
	}
	m := &module{}
	modules.m[path] = m
	f, err := elf.Open(path)
	if err != nil {
		return m
	}
	defer f.Close()
	if syms, err := f.Symbols(); err == nil {
		for _, s := range syms {
			if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Value != 0 {
				m.funcs = append(m.funcs, s)
			}
		}
		sort.Slice(m.funcs, func(i, j int) bool { return m.funcs[i].Value < m.funcs[j].Value })
	}
	d, err := f.DWARF()
	if err != nil {
		return m
	}
	r := d.Reader()
	for {
		e, err := r.Next()
		if err != nil || e == nil {
			break
		}
		if e.Tag != dwarf.TagCompileUnit {
			r.SkipChildren()
			continue
		}
		lr, err := d.LineReader(e)
		if err != nil || lr == nil {
			continue
		}
		var le dwarf.LineEntry
		for lr.Next(&le) == nil {
			if le.File != nil && !le.EndSequence {
				m.lines = append(m.lines, lineEntry{le.Address, le.File.Name, le.Line})
			}
		}
	}
	sort.SliceStable(m.lines, func(i, j int) bool { return m.lines[i].addr < m.lines[j].addr })
	return m
}

// resolve finds the source line of the call that returns to s.Offset.
func resolve(s checks.Site) (checks.Location, bool) {
	m := loadModule(s.Module)
	pc := s.Offset - 1 // inside the call instruction
	var loc checks.Location
	if i := sort.Search(len(m.lines), func(i int) bool { return m.lines[i].addr > pc }); i > 0 {
		loc.File, loc.Line = m.lines[i-1].file, m.lines[i-1].line
	}
	if i := sort.Search(len(m.funcs), func(i int) bool { return m.funcs[i].Value > pc }); i > 0 {
		f := m.funcs[i-1]
		if f.Size == 0 || pc < f.Value+f.Size {
			loc.Function = f.Name
		}
	}
	return loc, loc.File != "" || loc.Function != ""
}

func mpiWorldSize() int { return int(C.mpidbg_world_size_get()) }
