// Package symbolize turns code addresses that ranks report (a module path
// and an offset in it, checks.Site) into source
// locations (file, line, function, checks.Location), with the module's
// DWARF debug information, or with its symbol table when it has none.
// C++ and Rust function names are demangled (demangle.go).
//
// An offset is an address in the module's own terms, the ELF virtual
// address its DWARF and symbols use: the shim computes it as the code
// address minus the module's load bias (link_map's l_addr), which is the
// load address for position-independent code and 0 for a classic
// executable linked at 0x400000. Sites are return addresses, which point
// after the call instruction, so the address looked up is one byte
// before: the call itself, on the line that made it.
//
// A module without DWARF line tables may have them in a separate debug
// file, found as gdb finds it: by its GNU build id under each debug
// directory (DIR/.build-id/ab/cdef....debug), then by its .gnu_debuglink
// name (with the CRC it records) beside the module, in its .debug
// folder, and under each debug directory followed by the module's own
// directory.
//
// The report (mpidbg run) and the shim, for the lines a rank writes on
// standard error when no launcher listens, both resolve with this
// package, so that one site gets one answer.
package symbolize

import (
	"bytes"
	"debug/dwarf"
	"debug/elf"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/mpidbg/mpidbg/checks"
)

// ErrNotFound is wrapped by Resolve's errors when the module has no
// information about the address (no line, no symbol covers it).
var ErrNotFound = errors.New("no symbol covers the address")

// ModuleError is a problem with a whole module: it cannot be opened or is
// not an ELF file. Resolve returns the same error for every address of
// the module.
type ModuleError struct {
	Path string
	Err  error
}

func (e *ModuleError) Error() string      { return e.Err.Error() }
func (e *ModuleError) Unwrap() error      { return e.Err }
func (e *ModuleError) ModulePath() string { return e.Path }

// Resolver resolves sites, caching each module's tables and each answer.
// It is safe for concurrent use. The zero value is not usable: use New.
type Resolver struct {
	// DebugDirs are searched for separate debug files, by build id
	// (DIR/.build-id/ab/cdef....debug) and by debug link
	// (DIR/MODULE-DIR/NAME). New sets /usr/lib/debug.
	DebugDirs []string

	mu      sync.Mutex
	modules map[string]*module
	answers map[checks.Site]answer
	bounds  map[boundsKey][]int64 // LowerBounds (bounds.go)
}

type answer struct {
	loc checks.Location
	err error
}

// New returns a Resolver with an empty cache.
func New() *Resolver {
	return &Resolver{
		DebugDirs: []string{"/usr/lib/debug"},
		modules:   map[string]*module{},
		answers:   map[checks.Site]answer{},
	}
}

// Resolve returns the source location of site. Without DWARF for the
// address it returns the function from the symbol table and an empty
// file, and a nil error; with no symbol either, an error wrapping
// ErrNotFound. A module that cannot be read gives a *ModuleError.
func (r *Resolver) Resolve(site checks.Site) (checks.Location, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if a, ok := r.answers[site]; ok {
		return a.loc, a.err
	}
	m, ok := r.modules[site.Module]
	if !ok {
		m = load(site.Module, r.DebugDirs)
		r.modules[site.Module] = m
	}
	var a answer
	if m.err != nil {
		a.err = m.err
	} else {
		a.loc, a.err = m.resolve(site.Offset)
	}
	r.answers[site] = a
	return a.loc, a.err
}

// module is what one ELF file says about its addresses.
type module struct {
	path string
	err  error       // the module cannot be used at all
	d    *dwarf.Data // nil without DWARF
	cus  []cuRange   // sorted by lo
	syms []symbol    // function symbols sorted by value

	parents map[dwarf.Offset]map[dwarf.Offset]dwarf.Offset // per C++ unit: scope entries' parents (demangle.go)
}

type cuRange struct {
	lo, hi uint64
	cu     *dwarf.Entry
}

type symbol struct {
	value, size uint64
	name        string
}

// load reads path's program headers, symbols and DWARF. It never panics:
// a malformed file is a ModuleError.
func load(path string, debugDirs []string) (m *module) {
	m = &module{path: path}
	defer func() {
		if p := recover(); p != nil {
			m.err = &ModuleError{path, fmt.Errorf("malformed ELF file %s: %v", path, p)}
		}
	}()
	if path == "" {
		m.err = &ModuleError{path, errors.New("no module path")}
		return m
	}
	f, err := elf.Open(path)
	if err != nil {
		m.err = &ModuleError{path, fmt.Errorf("read %s: %w", path, unwrapFormat(err))}
		return m
	}
	defer f.Close()
	if !slices.ContainsFunc(f.Progs, func(p *elf.Prog) bool { return p.Type == elf.PT_LOAD }) {
		m.err = &ModuleError{path, fmt.Errorf("%s has no loadable segment", path)}
		return m
	}
	m.syms = functionSymbols(f)

	d, err := f.DWARF()
	if err != nil || !hasLines(f) {
		if dbg := separateDebug(f, path, debugDirs); dbg != nil {
			defer dbg.Close()
			d, err = dbg.DWARF()
			if len(m.syms) == 0 {
				m.syms = functionSymbols(dbg)
			}
		}
	}
	if err == nil {
		m.d = d
		m.indexUnits()
	}
	return m
}

