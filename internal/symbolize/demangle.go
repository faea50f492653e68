package symbolize

import (
	"debug/dwarf"
	"strings"

	"github.com/ianlancetaylor/demangle"
)

// C++ (and Rust) functions are known to the linker by their mangled
// names: the symbol table holds _ZN2ns4HaloIdE8exchangeEi, and DWARF's
// DW_AT_name holds only "exchange", without its namespace, class or
// template arguments. The name a user recognises, ns::Halo<double>::
// exchange(int), is the demangled linkage name, as gdb and c++filt show
// it. Every place mpidbg names a function (the report, its JSON and
// SARIF, deadlock stacks, a rank's standard-error lines) takes the name
// from Resolve, so names are demangled here and nowhere else.

// attrMIPSLinkageName is DW_AT_MIPS_linkage_name, which GCC wrote before
// DWARF 4 standardised DW_AT_linkage_name and older compilers still do.
const attrMIPSLinkageName dwarf.Attr = 0x2007

// demangled is name demangled (the Itanium C++ ABI, Rust's schemes), or
// name itself when it is not a mangled name or does not demangle. Two
// parts of the full demangling are left out, as gdb leaves them out:
// clone suffixes (.constprop.0, .isra.0, .cold: the optimizer made the
// clones, the user wrote one function), and the return type that the
// mangled name of a function template instance carries ("std::enable_if<
// ..., double*>::type std::__relocate_a_1<double, double>(...)" is
// std::__relocate_a_1<double, double>(...)).
func demangled(name string) string {
	if len(name) < 2 || name[0] != '_' {
		return name
	}
	a, err := demangle.ToAST(name, demangle.NoClones)
	if err != nil {
		return demangle.Filter(name, demangle.NoClones) // Rust, or not mangled
	}
	full := demangle.ASTToString(a, demangle.NoClones)
	return withoutReturnType(a, full)
}

// withoutReturnType is full, the demangled name of a, without the return
// type that only the mangled names of function template instances have.
// The AST is not printed without it (the printer's substitutions then go
// wrong); the function's name is printed alone and the text before it
// left out.
func withoutReturnType(a demangle.AST, full string) string {
	t, ok := a.(*demangle.Typed)
	if !ok {
		return full
	}
	var ret demangle.AST
	switch ft := t.Type.(type) {
	case *demangle.FunctionType:
		ret = ft.Return
	case *demangle.MethodWithQualifiers: // a const or ref-qualified member function
		if f, ok := ft.Method.(*demangle.FunctionType); ok {
			ret = f.Return
		}
	}
	if ret == nil {
		return full
	}
	fn := demangle.ASTToString(t.Name, demangle.NoClones)
	for i := 1; i < len(full); {
		j := strings.Index(full[i:], fn)
		if j < 0 {
			break
		}
		if i += j; full[i-1] == ' ' && strings.HasPrefix(full[i+len(fn):], "(") {
			return full[i:]
		}
		i++
	}
	return full
}

// linkageName is e's linkage (mangled) name, following abstract origins
// (an inlined or out-of-line instance of a function) and specifications
// (a member function's definition outside its class, whose declaration
// inside the class holds the name), or "" for a function without one (C,
// extern "C", main).
func (m *module) linkageName(e *dwarf.Entry) string {
	return m.originAttr(e, dwarf.AttrLinkageName, attrMIPSLinkageName)
}

// functionName is the name of e, a subprogram or inlined subroutine of
// unit cu whose code holds pc, as a user writes it:
//
//   - its demangled linkage name;
//   - without one (GCC writes none for functions of internal linkage:
//     static, in an anonymous namespace, lambdas), for the function pc
//     is in rather than one inlined into it, the demangled name of the
//     symbol covering pc, when that is a mangled name: the same function;
//   - else, in a C++ unit, its DW_AT_name qualified by the namespaces,
//     classes and functions that enclose its declaration
//     ("main::{lambda}::operator()", "(anonymous namespace)::solve"),
//     without parameters: DWARF would have to spell their types;
//   - else its DW_AT_name (C).
func (m *module) functionName(cu, e *dwarf.Entry, pc uint64) string {
	if l := m.linkageName(e); l != "" {
		if d := demangled(l); d != l {
			return d
		}
	}
	if e.Tag == dwarf.TagSubprogram {
		if s := m.rawSymbolAt(pc); s != "" {
			if d := demangled(s); d != s {
				return d
			}
		}
	}
	if isCXX(cu) {
		if q := m.qualified(cu, e); q != "" {
			return q
		}
	}
	return m.name(e)
}

// isCXX says whether cu's language is C++ (DW_LANG_C_plus_plus and its
// dated versions, DWARF 5 section 7.12).
func isCXX(cu *dwarf.Entry) bool {
	switch lang, _ := cu.Val(dwarf.AttrLanguage).(int64); lang {
	case 0x04, 0x19, 0x1a, 0x21, 0x2a, 0x2b:
		return true
	}
	return false
}

