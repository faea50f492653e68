package pretty

import (
	"strings"
	"unicode/utf8"
)

// maxFunction is the length past which the terminal report shortens a
// function's name. C++ names of template instances run to hundreds of
// characters (std::vector<double, std::allocator<double> >::
// _M_realloc_insert<double const&>(__gnu_cxx::__normal_iterator<double*,
// std::vector<double, std::allocator<double> > >, double const&)); the
// JSON and SARIF reports keep them whole.
const maxFunction = 100

// shortFunction is a demangled C++ function name of at most maxFunction
// characters where it can be: the innermost template argument lists are
// elided ("<…>") level by level, the deepest first, until it fits, and
// the parameter list last ("(…)"). What is left names the function, its
// classes and namespaces and the outermost templates; file:line says the
// rest. A name that fits, or has no template arguments, is kept.
func shortFunction(name string) string {
	for utf8.RuneCountInString(name) > maxFunction {
		spans := templateLists(name)
		deepest := 0
		for _, s := range spans {
			if s.depth > deepest && name[s.lo:s.hi] != "…" {
				deepest = s.depth
			}
		}
		if deepest == 0 {
			break
		}
		var b strings.Builder
		at := 0
		for _, s := range spans {
			if s.depth == deepest && s.lo >= at && name[s.lo:s.hi] != "…" {
				b.WriteString(name[at:s.lo] + "…")
				at = s.hi
			}
		}
		name = b.String() + name[at:]
	}
	if utf8.RuneCountInString(name) > maxFunction {
		if lo, hi := paramList(name); lo >= 0 && hi > lo {
			name = name[:lo] + "…" + name[hi:]
		}
	}
	return name
}

// span is the inside of one bracketed list of a name: name[lo:hi], between
// its brackets, at a nesting depth counted from 1.
type span struct{ lo, hi, depth int }

// operators are the C++ operator names that hold angle brackets, longest
// first: after "operator" they are a name, not a template argument list.
var operators = []string{"<=>", "<<=", ">>=", "->*", "<<", ">>", "<=", ">=", "->", "<", ">"}

// templateLists finds the template argument lists ("<...>") of name. A
// name whose brackets do not pair up has none: it is left as it is.
func templateLists(name string) []span {
	var out []span
	var open []int
	for i := 0; i < len(name); i++ {
		if strings.HasPrefix(name[i:], "operator") && (i == 0 || !identChar(name[i-1])) {
			i += len("operator")
			for _, op := range operators {
				if strings.HasPrefix(name[i:], op) {
					i += len(op)
					break
				}
			}
			i--
			continue
		}
		switch name[i] {
		case '<':
			open = append(open, i)
		case '>':
			if len(open) == 0 {
				return nil
			}
			lo := open[len(open)-1]
			open = open[:len(open)-1]
			out = append(out, span{lo + 1, i, len(open) + 1})
		}
	}
	if len(open) != 0 {
		return nil
	}
	return out
}

// paramList is the inside of the function's parameter list, name[lo:hi]:
// the last top-level parenthesised list, which a qualifier (const, &&) may
// follow; -1, -1 without one.
func paramList(name string) (lo, hi int) {
	depth, end := 0, -1
	for i := len(name) - 1; i >= 0; i-- {
		switch name[i] {
		case ')':
			if depth == 0 {
				end = i
			}
			depth++
		case '(':
			depth--
			if depth == 0 && end >= 0 {
				return i + 1, end
			}
		}
	}
	return -1, -1
}

func identChar(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