// unwrapFormat keeps elf.Open's messages short: "not an ELF file" rather
// than the magic bytes it found.
func unwrapFormat(err error) error {
	var fe *elf.FormatError
	if errors.As(err, &fe) {
		return errors.New("not an ELF file")
	}
	return err
}

func hasLines(f *elf.File) bool {
	return f.Section(".debug_line") != nil || f.Section(".zdebug_line") != nil
}

// separateDebug opens the debug file of f, the module at path, found by
// its GNU build id or its debug link, or returns nil.
func separateDebug(f *elf.File, path string, dirs []string) *elf.File {
	if dbg := byBuildID(f, dirs); dbg != nil {
		return dbg
	}
	return byDebugLink(f, path, dirs)
}

// byBuildID opens DIR/.build-id/ab/cdef....debug for f's build id.
func byBuildID(f *elf.File, dirs []string) *elf.File {
	s := f.Section(".note.gnu.build-id")
	if s == nil {
		return nil
	}
	note, err := s.Data()
	if err != nil || len(note) < 16 {
		return nil
	}
	// namesz, descsz, type, "GNU\0", desc
	namesz := int(f.ByteOrder.Uint32(note[0:]))
	descsz := int(f.ByteOrder.Uint32(note[4:]))
	start := 12 + (namesz+3)&^3
	if start+descsz > len(note) || descsz < 2 {
		return nil
	}
	id := hex.EncodeToString(note[start : start+descsz])
	for _, dir := range dirs {
		dbg, err := elf.Open(filepath.Join(dir, ".build-id", id[:2], id[2:]+".debug"))
		if err == nil {
			return dbg
		}
	}
	return nil
}

// byDebugLink opens the file f's .gnu_debuglink section names (a file
// name, NUL-terminated and padded to 4 bytes, then the CRC-32 of the
// debug file), in the places gdb looks: beside the module (symbolic
// links followed), in .debug beside it, and under each debug directory
// with the module's directory appended. A file whose CRC differs is not
// the module's.
func byDebugLink(f *elf.File, path string, dirs []string) *elf.File {
	s := f.Section(".gnu_debuglink")
	if s == nil {
		return nil
	}
	data, err := s.Data()
	if err != nil {
		return nil
	}
	end := bytes.IndexByte(data, 0)
	if end <= 0 {
		return nil
	}
	name := string(data[:end])
	if strings.Contains(name, "/") {
		return nil
	}
	crcAt := (end + 4) &^ 3
	if crcAt+4 > len(data) {
		return nil
	}
	crc := f.ByteOrder.Uint32(data[crcAt:])
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	dir := filepath.Dir(path)
	candidates := []string{filepath.Join(dir, name), filepath.Join(dir, ".debug", name)}
	for _, d := range dirs {
		candidates = append(candidates, filepath.Join(d, dir, name))
	}
	for _, c := range candidates {
		if c == path {
			continue
		}
		if dbg := openIfCRC(c, crc); dbg != nil {
			return dbg
		}
	}
	return nil
}

// openIfCRC opens the ELF file at path when its CRC-32 is crc. The file
// is streamed through the checksum, not read whole: debug files are
// large, and the shim resolves sites inside the ranks.
func openIfCRC(path string, crc uint32) *elf.File {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	h := crc32.NewIEEE()
	_, err = io.Copy(h, f)
	f.Close()
	if err != nil || h.Sum32() != crc {
		return nil
	}
	dbg, err := elf.Open(path) // its Close closes the file
	if err != nil {
		return nil
	}
	return dbg
}

// functionSymbols returns the function symbols of the symbol table, or
// of the dynamic symbol table when the file is stripped.
func functionSymbols(f *elf.File) []symbol {
	var out []symbol
	for _, get := range []func() ([]elf.Symbol, error){f.Symbols, f.DynamicSymbols} {
		ss, err := get()
		if err != nil {
			continue
		}
		for _, s := range ss {
			if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Value != 0 && s.Section != elf.SHN_UNDEF {
				out = append(out, symbol{s.Value, s.Size, s.Name})
			}
		}
		if len(out) > 0 {
			break
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].value < out[j].value })
	return out
}