// isFortran says whether cu's language is Fortran (DW_LANG_Fortran77,
// Fortran90, Fortran95, Fortran03, Fortran08, Fortran18; DWARF 5 section
// 7.12).
func isFortran(cu *dwarf.Entry) bool {
	switch lang, _ := cu.Val(dwarf.AttrLanguage).(int64); lang {
	case 0x07, 0x08, 0x0e, 0x22, 0x23, 0x2d:
		return true
	}
	return false
}

// qualified is the name of function entry e with the scopes that enclose
// its declaration (the entry its abstract origin and specification lead
// to), "" when it has no name.
func (m *module) qualified(cu, e *dwarf.Entry) string {
	decl := m.declaration(e)
	name, _ := decl.Val(dwarf.AttrName).(string)
	if name == "" {
		return ""
	}
	parents := m.parentsOf(cu)
	parts := []string{name}
	child := name
	for off, ok := parents[decl.Offset]; ok && len(parts) < 16; off, ok = parents[off] {
		p := m.entryAt(off)
		if p == nil {
			break
		}
		n, _ := p.Val(dwarf.AttrName).(string)
		switch {
		case p.Tag == dwarf.TagSubprogram:
			// a local class's function: the enclosing function's
			// name, which holds its own scopes
			if l := m.linkageName(p); l != "" {
				if d := demangle.Filter(l, demangle.NoParams, demangle.NoClones); d != l {
					n = d
				}
			} else if q := m.qualified(cu, p); q != "" {
				n = q
			}
			if n != "" {
				parts = append(parts, n)
			}
			off = 0 // the enclosing function named every scope
		case n != "":
		case p.Tag == dwarf.TagNamespace:
			n = "(anonymous namespace)"
		case child == "operator()":
			n = "{lambda}" // GCC's closure types have no name
		default:
			n = "{unnamed type}"
		}
		if p.Tag != dwarf.TagSubprogram {
			parts = append(parts, n)
		}
		child = n
		if off == 0 {
			break
		}
	}
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, "::")
}

// declaration follows e's abstract origin and specification to the entry
// that declares the function (the one with its name and scope).
func (m *module) declaration(e *dwarf.Entry) *dwarf.Entry {
	for hops := 0; hops < 4; hops++ {
		var next *dwarf.Entry
		for _, a := range []dwarf.Attr{dwarf.AttrAbstractOrigin, dwarf.AttrSpecification} {
			if off, ok := e.Val(a).(dwarf.Offset); ok {
				next = m.entryAt(off)
				break
			}
		}
		if next == nil {
			break
		}
		e = next
	}
	return e
}

func (m *module) entryAt(off dwarf.Offset) *dwarf.Entry {
	rd := m.d.Reader()
	rd.Seek(off)
	e, err := rd.Next()
	if err != nil {
		return nil
	}
	return e
}

// parentsOf indexes unit cu once: for each namespace, class, structure,
// union and subprogram entry, the offset of the scope entry it is in
// (none at the unit's top level).
func (m *module) parentsOf(cu *dwarf.Entry) map[dwarf.Offset]dwarf.Offset {
	if p, ok := m.parents[cu.Offset]; ok {
		return p
	}
	out := map[dwarf.Offset]dwarf.Offset{}
	if m.parents == nil {
		m.parents = map[dwarf.Offset]map[dwarf.Offset]dwarf.Offset{}
	}
	m.parents[cu.Offset] = out
	rd := m.d.Reader()
	rd.Seek(cu.Offset)
	if _, err := rd.Next(); err != nil {
		return out
	}
	var stack []dwarf.Offset // entries whose children are being read; 0: not a scope
	for {
		e, err := rd.Next()
		if err != nil || e == nil {
			return out
		}
		if e.Tag == 0 {
			if len(stack) == 0 {
				return out // the unit's end
			}
			stack = stack[:len(stack)-1]
			continue
		}
		scope := false
		switch e.Tag {
		case dwarf.TagNamespace, dwarf.TagClassType, dwarf.TagStructType, dwarf.TagUnionType, dwarf.TagSubprogram:
			scope = true
			for i := len(stack) - 1; i >= 0; i-- {
				if stack[i] != 0 {
					out[e.Offset] = stack[i]
					break
				}
			}
		}
		if !e.Children {
			continue
		}
		switch e.Tag {
		case dwarf.TagNamespace, dwarf.TagClassType, dwarf.TagStructType, dwarf.TagUnionType, dwarf.TagSubprogram,
			dwarf.TagLexDwarfBlock:
			if scope {
				stack = append(stack, e.Offset)
			} else {
				stack = append(stack, 0)
			}
		default:
			rd.SkipChildren()
		}
	}
}