// indexUnits records the address ranges of every compilation unit.
func (m *module) indexUnits() {
	rd := m.d.Reader()
	for {
		e, err := rd.Next()
		if err != nil || e == nil {
			break
		}
		if e.Tag == dwarf.TagCompileUnit || e.Tag == dwarf.TagPartialUnit {
			rs, err := m.d.Ranges(e)
			if err == nil {
				for _, r := range rs {
					m.cus = append(m.cus, cuRange{r[0], r[1], e})
				}
			}
		}
		rd.SkipChildren()
	}
	sort.Slice(m.cus, func(i, j int) bool { return m.cus[i].lo < m.cus[j].lo })
}

// resolve looks up the address of offset (minus one: a return address).
func (m *module) resolve(offset uint64) (loc checks.Location, err error) {
	defer func() {
		if p := recover(); p != nil {
			loc, err = checks.Location{}, fmt.Errorf("%s+%#x: malformed debug information: %v", m.path, offset, p)
		}
	}()
	pc := offset
	if pc > 0 {
		pc--
	}
	if cu := m.unit(pc); cu != nil {
		loc = m.lines(cu, pc)
		loc.Function = m.function(cu, pc)
	}
	if loc.Function == "" {
		loc.Function = m.symbolAt(pc)
	}
	if loc == (checks.Location{}) {
		return loc, fmt.Errorf("%s+%#x: %w", m.path, offset, ErrNotFound)
	}
	return loc, nil
}

func (m *module) unit(pc uint64) *dwarf.Entry {
	// Ranges of different units do not overlap, so the unit is the one
	// with the last range starting at or before pc; look further back
	// only to be lenient with odd producers.
	for i := sort.Search(len(m.cus), func(i int) bool { return m.cus[i].lo > pc }) - 1; i >= 0; i-- {
		if c := m.cus[i]; pc < c.hi {
			return c.cu
		}
	}
	return nil
}

// lines finds the file and line of pc in cu's line table. The table's
// sequences are read in the order the compiler wrote them, not by
// address: C++ units have one per function in a section of its own
// (inline functions and template instances, in COMDAT groups), and the
// linker may place those before or after the unit's .text, so
// LineReader.SeekPC, which gives up when the first row lies past pc,
// misses functions of the unit that the linker placed lower.
func (m *module) lines(cu *dwarf.Entry, pc uint64) checks.Location {
	lr, err := m.d.LineReader(cu)
	if err != nil || lr == nil {
		return checks.Location{}
	}
	// A row covers the addresses from its own up to the next row's, in
	// its sequence (an end_sequence row covers nothing); of rows at one
	// address the last counts, as in SeekPC.
	var before, prev, le dwarf.LineEntry
	have := false
	for lr.Next(&le) == nil {
		if have && !prev.EndSequence && prev.Address <= pc && pc < le.Address {
			if prev.File == nil {
				return checks.Location{}
			}
			line := prev.Line
			if isFortran(cu) && !before.EndSequence && before.File == prev.File && le.File == prev.File &&
				(line < before.Line || line > le.Line) {
				if first, last := m.unitLines(cu, pc); line == first || line == last {
					line = fortranCallLine(prev.File.Name, before.Line, line, le.Line)
				}
			}
			return checks.Location{File: prev.File.Name, Line: line}
		}
		before, prev, have = prev, le, true
	}
	return checks.Location{}
}

// unitLines are the first and last lines of the innermost subprogram of
// cu whose code holds pc: its declaration's line, and the greatest line
// of the rows in its code (its END statement); 0, 0 when not found.
func (m *module) unitLines(cu *dwarf.Entry, pc uint64) (first, last int) {
	rd := m.d.Reader()
	rd.Seek(cu.Offset)
	if _, err := rd.Next(); err != nil {
		return 0, 0
	}
	var ranges [][2]uint64
	for depth := 0; ; {
		e, err := rd.Next()
		if err != nil || e == nil || (e.Tag == 0 && depth == 0) {
			break
		}
		if e.Tag == 0 {
			depth--
			continue
		}
		if e.Tag == dwarf.TagSubprogram {
			if rs, err := m.d.Ranges(e); err == nil && contains(rs, pc) {
				l, _ := e.Val(dwarf.AttrDeclLine).(int64)
				first, ranges = int(l), rs
			}
		}
		if e.Children {
			depth++
		}
	}
	lr, err := m.d.LineReader(cu)
	if err != nil || lr == nil || ranges == nil {
		return 0, 0
	}
	var le dwarf.LineEntry
	for lr.Next(&le) == nil {
		if !le.EndSequence && contains(ranges, le.Address) && le.Line > last {
			last = le.Line
		}
	}
	return first, last
}

// fortranCallLine corrects the line gfortran 12 gives a call whose
// arguments are all variables, one of them INTENT(OUT) (the mpi_f08
// module's MPI_Comm_rank(comm, rank), Open MPI's mpi module's
// MPI_Wait(req, status, ierr)): the call's row says the program unit's
// first or last line, between rows of the statements before and after
// it, and the call's own line is in no row. When the row's line is the
// unit's first or last (checked by the caller), lies outside the lines
// of its neighbours (prev and next), and those leave room for one
// statement, the call is on the line between; with more room, on the
// one line between that holds a CALL, if the source says so. Otherwise
// line stays.
func fortranCallLine(file string, prev, line, next int) int {
	if prev <= 0 || next <= prev+1 || (line > prev && line < next) {
		return line
	}
	if next == prev+2 {
		return prev + 1
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return line
	}
	src := strings.Split(string(b), "\n")
	found := 0
	for l := prev + 1; l < next && l <= len(src); l++ {
		code, _, _ := strings.Cut(strings.ToLower(src[l-1]), "!")
		if f := strings.Fields(code); len(f) > 0 && (f[0] == "call" || strings.HasPrefix(f[0], "call(")) {
			if found != 0 {
				return line // two calls: no telling which
			}
			found = l
		}
	}
	if found != 0 {
		return found
	}
	return line
}

// function names the innermost subprogram or inlined subroutine of cu
// whose ranges hold pc.
func (m *module) function(cu *dwarf.Entry, pc uint64) string {
	rd := m.d.Reader()
	rd.Seek(cu.Offset)
	if _, err := rd.Next(); err != nil { // the unit itself
		return ""
	}
	name := ""
	fortran := isFortran(cu)
	depth := 0 // of the entries rd returns next, below the unit
	for {
		e, err := rd.Next()
		if err != nil || e == nil {
			return name
		}
		if e.Tag == 0 { // end of a list of children
			if depth == 0 {
				return name
			}
			depth--
			continue
		}
		switch e.Tag {
		case dwarf.TagSubprogram, dwarf.TagInlinedSubroutine, dwarf.TagLexDwarfBlock:
			rs, err := m.d.Ranges(e)
			if err != nil || !contains(rs, pc) {
				// a Fortran procedure's contained procedures are its
				// children in DWARF, with code of their own elsewhere
				if e.Children && !(fortran && e.Tag == dwarf.TagSubprogram) {
					rd.SkipChildren()
				} else if e.Children {
					depth++
				}
				continue
			}
			if e.Tag != dwarf.TagLexDwarfBlock {
				if n := m.functionName(cu, e, pc); n != "" {
					name = n
				}
			}
		case dwarf.TagNamespace, dwarf.TagClassType, dwarf.TagStructType, dwarf.TagModule:
			// may hold subprograms (C++)
		default:
			if e.Children {
				rd.SkipChildren()
			}
			continue
		}
		if e.Children {
			depth++
		}
	}
}

func contains(rs [][2]uint64, pc uint64) bool {
	for _, r := range rs {
		if pc >= r[0] && pc < r[1] {
			return true
		}
	}
	return false
}

// originAttr is the first of attrs, a non-empty string, that e has, or
// else the entry its abstract origin or specification leads to (an
// inlined or out-of-line instance, a definition of a declaration), four
// hops at most.
func (m *module) originAttr(e *dwarf.Entry, attrs ...dwarf.Attr) string {
	for hops := 0; e != nil && hops <= 5; hops++ {
		for _, a := range attrs {
			if n, ok := e.Val(a).(string); ok && n != "" {
				return n
			}
		}
		var next *dwarf.Entry
		for _, a := range []dwarf.Attr{dwarf.AttrAbstractOrigin, dwarf.AttrSpecification} {
			if off, ok := e.Val(a).(dwarf.Offset); ok {
				rd := m.d.Reader()
				rd.Seek(off)
				if o, err := rd.Next(); err == nil && o != nil {
					next = o
					break
				}
			}
		}
		e = next
	}
	return ""
}

// name is e's name (DW_AT_name), following origins (originAttr).
func (m *module) name(e *dwarf.Entry) string { return m.originAttr(e, dwarf.AttrName) }

// symbolAt names the function symbol covering pc, demangled.
func (m *module) symbolAt(pc uint64) string { return demangled(m.rawSymbolAt(pc)) }

// rawSymbolAt is the name of the function symbol covering pc as the
// symbol table has it.
func (m *module) rawSymbolAt(pc uint64) string {
	i := sort.Search(len(m.syms), func(i int) bool { return m.syms[i].value > pc }) - 1
	for ; i >= 0; i-- {
		s := m.syms[i]
		if pc < s.value+max(s.size, 1) {
			return s.name
		}
		if s.size > 0 { // a sized symbol that ends before pc: no later match below
			break
		}
	}
	return ""
}
